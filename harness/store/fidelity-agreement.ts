/**
 * How far a run's probe answers agree with its reference's (docs/metrics.md#output-fidelity), and
 * the verdict. Pure: the answers in, the numbers out.
 */
import { sameOutput, type FidelityOutput } from '../contract/fidelity.ts';

/**
 * Thresholds, from the agreement measured on the dummy models (docs/metrics.md#output-fidelity):
 * a run passes when at least this share of its prompts answers exactly as the reference does …
 */
export const MIN_IDENTICAL_SHARE = 0.75;
/** … and the mean |Δ logprob| over the tokens both produced alike stays within this (nats). */
export const MAX_LOGPROB_DRIFT = 0.05;

export interface Agreement {
  /** Prompts compared (the shorter list's length: both come from one probe-set version). */
  readonly prompts: number;
  readonly identicalShare: number;
  /** Mean first position (0-based) where a differing answer departs from the reference's; null when none differs. */
  readonly meanDivergence: number | null;
  /** token: by token ids (both sides had them); character: by the texts' code points. */
  readonly unit: 'token' | 'character';
  /** Mean |Δ logprob| over the tokens before each divergence where both sides had logprobs; null: never both. */
  readonly logprobDrift: number | null;
}

function firstDifference<T>(a: readonly T[], b: readonly T[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Null when either side has no answers (a failed probe) or the lists differ in length (another probe set). */
export function compareAnswers(run: readonly FidelityOutput[], reference: readonly FidelityOutput[]): Agreement | null {
  if (run.length === 0 || run.length !== reference.length) return null;
  const byToken = run.every((o, i) => o.token_ids !== null && reference[i]!.token_ids !== null);
  let identical = 0;
  const divergences: number[] = [];
  let driftSum = 0;
  let driftCount = 0;
  run.forEach((output, i) => {
    const ref = reference[i]!;
    const same = sameOutput(output, ref);
    if (same) identical++;
    // Logprobs are compared only where the same tokens were produced: after a divergence they condition on different text.
    const common = byToken ? firstDifference(output.token_ids!, ref.token_ids!) : null;
    if (!same) divergences.push(byToken ? common! : firstDifference([...output.text], [...ref.text]));
    if (common !== null && output.logprobs && ref.logprobs) {
      const n = Math.min(common, output.logprobs.length, ref.logprobs.length);
      for (let t = 0; t < n; t++) driftSum += Math.abs(output.logprobs[t]! - ref.logprobs[t]!);
      driftCount += n;
    }
  });
  return {
    prompts: run.length,
    identicalShare: identical / run.length,
    meanDivergence: divergences.length === 0 ? null : divergences.reduce((a, b) => a + b, 0) / divergences.length,
    unit: byToken ? 'token' : 'character',
    logprobDrift: driftCount === 0 ? null : driftSum / driftCount,
  };
}

export function fidelityVerdict(agreement: Agreement): 'pass' | 'fail' {
  const drifted = agreement.logprobDrift !== null && agreement.logprobDrift > MAX_LOGPROB_DRIFT;
  return agreement.identicalShare >= MIN_IDENTICAL_SHARE && !drifted ? 'pass' : 'fail';
}
