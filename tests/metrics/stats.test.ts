import { describe, expect, it } from 'vitest';
import { distribution, percentileSorted } from '../../harness/measure/metrics/stats.ts';

describe('distribution', () => {
  it('matches numpy (linear percentiles, population std) on a hand-checked sample', () => {
    // Expected values from numpy 1.x: np.percentile(x, q) and x.std() for this x.
    const d = distribution([12.5, 3.0, 7.25, 100.0, 0.5, 42.0, 8.0])!;
    expect(d.p50).toBeCloseTo(8.0, 12);
    expect(d.p90).toBeCloseTo(65.2, 10);
    expect(d.p95).toBeCloseTo(82.6, 10);
    expect(d.p99).toBeCloseTo(96.52, 10);
    expect(d.p999).toBeCloseTo(99.652, 10);
    expect(d.mean).toBeCloseTo(24.75, 12);
    expect(d.std).toBeCloseTo(33.29119360174056, 10);
    expect(d.min).toBe(0.5);
    expect(d.max).toBe(100);
  });

  it('interpolates between order statistics: [1,2,3,4]', () => {
    const d = distribution([4, 3, 2, 1])!;
    expect(d.p50).toBe(2.5);
    expect(d.p90).toBeCloseTo(3.7, 12);
    expect(d.p99).toBeCloseTo(3.97, 12);
    expect(d.std).toBeCloseTo(Math.sqrt(1.25), 12);
  });

  it('is null for an empty sample, never zeros', () => {
    expect(distribution([])).toBeNull();
  });

  it('a single sample is every statistic', () => {
    expect(distribution([7])).toEqual({ mean: 7, std: 0, min: 7, p50: 7, p90: 7, p95: 7, p99: 7, p999: 7, max: 7, count: 1 });
  });

  it('records how many samples the percentiles come from', () => {
    expect(distribution([4, 3, 2, 1])!.count).toBe(4);
    expect(distribution(Float64Array.from({ length: 1000 }, (_, i) => i))!.count).toBe(1000);
  });

  it('refuses an empty percentile', () => {
    expect(() => percentileSorted([], 50)).toThrow(RangeError);
  });
});
