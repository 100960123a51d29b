/**
 * `servebench run --repeats` end to end: the real CLI launching the simulated engine on 127.0.0.1
 * for every repeat, results written as `run` writes them and read back through validate's check.
 * The sims here are slow on purpose (40–60 ms engine steps): on a shared 2-core machine the run-to-run
 * spread of a millisecond-fast sim is the machine's, not the engine's.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunResultSchema, type RunResult } from '../../harness/contract/result.ts';
import { checkResultText } from '../../harness/store/check-result.ts';
import { runCli, resultFilesIn } from '../cli/run-cli.ts';
import { SIM_COMMAND, writeSimEngineVariant } from './sim-engine-spec.ts';

const TOKENIZER = ['--tokenizer', 'tests/fixtures/tokenizer-words'];

function results(dir: string): Array<{ file: string; result: RunResult }> {
  return resultFilesIn(dir)
    .map((file) => ({ file, result: RunResultSchema.parse(JSON.parse(readFileSync(file, 'utf8'))) }))
    .sort((a, b) => a.result.run!.repeat!.index - b.result.run!.repeat!.index);
}

/** validate's problems with a written file, by rule name. */
function rulesBroken(dir: string, file: string): string[] {
  const checked = checkResultText(file, readFileSync(file, 'utf8'), relative(dir, file).split('\\').join('/'));
  return checked.problems.map((p) => p.message.match(/^\[([^\]]+)\]/)?.[1] ?? p.message);
}

/** An engine file that runs the sim with its own costs (engines/sim.yaml has no flags for them). */
function simVariant(dir: string, name: string, simFlags: readonly string[]): string {
  return writeSimEngineVariant(dir, { name, command: [...SIM_COMMAND, ...simFlags] });
}

/** One request at a time, so each request is the cost model's alone: TTFT = prefill + one step, TPOT = one step. */
const ONE_AT_A_TIME = ['--workload', 'smoke', '--concurrency', '1', '--num-prompts', '3'];

