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

/**
 * The costs of an engine `factor` times as slow (> 1) or fast (< 1): every step takes `factor` times
 * as long. The one way launch noise and planted version changes alter a sim's speed, so they compose
 * by multiplying.
 */
export function scaledCosts<T extends CostParams>(cost: T, factor: number): T {
  return { ...cost, prefillTokensPerS: cost.prefillTokensPerS / factor, decodeBaseMs: cost.decodeBaseMs * factor, decodePerSeqMs: cost.decodePerSeqMs * factor };
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
