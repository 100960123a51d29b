/**
 * Is a change between two releases real or noise? Throughput and latency are compared on the log
 * scale (their noise is multiplicative), as ratios:
 * - both sides repeated (n ≥ 2): Welch's t-test on the log values, with the confidence interval
 *   of the ratio;
 * - otherwise: the same test with the noise σ pooled from every repeated configuration of that
 *   metric (the "noise band"); a single run on each side is flagged only beyond it;
 * - no repeats anywhere: the noise is unknown, and nothing is called significant.
 */

export interface SampleSummary {
  readonly n: number;
  /** Mean of the natural logs of the values. */
  readonly meanLog: number;
  /** Sample variance (n − 1) of the logs; null for n < 2. */
  readonly varLog: number | null;
}

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

export const SIGNIFICANCE_LEVEL = 0.05;

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
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = c[0]!;
  for (let i = 1; i < 9; i++) sum += c[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < tiny ? tiny : d);
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 / (Math.abs(1 + aa * d) < tiny ? tiny : 1 + aa * d);
    c = Math.abs(1 + aa / c) < tiny ? tiny : 1 + aa / c;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 / (Math.abs(1 + aa * d) < tiny ? tiny : 1 + aa * d);
    c = Math.abs(1 + aa / c) < tiny ? tiny : 1 + aa / c;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/** Regularized incomplete beta I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaContinuedFraction(a, b, x)) / a : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** P(|T| ≥ |t|) for Student's t with df degrees of freedom (df may be fractional). */
export function studentTwoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** The t with P(|T| ≥ t) = p, by bisection (monotone; 1e-10 precision is plenty here). */
export function studentQuantileTwoSided(p: number, df: number): number {
  let low = 0;
  let high = 1e3;
  for (let i = 0; i < 200 && high - low > 1e-10; i++) {
    const mid = (low + high) / 2;
    if (studentTwoSidedP(mid, df) > p) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
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

/**
 * The two-sided (1 − level) t multiplier of a release's interval over `runs` values:
 * t_{1−level/2, runs−1} (t_{0.975, runs−1} at the default level); null for fewer than 2 runs.
 */
export function tMultiplier(runs: number, level = SIGNIFICANCE_LEVEL): number | null {
  return runs >= 2 ? studentQuantileTwoSided(level, runs - 1) : null;
}
