/**
 * The GPU check (docs/testing.md, "The GPU check") up to the device boundary, here, without a GPU:
 * scripts/device-check/prepare.ts makes the carried folder; a copy of the tracked tree with that
 * folder beside it, and no node_modules, stands for what the device tool sends; the carried Node,
 * unpacked, runs the one-file CLI there (help, the build list, a real llama.cpp run on the CPU);
 * and on-device.sh runs as it would there up to the CUDA build, where it must stop, saying why,
 * with its logs in $OUT. No CUDA compile happens here: nvcc is kept off PATH and CUDA_PATH.
 *
 * The one fake: tests/fixtures/fake-nvidia-smi stands for the device's nvidia-smi (its `-q` and
 * its `--query-gpu … -lms` loop, with invented values); nothing here reads its numbers.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { ensureDummyModel, ensureDummyTokenizer } from '../../harness/engines/embedded/dummy-model.ts';
import { buildOfCommit } from '../../harness/measure/builds/llamacpp-build.ts';
import { installedSource } from '../../harness/measure/builds/llamacpp-source.ts';
import { checkPrunedTree, DEVICE_CHECK_DIR, DEVICE_TREE_LIMIT, HEADROOM, prepare, workingTreeFiles } from '../../scripts/device-check/prepare.ts';
import { resultFilesIn } from '../cli/run-cli.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const FAKE_NVIDIA_SMI = fileURLToPath(new URL('../fixtures/fake-nvidia-smi', import.meta.url));
/** Where the device tool says $OUT's files may come from: at most 8, plain names, each under 16 MiB. */
const OUT_FILES = 8;
const OUT_FILE_BYTES = 16 * 1024 ** 2;
const PLAIN_NAME = /^[A-Za-z0-9._-]+$/;

const scratch = mkdtempSync(join(tmpdir(), 'sb-device-check-'));
/** The device's copy of the checkout: what the device tool sends (tracked and untracked, not ignored, files) and the carried folder; no node_modules, no .git. */
const device = join(scratch, 'checkout');
const bin = join(scratch, 'bin');
/** PATH with neither node_modules/.bin nor the CUDA toolkit (/usr/local/bin and /usr/local/cuda/bin hold nvcc here). */
const basePath = '/usr/bin:/bin';
let sizes: { carried: number; tree: number; bundle: number };

function runNode(args: readonly string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(join(bin, 'node'), ['.device-check/servebench.mjs', ...args], { cwd: device, encoding: 'utf8', timeout: 120_000, env: { PATH: `${bin}:${basePath}`, HOME: scratch, ...env } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(async () => {
  sizes = await prepare();
  for (const file of workingTreeFiles()) cpSync(join(REPO, file), join(device, file));
  cpSync(DEVICE_CHECK_DIR, join(device, '.device-check'), { recursive: true });
  mkdirSync(bin);
  execFileSync('sh', ['-c', 'xz -dc "$1" > "$2" && chmod +x "$2"', 'unxz', join(device, '.device-check', 'node.xz'), join(bin, 'node')]);
}, 1_200_000);

describe('the carried folder', () => {
  it('with the working tree, fits the device limit less the headroom', () => {
    expect(sizes.carried + sizes.tree).toBeLessThanOrEqual(DEVICE_TREE_LIMIT - HEADROOM);
    const files = readdirSync(DEVICE_CHECK_DIR).sort();
    expect(files).toEqual(['cache.tar.xz', 'check.env', 'llama.cpp-src.tar.xz', 'manifest.json', 'node.xz', 'servebench.mjs']);
    const carried = files.reduce((sum, file) => sum + statSync(join(DEVICE_CHECK_DIR, file)).size, 0);
    expect(carried).toBe(sizes.carried);
    expect(statSync(join(DEVICE_CHECK_DIR, 'servebench.mjs')).size).toBe(sizes.bundle);
  });

  it('names the installed release\'s tag and the harness commit for on-device.sh', async () => {
    const env = Object.fromEntries(readFileSync(join(DEVICE_CHECK_DIR, 'check.env'), 'utf8').trim().split('\n').map((line) => line.split('=', 2) as [string, string]));
    expect(env['ENGINE_VERSION']).toBe((await installedSource()).tag);
    expect(env['HARNESS_REVISION']).toBe(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim());
    expect(env['CHECK_MODEL']).toMatch(/^dummy:[\w.-]+:F16$/);
  });
});

describe('the pruned llama.cpp tree\'s check', () => {
  /** A SYNTHETIC CMake project with llama.cpp's two target names, its server's source at `serverSource`. */
  function tree(serverSource: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'sb-pruned-check-'));
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'CMakeLists.txt'), `cmake_minimum_required(VERSION 3.14)\nproject(synthetic C)\nadd_executable(llama-server ${serverSource})\nadd_executable(llama-quantize main.c)\n`);
    for (const file of ['main.c', 'docs/server.c']) writeFileSync(join(dir, file), 'int main(void) { return 0; }\n');
    return dir;
  }

  it('refuses a build input under a pruned folder, and a tree that is not llama.cpp', () => {
    expect(() => checkPrunedTree(tree('docs/server.c'))).toThrow('docs/server.c is a source of llama-server, llama-quantize but lies under docs, which prepare leaves out');
    expect(() => checkPrunedTree(tree('main.c'))).toThrow('CMake lists 2 sources of llama-server, llama-quantize: not a configured llama.cpp');
  }, 60_000);
});

