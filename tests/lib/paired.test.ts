/**
 * The paired A/B verdict (harness/lib/stats/paired.ts) against values from published sources, never
 * against itself:
 * - [sleep] Student's sleep data (Cushny & Peebles 1905, as in R's `sleep`): the paired
 *   differences 1.2, 2.4, 1.3, 1.3, 0, 1.0, 1.8, 0.8, 4.6, 1.4; R's
 *   `with(sleep, t.test(extra[group == 2], extra[group == 1], paired = TRUE))` gives mean 1.58,
 *   t = 4.0621, df = 9, p = 0.002833, 95% CI [0.7001142, 2.4598858]. Blocks with a = 1 and
 *   b = e^d have exactly these log ratios, so the interval of the effect is e^CI − 1.
 * - [t-table] Student's t critical values (any standard table, e.g. NIST/SEMATECH e-Handbook
 *   1.3.6.7.2 for the 0.975 column; the one-tailed 0.20 column for power 0.8):
 *   t(0.975; 8, 9, 10, 19, 20) = 2.306, 2.262, 2.228, 2.093, 2.086 and
 *   t(0.80; 8, 9, 10, 19, 20) = 0.889, 0.883, 0.879, 0.861, 0.860.
 * The Monte-Carlo part draws A/A and A/B comparisons with log-normal block noise (what the sim's
 * launch noise is) from a fixed seed, and checks the rates against the ones derived below with
 * Wilson intervals at z = 3.29 (99.9%), wide enough that another seed would pass as well.
 */
import { describe, expect, it } from 'vitest';
import { blocksNeeded, comparePaired, confirmVerdict, type Better, type PairedBlock, type PairedVerdict } from '../../harness/lib/stats/paired.ts';
import { createRng, type Rng } from '../../harness/lib/rng.ts';
import { wilsonInterval } from '../../harness/lib/stats/wilson-interval.ts';

const SLEEP = [1.2, 2.4, 1.3, 1.3, 0, 1.0, 1.8, 0.8, 4.6, 1.4];
/** Blocks whose log ratios are `scale` × the sleep differences. */
const sleepBlocks = (scale: number): PairedBlock[] => SLEEP.map((d) => ({ a: 1, b: Math.exp(scale * d) }));

