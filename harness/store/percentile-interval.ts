/**
 * The distribution-free confidence interval of a percentile from order statistics (Conover,
 * Practical Nonparametric Statistics, 3rd ed. 1999, §3.2; Hahn & Meeker, Statistical Intervals,
 * 1991, §5.2): with B ~ Binomial(n, p) the number of samples below the p-quantile, the interval
 * [x₍r₎, x₍s₎] covers it with probability P(r ≤ B ≤ s − 1), whatever the distribution. Ranks are
 * chosen equal-tailed: r the largest with P(B ≤ r − 1) ≤ α/2, s the smallest with P(B ≥ s) ≤ α/2.
 * It needs the samples themselves: the percentiles alone (what a result keeps without
 * --save-requests) do not determine it.
 */

export interface PercentileInterval {
  readonly low: number;
  readonly high: number;
  /** 1-based ranks of the order statistics that bound it. */
  readonly ranks: readonly [number, number];
  /** P(r ≤ B ≤ s − 1): at least the confidence asked for. */
  readonly coverage: number;
}

/** P(B = k) for k = 0 … n, B ~ Binomial(n, p), computed in logs (n of a point can be 10⁵). */
function binomialPmf(n: number, p: number): Float64Array {
  const pmf = new Float64Array(n + 1);
  const [logP, logQ] = [Math.log(p), Math.log1p(-p)];
  let logChoose = 0;
  for (let k = 0; k <= n; k++) {
    if (k > 0) logChoose += Math.log(n - k + 1) - Math.log(k);
    pmf[k] = Math.exp(logChoose + k * logP + (n - k) * logQ);
  }
  return pmf;
}

/**
 * The interval of the p-quantile (0 < p < 1) from an ascending-sorted sample; null when no pair of
 * order statistics reaches the confidence (the sample is too small: for the median at 95%, fewer than 6; for p99, fewer than 368).
 */
export function percentileInterval(sorted: ArrayLike<number>, p: number, confidence = 0.95): PercentileInterval | null {
  const n = sorted.length;
  // An empty sample needs no guard: no rank r ≥ 1 is found in it.
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: outside (0, 1) the pmf holds NaN, so r comes out n and s 1, which r ≥ s below refuses: null all the same; the guard says what is meant
  if (!(p > 0 && p < 1)) return null;
  const tail = (1 - confidence) / 2;
  const pmf = binomialPmf(n, p);
  // below[k] = P(B ≤ k − 1); r is the largest rank whose lower tail stays within α/2.
  let r = 0;
  let below = 0;
  // Stryker disable next-line EqualityOperator: r = n needs P(B = n) ≥ 1 − α/2 > α/2, so s = n + 1 and there is no interval either way
  for (let k = 1; k <= n; k++) {
    below += pmf[k - 1]!;
    if (below > tail) break;
    r = k;
  }
  let s = n + 1;
  let above = 0;
  // Stryker disable next-line EqualityOperator: s = 1 needs P(B = 0) ≥ 1 − α/2 > α/2, so r = 0 and there is no interval either way
  for (let k = n; k >= 1; k--) {
    above += pmf[k]!;
    if (above > tail) break;
    s = k;
  }
  if (r < 1 || s > n) return null;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: for 0 < p < 1, r ≥ s needs P(B ≤ r − 1) + P(B ≥ s) ≥ 1 within 2 · α/2: a confidence of 0 or less
  if (r >= s) return null;
  let coverage = 0;
  for (let k = r; k <= s - 1; k++) coverage += pmf[k]!;
  return { low: sorted[r - 1]!, high: sorted[s - 1]!, ranks: [r, s], coverage };
}
