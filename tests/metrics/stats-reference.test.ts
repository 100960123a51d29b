/**
 * `distribution` (harness/measure/metrics/stats.ts) against published reference values, not
 * against itself. Sources:
 * - [np-pct] numpy.percentile, documented example: a = [[10, 7, 4], [3, 2, 1]],
 *   `np.percentile(a, 50)` → 3.5; its default method "linear" is index = (n − 1)·q/100 between
 *   order statistics (Hyndman & Fan 1996, definition 7; R's `quantile(type = 7)`, its default).
 * - [np-std] numpy.std, documented example: `np.std([[1, 2], [3, 4]])` → 1.1180339887498949
 *   (ddof = 0); numpy.mean, documented example: `np.mean([[1, 2], [3, 4]])` → 2.5.
 * - [strd] NIST Statistical Reference Datasets, univariate summary statistics
 *   (https://www.itl.nist.gov/div898/strd/univ/): NumAcc1 (10000001, 10000003, 10000002; certified
 *   mean 10000002, standard deviation 1), NumAcc3 (1000000.2, then 1000000.1 and 1000000.3
 *   alternating, 1001 values; certified mean 1000000.2, standard deviation 0.1) and NumAcc4 (the
 *   same around 10000000.2). NIST certifies the sample standard deviation (n − 1); ours is the
 *   population one (ddof 0), so it is NIST's × √((n − 1)/n).
 */
import { describe, expect, it } from 'vitest';
import { distribution, percentileSorted } from '../../harness/measure/metrics/stats.ts';

const relClose = (actual: number, expected: number, rel: number, what: string) =>
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(expected)));

describe('distribution against numpy’s documented outputs [np-pct, np-std]', () => {
  it('the median of [[10, 7, 4], [3, 2, 1]] is 3.5, the mean of [[1, 2], [3, 4]] 2.5 and its population std 1.1180339887498949', () => {
    expect(distribution([10, 7, 4, 3, 2, 1])!.p50).toBe(3.5);
    const d = distribution([1, 2, 3, 4])!;
    expect(d.mean).toBe(2.5);
    relClose(d.std, 1.1180339887498949, 1e-15, 'std');
    // Not the sample std (ddof 1): 1.2909944487358056.
    expect(Math.abs(d.std - 1.2909944487358056)).toBeGreaterThan(0.1);
  });

  it('percentiles of 1…10 by definition 7: index (n − 1)·q/100, interpolated between its neighbours', () => {
    // (10 − 1)·q/100 = 4.5, 8.1, 8.55, 8.91, 8.991 → 5.5, 9.1, 9.55, 9.91, 9.991 (1-based values).
    const d = distribution([7, 3, 10, 1, 9, 2, 8, 4, 6, 5])!;
    const expected = { min: 1, p50: 5.5, p90: 9.1, p95: 9.55, p99: 9.91, p999: 9.991, max: 10 };
    for (const [k, v] of Object.entries(expected)) relClose(d[k as keyof typeof expected], v, 1e-15, k);
  });

  it('an exact order statistic is returned as it is, not interpolated away (q·(n−1)/100 an integer)', () => {
    // n = 11: p50 is the 6th value, p90 the 10th.
    const values = [0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100];
    const d = distribution(values)!;
    expect([d.p50, d.p90]).toEqual([25, 81]);
    expect(percentileSorted(values, 0)).toBe(0);
    expect(percentileSorted(values, 100)).toBe(100);
    // Between order statistics the weight is the fractional part: 12.5 → 1.25 → 1 + 0.25·(4 − 1).
    expect(percentileSorted(values, 12.5)).toBe(1.75);
  });
});

describe('distribution against NIST StRD certified values [strd]', () => {
  it('NumAcc1: mean 10000002, standard deviation 1 (sample) → √(2/3) (population)', () => {
    const d = distribution([10000001, 10000003, 10000002])!;
    expect(d.mean).toBe(10000002);
    relClose(d.std, 1 * Math.sqrt(2 / 3), 1e-12, 'std');
    expect([d.min, d.p50, d.max]).toEqual([10000001, 10000002, 10000003]);
  });

  for (const [name, centre] of [['NumAcc3', 1000000.2], ['NumAcc4', 10000000.2]] as const) {
    it(`${name}: mean ${centre}, standard deviation 0.1 over 1001 stiff values`, () => {
      const values: number[] = [centre];
      for (let i = 0; i < 500; i++) values.push(centre - 0.1, centre + 0.1);
      const d = distribution(values)!;
      relClose(d.mean, centre, 1e-13, 'mean');
      // About 9 correct digits (NIST's "LRE"): a one-pass Σx² − n·x̄² would keep none here.
      relClose(d.std * Math.sqrt(1001 / 1000), 0.1, 1e-7, 'std');
      expect(d.p50).toBe(centre);
    });
  }
});