describe('comparePaired: the paired t on per-block log ratios', () => {
  it('reproduces R\'s paired t.test on the sleep data [sleep]', () => {
    const c = comparePaired(sleepBlocks(1), { better: 'higher' });
    expect(c.blocks).toBe(10);
    expect(c.mean_log_ratio).toBeCloseTo(1.58, 12);
    expect(c.p).toBeCloseTo(0.002833, 6);
    expect(c.interval![0]).toBeCloseTo(Math.expm1(0.7001142), 5);
    expect(c.interval![1]).toBeCloseTo(Math.expm1(2.4598858), 4);
    expect(c.effect).toBeCloseTo(Math.expm1(1.58), 12);
    // t = mean / (sd / √n): 4.0621 gives sd = 1.58 · √10 / 4.0621.
    expect(c.sd_log_ratio).toBeCloseTo((1.58 * Math.sqrt(10)) / 4.0621, 4);
    expect(c.verdict).toBe('faster');
  });

  it('is symmetric: swapping the arms negates the log effect and keeps p', () => {
    const forward = comparePaired(sleepBlocks(0.1), { better: 'higher' });
    const swapped = comparePaired(sleepBlocks(0.1).map(({ a, b }) => ({ a: b, b: a })), { better: 'higher' });
    expect(swapped.mean_log_ratio).toBeCloseTo(-forward.mean_log_ratio!, 14);
    expect(swapped.p).toBeCloseTo(forward.p!, 14);
    expect(Math.log1p(swapped.interval![0])).toBeCloseTo(-Math.log1p(forward.interval![1]), 12);
    expect([forward.verdict, swapped.verdict]).toEqual(['faster', 'slower']);
  });

  // Scaled by 0.01 the sleep data's log interval is [0.007001142, 0.024598858] → effect interval
  // [0.0070257, 0.0249039], p = 0.002833 (p does not depend on the scale).
  it.each<[string, number, number, Better, PairedVerdict]>([
    ['clear of +0.70%: faster (higher is better)', 0.01, 0.007, 'higher', 'faster'],
    ['clear of +0.70%: slower (lower is better)', 0.01, 0.007, 'lower', 'slower'],
    ['significant but the low end 0.7026% inside ±0.71%: inconclusive', 0.01, 0.0071, 'higher', 'inconclusive'],
    ['significant but wholly inside ±2.5%: no change', 0.01, 0.025, 'higher', 'no change'],
    ['the high end 2.4904% just past ±2.48%: inconclusive', 0.01, 0.0248, 'higher', 'inconclusive'],
    ['mirrored, clear of −0.69%: slower (higher is better)', -0.01, 0.0069, 'higher', 'slower'],
    ['mirrored, clear of −0.69%: faster (lower is better)', -0.01, 0.0069, 'lower', 'faster'],
    ['margin 0: significance alone decides', 0.01, 0, 'higher', 'faster'],
  ])('verdict boundaries: %s', (_, scale, margin, better, verdict) => {
    expect(comparePaired(sleepBlocks(scale), { better, margin }).verdict).toBe(verdict);
  });

  it('a stricter α widens the interval: at α = 0.001 the sleep data (p = 0.0028) is no longer faster', () => {
    expect(comparePaired(sleepBlocks(1), { better: 'higher', margin: 0, alpha: 0.001 }).verdict).toBe('inconclusive');
    expect(comparePaired(sleepBlocks(1), { better: 'higher', margin: 0, alpha: 0.005 }).verdict).toBe('faster');
  });

  it('no significance, interval within the margin or not: no change or inconclusive', () => {
    // Logs 0, ±0.01, ±0.02: mean 0, sd √2.5e-4, half-width 2.776 · 0.01/√2 = 0.0196 (t(0.975; 4) [t-table]).
    const blocks = [0, 0.01, -0.01, 0.02, -0.02].map((d) => ({ a: 100, b: 100 * Math.exp(d) }));
    const wide = comparePaired(blocks, { better: 'higher', margin: 0.03 });
    expect(wide.p).toBeCloseTo(1, 12);
    expect(wide.interval![0]).toBeCloseTo(Math.expm1(-0.019632), 4);
    expect(wide.interval![1]).toBeCloseTo(Math.expm1(0.019632), 4);
    expect(wide.verdict).toBe('no change');
    expect(comparePaired(blocks, { better: 'higher', margin: 0.01 }).verdict).toBe('inconclusive');
  });

  it('fewer than two blocks: no test, inconclusive, nulls rather than NaN', () => {
    expect(comparePaired([], { better: 'higher' })).toEqual({ blocks: 0, mean_log_ratio: null, sd_log_ratio: null, effect: null, interval: null, p: null, verdict: 'inconclusive' });
    const one = comparePaired([{ a: 10, b: 15 }], { better: 'higher' });
    expect(one).toMatchObject({ blocks: 1, sd_log_ratio: null, interval: null, p: null, verdict: 'inconclusive' });
    expect(one.effect).toBeCloseTo(0.5, 14);
  });

  it('zero spread: the effect is exact, its interval a point, p 0 (or 1 for no effect)', () => {
    const slower = comparePaired([2, 4, 8, 16].map((a) => ({ a, b: 1.5 * a })), { better: 'lower' });
    expect(slower.sd_log_ratio).toBeCloseTo(0, 14);
    expect(slower.p).toBe(0);
    expect(slower.interval![0]).toBeCloseTo(0.5, 12);
    expect(slower.interval![1]).toBeCloseTo(0.5, 12);
    expect(slower.verdict).toBe('slower');
    // A point inside the margin is no change, even though it is "significant".
    expect(comparePaired([1, 2, 3].map((a) => ({ a, b: 1.01 * a })), { better: 'lower' }).verdict).toBe('no change');
    expect(comparePaired([1, 2, 3].map((a) => ({ a, b: a })), { better: 'higher' })).toMatchObject({ p: 1, effect: 0, interval: [0, 0], verdict: 'no change' });
  });

  it.each<[string, PairedBlock[], Partial<{ alpha: number; margin: number }>, RegExp]>([
    ['a failed arm (0)', [{ a: 1, b: 1 }, { a: 0, b: 1 }], {}, /block 1 has a = 0, b = 1/],
    ['a negative value', [{ a: 1, b: -2 }], {}, /block 0 has a = 1, b = -2/],
    ['a NaN', [{ a: Number.NaN, b: 1 }], {}, /block 0/],
    ['alpha 0', [{ a: 1, b: 1 }], { alpha: 0 }, /alpha 0 is not in \(0, 1\)/],
    ['a negative margin', [{ a: 1, b: 1 }], { margin: -0.03 }, /margin -0.03/],
  ])('refuses %s', (_, blocks, options, message) => {
    expect(() => comparePaired(blocks, { better: 'higher', ...options })).toThrow(message);
  });
});

