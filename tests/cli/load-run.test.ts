/** `servebench load` end to end, as a script would run it: real CLI process, real sim process. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSim, type SimChild, CLI_PATH } from '../../harness/lib/process/spawn-cli.ts';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { runCli } from './run-cli.ts';

describe('servebench load against the sim', () => {
  let sim: SimChild;
  let faulty: SimChild;
  const dir = mkdtempSync(join(tmpdir(), 'servebench-load-'));
  beforeAll(async () => {
    [sim, faulty] = await Promise.all([
      spawnSim(['--decode-base-ms', '2', '--decode-per-seq-ms', '0']),
      spawnSim(['--decode-base-ms', '2', '--faults', 'http500=0.5', '--seed', '1']),
    ]);
  });
  afterAll(async () => {
    await Promise.all([sim?.stop(), faulty?.stop()]);
  });

  const common = ['--model', 'sim-model', '--input-len', '16', '--output-len', '8', '--num-prompts', '10', '--warmup', '1'];

  it('writes a schema-valid result, prints the summary table, exits 0', async () => {
    const out = join(dir, 'a.json');
    const outcome = await runCli(['load', '--endpoint', sim.url, ...common, '--concurrency', '1,4', '--slo', 'ttft_ms=500', '--api-key', 'sk-secret', '--out', out]);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/concurrency 1 .*\n.*concurrency 4/s);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.points).toHaveLength(2);
    expect(result.points[1]!.metrics.goodput).not.toBeNull();
    expect(result.target.server_version).toMatch(/-sim$/);
    expect(result.harness.command).toContain('<redacted>');
    expect(readFileSync(out, 'utf8')).not.toContain('sk-secret');
  });

  it('--json prints the result instead of the table; a directory --out gets <run_id>.json', async () => {
    const out = join(dir, 'runs') + '/';
    const outcome = await runCli(['load', '--endpoint', sim.url, ...common, '--json', '--out', out]);
    expect(outcome.code).toBe(0);
    const printed = RunResultSchema.parse(JSON.parse(outcome.stdout));
    expect(readdirSync(out)).toEqual([`${printed.run_id}.json`]);
    expect(JSON.parse(readFileSync(join(out, `${printed.run_id}.json`), 'utf8'))).toEqual(printed);
  });

  it('never overwrites a result: exit 2 before measuring, the file untouched', async () => {
    const out = join(dir, 'existing.json');
    writeFileSync(out, 'keep me');
    const outcome = await runCli(['load', '--endpoint', sim.url, ...common, '--out', out]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/already exists; results are never overwritten/);
    expect(readFileSync(out, 'utf8')).toBe('keep me');
  });

  it('exits 1 when the failure rate exceeds --max-failure-rate, and still writes the result', async () => {
    const out = join(dir, 'faulty.json');
    const outcome = await runCli(['load', '--endpoint', faulty.url, ...common, '--num-prompts', '40', '--out', out]);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(/% of requests failed, above --max-failure-rate 5.0%/);
    expect(outcome.stdout).toMatch(/: \d+ × http_error: HTTP 500: Simulated internal server error \(--faults http500\)\.\n/);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.outcome.exceeded_max_failure_rate).toBe(true);
    expect(result.points[0]!.failures.http_error).toBeGreaterThan(5);
    // What the server said, with how many requests it said it to.
    expect(result.points[0]!.failure_messages).toEqual([{ class: 'http_error', message: 'HTTP 500: Simulated internal server error (--faults http500).', count: result.points[0]!.failures.http_error }]);
    const relaxed = await runCli(['load', '--endpoint', faulty.url, ...common, '--num-prompts', '40', '--max-failure-rate', '1']);
    expect(relaxed.code).toBe(0);
  });

  it('a result that cannot be written is printed to stdout instead, with exit status 3', async () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, '');
    const outcome = await runCli(['load', '--endpoint', sim.url, ...common, '--out', join(blocker, 'result.json')]);
    expect(outcome.code).toBe(3);
    expect(outcome.stderr).toMatch(/cannot write .*result\.json.*; the result was printed to stdout instead/);
    expect(RunResultSchema.parse(JSON.parse(outcome.stdout)).points).toHaveLength(1);
  });

  it('a model the server does not serve is exit 2, naming what it serves', async () => {
    const outcome = await runCli(['load', '--endpoint', sim.url, '--model', 'nope']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/"nope" is not served by .*; it serves: sim-model/);
  });

  it('SIGINT keeps the completed points, writes the result and exits 130', { timeout: 30_000 }, async () => {
    const out = join(dir, 'interrupted.json');
    await fetch(`${sim.url}/ground-truth`, { method: 'DELETE' });
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_PATH, 'load', '--endpoint', sim.url, ...common, '--concurrency', '1,1,1,1,1,1,1,1,1,1,1,1', '--num-prompts', '20', '--out', out, '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    // Interrupt once the first point (1 warmup + 20 measured requests) is over and the second has begun.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const truth = (await (await fetch(`${sim.url}/ground-truth`)).json()) as { requests: Array<{ request_id: string }> };
      if (truth.requests.some((t) => t.request_id.includes('-p1-')) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(130);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.outcome.interrupted).toBe(true);
    expect(result.status).toBe('interrupted');
    // Whole points only: the one running at the interrupt is dropped, not reported half-measured.
    expect(result.points.length).toBeGreaterThanOrEqual(1);
    expect(result.points.length).toBeLessThan(12);
    expect(result.points.every((point) => point.requests_sent === 20)).toBe(true);
    expect(JSON.parse(stdout)).toEqual(result);
  });
});
