/**
 * Sample sufficiency: which percentiles a sample of n values supports (docs/metrics.md#sample-sufficiency).
 * Plain data with no imports, so the site's browser code may take it as it is.
 *
 * The rule: percentile p is published only when n ≥ ⌈1/(1−p)⌉ (p50: 2, p90: 10, p95: 20,
 * p99: 100, p99.9: 1000). Why: the harness interpolates linearly between order statistics (numpy's
 * default, Hyndman & Fan 1996 type 7) at rank h = (n−1)·p; below that n, h > n − 2, so the value
 * lies between the two largest samples and cannot be told from the maximum, and the sample holds on
 * average fewer than one value, n·(1−p) < 1, from the tail the percentile is meant to describe.
 * A percentile below its minimum is shown as its sample size ("n = 8") and never ranked, compared,
 * or judged against a limit.
 */

/** The percentile statistics of a distribution and their probabilities. */
export const PERCENTILE_PROBABILITIES = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999 } as const;
export type PercentileStat = keyof typeof PERCENTILE_PROBABILITIES;

/** ⌈1/(1−p)⌉ for each percentile, written out: floating point makes 1/(1−0.9) = 10.000000000000002. */
export const MIN_SAMPLES: Readonly<Record<PercentileStat, number>> = { p50: 2, p90: 10, p95: 20, p99: 100, p999: 1000 };

/** The distributions of a point and the suffix of their sample-count column (`<distribution>_n`). */
export const SAMPLED_DISTRIBUTIONS = ['ttft_ms', 'tpot_ms', 'itl_ms', 'itl_event_ms', 'e2el_ms', 'queue_ms', 'interactivity_tok_s'] as const;
export type SampledDistribution = (typeof SAMPLED_DISTRIBUTIONS)[number];

/** A percentile column (`ttft_ms_p95`) split into its distribution and statistic; null for any other column. */
export function percentileColumn(column: string): { distribution: SampledDistribution; stat: PercentileStat } | null {
  // No ^: a greedy (.+) that matches anywhere matches from the first character.
  const match = /(.+)_(p50|p90|p95|p99|p999)$/.exec(column);
  if (match === null || !(SAMPLED_DISTRIBUTIONS as readonly string[]).includes(match[1]!)) return null;
  return { distribution: match[1] as SampledDistribution, stat: match[2] as PercentileStat };
}

/** The column holding the sample count of a percentile column's distribution (`ttft_ms_n`); null for any other column. */
export function sampleCountColumn(column: string): string | null {
  const parsed = percentileColumn(column);
  return parsed === null ? null : `${parsed.distribution}_n`;
}

/** n samples support the percentile statistic (the rule above); any non-percentile statistic is supported by one sample. */
export function percentileSupported(stat: string, n: number): boolean {
  const minimum = (MIN_SAMPLES as Record<string, number | undefined>)[stat];
  return n >= (minimum ?? 1);
}
