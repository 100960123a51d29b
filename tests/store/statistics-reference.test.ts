/**
 * The release statistics (harness/contract/significance.ts, regress.ts) against published reference
 * values, never against themselves. Sources:
 * - [R-sleep] R's own example in `?t.test`: `t.test(extra ~ group, data = sleep)` (Student's 1908
 *   sleep data, R's `datasets::sleep`), Welch by default: t = -1.8608, df = 17.776,
 *   p-value = 0.07939, 95 percent confidence interval -3.3654832 0.2054832. With
 *   `var.equal = TRUE` (pooled): df = 18, p-value = 0.07919.
 * - [R-booklet] `t.test(booklet, no_booklet)` as published by Statology ("How to Perform Welch's
 *   t-test in R"): t = 2.2361, df = 14.354, p-value = 0.04171, 95 percent confidence interval
 *   0.3048395 13.8618272.
 * - [closed] Student's t in closed form: ν = 1 is the Cauchy distribution,
 *   P(|T| ≥ t) = 1 − (2/π)·atan(t), quantile tan(π(1 − α/2) − π/2); ν = 2:
 *   P(|T| ≥ t) = 1 − t/√(2 + t²), quantile (1 − α)·√(2 / (α(2 − α))) (Johnson, Kotz &
 *   Balakrishnan, Continuous Univariate Distributions vol. 2, ch. 28).
 * - [nist-t] NIST/SEMATECH e-Handbook of Statistical Methods, 1.3.6.7.2 "Critical values of the
 *   Student's t distribution", column 0.975 (three decimals).
 * - [beta] the regularized incomplete beta in closed form: I_x(a, 1) = xᵃ, I_x(1, b) = 1 − (1 − x)ᵇ,
 *   I_x(a, b) = 1 − I_{1−x}(b, a), I_½(a, a) = ½ (Abramowitz & Stegun 26.5.2, 6.6.2).
 * compareReleases works on whatever its summaries carry: given the raw means and variances of R's
 * samples as "logs", the log of its ratio and interval are R's difference and interval.
 */
import { describe, expect, it } from 'vitest';
import type { Delta } from '../../harness/contract/site-data.ts';
import { findRegressions } from '../../harness/store/regress.ts';
import { compareReleases, pooledLogVariance } from '../../harness/contract/significance.ts';
import { incompleteBeta, studentQuantileTwoSided, studentTwoSidedP, summarizeLogs, tMultiplier, type SampleSummary } from '../../harness/lib/stats/log-interval.ts';

