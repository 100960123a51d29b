/**
 * The gate's verdict on one figure: the same noise-aware comparison the leaderboard's deltas use
 * (harness/contract/significance.ts): Welch's t-test on the log values of the two sessions' repeated
 * samples, the change as a geometric-mean ratio with its 95% interval. A figure regresses when the
 * change is for the worse, significant, and at least the threshold (regress's default, 10%):
 * noise alone is not a regression, and neither is a real but negligible change.
 */
import { summarizeLogs } from '../../harness/lib/stats/log-interval.ts';
import { compareReleases } from '../../harness/contract/significance.ts';
import { DEFAULT_REGRESSION_THRESHOLD_PCT } from '../../harness/contract/metric-catalog.ts';
import type { Better } from './figures.ts';

export type FigureVerdict = 'regressed' | 'improved' | 'no change' | 'no baseline' | 'too few samples';

export interface FigureComparison {
  readonly figure: string;
  readonly unit: string;
  readonly better: Better;
  readonly machine: string;
  readonly baseline: readonly number[];
  readonly candidate: readonly number[];
  /** candidate / baseline (geometric means); null without a baseline. */
  readonly ratio: number | null;
  readonly changePct: number | null;
  readonly ci: readonly [number, number] | null;
  readonly pValue: number | null;
  readonly verdict: FigureVerdict;
}

export interface FigureSamples {
  readonly figure: string;
  readonly unit: string;
  readonly better: Better;
  readonly machine: string;
  readonly values: readonly number[];
}

export function compareFigure(baseline: FigureSamples | undefined, candidate: FigureSamples, thresholdPct = DEFAULT_REGRESSION_THRESHOLD_PCT): FigureComparison {
  const base = { figure: candidate.figure, unit: candidate.unit, better: candidate.better, machine: candidate.machine, candidate: candidate.values };
  if (baseline === undefined) return { ...base, baseline: [], ratio: null, changePct: null, ci: null, pValue: null, verdict: 'no baseline' };
  // Welch needs a spread on both sides: one sample a side says nothing about noise.
  if (baseline.values.length < 2 || candidate.values.length < 2) {
    const ratio = Math.exp(summarizeLogs(candidate.values).meanLog - summarizeLogs(baseline.values).meanLog);
    return { ...base, baseline: baseline.values, ratio, changePct: (ratio - 1) * 100, ci: null, pValue: null, verdict: 'too few samples' };
  }
  const c = compareReleases(summarizeLogs(baseline.values), summarizeLogs(candidate.values), null);
  const changePct = (c.ratio - 1) * 100;
  const worse = candidate.better === 'lower' ? c.ratio > 1 : c.ratio < 1;
  const large = Math.abs(changePct) >= thresholdPct;
  const verdict: FigureVerdict = c.significant && large ? (worse ? 'regressed' : 'improved') : 'no change';
  return { ...base, baseline: baseline.values, ratio: c.ratio, changePct, ci: c.ci, pValue: c.pValue, verdict };
}
