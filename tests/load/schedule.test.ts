import { describe, expect, it } from 'vitest';
import { arrivalOffsetsMs } from '../../harness/measure/load/schedule.ts';
import { createRng } from '../../harness/lib/rng.ts';

function gaps(offsets: Float64Array): number[] {
  return Array.from(offsets.subarray(1), (t, i) => t - offsets[i]!);
}

function meanAndCv(values: number[]): { mean: number; cv: number } {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  return { mean, cv: Math.sqrt(variance) / mean };
}

describe('arrival schedules', () => {
  const n = 20_000;
  const base = { rate: 10, burstiness: 1, seed: 42, count: n, durationS: null } as const;

  it('is deterministic for a seed and differs across seeds', () => {
    const a = arrivalOffsetsMs({ ...base, arrival: 'poisson' });
    expect(arrivalOffsetsMs({ ...base, arrival: 'poisson' })).toEqual(a);
    expect(arrivalOffsetsMs({ ...base, arrival: 'poisson', seed: 43 })).not.toEqual(a);
    expect(a[0]).toBe(0);
  });

  it('Poisson: mean gap 1/rate and coefficient of variation 1 (tolerance: 4 standard errors)', () => {
    const { mean, cv } = meanAndCv(gaps(arrivalOffsetsMs({ ...base, arrival: 'poisson' })));
    const standardError = 100 / Math.sqrt(n);
    expect(Math.abs(mean - 100)).toBeLessThan(4 * standardError);
    expect(Math.abs(cv - 1)).toBeLessThan(0.05);
  });

  it('gamma with burstiness 0.5: same mean rate, CV sqrt(2)', () => {
    const { mean, cv } = meanAndCv(gaps(arrivalOffsetsMs({ ...base, arrival: 'gamma', burstiness: 0.5 })));
    expect(Math.abs(mean - 100)).toBeLessThan(4 * ((100 * Math.SQRT2) / Math.sqrt(n)));
    expect(Math.abs(cv - Math.SQRT2)).toBeLessThan(0.08);
  });

  it('gamma with burstiness 4: more regular, CV 0.5', () => {
    const { cv } = meanAndCv(gaps(arrivalOffsetsMs({ ...base, arrival: 'gamma', burstiness: 4 })));
    expect(Math.abs(cv - 0.5)).toBeLessThan(0.03);
  });

  it('constant: exact gaps', () => {
    expect(gaps(arrivalOffsetsMs({ ...base, arrival: 'constant', count: 5 }))).toEqual([100, 100, 100, 100]);
  });

  it('an infinite rate sends everything at offset 0, and needs a count', () => {
    expect(Array.from(arrivalOffsetsMs({ ...base, rate: Infinity, arrival: 'poisson', count: 3 }))).toEqual([0, 0, 0]);
    expect(() => arrivalOffsetsMs({ ...base, rate: Infinity, arrival: 'poisson', count: null, durationS: 5 })).toThrow(RangeError);
  });

  it('a duration bounds the schedule: arrivals only inside it', () => {
    const offsets = arrivalOffsetsMs({ ...base, arrival: 'constant', count: null, durationS: 1 });
    expect(offsets.length).toBe(10);
    expect(offsets[offsets.length - 1]).toBeLessThan(1000);
  });
});

describe('rng', () => {
  it('gives the same sequence on every machine (values pinned when the generator was written)', () => {
    // A change here changes every schedule and prompt set: it is a methodology change.
    const rng = createRng(0, 'pin');
    expect([rng.next(), rng.next(), rng.next()]).toEqual([0.5593815699685365, 0.22555467602796853, 0.8274251080583781]);
    const other = createRng(0, 'pin');
    expect(other.gamma(0.5, 2)).toBeCloseTo(0.6081561195591493, 12);
  });

  it('gamma(k, θ) has mean kθ (tolerance: 4 standard errors)', () => {
    const rng = createRng(1, 'gamma');
    const samples = Array.from({ length: 50_000 }, () => rng.gamma(0.3, 2));
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    const sd = Math.sqrt(0.3) * 2;
    expect(Math.abs(mean - 0.6)).toBeLessThan((4 * sd) / Math.sqrt(samples.length));
  });
});
