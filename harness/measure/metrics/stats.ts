/**
 * Summary statistics. Percentiles use linear interpolation between order statistics
 * (numpy's default "linear" method, Hyndman & Fan type 7) so numbers compare with vLLM's.
 */

export const PERCENTILES = { p50: 50, p90: 90, p95: 95, p99: 99, p999: 99.9 } as const;

export interface Distribution {
  mean: number;
  /** Population standard deviation (ddof = 0, numpy's default). */
  std: number;
  min: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
  /**
   * The sample size behind the percentiles: a p99 of 8 samples is the maximum, so readers
   * (compile's sufficiency rule, docs/metrics.md#sample-sufficiency) need it beside the values.
   */
  count: number;
}

/** Percentile q (0–100) of an ascending-sorted, non-empty array. */
export function percentileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('percentile of an empty sample');
  const h = ((n - 1) * q) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  const a = sorted[lo];
  const b = sorted[hi];
  return a + (h - lo) * (b - a);
}

/** The distribution of a sample, or null when it is empty (never zeros standing in for "no data"). */
export function distribution(values: ArrayLike<number>): Distribution | null {
  const n = values.length;
  if (n === 0) return null;
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i];
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (sorted[i] - mean) ** 2;
  return {
    mean,
    std: Math.sqrt(squares / n),
    min: sorted[0],
    p50: percentileSorted(sorted, PERCENTILES.p50),
    p90: percentileSorted(sorted, PERCENTILES.p90),
    p95: percentileSorted(sorted, PERCENTILES.p95),
    p99: percentileSorted(sorted, PERCENTILES.p99),
    p999: percentileSorted(sorted, PERCENTILES.p999),
    max: sorted[n - 1],
    count: n,
  };
}
