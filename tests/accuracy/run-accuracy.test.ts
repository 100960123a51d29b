/**
 * A workload's accuracy task through `servebench run`, as a user runs it (the CLI in a child
 * process): the shipped workloads/gsm8k-accuracy.yaml measured on the GSM8K test server on 127.0.0.1
 * (tests/kit/fakes/gsm8k-answer-server.ts, a TEST SERVER standing in for a model with real weights,
 * which cannot run here) with the external launcher. The result stores the task scored after the
 * load points: 1.0 where the server answers with the dataset's solutions, 0 where every final
 * number is wrong, skipped with its reason on a servebench-made (dummy-weight) GGUF. validate
 * refuses a tampered block; compile publishes the block's columns.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunResultSchema, type RunResult } from '../../harness/contract/result.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import type { FakeServer } from '../kit/fakes/fake-server.ts';
import { startGsm8kAnswerServer, type Gsm8kAnswerServerOptions } from '../kit/fakes/gsm8k-answer-server.ts';
import { CLI_PATH, resultFilesIn, runCli } from '../cli/run-cli.ts';
import { query } from '../store/duckdb-query.ts';

const dir = mkdtempSync(join(tmpdir(), 'servebench-run-accuracy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Measured {
  readonly code: number;
  readonly stderr: string;
  readonly file: string;
  readonly result: RunResult;
  /** The generation requests the server received, in order: the load points' first, then the problems. */
  readonly prompts: string[];
}

/** `servebench run` of `workload` on a fresh test server: a short load (4 requests at concurrency 2), then what the workload declares. */
async function measure(name: string, server: Gsm8kAnswerServerOptions, workload = 'gsm8k-accuracy'): Promise<Measured> {
  const fake: FakeServer = await startGsm8kAnswerServer(server);
  try {
    const results = join(dir, name);
    const outcome = await runCli(
      ['run', '--engine', 'vllm', '--launcher', 'external', '--endpoint', fake.url, '--model', 'gsm8k-test-model', '--workload', workload, '--num-prompts', '4', '--concurrency', '2', '--tokenizer', 'none', '--results-dir', results],
      120_000,
    );
    const files = resultFilesIn(results);
    expect(files, outcome.stderr).toHaveLength(1);
    const prompts = fake.requests.filter((request) => request.method === 'POST').map((request) => String((JSON.parse(request.body) as { prompt?: unknown }).prompt));
    return { code: outcome.code, stderr: outcome.stderr, file: files[0]!, result: RunResultSchema.parse(JSON.parse(readFileSync(files[0]!, 'utf8'))), prompts };
  } finally {
    await fake.close();
  }
}

/** A GSM8K problem as the task asks it: five solved exemplars, then the open question. */
const isProblem = (prompt: string) => (prompt.match(/^Question: /gm) ?? []).length === 6 && prompt.endsWith('\nAnswer:');

const measured: Record<'oracle' | 'wrong' | 'dummy' | 'undeclared', Measured> = {} as never;
beforeAll(async () => {
  measured.oracle = await measure('oracle', { mode: 'oracle' });
  measured.wrong = await measure('wrong', { mode: 'wrong' });
  measured.dummy = await measure('dummy', { mode: 'oracle', modelPath: '/cache/models/servebench-qwen3-0.6b-q4_k_m-0123456789.gguf' });
  measured.undeclared = await measure('undeclared', { mode: 'oracle' }, 'smoke');
}, 480_000);

