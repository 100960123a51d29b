/**
 * The interval of a geometric mean over runs, one definition for the measuring tool and the
 * store: throughput and latency vary multiplicatively, so their runs are summarized on the log
 * scale (mean and sample variance of ln value), and the 95% interval of the geometric mean is the
 * Student t-interval of the logs, exp(meanlog ± t(0.975, n − 1) · sqrt(varlog / n)). compile
 * publishes it as "95% CI of the geometric mean over n runs" (harness/store/derive.ts), and
 * `run --repeats auto` repeats until it is narrow enough (harness/measure/run/repeat-verdict.ts):
 * the same numbers, so the run stops on exactly the interval the site then shows.
 */

/** The significance level of the release tests; the intervals are at 1 − it (95%). */
export const SIGNIFICANCE_LEVEL = 0.05;

export interface SampleSummary {
  readonly n: number;
  /** Mean of the natural logs of the values. */
  readonly meanLog: number;
  /** Sample variance (n − 1) of the logs; null for n < 2. */
  readonly varLog: number | null;
}

export function summarizeLogs(values: readonly number[]): SampleSummary {
  const logs = values.filter((v) => v > 0).map(Math.log);
  const n = logs.length;
  const meanLog = logs.reduce((a, b) => a + b, 0) / n;
  const varLog = n >= 2 ? logs.reduce((a, b) => a + (b - meanLog) ** 2, 0) / (n - 1) : null;
  return { n, meanLog, varLog };
}

/** ln Γ(x), Lanczos approximation (g = 7, n = 9): 15 significant digits for x > 0. */
function logGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  // Stryker disable next-line ConditionalExpression: the series alone holds for every x > 0 (to 1e-13 at x = 0.25, the closed forms of the tests); the reflection keeps it exact nearer 0, where no df here goes.
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = c[0]!;
  for (let i = 1; i < 9; i++) sum += c[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/**
 * Modified Lentz's guard: a denominator that underflows to 0 is replaced by a tiny number rather
 * than divided by (Numerical Recipes, 3rd ed., §5.2).
 */
function nonZero(value: number): number {
  const tiny = 1e-300;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: no argument here brings a denominator within 1e-300 of 0; the guard is for safety, not for a value the tests could reach.
  return Math.abs(value) < tiny ? tiny : value;
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  let c = 1;
  let d = 1 / nonZero(1 - ((a + b) * x) / (a + 1));
  let h = d;
  // Stryker disable next-line EqualityOperator: the fraction converges within far fewer than 300 steps for every a, b and x here; the cap never binds.
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 / nonZero(1 + aa * d);
    c = nonZero(1 + aa / c);
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 / nonZero(1 + aa * d);
    c = nonZero(1 + aa / c);
    const delta = d * c;
    h *= delta;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: stopping at convergence only saves steps: past it every factor is 1 within 1e-15, so running on to the cap gives the same value.
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/** Regularized incomplete beta I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  // Stryker disable next-line EqualityOperator: at x = 0 the series gives 0 all the same (its factor x^a is 0).
  if (x <= 0) return 0;
  // Stryker disable next-line EqualityOperator: at x = 1 the series gives 1 all the same (its factor (1 − x)^b is 0).
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // Stryker disable next-line EqualityOperator: both branches are I_x(a, b) (the second by I_x(a, b) = 1 − I_{1−x}(b, a)); the switch point only picks the faster-converging one.
  return x < (a + 1) / (a + b + 2) ? (front * betaContinuedFraction(a, b, x)) / a : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** P(|T| ≥ |t|) for Student's t with df degrees of freedom (df may be fractional). */
export function studentTwoSidedP(t: number, df: number): number {
  // Stryker disable next-line ConditionalExpression: at t = ±∞, x = df / (df + t²) is 0 and I_0 = 0 all the same; the test says what ∞ means.
  if (!Number.isFinite(t)) return 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** Student's t density at t with df degrees of freedom. */
function studentDensity(t: number, df: number): number {
  return Math.exp(logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI) - ((df + 1) / 2) * Math.log1p((t * t) / df));
}

/**
 * The t with P(|T| ≥ t) = p. Newton's method on the tail probability (its derivative is −2 × the
 * density), kept inside a bracket that every step narrows; a step that would leave the bracket
 * bisects it instead. Bisection alone took 44 tail evaluations per quantile, and compile asks for
 * one per release comparison: Newton settles in about six.
 */
export function studentQuantileTwoSided(p: number, df: number): number {
  let low = 0;
  let high = 1e3;
  // The normal quantile's neighbourhood: t is at least it, and near it for any but the smallest df.
  let t = 2;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator,ArithmeticOperator,UpdateOperator: the cap of 200 never binds (Newton or bisection narrows the bracket every step).
  for (let i = 0; i < 200 && high - low > 1e-10; i++) {
    const excess = studentTwoSidedP(t, df) - p;
    // Stryker disable next-line EqualityOperator: a tail exactly at p is a tie of measure zero; either side keeps the root inside the bracket.
    if (excess > 0) low = t;
    else high = t;
    const next = t + excess / (2 * studentDensity(t, df));
    const step = next > low && next < high ? next : (low + high) / 2;
    if (Math.abs(step - t) < 1e-12 * Math.max(1, t)) return step;
    t = step;
  }
  return (low + high) / 2;
}

/**
 * The two-sided (1 − level) t multiplier of a release's interval over `runs` values:
 * t_{1−level/2, runs−1} (t_{0.975, runs−1} at the default level); null for fewer than 2 runs.
 */
export function tMultiplier(runs: number, level = SIGNIFICANCE_LEVEL): number | null {
  return runs >= 2 ? studentQuantileTwoSided(level, runs - 1) : null;
}

/** A geometric mean over runs and its 95% interval (t-interval of the logs). */
export interface LogInterval {
  /** Runs with a positive value (the others have no logarithm and are left out, as compile does). */
  readonly n: number;
  /** exp(mean of the logs); null without a positive value. */
  readonly geometricMean: number | null;
  /** The interval's ends; null for fewer than 2 values. */
  readonly low: number | null;
  readonly high: number | null;
  /**
   * The interval's relative half-width on its wider side: high / geometricMean − 1 = exp(h) − 1,
   * h = t·sqrt(varlog/n) (the low side, 1 − exp(−h), is always the narrower). A target of 5%
   * on it keeps both ends within 5% of the geometric mean. Null for fewer than 2 values.
   */
  readonly relativeHalfWidth: number | null;
}

/** The geometric mean of `values` and its (1 − level) t-interval, as compile computes it. */
export function logInterval(values: readonly number[], level = SIGNIFICANCE_LEVEL): LogInterval {
  const summary = summarizeLogs(values);
  if (summary.n === 0) return { n: 0, geometricMean: null, low: null, high: null, relativeHalfWidth: null };
  const geometricMean = Math.exp(summary.meanLog);
  const t = tMultiplier(summary.n, level);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: t is null exactly when varLog is (fewer than 2 values); either test alone decides.
  if (t === null || summary.varLog === null) return { n: summary.n, geometricMean, low: null, high: null, relativeHalfWidth: null };
  const h = t * Math.sqrt(summary.varLog / summary.n);
  return { n: summary.n, geometricMean, low: Math.exp(summary.meanLog - h), high: Math.exp(summary.meanLog + h), relativeHalfWidth: Math.expm1(h) };
}
