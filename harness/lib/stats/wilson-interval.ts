/**
 * The 95% interval of an accuracy: Wilson's score interval (Wilson 1927), the one Brown, Cai &
 * DasGupta ("Interval Estimation for a Binomial Proportion", Statistical Science 16(2), 2001)
 * recommend for n ≥ 40 with Agresti–Coull, and the one that behaves at the ends an accuracy test
 * lives at: 250 of 250 gives [0.985, 1], not the Wald interval's zero-width [1, 1], and it never leaves
 * [0, 1]. Clopper–Pearson would do too, but is conservative (coverage above 95%) and needs the
 * beta quantile; Wilson is closed form. One definition for the harness that scores a task
 * (harness/measure/accuracy/summarize-accuracy.ts) and the validator that recomputes it (harness/store/accuracy-check.ts).
 */

/** The standard normal's 0.975 quantile, to the digits a double holds. */
export const Z_95 = 1.959963984540054;

/** [low, high] for `successes` of `n` trials; null for n = 0 (nothing to estimate). */
export function wilsonInterval(successes: number, n: number, z: number = Z_95): [number, number] | null {
  if (!Number.isInteger(successes) || !Number.isInteger(n) || successes < 0 || successes > n) {
    throw new RangeError(`wilsonInterval: ${successes} successes of ${n} trials`);
  }
  if (n === 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  // At 0 and at n the bound is exactly 0 or 1; the formula leaves a rounding error of ±1e-17 there.
  return [successes === 0 ? 0 : Math.max(0, centre - half), successes === n ? 1 : Math.min(1, centre + half)];
}
