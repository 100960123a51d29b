/**
 * The fake docker (tests/fixtures/fake-docker/docker) refuses a `run` as the docker CLI does,
 * before any container exists, with exit 125: an image reference outside the reference grammar,
 * a --gpus request docker's parser rejects (an unquoted device list is a count and devices
 * together), a bad --publish, an unknown flag. Nothing is started for a refused run. What servebench
 * itself passes is accepted: tests/run/docker.test.ts runs real runs through the fake.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dockerRunArgs } from '../../harness/measure/run/docker-launcher.ts';

const FAKE = new URL('../fixtures/fake-docker/docker', import.meta.url).pathname;

function fakeDocker(args: readonly string[]): { status: number | null; stderr: string; state: string } {
  const state = mkdtempSync(join(tmpdir(), 'sb-fake-docker-'));
  const run = spawnSync(FAKE, args, { encoding: 'utf8', env: { ...process.env, FAKE_DOCKER_STATE: state }, timeout: 30_000 });
  return { status: run.status, stderr: run.stderr, state };
}

/** servebench's own `docker run` line for a GPU launch, with one part replaced. */
function runArgs(change: { image?: string; gpus?: string; publish?: string; extra?: readonly string[] } = {}): string[] {
  const args = dockerRunArgs({ image: change.image ?? 'vllm/vllm-openai:v0.11.0', argv: ['vllm', 'serve', 'm'], port: 8000, gpus: [0, 1], name: 'servebench-t', logFile: '', hfCache: null, gpuVendor: 'nvidia' });
  if (change.gpus !== undefined) args[args.indexOf('--gpus') + 1] = change.gpus;
  if (change.publish !== undefined) args[args.indexOf('--publish') + 1] = change.publish;
  if (change.extra !== undefined) args.splice(1, 0, ...change.extra);
  return args;
}

describe('the fake docker refuses a run as the docker CLI does', () => {
  it.each([
    ['an unquoted device list (CSV splits it: a device and a count, which the daemon refuses)', { gpus: 'device=0,1' }, 'Error response from daemon: cannot set both Count and DeviceIDs on device request.'],
    ['a key given twice', { gpus: '"device=0","device=1"' }, `invalid argument "\"device=0\",\"device=1\"" for "--gpus" flag: gpu request key 'device' can be specified only once`],
    ['an unknown --gpus key', { gpus: 'gpu=0' }, `invalid argument "gpu=0" for "--gpus" flag: unexpected key 'gpu' in 'gpu=0'`],
    ['a --gpus count that is no number', { gpus: 'two' }, 'invalid argument "two" for "--gpus" flag: strconv.Atoi: parsing "two": invalid syntax'],
    ['an upper-case repository', { image: 'VLLM/vllm-openai:v0.11.0' }, 'invalid reference format: repository name (VLLM/vllm-openai) must be lowercase'],
    ['a tag with a character tags cannot have', { image: 'vllm/vllm-openai:v0.11.0+cu129' }, 'invalid reference format'],
    ['a port out of range', { publish: '127.0.0.1:8000:70000' }, 'invalid containerPort: 70000'],
    ['an unknown flag', { extra: ['--gpu', 'all'] }, 'unknown flag: --gpu'],
  ] as const)('%s: exit 125, the CLI\'s message, no container', (_what, change, message) => {
    const run = fakeDocker(runArgs(change));
    expect(run.status).toBe(125);
    expect(run.stderr).toContain(`docker: ${message}\n`);
    expect(readdirSync(run.state).filter((file) => file.endsWith('.pid'))).toEqual([]);
  });

  it('what servebench passes parses: the quoted device list, all, a count, registry hosts with ports, digests', () => {
    // Checked without starting anything: `run` with a name already in use stops after the checks.
    for (const change of [{}, { gpus: 'all' }, { gpus: '2' }, { gpus: '"device=0,1",capabilities=compute' }, { image: 'localhost:5000/team/sim:1.0' }, { image: `nvcr.io/nvidia/tensorrt-llm/release@sha256:${'a'.repeat(64)}` }]) {
      const args = runArgs(change);
      const state = mkdtempSync(join(tmpdir(), 'sb-fake-docker-'));
      const pid = join(state, 'servebench-t.pid');
      spawnSync('sh', ['-c', `echo ${process.pid} > '${pid}'`]);
      const run = spawnSync(FAKE, args, { encoding: 'utf8', env: { ...process.env, FAKE_DOCKER_STATE: state }, timeout: 30_000 });
      expect(run.stderr, JSON.stringify(change)).toContain('The container name "/servebench-t" is already in use');
      expect(existsSync(pid)).toBe(true);
    }
  });
});