/** Mean and sample variance of raw values, as a SampleSummary (the test's own arithmetic, not summarizeLogs). */
function rawSummary(values: readonly number[]): SampleSummary {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  return { n, meanLog: mean, varLog: values.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1) };
}
const close = (actual: number | null | undefined, expected: number, abs: number, what: string) => {
  expect(typeof actual, what).toBe('number');
  expect(Math.abs((actual as number) - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(abs);
};

const SLEEP_GROUP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
const SLEEP_GROUP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];
const BOOKLET = [90, 85, 88, 89, 94, 91, 79, 83, 87, 88, 91, 90];
const NO_BOOKLET = [67, 90, 71, 95, 88, 83, 72, 66, 75, 86, 93, 84];

describe("Welch's t-test against R [R-sleep, R-booklet]", () => {
  it('sleep: df = 17.776 (Welch–Satterthwaite, not the pooled 18), p = 0.07939, interval −3.3654832 … 0.2054832', () => {
    // R's x − y is group 1 − group 2: group 1 is `next`.
    const c = compareReleases(rawSummary(SLEEP_GROUP_2), rawSummary(SLEEP_GROUP_1), null);
    expect(c.method).toBe('welch');
    close(c.df, 17.776, 5e-4, 'df');
    close(Math.log(c.ratio), -1.58, 1e-12, 'difference');
    close(c.pValue, 0.07939, 5e-6, 'p');
    close(Math.log(c.ci![0]), -3.3654832, 5e-8, 'ci low');
    close(Math.log(c.ci![1]), 0.2054832, 5e-8, 'ci high');
    // R's pooled answer is a different one: the Welch test must not give it.
    expect(Math.abs(c.pValue! - 0.07919)).toBeGreaterThan(1e-4);
    expect(c.significant).toBe(false);
  });

  it('booklet: df = 14.354, p = 0.04171 (significant at 0.05), interval 0.3048395 … 13.8618272', () => {
    const c = compareReleases(rawSummary(NO_BOOKLET), rawSummary(BOOKLET), null);
    close(c.df, 14.354, 5e-4, 'df');
    close(c.pValue, 0.04171, 5e-6, 'p');
    close(Math.log(c.ci![0]), 0.3048395, 5e-8, 'ci low');
    close(Math.log(c.ci![1]), 13.8618272, 5e-8, 'ci high');
    expect(c.significant).toBe(true);
    // Its t: (87.91667 − 80.83333) / se = 2.2361, recovered from the interval's half-width and t(0.975, 14.354).
    const se = (Math.log(c.ci![1]) - Math.log(c.ci![0])) / 2 / studentQuantileTwoSided(0.05, c.df!);
    close(Math.log(c.ratio) / se, 2.2361, 5e-5, 't');
  });

  it('is symmetric: swapping the sides inverts the ratio and its interval, keeps p and df', () => {
    const ab = compareReleases(rawSummary(NO_BOOKLET), rawSummary(BOOKLET), null);
    const ba = compareReleases(rawSummary(BOOKLET), rawSummary(NO_BOOKLET), null);
    close(ba.ratio, 1 / ab.ratio, 1e-12 * (1 / ab.ratio), 'ratio');
    close(ba.pValue, ab.pValue!, 1e-15, 'p');
    close(ba.df, ab.df!, 1e-12, 'df');
    close(ba.ci![0] * ab.ci![1], 1, 1e-9, 'ci');
  });

  it('significance is p strictly below the level: a p exactly at the level is not significant', () => {
    const c = compareReleases(rawSummary(NO_BOOKLET), rawSummary(BOOKLET), null);
    expect(compareReleases(rawSummary(NO_BOOKLET), rawSummary(BOOKLET), null, c.pValue!).significant).toBe(false);
    expect(compareReleases(rawSummary(NO_BOOKLET), rawSummary(BOOKLET), null, c.pValue! * 1.0001).significant).toBe(true);
  });

  it('identical repeats (no spread): any change is certain, no change is none', () => {
    const same = compareReleases(summarizeLogs([100, 100]), summarizeLogs([100, 100]), null);
    // No spread: Welch–Satterthwaite is 0/0, so no degrees of freedom are reported.
    expect([same.pValue, same.significant, same.ci, same.ratio, same.df]).toEqual([1, false, [1, 1], 1, null]);
    const moved = compareReleases(summarizeLogs([100, 100]), summarizeLogs([80, 80]), null);
    expect([moved.method, moved.pValue, moved.significant]).toEqual(['welch', 0, true]);
    close(moved.ci![0], 0.8, 1e-15, 'ci');
    expect(moved.ci![1]).toBe(moved.ci![0]);
  });
});

describe('the single-run test: the pooled noise band [closed]', () => {
  // σ² = 0.01 with 2 degrees of freedom: the t distribution with ν = 2 has a closed form.
  const noise = { variance: 0.01, df: 2 };

  it('single runs: t = ln(ratio) / √(σ²·(1/n₁ + 1/n₂)) with the noise’s degrees of freedom', () => {
    const c = compareReleases(summarizeLogs([100]), summarizeLogs([75]), noise);
    const se = Math.sqrt(0.01 * 2);
    const t = Math.log(0.75) / se;
    expect(c.method).toBe('noise-band');
    expect(c.df).toBe(2);
    close(c.pValue, 1 - Math.abs(t) / Math.sqrt(2 + t * t), 1e-12, 'p');
    const q = 0.95 * Math.sqrt(2 / (0.05 * 1.95));
    close(c.ci![0], 0.75 * Math.exp(-q * se), 1e-9, 'ci low');
    close(c.ci![1], 0.75 * Math.exp(q * se), 1e-9, 'ci high');
    expect(c.significant).toBe(false); // p ≈ 0.108
  });

  it('one side repeated, the other single: still the noise band, with n of each side in the standard error', () => {
    const previous = summarizeLogs([100, 100 * Math.exp(0.1), 100 * Math.exp(-0.1)]);
    const c = compareReleases(previous, summarizeLogs([60]), noise);
    const se = Math.sqrt(0.01 * (1 / 3 + 1));
    const t = Math.log(0.6) / se;
    expect([c.method, c.df]).toEqual(['noise-band', 2]);
    close(c.pValue, 1 - Math.abs(t) / Math.sqrt(2 + t * t), 1e-12, 'p');
  });

  it('no spread in the noise: a change is certain; no noise at all: nothing is called significant', () => {
    const flat = { variance: 0, df: 4 };
    expect(compareReleases(summarizeLogs([100]), summarizeLogs([99]), flat)).toMatchObject({ pValue: 0, significant: true, method: 'noise-band', df: 4 });
    expect(compareReleases(summarizeLogs([100]), summarizeLogs([100]), flat)).toMatchObject({ pValue: 1, significant: false });
    const unknown = compareReleases(summarizeLogs([100]), summarizeLogs([50]), null);
    expect(unknown).toMatchObject({ pValue: null, ci: null, df: null, method: 'unknown-noise', significant: false });
    close(unknown.ratio, 0.5, 1e-15, 'ratio');
  });
});

describe('the pieces [closed, nist-t, beta]', () => {
  it('summarizeLogs: mean and sample variance (n − 1) of ln(value), non-positive values left out', () => {
    const s = summarizeLogs([Math.E, Math.E ** 2, Math.E ** 3, 0, -5]);
    expect(s.n).toBe(3);
    close(s.meanLog, 2, 1e-15, 'meanLog');
    close(s.varLog, 1, 1e-15, 'varLog'); // Σ(1, 0, 1) / (3 − 1)
    expect(summarizeLogs([42]).varLog).toBeNull();
    const two = summarizeLogs([Math.E, Math.E ** 3]);
    expect(two.n).toBe(2);
    close(two.varLog, 2, 1e-15, 'two values: (1 + 1) / (2 − 1)');
    close(summarizeLogs([42]).meanLog, Math.log(42), 0, 'single');
  });

  it('pooledLogVariance: Σ(nᵢ − 1)·sᵢ² / Σ(nᵢ − 1) over repeated groups; null without repeats', () => {
    const pooled = pooledLogVariance([
      { n: 3, meanLog: 0, varLog: 0.04 },
      { n: 1, meanLog: 5, varLog: null },
      { n: 5, meanLog: 1, varLog: 0.01 },
      // Runs whose spread is unknown add no degrees of freedom.
      { n: 4, meanLog: 2, varLog: null },
    ])!;
    expect(pooled.df).toBe(6);
    close(pooled.variance, (2 * 0.04 + 4 * 0.01) / 6, 1e-15, 'variance');
    expect(pooledLogVariance([{ n: 1, meanLog: 0, varLog: null }])).toBeNull();
    expect(pooledLogVariance([])).toBeNull();
  });

  it('P(|T| ≥ t): the Cauchy (ν = 1) and ν = 2 closed forms, 1 at t = 0, 0 at infinity', () => {
    for (const t of [0.1, 0.5, 1, 2, 5, 12.7, 100]) {
      close(studentTwoSidedP(t, 1), 1 - (2 / Math.PI) * Math.atan(t), 1e-12, `ν=1 t=${t}`);
      close(studentTwoSidedP(-t, 2), 1 - t / Math.sqrt(2 + t * t), 1e-12, `ν=2 t=${-t}`);
    }
    expect(studentTwoSidedP(0, 7)).toBe(1);
    expect(studentTwoSidedP(Number.POSITIVE_INFINITY, 3)).toBe(0);
    expect(studentTwoSidedP(Number.NEGATIVE_INFINITY, 3)).toBe(0);
  });

  it('t(0.975, ν): closed forms for ν = 1, 2 and NIST’s table to three decimals', () => {
    close(studentQuantileTwoSided(0.05, 1), Math.tan(0.475 * Math.PI), 1e-9, 'ν=1');
    close(studentQuantileTwoSided(0.05, 2), 0.95 * Math.sqrt(2 / (0.05 * 1.95)), 1e-9, 'ν=2');
    close(studentQuantileTwoSided(0.01, 1), Math.tan(0.495 * Math.PI), 1e-7, 'ν=1, 99%');
    const nist: Record<number, number> = { 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 15: 2.131, 20: 2.086, 30: 2.042, 50: 2.009, 100: 1.984 };
    for (const [df, t] of Object.entries(nist)) close(studentQuantileTwoSided(0.05, Number(df)), t, 5e-4, `ν=${df}`);
    close(studentQuantileTwoSided(0.05, 1e7), 1.959964, 1e-6, 'ν→∞ (the normal 1.959964)');
  });

  it('tMultiplier: t(0.975, runs − 1), none for a single run', () => {
    expect(tMultiplier(1)).toBeNull();
    expect(tMultiplier(0)).toBeNull();
    close(tMultiplier(2), Math.tan(0.475 * Math.PI), 1e-9, '2 runs');
    close(tMultiplier(3), 0.95 * Math.sqrt(2 / (0.05 * 1.95)), 1e-9, '3 runs');
    close(tMultiplier(11), 2.228, 5e-4, '11 runs');
    close(tMultiplier(2, 0.01), Math.tan(0.495 * Math.PI), 1e-7, '2 runs, 99%');
  });

  it('the regularized incomplete beta in closed form', () => {
    for (const x of [0.01, 0.2, 0.5, 0.77, 0.99]) {
      // a < ½ takes ln Γ through the reflection formula.
      for (const a of [0.25, 0.5, 1, 2.5, 7]) {
        close(incompleteBeta(x, a, 1), x ** a, 1e-13, `I_${x}(${a}, 1)`);
        close(incompleteBeta(x, 1, a), 1 - (1 - x) ** a, 1e-13, `I_${x}(1, ${a})`);
        close(incompleteBeta(x, a, 3) + incompleteBeta(1 - x, 3, a), 1, 1e-13, `symmetry ${x} ${a}`);
      }
    }
    for (const a of [0.5, 3, 40]) close(incompleteBeta(0.5, a, a), 0.5, 1e-13, `I_½(${a}, ${a})`);
    expect([incompleteBeta(0, 2, 3), incompleteBeta(-1, 2, 3), incompleteBeta(1, 2, 3), incompleteBeta(2, 2, 3)]).toEqual([0, 0, 1, 1]);
  });
});

describe('the regression threshold (regress.ts): a change for the worse of at least the threshold', () => {
  const delta = (change_pct: number, verdict: Delta['verdict'], metric = 'output_throughput'): Delta => ({
    config_id: 'c', scenario_id: 's', model: 'm', precision: 'p', hardware: 'h', workload: 'w', methodology: 'x', load: 'c=1', engine: 'e', metric, better: 'higher',
    previous_version: '1', version: '2', previous_value: 100, value: 100 + change_pct, change_pct, ci_low_pct: null, ci_high_pct: null, p_value: 0.001, method: 'welch',
    significant: verdict !== 'unclear', verdict, previous_runs: 3, runs: 3, previous_run_id: 'a', run_id: 'b',
  });

  it('is inclusive: exactly −10% at a 10% threshold is a regression, −9.99% is not', () => {
    const found = findRegressions([delta(-10, 'worse'), delta(-9.99, 'worse', 'request_throughput')], 10, new Map());
    expect(found.map((r) => r.change_pct)).toEqual([-10]);
  });

  it('counts the size, not the sign (latency rises), and only significant changes for the worse', () => {
    const latency = { ...delta(12, 'worse', 'ttft_ms_p50'), better: 'lower' as const };
    const found = findRegressions([latency, delta(-30, 'better', 'tpot_ms_p50'), delta(-30, 'unclear', 'e2el_ms_p50')], 10, new Map([['b', 'results/x.json']]));
    expect(found.map((r) => [r.metric, r.file, r.previous_file])).toEqual([['ttft_ms_p50', 'results/x.json', null]]);
  });
});
