/**
 * The shared interval of a geometric mean (harness/lib/stats/log-interval.ts) against values worked
 * by hand from published t quantiles, never against itself:
 * - [nist-t] NIST/SEMATECH e-Handbook of Statistical Methods, 1.3.6.7.2 "Critical values of the
 *   Student's t distribution", column 0.975: ν = 2 → 4.303, ν = 4 → 2.776 (three decimals, so the
 *   ends below hold to 1e-3 relative).
 * - Example 1: 100, 110, 121. ln values ln 100 + {0, 1, 2}·ln 1.1: mean ln 100 + ln 1.1 (geometric
 *   mean 110), sample variance (ln 1.1)², h = 4.303 · ln 1.1 / √3 = 0.23676; interval
 *   110·e^∓h = 86.810 … 139.386; relative half-width e^h − 1 = 0.26714.
 * - Example 2: 50·e^{0, ±0.1, ±0.2}: geometric mean 50, sample variance of the logs
 *   (0.01 + 0.01 + 0.04 + 0.04) / 4 = 0.025, h = 2.776 · √(0.025 / 5) = 0.19632; interval
 *   41.087 … 60.846; relative half-width 0.21692.
 */
import { describe, expect, it } from 'vitest';
import { logInterval } from '../../harness/lib/stats/log-interval.ts';

const near = (actual: number | null, expected: number, relative: number, what: string) => {
  expect(actual, what).not.toBeNull();
  expect(Math.abs(actual! - expected) / expected, `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(relative);
};

describe('logInterval: the 95% t-interval of the logs, as compile labels it', () => {
  it('three runs (ν = 2, t = 4.303 [nist-t])', () => {
    const i = logInterval([100, 110, 121]);
    expect(i.n).toBe(3);
    near(i.geometricMean, 110, 1e-12, 'geometric mean');
    near(i.low, 86.81, 1e-3, 'low');
    near(i.high, 139.386, 1e-3, 'high');
    near(i.relativeHalfWidth, 0.26714, 1e-3, 'relative half-width');
    // The wider side is the upper one: the low end lies closer to the geometric mean.
    expect(1 - i.low! / i.geometricMean!).toBeLessThan(i.relativeHalfWidth!);
    near(i.high! / i.geometricMean! - 1, i.relativeHalfWidth!, 1e-12, 'half-width is the upper side');
  });

  it('five runs (ν = 4, t = 2.776 [nist-t]); the order of the runs does not matter', () => {
    const values = [0, 0.1, -0.1, 0.2, -0.2].map((x) => 50 * Math.exp(x));
    const i = logInterval(values);
    expect(i.n).toBe(5);
    near(i.geometricMean, 50, 1e-12, 'geometric mean');
    near(i.low, 41.087, 1e-3, 'low');
    near(i.high, 60.846, 1e-3, 'high');
    near(i.relativeHalfWidth, 0.21692, 1e-3, 'relative half-width');
    const reversed = logInterval([...values].reverse());
    near(reversed.relativeHalfWidth, i.relativeHalfWidth!, 1e-12, 'reversed order');
  });

  it('non-positive values have no logarithm and are left out (as compile does); fewer than two values have no interval', () => {
    expect(logInterval([100, 0, 110, -3, 121])).toEqual(logInterval([100, 110, 121]));
    expect(logInterval([42])).toEqual({ n: 1, geometricMean: 42, low: null, high: null, relativeHalfWidth: null });
    expect(logInterval([])).toEqual({ n: 0, geometricMean: null, low: null, high: null, relativeHalfWidth: null });
    // Identical runs: the interval is the point itself.
    expect(logInterval([7, 7, 7])).toMatchObject({ n: 3, low: 7, high: 7, relativeHalfWidth: 0 });
  });
});
