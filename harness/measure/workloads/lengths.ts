/**
 * Drawing token lengths from a scenario's distribution, with a seeded stream so every machine and
 * every engine gets the same lengths. range_ratio follows each convention exactly as the tools
 * define it (vLLM ≥ 0.8.4: randint(int(L(1−r)), int(L(1+r))); SGLang and older vLLM:
 * randint(max(int(L·r), 1), L)), both ends inclusive.
 */
import type { Rng } from '../../lib/rng.ts';
import type { LengthDistribution } from '../../contract/workload.ts';

function between(rng: Rng, lo: number, hi: number): number {
  return lo + rng.int(hi - lo + 1);
}

function clip(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(value)));
}

export function sampleLength(dist: LengthDistribution, rng: Rng): number {
  switch (dist.dist) {
    case 'fixed':
      return dist.tokens;
    case 'uniform':
      return between(rng, dist.min, dist.max);
    case 'range_ratio':
      return dist.convention === 'vllm'
        ? Math.max(1, between(rng, Math.trunc(dist.tokens * (1 - dist.ratio)), Math.trunc(dist.tokens * (1 + dist.ratio))))
        : between(rng, Math.max(1, Math.trunc(dist.tokens * dist.ratio)), dist.tokens);
    case 'normal':
      return clip(dist.mean + dist.std * rng.normal(), dist.min, dist.max);
    case 'lognormal':
      return clip(dist.median * Math.exp(dist.sigma * rng.normal()), dist.min, dist.max);
    case 'empirical':
      throw new Error('empirical lengths come from the dataset, not from a draw');
  }
}
