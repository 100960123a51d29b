/**
 * The distribution-free interval of a percentile from order statistics (harness/store/percentile-interval.ts)
 * against reference values: the median's ranks and confidence from Conover (Practical
 * Nonparametric Statistics, 3rd ed. 1999, Table A3), the other percentiles' from the exact binomial
 * sums P(r ≤ B ≤ s − 1), B ~ Binomial(n, p) (computed in exact rational arithmetic, as
 * scipy.stats.binom.cdf gives them to double precision), with the ranks chosen equal-tailed.
 */
import { describe, expect, it } from 'vitest';
import { percentileInterval } from '../../harness/store/percentile-interval.ts';

/** A sorted SYNTHETIC sample whose i-th order statistic is 10·i, so a bound names its rank. */
const sample = (n: number) => Float64Array.from({ length: n }, (_, i) => 10 * (i + 1));

describe('the 95% interval of a percentile', () => {
  const cases: Array<[string, number, number, [number, number], number]> = [
    ['median of 6 (the fewest with one)', 6, 0.5, [1, 6], 0.96875],
    ['median of 10 (Conover, Table A3)', 10, 0.5, [2, 9], 0.978515625],
    ['median of 20 (Conover, Table A3)', 20, 0.5, [6, 15], 0.9586105346679688],
    ['median of 100 (Conover, Table A3)', 100, 0.5, [40, 61], 0.9647997997822951],
    ['p90 of 45', 45, 0.9, [36, 45], 0.9792418517573246],
    ['p90 of 100', 100, 0.9, [84, 96], 0.955690107191223],
    ['p95 of 200', 200, 0.95, [184, 197], 0.9671521638567258],
    ['p99 of 368 (the fewest with one)', 368, 0.99, [360, 368], 0.9624158204108587],
    ['p99 of 1000', 1000, 0.99, [983, 997], 0.9760947634979771],
  ];
  it.each(cases)('%s: ranks %j, coverage %f', (_what, n, p, ranks, coverage) => {
    const interval = percentileInterval(sample(n), p)!;
    expect(interval.ranks).toEqual(ranks);
    expect([interval.low, interval.high]).toEqual([10 * ranks[0], 10 * ranks[1]]);
    expect(interval.coverage).toBeCloseTo(coverage, 12);
  });

  it('is null where no pair of order statistics reaches it: the median of 5, p90 of 29, p95 of 59, p99 of 367, an empty sample', () => {
    for (const [n, p] of [[5, 0.5], [29, 0.9], [59, 0.95], [367, 0.99], [0, 0.5], [1, 0.5]] as const) expect(percentileInterval(sample(n), p), `${p} of ${n}`).toBeNull();
  });

  it('is null for a low percentile whose lower tail the sample does not reach: p1 of 100, p10 of 29 (as p90 of 29)', () => {
    expect(percentileInterval(sample(100), 0.01)).toBeNull();
    expect(percentileInterval(sample(29), 0.1)).toBeNull();
    expect(percentileInterval(sample(45), 0.1)!.ranks).toEqual([1, 10]);
  });

  it('is null for a probability outside (0, 1)', () => {
    for (const p of [0, 1, -0.5, 1.5, Number.NaN]) expect(percentileInterval(sample(100), p), String(p)).toBeNull();
  });
});

describe('another confidence', () => {
  it('keeps an order statistic whose tail is exactly α/2 (P(B ≤ r − 1) ≤ α/2): the median of 5 at 1 − 2/32', () => {
    // P(B = 0) = P(B = 5) = 1/32 for B ~ Binomial(5, 1/2), exact in binary floating point.
    const interval = percentileInterval(sample(5), 0.5, 1 - 2 / 32)!;
    expect(interval.ranks).toEqual([1, 5]);
    expect(interval.coverage).toBe(0.9375);
  });

  it('keeps an upper order statistic whose tail is exactly α/2 (P(B ≥ s) ≤ α/2): the median of 2 at 50%', () => {
    // P(B = 0) = P(B = 2) = 1/4 for B ~ Binomial(2, 1/2): the interval x(1)…x(2) covers P(B = 1) = 1/2.
    const interval = percentileInterval(sample(2), 0.5, 0.5)!;
    expect(interval.ranks).toEqual([1, 2]);
    expect(interval.coverage).toBe(0.5);
  });

  it('narrows as the confidence falls: the median of 100 at 90% is x(42)…x(59), covering 0.9114 (Conover, Table A3)', () => {
    const interval = percentileInterval(sample(100), 0.5, 0.9)!;
    expect(interval.ranks).toEqual([42, 59]);
    expect(interval.coverage).toBeCloseTo(0.9113, 3);
  });
});