describe('the one-file CLI, under the carried Node, in a checkout without node_modules', () => {
  it('is Node 24 and finds no node_modules to lean on', () => {
    expect(execFileSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' })).toMatch(/^v24\./);
    expect(existsSync(join(device, 'node_modules'))).toBe(false);
  });

  it('prints the help of run and of llamacpp build (with --source-tree)', () => {
    const run = runNode(['run', '--help']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('--gpu LIST');
    const build = runNode(['llamacpp', '--help']);
    expect(build.status, build.stderr).toBe(0);
    expect(build.stdout).toContain('--source-tree DIR');
  });

  it('lists the builds of the cache it is given', () => {
    const cache = join(scratch, 'list-cache');
    // A SYNTHETIC cache entry (no binary): list reads build.json only.
    const entry = join(cache, 'llama.cpp', `${'ab'.repeat(20)}-cuda-90`);
    mkdirSync(join(entry, 'bin'), { recursive: true });
    writeFileSync(join(entry, 'build.json'), JSON.stringify({ tag: 'v0.4.0', commit: 'ab'.repeat(20), node_llama_cpp: '3.21.1', targets: ['llama-server', 'llama-quantize'], cmake_flags: ['-DGGML_CUDA=ON', '-DCMAKE_CUDA_ARCHITECTURES=90'], built_at: '2026-12-04T00:00:00.000Z', build_seconds: 300, jobs: 16 }));
    const list = runNode(['llamacpp', 'list'], { SERVEBENCH_CACHE: cache });
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain(`llama.cpp v0.4.0 (node-llama-cpp 3.21.1, bundle ${'ab'.repeat(5)}), a CUDA build, built in 300 s → ${entry}/bin/llama-server`);
  });

  it('plans a --gpu 0 run on a CUDA build, reading the GGUF with the bundled reader for the fit check', () => {
    const cache = join(scratch, 'gpu-cache');
    // A SYNTHETIC CUDA build entry: --dry-run launches nothing, so its binary need not exist.
    const entry = join(cache, 'llama.cpp', `${'cd'.repeat(20)}-cuda-90`);
    mkdirSync(join(entry, 'bin'), { recursive: true });
    writeFileSync(join(entry, 'build.json'), JSON.stringify({ tag: 'v0.4.0', commit: 'cd'.repeat(20), node_llama_cpp: '3.21.1', targets: ['llama-server', 'llama-quantize'], cmake_flags: ['-DGGML_CUDA=ON', '-DCMAKE_CUDA_ARCHITECTURES=90'], built_at: '2026-12-04T00:00:00.000Z', build_seconds: 300, jobs: 16 }));
    const model = ensureDummyModel(join(scratch, 'models'), 'micro');
    const env = { SERVEBENCH_CACHE: cache, PATH: `${bin}:${FAKE_NVIDIA_SMI}:${basePath}` };
    const args = ['run', '--engine', 'llamacpp', '--launcher', 'process', '--gpu', '0', '--engine-version', 'v0.4.0', '--model', model, '--tokenizer', ensureDummyTokenizer(model, 'micro'), '--workload', 'smoke', '--max-num-seqs', '2', '--dry-run'];
    const planned = runNode([...args, '--max-model-len', '512'], env);
    expect(planned.status, planned.stderr).toBe(0);
    expect(planned.stdout).toContain(`command:  ${join(entry, 'bin', 'llama-server')} --model ${model}`);
    expect(planned.stdout).toContain('--n-gpu-layers 999 --fit off');
    // The micro model's KV (2 layers × 2 KV heads × (16 + 16) × 2 bytes = 256 B a token) against the fake's 81559 MiB.
    const refused = runNode([...args, '--kv-budget-tokens', '1000000000'], env);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('llama.cpp cannot hold this configuration on 1 GPU(s) of 79.6 GiB');
    expect(refused.stderr).toContain('= 238.4 GiB');
  });

  it('runs llama.cpp (the installed release\'s CPU build) on a dummy model, and the result validates', async () => {
    const installed = await installedSource();
    const build = buildOfCommit(installed.commit);
    expect(build, 'run `servebench llamacpp build` (npm test does it in pretest)').not.toBeNull();
    const model = ensureDummyModel(join(scratch, 'models'), 'micro');
    const results = join(scratch, 'results');
    // The device copy has no .git: the harness commit comes from .image-revision, as on-device.sh writes it.
    writeFileSync(join(device, '.image-revision'), `${execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim()}\n`);
    const run = runNode(
      ['run', '--engine', 'llamacpp', '--launcher', 'process', '--engine-version', installed.tag, '--model', model, '--tokenizer', ensureDummyTokenizer(model, 'micro'), '--workload', 'smoke', '--max-model-len', '512', '--max-num-seqs', '2', '--results-dir', results, '--no-progress'],
      { SERVEBENCH_CACHE: join(build!.dir, '..', '..') },
    );
    expect(run.status, run.stderr).toBe(0);
    const [file] = resultFilesIn(results);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(file!, 'utf8')));
    expect(result.status).toBe('completed');
    expect(result.run!.engine.command[0]).toBe(build!.binary('llama-server'));
    expect(result.points.map((point) => point.metrics.completed)).toEqual([8, 8]);
    for (const point of result.points) expect(Object.values(point.failures).every((n) => n === 0)).toBe(true);
    const validate = runNode(['validate', '--results', results]);
    expect(validate.status, validate.stdout + validate.stderr).toBe(0);
  }, 300_000);
});

