/**
 * The repeat group's verdict (harness/measure/run/repeat-verdict.ts), validate's [repeat] rule
 * (harness/store/repeat-coherence.ts) and the duration flag, on SYNTHETIC results
 * (bench/lib/synthetic-results.ts: valid files that measured nothing) whose values are set by hand.
 */
import { describe, expect, it } from 'vitest';
import { REPEAT_METRICS, type RunResult } from '../../harness/contract/result.ts';
import { halfWidthsOf, intervalsConverged, repeatMetricValue, stopReason, type RepeatPolicy } from '../../harness/measure/run/repeat-verdict.ts';
import { POINT_ONLY_COLUMNS, type PointContext } from '../../harness/store/columns.ts';
import { checkResultText } from '../../harness/store/check-result.ts';
import { readDurationS } from '../../harness/lib/cli/duration.ts';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import { syntheticResult, type SyntheticRun } from '../../bench/lib/synthetic-results.ts';

const RUN: SyntheticRun = { engine: 'vllm', version: '0.11.0', model: 'synthetic/model', gpu: 'Synthetic H100', gpuCount: 1, workload: 'chat', date: new Date(Date.UTC(2026, 10, 2, 3)), concurrencies: [1, 8], tpotMs: 20, ttftMs: 100, noise: 0, seed: 1 };

/** A synthetic run whose every point's throughput, TTFT p50 and TPOT p50 are scaled by `factor`. */
function scaled(factor: number, seed = 1): RunResult {
  const r = syntheticResult({ ...RUN, seed });
  return {
    ...r,
    points: r.points.map((p) => ({
      ...p,
      metrics: {
        ...p.metrics,
        output_throughput: p.metrics.output_throughput! / factor,
        ttft_ms: { ...p.metrics.ttft_ms!, p50: p.metrics.ttft_ms!.p50 * factor },
        tpot_ms: { ...p.metrics.tpot_ms!, p50: p.metrics.tpot_ms!.p50 * factor },
      },
    })),
  };
}

const auto: RepeatPolicy = { mode: 'auto', target: 0.05, maxRepeats: 10, maxTimeS: 1800 };

describe('the repeat verdict', () => {
  it("reads each metric as compile's points table does", () => {
    const r = scaled(1.1);
    for (const point of r.points) {
      for (const metric of REPEAT_METRICS) {
        const column = POINT_ONLY_COLUMNS.find((c) => c.name === metric)!;
        expect(repeatMetricValue(point, metric)).toBe(column.get({ point } as unknown as PointContext));
      }
    }
  });

  it('fixed: goes on to the Nth repeat, then completed; a failed or interrupted repeat ends the group first', () => {
    const fixed: RepeatPolicy = { mode: 'fixed', count: 3 };
    const ok = scaled(1);
    expect(stopReason({ policy: fixed, results: [ok, ok], elapsedS: 5 })).toBeNull();
    expect(stopReason({ policy: fixed, results: [ok, ok, ok], elapsedS: 5 })).toBe('completed');
    expect(stopReason({ policy: fixed, results: [{ ...ok, status: 'failed' }], elapsedS: 5 })).toBe('failed');
    expect(stopReason({ policy: fixed, results: [{ ...ok, outcome: { ...ok.outcome, exceeded_max_failure_rate: true } }], elapsedS: 5 })).toBe('failed');
    expect(stopReason({ policy: fixed, results: [{ ...ok, status: 'interrupted', outcome: { ...ok.outcome, interrupted: true } }], elapsedS: 5 })).toBe('interrupted');
  });

  it('auto: identical repeats converge at the third (never earlier), spread ones run on to max-repeats, and max-time is judged before the next repeat', () => {
    const same = [scaled(1), scaled(1), scaled(1)];
    expect(stopReason({ policy: auto, results: same.slice(0, 2), elapsedS: 5 })).toBeNull();
    expect(stopReason({ policy: auto, results: same, elapsedS: 5 })).toBe('converged');
    // 1%, 2% apart: ln spread s ≈ 0.01, half-width 4.30·0.01/√3 ≈ 2.5% ≤ 5%.
    expect(stopReason({ policy: auto, results: [scaled(1), scaled(1.01), scaled(1.02)], elapsedS: 5 })).toBe('converged');
    // 10%, 20% apart: ≈ ±23%.
    const spread = [scaled(1), scaled(1.1), scaled(1.2)];
    expect(intervalsConverged(spread, 0.05)).toBe(false);
    expect(stopReason({ policy: auto, results: spread, elapsedS: 5 })).toBeNull();
    expect(stopReason({ policy: { ...auto, maxRepeats: 3 }, results: spread, elapsedS: 5 })).toBe('max-repeats');
    // 3 repeats in 1500 s: a fourth would end near 2000 s, past 1800.
    expect(stopReason({ policy: auto, results: spread, elapsedS: 1500 })).toBe('max-time');
    expect(stopReason({ policy: auto, results: spread, elapsedS: 1300 })).toBeNull();
    const widths = halfWidthsOf(spread);
    expect(widths).toHaveLength(2);
    // ln 1.1, ln 1.2 around 0: s = 0.0912, h = 4.303·0.0912/√3 = 0.2265, e^h − 1 = 0.2542.
    expect(widths[0]!.ttft_ms_p50!).toBeCloseTo(0.2542, 3);
    expect(halfWidthsOf([scaled(1)])[0]).toEqual({ output_throughput: null, ttft_ms_p50: null, tpot_ms_p50: null });
  });

  it('a failed repeat counts for nothing; a metric no repeat measured has nothing to converge, and nothing measured is not converged', () => {
    const failed = { ...scaled(3), status: 'failed' as const };
    expect(halfWidthsOf([scaled(1), scaled(1), failed])[0]!.ttft_ms_p50).toBe(0);
    const noTpot = (r: RunResult): RunResult => ({ ...r, points: r.points.map((p) => ({ ...p, metrics: { ...p.metrics, tpot_ms: null } })) });
    expect(intervalsConverged([scaled(1), scaled(1), scaled(1)].map(noTpot), 0.05)).toBe(true);
    const nothing = (r: RunResult): RunResult => ({ ...r, points: [] });
    expect(intervalsConverged([scaled(1), scaled(1), scaled(1)].map(nothing), 0.05)).toBe(false);
  });
});