describe('servebench run --repeats', () => {
  it('--repeats 2: two runs, each its own launch, run_id and valid result, grouped by the first one\'s run_id', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-repeats-'));
    const outcome = await runCli(['run', '--engine', 'sim', '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '2', '--results-dir', dir, ...TOKENIZER, '--repeats', '2', '--json'], 120_000);
    expect(outcome.code, outcome.stderr).toBe(0);
    const written = results(dir);
    expect(written).toHaveLength(2);
    const [first, second] = written.map((w) => w.result);
    expect(first!.run!.repeat).toEqual({ group_id: first!.run_id, index: 1, of: 2, mode: 'fixed', stop_reason: null });
    expect(second!.run!.repeat).toEqual({ group_id: first!.run_id, index: 2, of: 2, mode: 'fixed', stop_reason: 'completed' });
    expect(second!.run_id).not.toBe(first!.run_id);
    // A fresh launch each: its own server on its own port.
    expect(second!.run!.parameters['port']).not.toBe(first!.run!.parameters['port']);
    for (const { file } of written) expect(rulesBroken(dir, file)).toEqual([]);
    expect(outcome.stderr).toMatch(/repeat 1\/2: launching[\s\S]*repeat 2\/2: launching[\s\S]*repeats: 2 of 2, stopped: completed/);
    expect(JSON.parse(outcome.stdout)).toMatchObject({ group_id: first!.run_id, mode: 'fixed', of: 2, stop_reason: 'completed', repeats: [{ index: 1, run_id: first!.run_id, stop_reason: null }, { index: 2, run_id: second!.run_id, stop_reason: 'completed' }] });
  });

  it('--repeats auto on a steady engine converges at the third repeat, the minimum', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-repeats-'));
    const engine = simVariant(dir, 'steadysim', ['--decode-base-ms', '60', '--prefill-tokens-per-s', '100']);
    const out = join(dir, 'results');
    // ±10%, not the default ±5%: this shared 2-core machine alone moves a 4 s run by 1–4% between
    // launches, and at 3 runs the interval is t(0.975, 2) = 4.30 standard errors wide on each side.
    const outcome = await runCli(['run', '--engine', engine, '--model', 'sim-model', ...ONE_AT_A_TIME, '--results-dir', out, ...TOKENIZER, '--repeats', 'auto', '--max-repeats', '6', '--repeat-target', '0.1', '--json'], 180_000);
    const verdict = JSON.parse(outcome.stdout);
    expect(verdict, outcome.stderr).toMatchObject({ mode: 'auto', of: 6, target: 0.1, stop_reason: 'converged' });
    expect(verdict.repeats).toHaveLength(3);
    const written = results(out);
    expect(written.map((w) => [w.result.run!.repeat!.index, w.result.run!.repeat!.stop_reason])).toEqual([[1, null], [2, null], [3, 'converged']]);
    const last = written[2]!.result.run!.repeat!;
    for (const metric of ['output_throughput', 'ttft_ms_p50', 'tpot_ms_p50'] as const) expect(last.half_widths![0]![metric]).toBeLessThanOrEqual(0.1);
    expect(written[0]!.result.run!.repeat!.half_widths).toEqual([{ output_throughput: null, ttft_ms_p50: null, tpot_ms_p50: null }]);
    // A test engine file is not an engine servebench knows (exit 4, kept): nothing else is refused, the repeat blocks included.
    expect(outcome.code).toBe(4);
    for (const { file } of written) expect(rulesBroken(out, file).filter((rule) => rule !== 'known-engine' && rule !== 'command-agrees')).toEqual([]);
    expect(outcome.stderr).toMatch(/repeat 3\/6 completed; 95% CI half-width \(widest point\): output_throughput ±\d+\.\d%, ttft_ms_p50 ±\d+\.\d%, tpot_ms_p50 ±\d+\.\d%/);
  });

  it('--repeats auto on an engine whose speed differs from launch to launch stops at --max-repeats', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-repeats-'));
    // σ = 0.5 of ln(speed) per launch: a 95% interval of 3 runs within ±5% would need the three
    // launches' spread under 1/25 of σ (chance about 0.2%, χ² with 2 degrees of freedom).
    const engine = simVariant(dir, 'noisysim', ['--decode-base-ms', '10', '--run-noise', '0.5']);
    const out = join(dir, 'results');
    const outcome = await runCli(['run', '--engine', engine, '--model', 'sim-model', ...ONE_AT_A_TIME, '--results-dir', out, ...TOKENIZER, '--repeats', 'auto', '--max-repeats', '3', '--json'], 180_000);
    const verdict = JSON.parse(outcome.stdout);
    expect(verdict, outcome.stderr).toMatchObject({ mode: 'auto', of: 3, stop_reason: 'max-repeats' });
    const written = results(out);
    expect(written.map((w) => w.result.run!.repeat!.stop_reason)).toEqual([null, null, 'max-repeats']);
    const widths = written[2]!.result.run!.repeat!.half_widths![0]!;
    expect(Math.max(widths.output_throughput!, widths.tpot_ms_p50!)).toBeGreaterThan(0.05);
    for (const { file } of written) expect(rulesBroken(out, file).filter((rule) => rule !== 'known-engine' && rule !== 'command-agrees')).toEqual([]);
  });

  it('refuses repeat flags that cannot apply, before launching anything', async () => {
    const base = ['run', '--engine', 'sim', '--model', 'sim-model', '--workload', 'smoke', '--dry-run'];
    expect((await runCli([...base, '--repeats', '0'])).stderr).toMatch(/--repeats: 0 is too small/);
    expect((await runCli([...base, '--repeats', '3', '--max-repeats', '5'])).stderr).toMatch(/--max-repeats applies to --repeats auto only/);
    expect((await runCli([...base, '--repeats', 'auto', '--max-repeats', '2'])).stderr).toMatch(/--max-repeats: 2 is too small; it must be ≥ 3/);
    expect((await runCli([...base, '--repeats', 'auto', '--max-repeat-time', 'soon'])).stderr).toMatch(/--max-repeat-time: "soon" is not a positive duration/);
    const dry = await runCli([...base, '--repeats', 'auto', '--max-repeat-time', '1h30m']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/repeats:  auto: until the 95% CI of each headline metric is within ±5%, 3 to 10 repeats, at most 5400 s, each a fresh launch/);
  });
});