describe('on-device.sh here: a fake nvidia-smi, no CUDA toolkit', () => {
  it('unpacks, records nvidia-smi, stops at the CUDA build saying why, and leaves its logs in $OUT', () => {
    const out = join(scratch, 'out');
    mkdirSync(out);
    const noCuda = mkdtempSync(join(tmpdir(), 'sb-no-cuda-'));
    const run = spawnSync('bash', [join(device, 'scripts', 'device-check', 'on-device.sh')], {
      cwd: device,
      encoding: 'utf8',
      timeout: 300_000,
      env: { PATH: `${FAKE_NVIDIA_SMI}:${basePath}`, HOME: scratch, OUT: out, DEVICE_CHECK_WORK: join(scratch, 'work'), CUDA_PATH: noCuda, CUDACXX: '' },
    });
    const steps = readFileSync(join(out, 'steps.log'), 'utf8');
    expect(run.status, steps).toBe(1);
    expect(steps).toMatch(/node v24\.\d+\.\d+/);
    expect(steps).toContain('FAILED: the CUDA build failed or ran past 400 s (build.log)');
    expect(readFileSync(join(out, 'build.log'), 'utf8')).toContain('--cuda: no CUDA toolkit here (no nvcc on PATH or in');
    expect(readFileSync(join(out, 'nvidia-smi-q.txt'), 'utf8')).toContain('NVIDIA-SMI 550.54.15');
    // The sampler ran until the step failed: at least its first sample, in the fake's columns.
    expect(readFileSync(join(out, 'nvidia-smi.csv'), 'utf8')).toMatch(/^0, \d+, 300\.00, 87, 1980$/m);
    // The tree it would have built: unpacked, with the bundle's identity.
    const manifest = JSON.parse(readFileSync(join(scratch, 'work', 'llama.cpp-src', 'servebench-source.json'), 'utf8')) as { commit: string };
    expect(manifest.commit).toMatch(/^[0-9a-f]{40}$/);
    const files = readdirSync(out);
    expect(files.sort()).toEqual(['build.log', 'nvidia-smi-q.txt', 'nvidia-smi.csv', 'steps.log']);
    expect(files.length).toBeLessThanOrEqual(OUT_FILES);
    for (const file of files) {
      expect(file).toMatch(PLAIN_NAME);
      expect(statSync(join(out, file)).size).toBeLessThan(OUT_FILE_BYTES);
    }
    expect(existsSync(join(out, 'result.json'))).toBe(false);
  }, 300_000);

  it('stops before anything else when the carried folder is missing', () => {
    const bare = join(scratch, 'bare');
    mkdirSync(join(bare, 'scripts', 'device-check'), { recursive: true });
    cpSync(join(device, 'scripts', 'device-check', 'on-device.sh'), join(bare, 'scripts', 'device-check', 'on-device.sh'));
    const out = join(scratch, 'out-bare');
    const run = spawnSync('bash', [join(bare, 'scripts', 'device-check', 'on-device.sh')], { encoding: 'utf8', env: { PATH: basePath, OUT: out, DEVICE_CHECK_WORK: join(scratch, 'work-bare') } });
    expect(run.status).toBe(1);
    expect(readFileSync(join(out, 'steps.log'), 'utf8')).toContain(`FAILED: ${join(bare, '.device-check')}/node.xz is missing: run scripts/device-check/prepare.ts here and carry .device-check`);
  });
});
