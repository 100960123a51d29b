/**
 * `servebench run` end to end with the process launcher and the simulated engine: results written
 * and valid, and teardown leaving nothing running — after success, a health timeout, a server
 * crash mid-run, a missing program, and SIGINT.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { listening } from '../kit/listening.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../harness/lib/process/spawn-cli.ts';
import { RunResultSchema, type RunResult } from '../../harness/contract/result.ts';
import { runCli, resultFilesIn } from '../cli/run-cli.ts';
import { SIM_COMMAND, SIM_SHELL, writeSimEngineVariant } from './sim-engine-spec.ts';

function onlyResult(dir: string): RunResult {
  const files = resultFilesIn(dir);
  expect(files).toHaveLength(1);
  return RunResultSchema.parse(JSON.parse(readFileSync(files[0]!, 'utf8')));
}

describe('servebench run (process launcher, simulated engine)', () => {
  it('launches, probes, measures, tears down and writes a valid result under a content-derived path', { timeout: 60_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(['run', '--engine', 'sim', '--model', 'sim-model', '--workload', 'smoke', '--results-dir', results, '--tokenizer', 'tests/fixtures/tokenizer-words']);
    expect(outcome.code).toBe(0);
    const result = onlyResult(results);
    expect(result).toMatchObject({ kind: 'run', status: 'completed', workload: { name: 'smoke', lengths: 'exact' } });
    expect(result.run).toMatchObject({ engine: { name: 'sim', launcher: 'process', version: expect.stringMatching(/-sim$/) }, failure: null });
    expect(result.run!.probe).toMatchObject({ ignore_eos_honoured: true, usage: 'usage_chunk', tokenize_endpoint: true, metrics_endpoint: true });
    expect(result.points.map((p) => p.metrics.completed)).toEqual([8, 8]);
    expect(resultFilesIn(results)[0]).toMatch(new RegExp(`/${result.created_at.slice(0, 10)}/sim/sim-model/cpu-[^/]+/smoke-[0-9a-f]{12}\\.json$`));
    expect(await listening(Number(result.run!.parameters['port']))).toBe(false);
  });

  it('run takes --extra-body and --no-ignore-eos and records them; a reserved field, and official results without exact lengths, are refused', { timeout: 60_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(['run', '--engine', 'sim', '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '1', '--results-dir', results, '--extra-body', '{"top_p":0.5}', '--no-ignore-eos', '--tokenizer', 'none']);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stderr).toMatch(/prompt lengths are APPROXIMATE/);
    const result = onlyResult(results);
    expect(result.workload.extra_body).toEqual({ top_p: 0.5 });
    expect(result.workload.spec.sampling.ignore_eos).toBe(false);
    expect(result.workload.lengths).toBe('approximate');
    expect(result.harness.command).toEqual(expect.arrayContaining(['--extra-body', '{"top_p":0.5}', '--no-ignore-eos']));
    const refused = await runCli(['run', '--engine', 'sim', '--model', 'sim-model', '--workload', 'smoke', '--results-dir', results, '--extra-body', '{"ignore_eos":false}']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--extra-body: ignore_eos is set by servebench; use .*--no-ignore-eos/);
    const official = await runCli(['run', '--engine', 'sim', '--model', 'sim-model', '--workload', 'smoke', '--results-dir', results, '--source', 'official', '--tokenizer', 'none']);
    expect(official.code).toBe(2);
    expect(official.stderr).toMatch(/official results need exact prompt lengths/);
  });

  it('a server that never becomes healthy: failed result (phase health, log tail), nothing left running', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-engines-'));
    const engine = writeSimEngineVariant(dir, { name: 'never-healthy', command: SIM_COMMAND, healthPath: '/not-a-health-path', healthTimeoutS: 3 });
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(['run', '--engine', engine, '--model', 'sim-model', '--workload', 'smoke', '--results-dir', results]);
    expect(outcome.code).toBe(1);
    const result = onlyResult(results);
    expect(result.status).toBe('failed');
    expect(result.run!.failure).toMatchObject({ phase: 'health', message: expect.stringMatching(/not healthy after 3 s/) });
    expect(result.run!.failure!.log_tail.join('\n')).toMatch(/servebench sim listening/);
    expect(result.points).toEqual([]);
    expect(await listening(Number(result.run!.parameters['port']))).toBe(false);
  });

  it('a program that does not exist: failed result in the launch phase', { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-engines-'));
    const engine = writeSimEngineVariant(dir, { name: 'missing', command: ['no-such-engine-binary-xyz'] });
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(['run', '--engine', engine, '--model', 'm', '--workload', 'smoke', '--results-dir', results]);
    expect(outcome.code).toBe(1);
    expect(onlyResult(results).run!.failure).toMatchObject({ phase: 'launch', message: expect.stringMatching(/not found/) });
  });

  it('a server that crashes mid-run: the completed points are kept, the run is failed, the group is gone', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-engines-'));
    // The engine's launcher script starts the sim, then kills it 2.5 s later.
    const script = `${SIM_SHELL} --model-name "$1" --port "$2" & sleep 2.5; kill $!; wait`;
    const engine = writeSimEngineVariant(dir, { name: 'crashes', command: ['bash', '-c', script, 'engine', '{model}', '{port}'], modelAndPort: 'in-command' });
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    // 30 points take ~7 s on the sim: the kill at 2.5 s always lands mid-sweep, after some points.
    const outcome = await runCli(['run', '--engine', engine, '--model', 'sim-model', '--workload', 'smoke', '--concurrency', Array(30).fill('1').join(','), '--results-dir', results]);
    expect(outcome.code).toBe(1);
    const result = onlyResult(results);
    expect(result.status).toBe('failed');
    expect(result.run!.failure!.phase).toBe('measure');
    expect(result.points.length).toBeGreaterThan(0);
    expect(await listening(Number(result.run!.parameters['port']))).toBe(false);
  });

  it('SIGINT: the server is stopped, the result is written (interrupted), exit 130', { timeout: 60_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_PATH, 'run', '--engine', 'sim', '--model', 'sim-model', '--workload', 'smoke', '--num-prompts', '2000', '--results-dir', results], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    // The signal once the run is measuring (the lengths warning comes after the probe), not after a
    // fixed delay: on a loaded machine a fixed delay can land before the handlers are installed.
    const measuring = new Promise<void>((resolve) => child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/prompt lengths/.test(stderr)) resolve();
    }));
    await measuring;
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(130);
    const result = onlyResult(results);
    expect(result.status).toBe('interrupted');
    expect(await listening(Number(result.run!.parameters['port']))).toBe(false);
    expect(stderr).toMatch(/SIGINT; stopping the run and the server/);
  });

  it('--dry-run renders the command and launches nothing', async () => {
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(['run', '--engine', 'lmdeploy', '--model', 'internlm/internlm2_5-7b-chat', '--workload', 'chat', '--tp', '2', '--prefix-caching', 'on', '--port', '23333', '--dry-run', '--results-dir', results]);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('lmdeploy serve api_server internlm/internlm2_5-7b-chat --backend turbomind --model-name internlm/internlm2_5-7b-chat --server-name 127.0.0.1 --server-port 23333 --tp 2 --enable-prefix-caching');
    expect(resultFilesIn(results)).toEqual([]);
  });
});

describe('transient launch failures', () => {
  it('a port taken by someone else: the launch is retried on a fresh port and the run completes', { timeout: 60_000 }, async () => {
    const { createServer } = await import('node:net');
    const squatter = createServer();
    await new Promise<void>((done) => squatter.listen(0, '127.0.0.1', done));
    const taken = (squatter.address() as { port: number }).port;
    try {
      const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
      const outcome = await runCli(['run', '--engine', 'sim', '--model', 'sim-model', '--workload', 'smoke', '--port', String(taken), '--results-dir', results]);
      expect(outcome.code).toBe(0);
      const result = onlyResult(results);
      expect(result.status).toBe('completed');
      expect(Number(result.run!.parameters['port'])).not.toBe(taken);
    } finally {
      squatter.close();
    }
  });
});
