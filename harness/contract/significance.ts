/**
 * Is a change between two releases real or noise? Throughput and latency are compared on the log
 * scale (their noise is multiplicative), as ratios:
 * - both sides repeated (n ≥ 2): Welch's t-test on the log values, with the confidence interval
 *   of the ratio;
 * - otherwise: the same test with the noise σ pooled from every repeated configuration of that
 *   metric (the "noise band"); a single run on each side is flagged only beyond it;
 * - no repeats anywhere: the noise is unknown, and nothing is called significant.
 * The log summaries and Student's t are shared with the measuring tool (harness/lib/stats/log-interval.ts).
 * One rule for the store (deltas, regressions, the self-benchmark gate) and the site (compare's
 * verdict on any two releases), hence in the contract; plain math, safe in the browser.
 */
import { SIGNIFICANCE_LEVEL, studentQuantileTwoSided, studentTwoSidedP, type SampleSummary } from '../lib/stats/log-interval.ts';

export { SIGNIFICANCE_LEVEL };

export interface Comparison {
  /** new / old, from the mean logs (a geometric-mean ratio). */
  readonly ratio: number;
  /** Two-sided p-value of "no change"; null when the noise is unknown. */
  readonly pValue: number | null;
  /** 95% confidence interval of the ratio; null when the noise is unknown. */
  readonly ci: readonly [number, number] | null;
  /** Degrees of freedom of the t-test (Welch–Satterthwaite, or the pooled noise's); null when the noise is unknown. */
  readonly df: number | null;
  readonly method: 'welch' | 'noise-band' | 'unknown-noise';
  readonly significant: boolean;
}

/**
 * Pooled within-group variance of the logs over every repeated group (Σ(nᵢ−1)sᵢ² / Σ(nᵢ−1)),
 * and its degrees of freedom; null without repeats.
 */
export function pooledLogVariance(groups: readonly SampleSummary[]): { variance: number; df: number } | null {
  let sum = 0;
  let df = 0;
  for (const g of groups) {
    if (g.varLog === null) continue;
    sum += (g.n - 1) * g.varLog;
    df += g.n - 1;
  }
  return df > 0 ? { variance: sum / df, df } : null;
}

/** Compares `next` against `previous`; `noise` is the pooled log variance of the metric. */
export function compareReleases(previous: SampleSummary, next: SampleSummary, noise: { variance: number; df: number } | null, level = SIGNIFICANCE_LEVEL): Comparison {
  const diff = next.meanLog - previous.meanLog;
  const ratio = Math.exp(diff);
  if (previous.varLog !== null && next.varLog !== null) {
    const a = previous.varLog / previous.n;
    const b = next.varLog / next.n;
    // Welch–Satterthwaite: each side keeps its own variance and degrees of freedom.
    const df = (a + b) ** 2 / (a ** 2 / (previous.n - 1) + b ** 2 / (next.n - 1));
    return tTest(diff, Math.sqrt(a + b), df, 'welch', level);
  }
  if (noise === null) return { ratio, pValue: null, ci: null, df: null, method: 'unknown-noise', significant: false };
  return tTest(diff, Math.sqrt(noise.variance * (1 / previous.n + 1 / next.n)), noise.df, 'noise-band', level);
}

/** The t-test of a log difference with standard error `se`: its ratio, p-value and interval. */
function tTest(diff: number, se: number, df: number, method: 'welch' | 'noise-band', level: number): Comparison {
  const ratio = Math.exp(diff);
  // No spread at all (identical repeats): any difference is certain, and none is none.
  if (se === 0) return { ratio, pValue: diff === 0 ? 1 : 0, ci: [ratio, ratio], df: Number.isFinite(df) ? df : null, method, significant: diff !== 0 };
  const pValue = studentTwoSidedP(diff / se, df);
  const q = studentQuantileTwoSided(level, df);
  return { ratio, pValue, ci: [Math.exp(diff - q * se), Math.exp(diff + q * se)], df, method, significant: pValue < level };
}
