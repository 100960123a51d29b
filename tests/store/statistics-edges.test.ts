/**
 * Corners of the statistics that mutation testing found no test for (docs/mutation-testing.md):
 * which test a comparison takes when one side has a spread and the other has none, the noise band's
 * standard error over unequal run counts (against the closed form of Student's t with 2 degrees of
 * freedom), how the regression report writes a p-value at its display limit and a change of 0, and
 * the error a percentile of nothing raises. Values are made up for the arithmetic (SYNTHETIC).
 */
import { describe, expect, it } from 'vitest';
import type { Regression } from '../../harness/contract/site-data.ts';
import { percentileSorted } from '../../harness/measure/metrics/stats.ts';
import { compareReleases } from '../../harness/contract/significance.ts';
import { regressionsMarkdown } from '../../harness/store/regress.ts';

/** P(|T| ≥ t) for Student's t with 2 degrees of freedom, in closed form: 1 − t / √(t² + 2). */
const twoSidedP2 = (t: number) => 1 - Math.abs(t) / Math.sqrt(t * t + 2);

describe('compareReleases, one side repeated', () => {
  const noise = { variance: 0.01, df: 2 };
  const once = { n: 1, meanLog: Math.log(100), varLog: null };
  const twice = { n: 2, meanLog: Math.log(120), varLog: 0.04 };

  it('takes the noise band when either side has no spread of its own (Welch needs both)', () => {
    expect(compareReleases(once, twice, noise).method).toBe('noise-band');
    expect(compareReleases(twice, once, noise).method).toBe('noise-band');
  });

  it('gives the noise band a standard error of σ·√(1/n₁ + 1/n₂), each side its own count', () => {
    const se = Math.sqrt(0.01 * (1 / 1 + 1 / 2));
    const t = Math.log(1.2) / se;
    const c = compareReleases(once, twice, noise);
    expect(c.df).toBe(2);
    expect(Math.abs(c.pValue! - twoSidedP2(t))).toBeLessThan(1e-12);
    // t_{0.975, 2} = √(2 / (0.05 · 1.95)) · 0.95 (the closed form of the 2-df quantile: t = √(2/(p(2−p)))·(1−p)).
    const q = Math.sqrt(2 / (0.05 * 1.95)) * 0.95;
    expect(Math.abs(c.ci![0] - Math.exp(Math.log(1.2) - q * se))).toBeLessThan(1e-8);
    expect(Math.abs(c.ci![1] - Math.exp(Math.log(1.2) + q * se))).toBeLessThan(1e-8);
  });
});

describe('regressionsMarkdown, at its display limits', () => {
  const regression = (p_value: number, change_pct: number): Regression => ({
    config_id: 'c', scenario_id: 's', model: 'm', precision: 'p', hardware: 'h', workload: 'w', methodology: 'x', load: 'c=1', engine: 'e', metric: 'output_throughput', better: 'higher',
    previous_version: '1', version: '2', previous_value: 100, value: 100 + change_pct, change_pct, ci_low_pct: null, ci_high_pct: null, p_value, method: 'welch',
    significant: true, verdict: 'worse', previous_runs: 3, runs: 3, previous_run_id: 'a', run_id: 'b', key: 'k', previous_file: null, file: null,
  });
  const row = (r: Regression) => regressionsMarkdown([r], () => 'x').split('\n').find((line) => line.startsWith('| m ·'))!;

  it('writes a p-value of exactly 0.0001 as itself, and only a smaller one as <0.0001', () => {
    expect(row(regression(1e-4, -20))).toContain('| 0.0001 (welch, n=3/3) |');
    expect(row(regression(0.99e-4, -20))).toContain('| <0.0001 (welch, n=3/3) |');
  });

  it('signs a change: + for a rise, none for 0 or a fall', () => {
    expect(row(regression(0.01, 12.5))).toContain('| +12.5% |');
    expect(row(regression(0.01, 0))).toContain('| 0.0% |');
    expect(row(regression(0.01, -12.5))).toContain('| -12.5% |');
  });
});

describe('percentileSorted', () => {
  it('refuses an empty sample by name', () => {
    expect(() => percentileSorted([], 50)).toThrow(new RangeError('percentile of an empty sample'));
  });
});
