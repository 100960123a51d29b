/**
 * The verdict of a paired A/B between two engine versions (or two configurations) measured on one
 * host in blocks (ABBA: each block runs both arms, so whatever the host did during that block, both
 * saw it). Each block gives one value per arm; the test is Student's **paired t on the per-block
 * log ratios** d_i = ln(B_i / A_i):
 * - the log ratio makes an effect multiplicative and symmetric: B twice as fast and B half as fast
 *   are +ln 2 and −ln 2, and a slower clock that scales both arms cancels out exactly;
 * - the pairing takes the host's drift between blocks (a busy neighbour for an hour, thermal state)
 *   out of the comparison: only the within-block difference is tested;
 * - Wilcoxon's signed-rank test cannot reach p < 0.05 two-sided with fewer than 6 blocks (its
 *   smallest p with n = 5 is 2/2⁵ = 0.0625), and a bootstrap's interval is unreliable at the 6–12
 *   blocks an A/B can afford (its percentiles come from a handful of distinct resamples' extremes);
 * - the t interval on the log ratios is exact when block noise is log-normal, which it is for a
 *   launch-to-launch speed factor exp(σz) (the sim's launch noise, harness/engines/sim/launch-noise.ts)
 *   and, as compile already assumes, for run-to-run noise of throughput and latency.
 * A verdict needs more than significance: the whole (1 − α) interval must lie beyond the
 * equivalence margin, and "no change" means the whole interval lies within it (two one-sided tests
 * at α/2 each, so conservative); anything else is "inconclusive". A faster/slower verdict then has to
 * be repeated on a fresh set of blocks (confirmVerdict) before anything acts on it.
 * Pure functions: no I/O, no clock. Student's t is the one of log-interval.ts, shared with compile.
 */
import { SIGNIFICANCE_LEVEL, studentQuantileTwoSided, studentTwoSidedP, summarizeLogs, tMultiplier } from './log-interval.ts';

/** Which way is better for the metric (as in harness/contract/metric-catalog.ts's `better`). */
export type Better = 'higher' | 'lower';

/** faster/slower: B performs better/worse than A on the metric, whatever its direction. */
export type PairedVerdict = 'faster' | 'slower' | 'no change' | 'inconclusive';

/**
 * The default equivalence margin: ±3%. Below the run-to-run noise of a single run on the CPU lane
 * (σ of ln throughput 0.08–0.13, docs/metrics.md), so a "no change" says more than one run could.
 */
export const DEFAULT_EQUIVALENCE_MARGIN = 0.03;

/** One block of the design: the metric's value for arm A and for arm B (each > 0). */
export interface PairedBlock {
  readonly a: number;
  readonly b: number;
}

export interface PairedOptions {
  readonly better: Better;
  /** Significance level; the interval is at 1 − alpha. */
  readonly alpha?: number;
  /** Relative equivalence margin: 0.03 is ±3% (a change within it is "no change"). */
  readonly margin?: number;
}

export interface PairedComparison {
  readonly blocks: number;
  /** Mean of ln(B_i / A_i); null without a block. */
  readonly mean_log_ratio: number | null;
  /** Sample standard deviation of ln(B_i / A_i), what blocksNeeded takes from an A/A; null under 2 blocks. */
  readonly sd_log_ratio: number | null;
  /** exp(mean) − 1: the signed relative change of B against A (+0.10: B's value is 10% higher); null without a block. */
  readonly effect: number | null;
  /** The (1 − alpha) interval of the effect, exp(mean ± t·s/√n) − 1; null under 2 blocks. */
  readonly interval: readonly [number, number] | null;
  /** Two-sided p of "no change" (paired t, n − 1 degrees of freedom); null under 2 blocks. */
  readonly p: number | null;
  readonly verdict: PairedVerdict;
}

function checkLevel(alpha: number): void {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`paired: alpha ${alpha} is not in (0, 1)`);
}

function checkMargin(margin: number): void {
  if (!(margin >= 0 && margin < 1)) throw new RangeError(`paired: margin ${margin} is not a relative change in [0, 1)`);
}

/**
 * The paired t-test of B against A over `blocks`. Fewer than 2 blocks: no spread, so no test:
 * the effect of the one block (if any) with a null interval and p, verdict "inconclusive". Every
 * block alike (zero spread, as a noise-free sim gives): the effect is known exactly, its interval
 * is that one point and p is 0 (1 when it is exactly 0), as compile's tests treat identical repeats
 * (harness/contract/significance.ts); the verdict then follows from the margin alone.
 */