describe('confirmVerdict: a verdict stands only when a fresh block set says the same', () => {
  const VERDICTS: PairedVerdict[] = ['faster', 'slower', 'no change', 'inconclusive'];
  it.each(VERDICTS.flatMap((first) => VERDICTS.map((second) => [first, second] as const)))('%s then %s', (first, second) => {
    expect(confirmVerdict({ verdict: first }, { verdict: second })).toBe(first === second ? first : 'inconclusive');
  });
});

describe('blocksNeeded: blocks to detect an effect from the A/A noise', () => {
  it('worked values from the t table [t-table]', () => {
    // σ 0.1, +10%: δ = ln 1.1 = 0.09531, σ/δ = 1.04921. n = 10: ((2.262 + 0.883) · 1.04921)² = 10.89 > 10;
    // n = 11: ((2.228 + 0.879) · 1.04921)² = 10.63 ≤ 11.
    expect(blocksNeeded(0.1, 0.1)).toBe(11);
    // −10%: δ = |ln 0.9| = 0.10536, σ/δ = 0.94912. n = 9: ((2.306 + 0.889) · 0.94912)² = 9.20 > 9;
    // n = 10: ((2.262 + 0.883) · 0.94912)² = 8.91 ≤ 10.
    expect(blocksNeeded(0.1, -0.1)).toBe(10);
    // With a ±3% margin the interval has to clear ln 1.03: δ = 0.09531 − 0.02956 = 0.06575,
    // σ/δ = 1.52089. n = 20: ((2.093 + 0.861) · 1.52089)² = 20.18 > 20; n = 21: ((2.086 + 0.860) · 1.52089)² = 20.08 ≤ 21.
    expect(blocksNeeded(0.1, 0.1, { margin: 0.03 })).toBe(21);
  });

  it('clamps to [min, max]: no noise needs min, overwhelming noise gets max', () => {
    expect(blocksNeeded(0, 0.1)).toBe(4);
    expect(blocksNeeded(0, 0.1, { min: 6 })).toBe(6);
    expect(blocksNeeded(1, 0.1)).toBe(32);
    expect(blocksNeeded(1, 0.1, { max: 12 })).toBe(12);
  });

  it('is monotone: more noise, a smaller effect, a stricter α or more power never need fewer blocks', () => {
    const sigmas = [0.01, 0.03, 0.05, 0.08, 0.1, 0.13, 0.2];
    const bySigma = sigmas.map((s) => blocksNeeded(s, 0.1));
    expect(bySigma).toEqual([...bySigma].sort((x, y) => x - y));
    expect(bySigma[0]).toBe(4);
    expect(bySigma.at(-1)).toBeGreaterThan(bySigma[0]!);
    const byEffect = [0.05, 0.1, 0.2, 0.5].map((e) => blocksNeeded(0.08, e));
    expect(byEffect).toEqual([...byEffect].sort((x, y) => y - x));
    expect(blocksNeeded(0.08, 0.1, { alpha: 0.01 })).toBeGreaterThan(blocksNeeded(0.08, 0.1));
    expect(blocksNeeded(0.08, 0.1, { power: 0.95 })).toBeGreaterThan(blocksNeeded(0.08, 0.1));
  });

  it.each<[string, number, number, object, RegExp]>([
    ['an effect inside the margin', 0.1, 0.02, { margin: 0.03 }, /lies within the margin ±0.03/],
    ['no effect', 0.1, 0, {}, /lies within the margin/],
    ['a negative σ', -0.1, 0.1, {}, /σ -0.1/],
    ['power below 0.5', 0.1, 0.1, { power: 0.3 }, /power 0.3/],
    ['max below min', 0.1, 0.1, { min: 8, max: 4 }, /min 8 and max 4/],
    ['an effect of −100%', 0.1, -1, {}, /effect -1/],
  ])('refuses %s', (_, sigma, effect, options, message) => {
    expect(() => blocksNeeded(sigma, effect, options)).toThrow(message);
  });
});

/**
 * One simulated pass: `n` blocks with a host drift per block shared by both arms (which the pairing
 * must cancel) and independent log-normal noise σ per arm; B is `1 + effect` times A's speed.
 */
