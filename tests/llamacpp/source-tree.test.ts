/**
 * `servebench llamacpp build --source-tree DIR`: an unpacked tree (the GPU check's carried source)
 * is built in place, without git, under the identity its manifest gives (the bundle's commit and
 * tag). The trees here are SYNTHETIC: a CMake project whose two targets, llama-server and
 * llama-quantize, are one-line C programs, so the whole build path (configure with servebench's
 * flags, compile the targets, install into the cache) runs in seconds; llama.cpp itself is built
 * from a tree only on the device (scripts/device-check/on-device.sh).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildHasCuda, buildKey, buildLlamaCpp } from '../../harness/measure/builds/llamacpp-build.ts';
import { SOURCE_TREE_MANIFEST, sourceTree } from '../../harness/measure/builds/llamacpp-source-tree.ts';
import { runCli } from '../cli/run-cli.ts';

const COMMIT = 'ef'.repeat(20);

function syntheticTree(manifest: unknown): string {
  const tree = mkdtempSync(join(tmpdir(), 'sb-source-tree-'));
  writeFileSync(
    join(tree, 'CMakeLists.txt'),
    [
      'cmake_minimum_required(VERSION 3.14)',
      'project(synthetic C)',
      'set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)',
      'add_executable(llama-server main.c)',
      'target_compile_definitions(llama-server PRIVATE NAME="server" COMMIT="${LLAMA_BUILD_COMMIT}")',
      'add_executable(llama-quantize main.c)',
      'target_compile_definitions(llama-quantize PRIVATE NAME="quantize" COMMIT="${LLAMA_BUILD_COMMIT}")',
      '',
    ].join('\n'),
  );
  writeFileSync(join(tree, 'main.c'), '#include <stdio.h>\nint main(void) { puts(NAME " " COMMIT); return 0; }\n');
  writeFileSync(join(tree, SOURCE_TREE_MANIFEST), JSON.stringify(manifest));
  return tree;
}

describe('a llama.cpp source tree', () => {
  it('is built in place under its manifest\'s commit and tag, without git', async () => {
    const tree = syntheticTree({ tag: 'v0.4.0', commit: COMMIT, node_llama_cpp: '3.21.1', pruned: ['models', 'docs'] });
    const source = sourceTree(tree);
    expect(source).toMatchObject({ tree, tag: 'v0.4.0', commit: COMMIT, nodeLlamaCpp: '3.21.1' });
    const cache = mkdtempSync(join(tmpdir(), 'sb-source-tree-cache-'));
    const env = { SERVEBENCH_CACHE: cache };
    const stages: string[] = [];
    const { build, cached } = await buildLlamaCpp(source, { jobs: 2, env, onProgress: (p) => stages.push(p.stage) });
    expect(cached).toBe(false);
    // No clone: git is never run (the device machine may have none).
    expect(stages).not.toContain('clone');
    expect(build.dir).toBe(join(cache, 'llama.cpp', buildKey(COMMIT)));
    expect(build).toMatchObject({ tag: 'v0.4.0', commit: COMMIT, node_llama_cpp: '3.21.1' });
    expect(buildHasCuda(build)).toBe(false);
    expect(build.cmake_flags).toContain(`-DLLAMA_BUILD_COMMIT=${COMMIT.slice(0, 7)}`);
    expect(execFileSync(build.binary('llama-server'), { encoding: 'utf8' })).toBe(`server ${COMMIT.slice(0, 7)}\n`);
    expect(execFileSync(build.binary('llama-quantize'), { encoding: 'utf8' })).toBe(`quantize ${COMMIT.slice(0, 7)}\n`);
    // The tree is only read: CMake built out of it.
    expect(existsSync(join(tree, 'CMakeCache.txt'))).toBe(false);
    expect((await buildLlamaCpp(source, { jobs: 2, env })).cached).toBe(true);
  }, 120_000);

  it('is refused without its manifest, with a bad one, or without a CMakeLists.txt', () => {
    const bare = mkdtempSync(join(tmpdir(), 'sb-source-tree-bare-'));
    expect(() => sourceTree(bare)).toThrow(`--source-tree: ${bare} has no ${SOURCE_TREE_MANIFEST}; give a tree scripts/device-check/prepare.ts made`);
    const short = syntheticTree({ tag: 'v0.4.0', commit: 'abc1234', node_llama_cpp: '3.21.1', pruned: [] });
    expect(() => sourceTree(short)).toThrow(/--source-tree: .*servebench-source\.json: commit: a full commit hash/);
    const noCmake = mkdtempSync(join(tmpdir(), 'sb-source-tree-nocmake-'));
    mkdirSync(join(noCmake, 'src'));
    writeFileSync(join(noCmake, SOURCE_TREE_MANIFEST), '{}');
    expect(() => sourceTree(noCmake)).toThrow(`--source-tree: ${noCmake} has no CMakeLists.txt: not a llama.cpp source tree`);
  });

  it('is one source: not with --node-llama-cpp', async () => {
    const tree = syntheticTree({ tag: 'v0.4.0', commit: COMMIT, node_llama_cpp: '3.21.1', pruned: [] });
    const outcome = await runCli(['llamacpp', 'build', '--source-tree', tree, '--node-llama-cpp', '3.6.0']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('--source-tree: not with --node-llama-cpp (each names the source to build)');
  });
});