describe('servebench run with a workload that declares the gsm8k task', () => {
  it("stores accuracy 1.0 for the dataset's own solutions, 250 seeded problems asked after the load points, and exits 0 (validate takes the file)", () => {
    const { code, stderr, result, prompts } = measured.oracle;
    expect(code, stderr).toBe(0);
    expect(result.status).toBe('completed');
    expect(result.workload.spec.accuracy).toEqual({ task: 'gsm8k', problems: 250, seed: 0, shots: 5, concurrency: 4 });
    const block = result.run!.accuracy!;
    expect(block).toMatchObject({ status: 'scored', task: 'gsm8k', problems: 250, answered: 250, failed: 0, seed: 0, shots: 5, api: 'completions', model: 'gsm8k-test-model' });
    if (block.status !== 'scored') throw new Error('not scored');
    expect(block.accuracy).toEqual({ strict: 1, flexible: 1 });
    expect(block.interval.flexible![0]).toBeCloseTo(0.9849, 4);
    expect(block.interval.flexible![1]).toBe(1);
    // The load points' requests first (4 measured, 2 warm-up, with the fidelity probe's after them), then the 250 problems.
    const asked = prompts.map(isProblem);
    expect(asked.filter(Boolean)).toHaveLength(250);
    expect(asked.indexOf(true)).toBeGreaterThanOrEqual(result.points[0]!.requests_sent + result.points[0]!.warmup_requests);
    expect(asked.slice(asked.indexOf(true)).every(Boolean)).toBe(true);
  });

  it('stores accuracy 0 where every final number is wrong, with its Wilson interval', () => {
    const { code, result } = measured.wrong;
    expect(code).toBe(0);
    const block = result.run!.accuracy!;
    if (block.status !== 'scored') throw new Error('not scored');
    expect(block).toMatchObject({ problems: 250, answered: 250, correct: { strict: 0, flexible: 0 }, accuracy: { strict: 0, flexible: 0 } });
    expect(block.interval.flexible![0]).toBe(0);
    expect(block.interval.flexible![1]).toBeCloseTo(0.0151, 4);
  });

  it('records the skip and its reason on a dummy-weight model, and asks no problem', () => {
    const { code, result, prompts } = measured.dummy;
    expect(code).toBe(0);
    expect(result.run!.accuracy).toEqual({
      status: 'skipped',
      task: 'gsm8k',
      skipped: expect.stringMatching(/^dummy weights: the server runs \/cache\/models\/servebench-qwen3-0\.6b-q4_k_m-0123456789\.gguf, a servebench-made GGUF file; seeded random weights answer noise/),
    });
    expect(prompts.length).toBeGreaterThan(0);
    expect(prompts.some(isProblem)).toBe(false);
  });

  it("skips the task on the sim engine (process launcher), which has no weights, saying so in the result", async () => {
    const results = join(dir, 'sim');
    const outcome = await runCli(['run', '--engine', 'sim', '--model', 'sim-model', '--workload', 'gsm8k-accuracy', '--num-prompts', '4', '--concurrency', '2', '--tokenizer', 'none', '--results-dir', results], 120_000);
    expect(outcome.code, outcome.stderr).toBe(0);
    const files = resultFilesIn(results);
    expect(files).toHaveLength(1);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(files[0]!, 'utf8')));
    expect(result.run!.accuracy).toEqual({ status: 'skipped', task: 'gsm8k', skipped: expect.stringMatching(/^no weights: the server is servebench's simulated engine \(sim\)/) });
  }, 120_000);

  it('a run stopped by SIGINT while it asks the problems is interrupted (exit 130), its block keeping what was answered', async () => {
    const slow = await startGsm8kAnswerServer({ mode: 'oracle', answerDelayMs: 200 });
    try {
      const results = join(dir, 'stopped');
      const args = ['run', '--engine', 'vllm', '--launcher', 'external', '--endpoint', slow.url, '--model', 'gsm8k-test-model', '--workload', 'gsm8k-accuracy', '--num-prompts', '4', '--concurrency', '2', '--tokenizer', 'none', '--results-dir', results];
      const child = spawn(process.execPath, ['--import', 'tsx', CLI_PATH, ...args], { env: { ...process.env, OPENAI_API_KEY: '' }, stdio: 'ignore' });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const problemsAsked = () => slow.requests.filter((request) => request.method === 'POST' && isProblem(String((JSON.parse(request.body) as { prompt?: unknown }).prompt))).length;
      const deadline = Date.now() + 90_000;
      while (problemsAsked() < 8 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      const result = RunResultSchema.parse(JSON.parse(readFileSync(resultFilesIn(results)[0]!, 'utf8')));
      expect(result).toMatchObject({ status: 'interrupted', outcome: { interrupted: true } });
      expect(result.points[0]!.metrics.completed).toBe(4);
      const block = result.run!.accuracy!;
      if (block.status !== 'scored') throw new Error('not scored');
      expect(block.problems).toBe(250);
      expect(block.failures.aborted).toBeGreaterThan(200);
      expect(block.answered + block.failed).toBe(250);
      expect(block.correct.flexible).toBe(block.answered);
      expect((await runCli(['validate', resultFilesIn(results)[0]!])).code).toBe(0);
    } finally {
      await slow.close();
    }
  }, 120_000);

  it('runs no task, and stores no block, for a workload that declares none', () => {
    const { code, result, prompts } = measured.undeclared;
    expect(code).toBe(0);
    expect(result.workload.spec.accuracy).toBeUndefined();
    expect(result.run!.accuracy).toBeUndefined();
    expect(prompts.some(isProblem)).toBe(false);
  });
});

describe('the stored block through validate and compile', () => {
  /** The oracle run's file with `edit` applied, written beside it; validate's exit and stderr. */
  async function validateEdited(name: string, edit: (result: RunResult) => void): Promise<{ code: number; stderr: string }> {
    const result = JSON.parse(readFileSync(measured.oracle.file, 'utf8')) as RunResult;
    edit(result);
    const file = join(dir, `${name}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    return runCli(['validate', file]);
  }

  it('validate takes the written file as it is, and refuses a tampered interval, a lost block and a block the workload does not declare', async () => {
    expect((await runCli(['validate', measured.oracle.file])).code).toBe(0);
    const interval = await validateEdited('interval', (r) => {
      const block = r.run!.accuracy!;
      if (block.status === 'scored') block.interval.flexible = [0.95, 1];
    });
    expect(interval.code).not.toBe(0);
    expect(interval.stderr).toContain('run.accuracy.interval.flexible');
    expect(interval.stderr).toContain('[accuracy] [0.950000, 1.000000] is not the 95% Wilson interval of 250 correct of 250 answered ([0.984867, 1.000000])');
    const lost = await validateEdited('lost', (r) => delete r.run!.accuracy);
    expect(lost.code).not.toBe(0);
    expect(lost.stderr).toContain('[accuracy] the workload declares the gsm8k task, but the completed run has no accuracy block');
    const undeclared = await validateEdited('undeclared', (r) => delete r.workload.spec.accuracy);
    expect(undeclared.code).not.toBe(0);
    expect(undeclared.stderr).toContain('[accuracy] an accuracy block in a run whose workload declares no accuracy task');
    // A raised count without the records to match: the block's own sums (the schema's refinement) refuse it.
    const raised = await validateEdited('raised', (r) => {
      const block = r.run!.accuracy!;
      if (block.status === 'scored') block.records[0]!.correct.flexible = false;
    });
    expect(raised.code).not.toBe(0);
    expect(raised.stderr).toContain('249 records are correct');
  }, 120_000);

  it('compile publishes accuracy, its interval, the problems and the skip reason as run columns', async () => {
    const results = join(dir, 'store');
    for (const which of ['oracle', 'dummy', 'undeclared'] as const) {
      const { file } = measured[which];
      const relative = file.slice(join(dir, which).length + 1);
      const target = join(results, relative);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(file, target);
    }
    const out = join(dir, 'data');
    const report = await compile({ resultsDir: results, outDir: out, prices: loadPrices() });
    expect(report.problems).toEqual([]);
    const rows = await query(`SELECT run_id, accuracy_task, accuracy, accuracy_ci_low, accuracy_ci_high, accuracy_problems, accuracy_answered, accuracy_skipped FROM read_parquet('${out}/parquet/latest/runs/*.parquet')`);
    const byRun = (which: keyof typeof measured) => rows.find((row) => row['run_id'] === measured[which].result.run_id);
    expect(byRun('oracle')).toMatchObject({ accuracy_task: 'gsm8k', accuracy: 1, accuracy_ci_high: 1, accuracy_problems: 250, accuracy_answered: 250, accuracy_skipped: null });
    expect(byRun('oracle')!['accuracy_ci_low']).toBeCloseTo(0.9849, 4);
    expect(byRun('dummy')).toMatchObject({ accuracy_task: 'gsm8k', accuracy: null, accuracy_ci_low: null, accuracy_problems: null, accuracy_skipped: expect.stringMatching(/^dummy weights: /) });
    expect(byRun('undeclared')).toMatchObject({ accuracy_task: null, accuracy: null, accuracy_skipped: null });
  }, 120_000);
});
