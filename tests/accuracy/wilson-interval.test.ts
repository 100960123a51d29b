/**
 * Wilson's score interval against published values: Newcombe, "Two-sided confidence intervals for the
 * single proportion: comparison of seven methods", Statistics in Medicine 17 (1998) 857–872, Table I,
 * method 3 (score interval without continuity correction), 95%, to the four decimals printed there.
 */
import { describe, expect, it } from 'vitest';
import { wilsonInterval } from '../../harness/lib/stats/wilson-interval.ts';

const NEWCOMBE_TABLE_I: ReadonlyArray<readonly [number, number, number, number]> = [
  [81, 263, 0.2553, 0.3662],
  [15, 148, 0.0624, 0.1605],
  [0, 20, 0, 0.1611],
  [1, 29, 0.0061, 0.1718],
];

describe('wilsonInterval', () => {
  it.each(NEWCOMBE_TABLE_I)('%i of %i gives Newcombe\'s [%f, %f]', (x, n, low, high) => {
    const [l, h] = wilsonInterval(x, n)!;
    expect(l).toBeCloseTo(low, 4);
    expect(h).toBeCloseTo(high, 4);
  });

  it('is exact at the ends: all right is [0.985, 1], none right [0, 0.015] at 250', () => {
    const all = wilsonInterval(250, 250)!;
    expect(all[1]).toBe(1);
    expect(all[0]).toBeCloseTo(0.9849, 4);
    const none = wilsonInterval(0, 250)!;
    expect(none[0]).toBe(0);
    expect(none[1]).toBeCloseTo(0.0151, 4);
  });

  it('is symmetric: x of n mirrors n − x of n', () => {
    const [l, h] = wilsonInterval(81, 263)!;
    const [ml, mh] = wilsonInterval(263 - 81, 263)!;
    expect(ml).toBeCloseTo(1 - h, 12);
    expect(mh).toBeCloseTo(1 - l, 12);
  });

  it('has nothing to say of 0 trials, and refuses counts that are not a binomial outcome', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
    expect(() => wilsonInterval(3, 2)).toThrow(new RangeError('wilsonInterval: 3 successes of 2 trials'));
    expect(() => wilsonInterval(-1, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 2)).toThrow(RangeError);
  });
});
