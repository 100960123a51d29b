/**
 * The docker launcher, against a FAKE `docker` executable on PATH (tests/fixtures/fake-docker/docker),
 * faithful to the docker reference for the commands used: no Docker daemon can run here. The fake
 * records every argv and runs the simulated engine as the "container" on the published port.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { listening } from '../kit/listening.ts';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dockerRunArgs, launchDocker } from '../../harness/measure/run/docker-launcher.ts';
import { leftoverContainers, ownerLabel } from '../../harness/measure/run/docker-owner.ts';
import { freePort } from '../../harness/measure/run/free-port.ts';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { CLI_PATH, runCli } from '../cli/run-cli.ts';

const FAKE = resolve('tests/fixtures/fake-docker');

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}

/** Every docker command the fake was given, in order. */
function dockerCalls(state: string): string[][] {
  const log = join(state, 'argv.log');
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as string[]) : [];
}

/** The owner label of a servebench that is gone: this process's, with the pid of one that has exited. */
function goneOwner(): string {
  const [, ticks, boot, namespace] = ownerLabel().split(':');
  return [spawnSync('true').pid, ticks, boot, namespace].join(':');
}

/** A servebench owner label with another pid, start, boot or namespace. */
function withOwner(part: 0 | 1 | 2 | 3, value: string | number): string {
  const parts = ownerLabel().split(':');
  parts[part] = String(value);
  return parts.join(':');
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
    // Removed by the daemon however it stops, and labelled with its run and its servebench.
    const id = run[run.indexOf('--name') + 1]!.replace(/^servebench-/, '');
    expect(run.slice(0, 9)).toEqual(['run', '--detach', '--rm', '--name', `servebench-${id}`, '--label', `servebench.run=${id}`, '--label', expect.stringMatching(/^servebench\.owner=\d+:\d+:[0-9a-f]{12}:\d+$/)]);
    // The container is named by the result's own run id: a leftover can be traced to its result.
    expect(id).toBe(result.run_id);
    // Leftovers of gone servebench processes are looked for before anything starts.
    expect(calls[1]).toEqual(['ps', '--all', '--filter', 'label=servebench.owner', '--format', '{{.Names}}\t{{.Label "servebench.owner"}}']);
    expect(calls.some((c) => c[0] === 'wait')).toBe(true);
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
    expect(dry.stdout.replace(/servebench\.owner=[\d:a-f-]+/, 'servebench.owner=OWNER')).toContain(`docker run --detach --rm --name servebench-RUN_ID --label servebench.run=servebench-RUN_ID --label servebench.owner=OWNER --gpus '"device=0,1"' --publish 127.0.0.1:8000:8000 --ipc host --volume /models:/root/.cache/huggingface/hub --env HF_HUB_CACHE=/root/.cache/huggingface/hub --entrypoint vllm vllm/vllm-openai:v0.11.0 serve m --generation-config vllm --served-model-name m --host 0.0.0.0 --port 8000 --tensor-parallel-size 2`);
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

  it('containers left by a servebench that is gone (dead pid, or its pid reused) are removed before the run; any other owner is left alone', async () => {
    const [, ticks] = ownerLabel().split(':');
    const lines = [
      ['dead', goneOwner()],
      ['reused-pid', withOwner(1, Number(ticks) + 1)], // this process's pid, another start: the owner is gone
      ['alive', ownerLabel()],
      ['other-boot', withOwner(2, '0123456789ab')],
      ['other-namespace', withOwner(3, '1')],
      ['not-ours', 'someone else'],
    ].map((fields) => fields.join('\t'));
    expect(leftoverContainers(`${lines.join('\n')}\n`)).toEqual(['dead', 'reused-pid']);
  });

  it('run removes a leftover container of a gone servebench (its engine still serving) before it starts its own', { timeout: 90_000 }, async () => {
    const state = mkdtempSync(join(tmpdir(), 'fake-docker-'));
    const env = { ...process.env, PATH: `${FAKE}:${process.env['PATH']}`, FAKE_DOCKER_STATE: state };
    const oldPort = await freePort();
    // What a servebench killed before it could remove its container left: a running, labelled container.
    execFileSync(join(FAKE, 'docker'), ['run', '--detach', '--rm', '--name', 'servebench-old', '--label', 'servebench.run=old', '--label', `servebench.owner=${goneOwner()}`, '--publish', `127.0.0.1:${oldPort}:${oldPort}`, 'servebench/sim:test'], { env });
    expect(await eventually(() => listening(oldPort), 30_000)).toBe(true);
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(['run', '--engine', 'sim', '--launcher', 'docker', '--image', 'servebench/sim:test', '--model', 'sim-model', '--workload', 'smoke', '--results-dir', results], 60_000, { PATH: env.PATH, FAKE_DOCKER_STATE: state });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stderr).toContain('servebench: removed container servebench-old, left by a servebench process that is gone');
    const calls = dockerCalls(state);
    const removedAt = calls.findIndex((c) => c[0] === 'rm' && c.at(-1) === 'servebench-old');
    expect(removedAt).toBeGreaterThan(0);
    expect(removedAt).toBeLessThan(calls.findIndex((c) => c[0] === 'run' && c.includes('servebench/sim:test') && !c.includes('servebench-old')));
    expect(await listening(oldPort)).toBe(false);
  });

  it('servebench killed with SIGKILL mid-run: its watchdog removes the container (docker rm --force) within seconds', { timeout: 90_000 }, async () => {
    const state = mkdtempSync(join(tmpdir(), 'fake-docker-'));
    const port = await freePort();
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const args = ['run', '--engine', 'sim', '--launcher', 'docker', '--image', 'servebench/sim:test', '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '2', '--num-prompts', '2000', '--tokenizer', 'none', '--port', String(port), '--results-dir', results, '--no-progress'];
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_PATH, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, PATH: `${FAKE}:${process.env['PATH']}`, FAKE_DOCKER_STATE: state } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    try {
      // Measuring: the stats sampler has started on the container.
      expect(await eventually(() => dockerCalls(state).some((c) => c[0] === 'stats'), 60_000), stderr).toBe(true);
      const name = dockerCalls(state).find((c) => c[0] === 'run')!.at(dockerCalls(state).find((c) => c[0] === 'run')!.indexOf('--name') + 1)!;
      expect(await listening(port)).toBe(true);
      const before = dockerCalls(state).length;
      child.kill('SIGKILL');
      await exited;
      expect(await eventually(() => dockerCalls(state).slice(before).some((c) => c.join(' ') === `rm --force ${name}`), 5000), 'the watchdog should remove the container').toBe(true);
      expect(await eventually(async () => !(await listening(port)), 5000)).toBe(true);
      expect(existsSync(join(state, `${name}.pid`))).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a container whose engine exits by itself: docker wait gives its exit code (the container is gone with --rm, so inspect could not)', { timeout: 60_000 }, async () => {
    const state = mkdtempSync(join(tmpdir(), 'fake-docker-'));
    const port = await freePort();
    const saved = { PATH: process.env['PATH'], FAKE_DOCKER_STATE: process.env['FAKE_DOCKER_STATE'] };
    process.env['PATH'] = `${FAKE}:${saved.PATH}`;
    process.env['FAKE_DOCKER_STATE'] = state;
    try {
      const server = await launchDocker({ image: 'servebench/sim:test', argv: ['npx', 'tsx', 'harness/cli.ts', 'sim'], port, gpus: [], name: 'servebench-exits', logFile: join(state, 'engine.log'), hfCache: null });
      try {
        expect(await eventually(() => listening(port), 30_000)).toBe(true);
        expect(server.exitStatus()).toBeNull();
        // The engine dies on its own (nobody removed the container): SIGKILL to its processes.
        process.kill(-Number(readFileSync(join(state, 'servebench-exits.pid'), 'utf8')), 'SIGKILL');
        expect(await eventually(() => server.exitStatus() !== null, 5000)).toBe(true);
        expect(server.exitStatus()).toEqual({ code: 137, signal: null });
      } finally {
        await server.stop();
      }
    } finally {
      process.env['PATH'] = saved.PATH;
      if (saved.FAKE_DOCKER_STATE === undefined) delete process.env['FAKE_DOCKER_STATE'];
      else process.env['FAKE_DOCKER_STATE'] = saved.FAKE_DOCKER_STATE;
    }
  });
});
