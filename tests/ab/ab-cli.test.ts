/**
 * `servebench ab`'s edges through the real CLI: bad input refused before any launch (exit 2, naming
 * the option and the fix); an arm that fails ends the A/B with exit 1 and keeps what was measured;
 * SIGINT stops the server and writes what was measured (exit 130). Real sims on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { listening } from '../kit/listening.ts';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../harness/lib/process/spawn-cli.ts';
import { runCli } from '../cli/run-cli.ts';
import { ONE_POINT, outFile, plantedSim, readAb } from './planted-sim.ts';

describe('servebench ab: bad input is refused before anything is launched (exit 2)', () => {
  const engine = plantedSim();
  const base = ['ab', '--engine', engine, ...ONE_POINT];
  it.each([
    [['--a', '1.2.0', '--b', '1.2.0'], /--a and --b are both 1\.2\.0: .*give two releases, or add --allow-aa/],
    [['--a', '1.2.0'], /--b is required: the release of arm B/],
    [['--a', '1.2.0', '--b', '1.3.0', '--metric', 'throughput'], /--metric: "throughput" is not a metric ab compares; give one of output_throughput, request_throughput, .*ttft_ms_p50/],
    [['--a', '1.2.0', '--b', '1.3.0', '--effect', '0'], /--effect: 0 is too small; it must be > 0/],
    [['--a', '1.2.0', '--b', '1.3.0', '--effect=-0.1'], /--effect: -0\.1 is too small; it must be > 0/],
    [['--a', '1.2.0', '--b', '1.3.0', '--effect', '0.02'], /--effect 0\.02 is not larger than --margin 0\.03/],
    [['--a', '1.2.0', '--b', '1.3.0', '--pilot-blocks', '1'], /--pilot-blocks: 1 is too small; it must be ≥ 2/],
    [['--a', '1.2.0', '--b', '1.3.0', '--blocks', '3', '--max-blocks', '8'], /--max-blocks applies to --blocks auto only/],
    [['--a', '1.2.0', '--b', '1.3.0', '--launcher', 'external'], /--launcher external: ab launches each arm at its own release/],
    [['--a', '1.2.0', '--b', '1.3.0', '--concurrency', '1,2'], /--concurrency: the load is 2 points \(concurrency 1; concurrency 2\); ab compares one/],
  ])('%j', async (extra, message) => {
    const outcome = await runCli([...base, ...extra]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(message);
    expect(outcome.stderr).not.toMatch(/^ab: /m);
  });

  it('an engine that cannot be launched at a release, and an --out that exists, are refused too', async () => {
    const vllm = await runCli(['ab', '--engine', 'vllm', '--a', '0.10.0', '--b', '0.11.0', '--model', 'm', '--workload', 'smoke', '--concurrency', '1']);
    expect(vllm.code).toBe(2);
    expect(vllm.stderr).toMatch(/--engine-version 0\.10\.0: engine vllm launched as a process .* no serve flag to ask for a release/);
    const out = outFile();
    writeFileSync(out, '{}');
    const exists = await runCli([...base, '--a', '1.2.0', '--b', '1.3.0', '--out', out]);
    expect(exists.code).toBe(2);
    expect(exists.stderr).toMatch(/--out: .*ab\.json already exists; an A\/B's output is never overwritten/);
  });
});

describe('servebench ab: an arm that fails, and a stop signal', () => {
  it('an arm run that fails ends the A/B with exit 1; the output keeps every run so far and the failed one', { timeout: 120_000 }, async () => {
    const out = outFile();
    // The planted sim refuses a release it cannot order ("v9" is not a version such as 1.3.0): arm B's server never starts.
    const outcome = await runCli(['ab', '--engine', plantedSim(), '--a', '1.2.0', '--b', 'v9', ...ONE_POINT, '--pilot-blocks', '2', '--blocks', '2', '--out', out], 120_000);
    expect(outcome.code, outcome.stderr).toBe(1);
    expect(outcome.stderr).toMatch(/ab: arm B failed at main block 1: the run failed during (launch|health)/);
    const ab = readAb(out);
    expect(ab).toMatchObject({ status: 'failed', verdict: null, effect: null, interval: null, stopped: { stage: 'main', block: 0, arm: 'B' } });
    expect(ab.aa.blocks).toHaveLength(2);
    expect(ab.stopped!.run.status).toBe('failed');
    expect(ab.stopped!.run.run!.failure!.log_tail.join('\n')).toMatch(/"v9" is not a version/);
    // Block 0 runs A first: its completed A run is kept with the failure.
    expect(ab.stopped!.partial_block).toMatchObject({ status: 'completed', run: { engine: { version: '1.2.0' } } });
    expect(ab.passes).toEqual([{ name: 'main', blocks: [], comparison: null }]);
  });

  it('SIGINT: the running arm\'s server is stopped, what was measured is written (interrupted), exit 130', { timeout: 60_000 }, async () => {
    const out = outFile();
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_PATH, 'ab', '--engine', plantedSim(), '--a', '1.2.0', '--b', '1.3.0', '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '2', '--num-prompts', '2000', '--tokenizer', 'none', '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    // Once the first arm measures (the lengths warning comes after its probe), not after a fixed delay.
    await new Promise<void>((resolve) => child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/prompt lengths/.test(stderr)) resolve();
    }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(130);
    expect(stderr).toMatch(/SIGINT; stopping the A\/B and its server/);
    expect(existsSync(out)).toBe(true);
    const ab = readAb(out);
    expect(ab).toMatchObject({ status: 'interrupted', verdict: null, stopped: { stage: 'pilot', block: 0, arm: 'A', message: 'interrupted' } });
    expect(ab.stopped!.run.status).toBe('interrupted');
    expect(await listening(Number(ab.stopped!.run.run!.parameters['port']))).toBe(false);
  });
});