export function comparePaired(blocks: readonly PairedBlock[], options: PairedOptions): PairedComparison {
  const alpha = options.alpha ?? SIGNIFICANCE_LEVEL;
  const margin = options.margin ?? DEFAULT_EQUIVALENCE_MARGIN;
  checkLevel(alpha);
  checkMargin(margin);
  blocks.forEach(({ a, b }, i) => {
    // A failed arm has no value to take a log of; the caller decides what a failed block means.
    if (!(a > 0 && b > 0 && Number.isFinite(a) && Number.isFinite(b))) throw new RangeError(`paired: block ${i} has a = ${a}, b = ${b}; both must be finite and > 0`);
  });
  const n = blocks.length;
  if (n === 0) return { blocks: 0, mean_log_ratio: null, sd_log_ratio: null, effect: null, interval: null, p: null, verdict: 'inconclusive' };
  const { meanLog, varLog } = summarizeLogs(blocks.map(({ a, b }) => b / a));
  const effect = Math.expm1(meanLog);
  const t = tMultiplier(n, alpha);
  if (varLog === null || t === null) return { blocks: n, mean_log_ratio: meanLog, sd_log_ratio: null, effect, interval: null, p: null, verdict: 'inconclusive' };
  const sd = Math.sqrt(varLog);
  const se = sd / Math.sqrt(n);
  const p = se === 0 ? (meanLog === 0 ? 1 : 0) : studentTwoSidedP(meanLog / se, n - 1);
  const interval = [Math.expm1(meanLog - t * se), Math.expm1(meanLog + t * se)] as const;
  return { blocks: n, mean_log_ratio: meanLog, sd_log_ratio: sd, effect, interval, p, verdict: verdictOf(interval, p, alpha, margin, options.better) };
}

function verdictOf(interval: readonly [number, number], p: number, alpha: number, margin: number, better: Better): PairedVerdict {
  const [low, high] = interval;
  if (low >= -margin && high <= margin) return 'no change';
  // An interval clear of the margin already excludes 0; p < alpha is asked as well so that the two
  // can never disagree at the boundary (the t quantile is found by bisection, p by a series).
  const significant = p < alpha;
  if (significant && low > margin) return better === 'higher' ? 'faster' : 'slower';
  if (significant && high < -margin) return better === 'higher' ? 'slower' : 'faster';
  return 'inconclusive';
}

/**
 * The confirm pass: a verdict is acted on only when a second, fresh set of blocks says the same.
 * faster/slower stands only if the confirm pass agrees in direction; "no change" only if both
 * passes say it; any disagreement, or an inconclusive pass, is "inconclusive". Two independent
 * passes each wrong at rate α/2 per direction agree on a wrong direction at rate α²/2.
 */
export function confirmVerdict(first: Pick<PairedComparison, 'verdict'>, second: Pick<PairedComparison, 'verdict'>): PairedVerdict {
  return first.verdict === second.verdict ? first.verdict : 'inconclusive';
}

export interface BlocksNeededOptions {
  readonly alpha?: number;
  /** The chance of a faster/slower verdict when the true effect is `effect`, in [0.5, 1). */
  readonly power?: number;
  /** The margin the verdict will use: the interval must clear it, not merely 0 (0: the textbook formula). */
  readonly margin?: number;
  readonly min?: number;
  readonly max?: number;
}

/**
 * How many blocks detect a relative `effect` (+0.10 or −0.10) given the per-block log-ratio SD σ
 * measured from an A/A: the smallest n in [min, max] with
 * n ≥ ((t_{1−α/2, n−1} + t_{power, n−1}) · σ / δ)², δ = |ln(1 + effect)| − |ln(1 ± margin)| the
 * distance from the margin's edge on the effect's side to the effect, on the log scale (with margin 0,
 * δ = |ln(1 + effect)|: the textbook sample size of a paired t-test). t depends on n, so n is found
 * by counting up from min; max when even max blocks fall short.
 */
export function blocksNeeded(aaLogRatioSd: number, effect: number, options: BlocksNeededOptions = {}): number {
  const { alpha = SIGNIFICANCE_LEVEL, power = 0.8, margin = 0, min = 4, max = 32 } = options;
  checkLevel(alpha);
  checkMargin(margin);
  if (!(aaLogRatioSd >= 0 && Number.isFinite(aaLogRatioSd))) throw new RangeError(`blocksNeeded: σ ${aaLogRatioSd} must be finite and ≥ 0`);
  if (!(power >= 0.5 && power < 1)) throw new RangeError(`blocksNeeded: power ${power} is not in [0.5, 1)`);
  if (!(Number.isInteger(min) && Number.isInteger(max) && min >= 2 && max >= min)) throw new RangeError(`blocksNeeded: min ${min} and max ${max} must be integers with 2 ≤ min ≤ max`);
  if (!(effect > -1 && Number.isFinite(effect))) throw new RangeError(`blocksNeeded: effect ${effect} is not a relative change > −1`);
  const distance = Math.abs(Math.log1p(effect)) - Math.abs(Math.log1p(effect >= 0 ? margin : -margin));
  if (!(distance > 0)) throw new RangeError(`blocksNeeded: effect ${effect} lies within the margin ±${margin}; no number of blocks can call it faster or slower`);
  for (let n = min; n < max; n++) {
    // t_{power, n−1} is the one-sided quantile: P(T > t) = 1 − power, a two-sided tail of 2(1 − power).
    const needed = ((studentQuantileTwoSided(alpha, n - 1) + studentQuantileTwoSided(2 * (1 - power), n - 1)) * aaLogRatioSd / distance) ** 2;
    if (n >= needed) return n;
  }
  return max;
}
