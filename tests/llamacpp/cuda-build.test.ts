/**
 * `servebench llamacpp build --cuda`: refused before anything is fetched where it cannot be made
 * (no CUDA toolkit on this machine, a malformed architecture list, --cuda-arch alone), and kept in
 * the cache beside the CPU build of the same release, so neither replaces the other. The cache
 * entries here are SYNTHETIC build.json files (no llama.cpp is compiled: the compile is the CPU
 * build's path, which the pipeline suite runs for real, with two more CMake flags).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildHasCuda, buildKey, buildOfCommit, chooseLlamaCppBuild, findLlamaCppBuild, listLlamaCppBuilds } from '../../harness/measure/builds/llamacpp-build.ts';
import { findNvcc } from '../../harness/measure/builds/command.ts';
import { runCli } from '../cli/run-cli.ts';

const COMMIT = 'cd'.repeat(20);

function entry(cache: string, key: string, flags: readonly string[], builtAt: string): void {
  const dir = join(cache, 'llama.cpp', key);
  mkdirSync(join(dir, 'bin'), { recursive: true });
  writeFileSync(join(dir, 'build.json'), JSON.stringify({ tag: 'b6122', commit: COMMIT, node_llama_cpp: '3.12.0', targets: ['llama-server', 'llama-quantize'], cmake_flags: flags, built_at: builtAt, build_seconds: 1, jobs: 1 }));
}

describe('llamacpp build --cuda', () => {
  // No CUDA toolkit: a PATH with only the basics, no CUDACXX, and the toolkit's install folder (CUDA_PATH) an empty one.
  const noCuda = { PATH: '/usr/bin:/bin', CUDACXX: '', CUDA_PATH: mkdtempSync(join(tmpdir(), 'sb-no-cuda-')) };

  it('is refused (exit 2) without a CUDA toolkit, naming what was looked for and the fix', async () => {
    expect(findNvcc(noCuda)).toBeNull();
    const outcome = await runCli(['llamacpp', 'build', '--cuda', '--no-progress'], 30_000, { ...noCuda, PATH: `${join(process.execPath, '..')}:${noCuda.PATH}` });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain(`--cuda: no CUDA toolkit here (no nvcc on PATH or in ${noCuda.CUDA_PATH}/bin, CUDACXX unset); install the CUDA toolkit, or leave --cuda out for the CPU build`);
  });

  it('finds nvcc where CMake would: CUDACXX, then PATH', () => {
    const bin = mkdtempSync(join(tmpdir(), 'sb-nvcc-'));
    writeFileSync(join(bin, 'nvcc'), '#!/bin/sh\n', { mode: 0o755 });
    expect(findNvcc({ PATH: `/usr/bin:${bin}` })).toBe(join(bin, 'nvcc'));
    expect(findNvcc({ PATH: '/usr/bin', CUDACXX: join(bin, 'nvcc') })).toBe(join(bin, 'nvcc'));
    expect(findNvcc({ PATH: '/usr/bin', CUDA_PATH: mkdtempSync(join(tmpdir(), 'sb-empty-')) })).toBeNull();
    mkdirSync(join(bin, 'toolkit', 'bin'), { recursive: true });
    writeFileSync(join(bin, 'toolkit', 'bin', 'nvcc'), '#!/bin/sh\n', { mode: 0o755 });
    expect(findNvcc({ PATH: '/usr/bin', CUDA_PATH: join(bin, 'toolkit') })).toBe(join(bin, 'toolkit', 'bin', 'nvcc'));
  });

  it('refuses --cuda-arch without --cuda, and an architecture list CMake would not take', async () => {
    const alone = await runCli(['llamacpp', 'build', '--cuda-arch', '90'], 30_000);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--cuda-arch: only with --cuda (the CPU build has no GPU architectures)');
    const bad = await runCli(['llamacpp', 'build', '--cuda', '--cuda-arch', '90; rm -rf /'], 30_000);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--cuda-arch: "90; rm -rf /" is not a CMAKE_CUDA_ARCHITECTURES list such as 90, 80;90 or native');
  });
});

describe('a CPU and a CUDA build of one release in one cache', () => {
  const cache = mkdtempSync(join(tmpdir(), 'sb-cuda-cache-'));
  const env = { SERVEBENCH_CACHE: cache };
  entry(cache, buildKey(COMMIT), ['-DCMAKE_BUILD_TYPE=Release', '-DGGML_NATIVE=OFF'], '2026-12-01T00:00:00.000Z');
  // Built later: a newest-first listing would put it first.
  entry(cache, buildKey(COMMIT, '80;90'), ['-DCMAKE_BUILD_TYPE=Release', '-DGGML_NATIVE=OFF', '-DGGML_CUDA=ON', '-DCMAKE_CUDA_ARCHITECTURES=80;90'], '2026-12-02T00:00:00.000Z');

  it('are two entries, the CUDA one keyed by its architectures', () => {
    expect(buildKey(COMMIT, '80;90')).toBe(`${COMMIT}-cuda-80_90`);
    expect(listLlamaCppBuilds(env).map((b) => [b.tag, buildHasCuda(b)])).toEqual([['b6122', true], ['b6122', false]]);
    expect(buildHasCuda(buildOfCommit(COMMIT, env)!)).toBe(false);
    expect(buildHasCuda(buildOfCommit(COMMIT, env, '80;90')!)).toBe(true);
    expect(buildOfCommit(COMMIT, env, '90')).toBeNull();
  });

  it('a CPU run finds the CPU build by tag, release or commit; a GPU run the CUDA one', () => {
    for (const version of ['b6122', '3.12.0', COMMIT.slice(0, 10)]) {
      expect(buildHasCuda(findLlamaCppBuild(version, env)!)).toBe(false);
      expect(buildHasCuda(findLlamaCppBuild(version, env, true)!)).toBe(true);
    }
    expect(buildHasCuda(chooseLlamaCppBuild(undefined, COMMIT, env)!)).toBe(false);
    expect(buildHasCuda(chooseLlamaCppBuild(undefined, COMMIT, env, true)!)).toBe(true);
    expect(buildHasCuda(chooseLlamaCppBuild('b6122', null, env, true)!)).toBe(true);
  });

  it('a GPU run with only a CPU build gets the CPU build (run then refuses it, saying why); an unbuilt release is refused', () => {
    const cpuOnly = mkdtempSync(join(tmpdir(), 'sb-cpu-cache-'));
    entry(cpuOnly, buildKey(COMMIT), ['-DGGML_NATIVE=OFF'], '2026-12-01T00:00:00.000Z');
    expect(buildHasCuda(chooseLlamaCppBuild('b6122', null, { SERVEBENCH_CACHE: cpuOnly }, true)!)).toBe(false);
    expect(() => chooseLlamaCppBuild('b7000', null, env, true)).toThrow('--engine-version: no llama.cpp build of "b7000" (built: b6122 (node-llama-cpp 3.12.0, CUDA), b6122 (node-llama-cpp 3.12.0)); build it with `servebench llamacpp build --cuda --node-llama-cpp VERSION`');
  });
});