function simulatedPass(rng: Rng, n: number, sigma: number, effect: number): PairedBlock[] {
  return Array.from({ length: n }, () => {
    const drift = Math.exp(0.3 * rng.normal());
    return { a: 100 * drift * Math.exp(sigma * rng.normal()), b: 100 * (1 + effect) * drift * Math.exp(sigma * rng.normal()) };
  });
}

/** Counts over `trials` first passes, each followed by a confirm pass on fresh blocks. */
function monteCarlo(seed: string, trials: number, n: number, sigma: number, effect: number, margin: number) {
  const rng = createRng(28, seed);
  const first: Record<PairedVerdict, number> = { faster: 0, slower: 0, 'no change': 0, inconclusive: 0 };
  const confirmed: Record<PairedVerdict, number> = { faster: 0, slower: 0, 'no change': 0, inconclusive: 0 };
  for (let i = 0; i < trials; i++) {
    const one = comparePaired(simulatedPass(rng, n, sigma, effect), { better: 'higher', margin });
    const two = comparePaired(simulatedPass(rng, n, sigma, effect), { better: 'higher', margin });
    first[one.verdict]++;
    confirmed[confirmVerdict(one, two)]++;
  }
  return { first, confirmed };
}

const Z_999 = 3.2905267314919255;
/** Whether `expected` lies in the 99.9% Wilson interval of `count` of `trials`. */
function consistent(count: number, trials: number, expected: number): boolean {
  const [low, high] = wilsonInterval(count, trials, Z_999)!;
  return low <= expected && expected <= high;
}

describe('Monte Carlo: the false-alarm rate of A/A comparisons and the power of A/B ones', () => {
  // σ 0.05 per arm, 8 blocks: the per-block log ratio has σ 0.05·√2 = 0.0707, the CPU lane's order.
  const TRIALS = 20_000;

  it('A/A, margin 0: each direction says so α/2 of the time, both α; confirmed, α²/2', () => {
    // With margin 0 a verdict is exactly "p < α" in that direction: under the null the paired t
    // is exact for normal log ratios, so P(faster) = P(slower) = α/2; the confirm pass is an
    // independent repeat, so a confirmed false alarm needs both in one direction: 2 · (α/2)² = α²/2.
    const { first, confirmed } = monteCarlo('aa-margin-0', TRIALS, 8, 0.05, 0, 0);
    expect(consistent(first.faster, TRIALS, 0.025), `${first.faster} faster of ${TRIALS}`).toBe(true);
    expect(consistent(first.slower, TRIALS, 0.025), `${first.slower} slower of ${TRIALS}`).toBe(true);
    expect(consistent(first.faster + first.slower, TRIALS, 0.05)).toBe(true);
    const falseConfirmed = confirmed.faster + confirmed.slower;
    expect(consistent(falseConfirmed, TRIALS, 0.05 ** 2 / 2), `${falseConfirmed} confirmed of ${TRIALS}`).toBe(true);
    expect(wilsonInterval(falseConfirmed, TRIALS, Z_999)![0]).toBeLessThanOrEqual(0.05 ** 2);
  });

  it('A/A, default margin ±3%: false alarms below α/2 per direction, confirmed ones below α²', () => {
    // The margin only removes verdicts (an interval clear of ±3% is clear of 0), so each rate is at
    // most its margin-0 value; the upper Wilson bound must be under it.
    const { first, confirmed } = monteCarlo('aa-margin-3', TRIALS, 8, 0.05, 0, 0.03);
    expect(wilsonInterval(first.faster, TRIALS, Z_999)![1]).toBeLessThan(0.025);
    expect(wilsonInterval(first.slower, TRIALS, Z_999)![1]).toBeLessThan(0.025);
    expect(wilsonInterval(confirmed.faster + confirmed.slower, TRIALS, Z_999)![1]).toBeLessThan(0.05 ** 2);
  });

  it('A/B, a planted +10% at the blocksNeeded count is called faster ≥ 70% of the time (power 0.8)', () => {
    const sigma = 0.05;
    const n = blocksNeeded(sigma * Math.SQRT2, 0.1, { margin: 0.03 });
    expect(n).toBeGreaterThan(4);
    expect(n).toBeLessThan(32);
    const trials = 4000;
    const { first } = monteCarlo('ab-plus-10', trials, n, sigma, 0.1, 0.03);
    expect(wilsonInterval(first.faster, trials, Z_999)![0], `${first.faster} faster of ${trials} at n = ${n}`).toBeGreaterThanOrEqual(0.7);
    // Never the wrong direction.
    expect(first.slower).toBe(0);
  });
});