/** A synthetic repeat as `run --repeats` would write it: its command line asks for the group. */
function repeatFile(result: RunResult, repeat: NonNullable<NonNullable<RunResult['run']>['repeat']>, flags: readonly string[]): { text: string; path: string } {
  const withRepeat: RunResult = { ...result, harness: { ...result.harness, command: [...result.harness.command, ...flags] }, run: { ...result.run!, repeat } };
  const text = `${JSON.stringify(withRepeat, null, 2)}\n`;
  return { text, path: resultRelativePath(withRepeat, text) };
}

function repeatProblems(result: RunResult, repeat: Parameters<typeof repeatFile>[1], flags: readonly string[]): string[] {
  const { text, path } = repeatFile(result, repeat, flags);
  return checkResultText(path, text, path).problems.map((p) => `${p.path}: ${p.message}`);
}

describe('validate: [repeat]', () => {
  const first = syntheticResult({ ...RUN, seed: 1 });
  const group = first.run_id;
  const auto3 = { group_id: group, index: 3, of: 10, mode: 'auto' as const, stop_reason: 'converged' as const, target: 0.05, half_widths: [{ output_throughput: 0.01, ttft_ms_p50: 0.02, tpot_ms_p50: null }, { output_throughput: 0.03, ttft_ms_p50: 0.05, tpot_ms_p50: 0.04 }] };
  const later = syntheticResult({ ...RUN, seed: 2, date: new Date(RUN.date.getTime() + 3_600_000) });

  it('accepts coherent repeats and their command lines', () => {
    expect(repeatProblems(first, { group_id: group, index: 1, of: 2, mode: 'fixed', stop_reason: null }, ['--repeats', '2'])).toEqual([]);
    expect(repeatProblems(later, { group_id: group, index: 2, of: 2, mode: 'fixed', stop_reason: 'completed' }, ['--repeats', '2'])).toEqual([]);
    expect(repeatProblems(later, auto3, ['--repeats', 'auto'])).toEqual([]);
    expect(repeatProblems(later, { ...auto3, of: 3, stop_reason: 'max-repeats', half_widths: [{ output_throughput: 0.2, ttft_ms_p50: null, tpot_ms_p50: null }, { output_throughput: null, ttft_ms_p50: null, tpot_ms_p50: null }] }, ['--repeats', 'auto', '--max-repeats', '3'])).toEqual([]);
  });

  it('refuses a block that contradicts itself, its run or its command line', () => {
    const cases: Array<[string, RunResult, Parameters<typeof repeatFile>[1], string[], RegExp]> = [
      ['index past of', later, { group_id: group, index: 3, of: 2, mode: 'fixed', stop_reason: 'completed' }, ['--repeats', '2'], /repeat 3 of at most 2/],
      ['first names another group', first, { group_id: later.run_id, index: 1, of: 2, mode: 'fixed', stop_reason: null }, ['--repeats', '2'], /first repeat names the group/],
      ['later names itself', later, { group_id: later.run_id, index: 2, of: 2, mode: 'fixed', stop_reason: 'completed' }, ['--repeats', '2'], /not an earlier run/],
      ['last without reason', later, { group_id: group, index: 2, of: 2, mode: 'fixed', stop_reason: null }, ['--repeats', '2'], /ended the group but gives no stop_reason/],
      ['fixed converged', later, { group_id: group, index: 2, of: 2, mode: 'fixed', stop_reason: 'converged' }, ['--repeats', '2'], /--repeats N ends completed, failed or interrupted/],
      ['fixed completed early', later, { group_id: group, index: 2, of: 3, mode: 'fixed', stop_reason: 'completed' }, ['--repeats', '3'], /completed at repeat 2 of 3/],
      ['failed without failing', later, { group_id: group, index: 2, of: 3, mode: 'fixed', stop_reason: 'failed' }, ['--repeats', '3'], /did not fail/],
      ['interrupted without interruption', later, { group_id: group, index: 2, of: 3, mode: 'fixed', stop_reason: 'interrupted' }, ['--repeats', '3'], /was not interrupted/],
      ['converged too early', later, { ...auto3, index: 2 }, ['--repeats', 'auto'], /converged after 2 repeats/],
      ['converged too wide', later, { ...auto3, half_widths: [auto3.half_widths[0]!, { ...auto3.half_widths[1]!, tpot_ms_p50: 0.06 }] }, ['--repeats', 'auto'], /half-width of 0.06 exceeds the target 0.05/],
      ['a width per point', later, { ...auto3, half_widths: [auto3.half_widths[0]!] }, ['--repeats', 'auto'], /1 entries for 2 points/],
      ['auto without its target', later, { group_id: group, index: 2, of: 10, mode: 'auto', stop_reason: null }, ['--repeats', 'auto'], /records its target and the half_widths/],
      ['a single run with a block', later, auto3, [], /the command line ran a single run/],
      ['another --repeats', later, auto3, ['--repeats', '5'], /the result says auto of 10 but its command line ran --repeats 5/],
      ['another --max-repeats', later, auto3, ['--repeats', 'auto', '--max-repeats', '4'], /with --max-repeats 4/],
      ['another --repeat-target', later, auto3, ['--repeats', 'auto', '--repeat-target', '0.1'], /target 0.05 but the command line ran --repeat-target 0.1/],
    ];
    for (const [what, result, repeat, flags, message] of cases) {
      const problems = repeatProblems(result, repeat, flags);
      expect(problems.some((p) => p.includes('[repeat]') && message.test(p)), `${what}: ${problems.join('\n')}`).toBe(true);
    }
    // --repeats given, no block: the file is not what the command wrote.
    const text = `${JSON.stringify({ ...first, harness: { ...first.harness, command: [...first.harness.command, '--repeats', '3'] } }, null, 2)}\n`;
    expect(checkResultText('x.json', text, null).problems.map((p) => p.message).join('\n')).toMatch(/\[repeat\] the command line ran --repeats 3, but the result records no repeat block/);
  });
});

describe('--max-repeat-time', () => {
  it('reads seconds and h/m/s parts, nothing else', () => {
    expect([readDurationS('90'), readDurationS('90s'), readDurationS('30m'), readDurationS('2h'), readDurationS('1h30m'), readDurationS('1.5m')]).toEqual([90, 90, 1800, 7200, 5400, 90]);
    for (const bad of ['', 'soon', '30 m', 'm30', '-5', '1d', '30mm']) expect(readDurationS(bad), bad).toBeNull();
  });
});
