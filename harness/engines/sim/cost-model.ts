/**
 * Step-duration math of the continuous-batching model. Kept apart from the scheduler so the
 * numbers a user calibrates (--decode-base-ms …) map to one formula that tests check by hand.
 */
import type { CostParams } from './config.ts';

/**
 * How long one engine step takes: a fixed decode overhead, a per-sequence decode cost for the
 * sequences that produce a decode token this step, and prefill at a fixed throughput.
 */
export function stepDurationMs(cost: CostParams, decodingSeqs: number, prefillTokens: number): number {
  const prefillMs = prefillTokens === 0 ? 0 : (prefillTokens / cost.prefillTokensPerS) * 1000;
  return cost.decodeBaseMs + cost.decodePerSeqMs * decodingSeqs + prefillMs;
}

/** KV tokens a request reserves for its whole life (reserved at admission, so no preemption). */
export function kvReservation(promptTokens: number, maxTokens: number): number {
  return promptTokens + maxTokens;
}

/** Whether a request could ever be admitted, even into an empty engine. */
export function fitsKvBudget(cost: CostParams, promptTokens: number, maxTokens: number): boolean {
  return kvReservation(promptTokens, maxTokens) <= cost.kvTokens;
}

/**
 * Next step deadline, drift-free: anchored on the previous deadline so timer lateness does not
 * accumulate, unless that anchor is already in the past (the engine was idle or fell behind).
 */
export function nextDeadline(previousDeadline: number | null, nowMs: number, durationMs: number): number {
  if (previousDeadline !== null && previousDeadline + durationMs >= nowMs) return previousDeadline + durationMs;
  return nowMs + durationMs;
}
