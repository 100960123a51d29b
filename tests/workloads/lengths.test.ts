import { describe, expect, it } from 'vitest';
import { createRng } from '../../harness/lib/rng.ts';
import type { LengthDistribution } from '../../harness/contract/workload.ts';
import { sampleLength } from '../../harness/measure/workloads/lengths.ts';
import { smallestLength } from '../../harness/contract/workload.ts';

const N = 20_000;
function draw(dist: LengthDistribution, seed = 1): number[] {
  const rng = createRng(seed, 'lengths');
  return Array.from({ length: N }, () => sampleLength(dist, rng));
}
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]): number => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

describe('length distributions (tolerances: 4 standard errors of the sample statistic)', () => {
  it('fixed is fixed', () => {
    expect(new Set(draw({ dist: 'fixed', tokens: 7 }))).toEqual(new Set([7]));
  });

  it('uniform covers [min, max] inclusive with mean (min+max)/2', () => {
    const xs = draw({ dist: 'uniform', min: 100, max: 200 });
    expect(Math.min(...xs)).toBe(100);
    expect(Math.max(...xs)).toBe(200);
    expect(Math.abs(mean(xs) - 150)).toBeLessThan((4 * 29.2) / Math.sqrt(N));
  });

  it('range_ratio, vLLM convention: [L(1−r), L(1+r)]', () => {
    const dist: LengthDistribution = { dist: 'range_ratio', tokens: 1000, ratio: 0.5, convention: 'vllm' };
    const xs = draw(dist);
    expect(smallestLength(dist)).toBe(500);
    expect(Math.min(...xs)).toBe(500);
    expect(Math.max(...xs)).toBe(1500);
    expect(Math.abs(mean(xs) - 1000)).toBeLessThan((4 * 289) / Math.sqrt(N));
  });

  it('range_ratio, SGLang convention: [L·r, L], so the mean input is shorter than L', () => {
    const dist: LengthDistribution = { dist: 'range_ratio', tokens: 1000, ratio: 0.5, convention: 'sglang' };
    const xs = draw(dist);
    expect([Math.min(...xs), Math.max(...xs)]).toEqual([500, 1000]);
    expect(Math.abs(mean(xs) - 750)).toBeLessThan((4 * 145) / Math.sqrt(N));
  });

  it('normal: mean and spread, clipped to [min, max]', () => {
    const xs = draw({ dist: 'normal', mean: 500, std: 100, min: 100, max: 900 });
    expect(Math.abs(mean(xs) - 500)).toBeLessThan((4 * 100) / Math.sqrt(N));
    expect(Math.abs(sd(xs) - 100)).toBeLessThan(3);
    const clipped = draw({ dist: 'normal', mean: 500, std: 300, min: 400, max: 600 });
    expect(Math.min(...clipped)).toBe(400);
    expect(Math.max(...clipped)).toBe(600);
  });

  it('lognormal: median is the given median', () => {
    const xs = draw({ dist: 'lognormal', median: 300, sigma: 0.8, min: 1, max: 100_000 });
    // The sample median of a lognormal has standard error ≈ 1.2533·σ·median/√N in log terms.
    expect(Math.abs(Math.log(median(xs) / 300))).toBeLessThan((4 * 1.2533 * 0.8) / Math.sqrt(N));
  });

  it('is deterministic for a seed', () => {
    const dist: LengthDistribution = { dist: 'uniform', min: 1, max: 1000 };
    expect(draw(dist, 5)).toEqual(draw(dist, 5));
    expect(draw(dist, 5)).not.toEqual(draw(dist, 6));
  });
});
