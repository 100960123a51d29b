/**
 * The gate's verdict on one figure: the same noise-aware comparison the leaderboard's deltas use
 * (harness/contract/significance.ts): Welch's t-test on the log values of the two sessions' repeated
 * samples, the change as a geometric-mean ratio with its 95% interval. A figure regresses when the
 * change is for the worse, significant, and at least the threshold (regress's default, 10%):
 * noise alone is not a regression, and neither is a real but negligible change.
 *
 * When the two sessions ran on instances of different speed (bench:machine's references), a time
 * or rate figure's baseline is scaled by that speed first: a machine a quarter slower makes every
 * time a quarter longer, which is the machine's change, not servebench's.
 */
import { summarizeLogs } from '../../harness/lib/stats/log-interval.ts';
import { compareReleases } from '../../harness/contract/significance.ts';
import { DEFAULT_REGRESSION_THRESHOLD_PCT } from '../../harness/contract/metric-catalog.ts';
import { isMachineReference, speedScaling, type Better } from './figures.ts';

/** 'machine reference': a bench:machine figure, reported beside the others and never a regression of servebench. */
export type FigureVerdict = 'regressed' | 'improved' | 'no change' | 'no baseline' | 'too few samples' | 'machine reference';

export interface FigureComparison {
  readonly figure: string;
  readonly unit: string;
  readonly better: Better;
  readonly machine: string;
  /** As measured (before any scaling by machine speed). */
  readonly baseline: readonly number[];
  readonly candidate: readonly number[];
  /** The candidate machine's reference time over the baseline's (> 1: slower) when the baseline was scaled by it; null when not. */
  readonly machineFactor: number | null;
  /** candidate / baseline (geometric means; the baseline scaled by machineFactor); null without a baseline. */
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

/**
 * `machineFactor`: the candidate machine's reference time over the baseline machine's (null when
 * either session has no reference); applied to time and rate figures only (speedScaling).
 */
export function compareFigure(baseline: FigureSamples | undefined, candidate: FigureSamples, thresholdPct = DEFAULT_REGRESSION_THRESHOLD_PCT, machineFactor: number | null = null): FigureComparison {
  const reference = isMachineReference(candidate.figure);
  const scaling = reference ? null : speedScaling(candidate.unit);
  const factor = scaling === null ? null : machineFactor;
  const base = { figure: candidate.figure, unit: candidate.unit, better: candidate.better, machine: candidate.machine, candidate: candidate.values, machineFactor: factor };
  if (baseline === undefined) return { ...base, baseline: [], ratio: null, changePct: null, ci: null, pValue: null, verdict: 'no baseline' };
  // What the baseline would have measured on the candidate's machine.
  const scaled = factor === null ? baseline.values : baseline.values.map((v) => (scaling === 'time' ? v * factor : v / factor));
  // Welch needs a spread on both sides: one sample a side says nothing about noise.
  if (scaled.length < 2 || candidate.values.length < 2) {
    const ratio = Math.exp(summarizeLogs(candidate.values).meanLog - summarizeLogs(scaled).meanLog);
    return { ...base, baseline: baseline.values, ratio, changePct: (ratio - 1) * 100, ci: null, pValue: null, verdict: reference ? 'machine reference' : 'too few samples' };
  }
  const c = compareReleases(summarizeLogs(scaled), summarizeLogs(candidate.values), null);
  const changePct = (c.ratio - 1) * 100;
  const worse = candidate.better === 'lower' ? c.ratio > 1 : c.ratio < 1;
  const large = Math.abs(changePct) >= thresholdPct;
  const judged: FigureVerdict = c.significant && large ? (worse ? 'regressed' : 'improved') : 'no change';
  return { ...base, baseline: baseline.values, ratio: c.ratio, changePct, ci: c.ci, pValue: c.pValue, verdict: reference ? 'machine reference' : judged };
}
