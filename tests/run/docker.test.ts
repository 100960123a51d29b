/**
 * The docker launcher, against a faithful fake `docker` executable on PATH
 * (tests/fixtures/fake-docker/docker): no Docker daemon can run here. The fake records every argv
 * and runs the simulated engine as the "container" on the published port.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dockerRunArgs } from '../../harness/measure/run/docker-launcher.ts';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { runCli } from '../cli/run-cli.ts';

const FAKE = resolve('tests/fixtures/fake-docker');

function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });
}

function findJson(dir: string): string {
  for (const name of readdirSync(dir, { recursive: true }) as string[]) if (name.endsWith('.json')) return join(dir, name);
  throw new Error(`no result in ${dir}`);
}

describe('docker launcher (fake docker CLI)', () => {
  it('pulls (retrying a transient failure), records the digest, runs on the given GPU with the port on 127.0.0.1, removes the container', { timeout: 60_000 }, async () => {
    const state = mkdtempSync(join(tmpdir(), 'fake-docker-'));
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(
      ['run', '--engine', 'sim', '--launcher', 'docker', '--image', 'servebench/sim:test', '--model', 'sim-model', '--workload', 'smoke', '--gpu', '1', '--results-dir', results],
      60_000,
      { PATH: `${FAKE}:${process.env['PATH']}`, FAKE_DOCKER_STATE: state, FAKE_DOCKER_PULL_FAILS: '1' },
    );
    expect(outcome.code).toBe(0);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(findJson(results), 'utf8')));
    expect(result.run!.engine).toMatchObject({ launcher: 'docker', image: 'servebench/sim:test', image_digest: expect.stringMatching(/^servebench\/sim@sha256:[0-9a-f]{64}$/) });
    const calls = readFileSync(join(state, 'argv.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as string[]);
    expect(calls.filter((c) => c[0] === 'pull')).toHaveLength(2);
    const run = calls.find((c) => c[0] === 'run')!;
    const port = Number(result.run!.parameters['port']);
    expect(run).toEqual(expect.arrayContaining(['--gpus', '"device=1"', '--publish', `127.0.0.1:${port}:${port}`, '--host', '0.0.0.0']));
    expect(run.slice(run.indexOf('--entrypoint'), run.indexOf('--entrypoint') + 3)).toEqual(['--entrypoint', 'npx', 'servebench/sim:test']);
    expect(calls.at(-1)![0]).toBe('rm');
    expect(calls.some((c) => c[0] === 'stats')).toBe(true);
    expect(result.points.some((p) => (p.telemetry!.server!.rss_peak_bytes ?? 0) > 10_000_000)).toBe(true);
    expect(await listening(port)).toBe(false);
    const name = run[run.indexOf('--name') + 1]!;
    expect(existsSync(join(state, `${name}.pid`))).toBe(false);
  });

  it('no usable docker: a failed result in the launch phase, not a crash', { timeout: 30_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(
      ['run', '--engine', 'sim', '--launcher', 'docker', '--image', 'x:y', '--model', 'sim-model', '--workload', 'smoke', '--results-dir', results],
      30_000,
      { PATH: `${FAKE}:${process.env['PATH']}`, FAKE_DOCKER_STATE: '' },
    );
    expect(outcome.code).toBe(1);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(findJson(results), 'utf8')));
    expect(result.run!.failure).toMatchObject({ phase: 'launch', message: expect.stringMatching(/docker is not usable here/) });
  });

  it('needs an image: --image, or --engine-version for the official one', async () => {
    const outcome = await runCli(['run', '--engine', 'vllm', '--launcher', 'docker', '--model', 'm', '--workload', 'smoke', '--dry-run']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/--launcher docker needs --image, or --engine-version/);
    const dry = await runCli(['run', '--engine', 'vllm', '--launcher', 'docker', '--engine-version', '0.11.0', '--model', 'm', '--workload', 'smoke', '--gpu', '0,1', '--tp', '2', '--port', '8000', '--dry-run', '--hf-cache', '/models']);
    expect(dry.stdout).toContain(`docker run --detach --name servebench-RUN_ID --gpus '"device=0,1"' --publish 127.0.0.1:8000:8000 --ipc host --volume /models:/root/.cache/huggingface/hub --env HF_HUB_CACHE=/root/.cache/huggingface/hub --entrypoint vllm vllm/vllm-openai:v0.11.0 serve m --generation-config vllm --served-model-name m --host 0.0.0.0 --port 8000 --tensor-parallel-size 2`);
  });

  it('AMD GPUs go in as the ROCm devices, limited to the run\'s own; a Hugging Face token is passed by name only', () => {
    const launch = { image: 'vllm/vllm-openai-rocm:v0.11.0', argv: ['vllm', 'serve', 'm'], port: 8000, gpus: [2, 3], name: 'n', logFile: '', hfCache: null };
    const previous = process.env.HF_TOKEN;
    process.env.HF_TOKEN = 'hf_secret_value';
    try {
      const amd = dockerRunArgs({ ...launch, gpuVendor: 'amd' });
      expect(amd.join(' ')).toContain('--device /dev/kfd --device /dev/dri --group-add video --security-opt seccomp=unconfined --env HIP_VISIBLE_DEVICES=2,3');
      expect(amd).not.toContain('--gpus');
      expect(dockerRunArgs({ ...launch, gpuVendor: 'nvidia' })).toEqual(expect.arrayContaining(['--gpus', '"device=2,3"']));
      // docker reads the value from its own environment: it is in no argument list, so in no recorded command.
      expect(amd.join(' ')).toContain('--env HF_TOKEN ');
      expect(amd.join(' ')).not.toContain('hf_secret_value');
    } finally {
      if (previous === undefined) delete process.env.HF_TOKEN;
      else process.env.HF_TOKEN = previous;
    }
  });
});
