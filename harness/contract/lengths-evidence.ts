/**
 * One rule for a result's `lengths`: exact only when the model's tokenizer built the prompts AND
 * the server counted every prompt it was asked about at the length it was built to, both where
 * the result records it: the length check before measuring (the server's /tokenize) and every
 * completed request (usage.prompt_tokens; the points' input_tokens_mismatched). Any mismatch
 * means the prompts were not the scenario's lengths on this server, so the run did not measure
 * the same workload as an exact one and is not ranked beside it.
 *
 * The harness decides `lengths` with it (measure/load/run-load.ts), validate refuses a new file
 * that claims otherwise ([lengths-exact], store/plausibility.ts) and compile derives the column
 * lengths_effective with it, so the immutable files written before the rule are judged by it too.
 * Why: the embedded engine's results of 2026-12-02 said exact while the server counted 508–509
 * tokens for 512 (and 228–254 for 256) on every checked prompt, and were ranked beside
 * llama.cpp's exact runs.
 */
import type { Point, RunResult } from './result.ts';

export type Lengths = RunResult['workload']['lengths'];
type LengthCheckBlock = RunResult['workload']['length_check'];

/** Distinct (built → counted) pairs shown in a reason: enough to see the pattern. */
const SHOWN_PAIRS = 3;

/** Why the server's own counts say the prompts were not their built lengths; null when nothing disagreed. */
export function lengthMismatch(check: LengthCheckBlock, points: ReadonlyArray<Pick<Point, 'input_tokens_mismatched'>>): string | null {
  const reasons: string[] = [];
  if (check.mismatched > 0) {
    const pairs = [...new Set(check.examples.map((e) => `${e.expected}→${e.server}`))].slice(0, SHOWN_PAIRS);
    reasons.push(`the server's tokenizer counted ${check.mismatched} of ${check.checked} checked prompts otherwise${pairs.length > 0 ? ` (built→counted: ${pairs.join(', ')})` : ''}`);
  }
  const requests = points.reduce((sum, point) => sum + point.input_tokens_mismatched, 0);
  if (requests > 0) reasons.push(`its usage.prompt_tokens differed from the built length on ${requests} completed request${requests === 1 ? '' : 's'}`);
  return reasons.length > 0 ? reasons.join('; ') : null;
}

export interface LengthsVerdict {
  readonly lengths: Lengths;
  /** Why they are approximate; null when exact. */
  readonly reason: string | null;
}

/**
 * The verdict from what a tokenizer could build (`built`: exact, or approximate with its reason)
 * and the server's counts: the server's disagreement turns exact into approximate.
 */
export function judgeLengths(built: LengthsVerdict, check: LengthCheckBlock, points: ReadonlyArray<Pick<Point, 'input_tokens_mismatched'>>): LengthsVerdict {
  if (built.lengths === 'approximate') return built;
  const mismatch = lengthMismatch(check, points);
  return mismatch === null ? built : { lengths: 'approximate', reason: mismatch };
}

/**
 * What a result file's lengths are by the rule, from its own fields (any file, old or new):
 * `approximate` files keep their recorded reason (files before the rule have none).
 */
export function effectiveLengths(result: { readonly workload: Pick<RunResult['workload'], 'lengths' | 'lengths_reason' | 'length_check'>; readonly points: ReadonlyArray<Pick<Point, 'input_tokens_mismatched'>> }): LengthsVerdict {
  const { workload } = result;
  const recorded: LengthsVerdict = workload.lengths === 'exact' ? { lengths: 'exact', reason: null } : { lengths: 'approximate', reason: workload.lengths_reason ?? 'recorded as approximate (no tokenizer built the prompts, or it had no chat template)' };
  return judgeLengths(recorded, workload.length_check, result.points);
}
