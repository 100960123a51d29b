/**
 * The steady window of a load point: the part of it where the server carried the load the point
 * names. Whole-point throughput divides by first send → last end, which includes the ramp (the
 * first requests start alone, or an open loop's arrivals have not yet met their departures) and
 * the drain tail (the last requests finish alone); both understate the rate a server sustains.
 * Definitions and their reasons: docs/metrics.md#steady-window; change them here and there together.
 *
 * - Closed loop at concurrency c: from the moment c requests are first in flight together to the
 *   first request end after the last send (from then on fewer than c are in flight).
 * - Open loop and trace: from the first request end (arrivals and departures both run: the number
 *   in flight has reached its level) to the first request end after the last send.
 *
 * Inside the window (start, end], as GuideLLM filters event-level metrics by timestamp: a completed
 * request counts when it ends there, its output tokens when their content events arrive there, its
 * input tokens when its first content event (the prefill done) arrives there.
 */
import type { Load, SteadyWindowJson } from '../../contract/result.ts';
import type { RequestRecord } from './request-record.ts';
import { tokensPerEvent } from './summarize.ts';

export type SteadyOutcome = { readonly steady: SteadyWindowJson; readonly reason: null } | { readonly steady: null; readonly reason: string };

const none = (reason: string): SteadyOutcome => ({ steady: null, reason });

/**
 * The first time `target` requests are in flight together (null: never), and the most that ever were.
 * At equal timestamps an end is counted before a send: the freed slot is not yet refilled.
 */
function firstReached(records: readonly RequestRecord[], target: number): { atMs: number | null; peak: number } {
  const events = records.flatMap((r) => [
    { atMs: r.sendMs, delta: 1 },
    { atMs: r.endMs, delta: -1 },
  ]);
  events.sort((a, b) => a.atMs - b.atMs || a.delta - b.delta);
  let inFlight = 0;
  let peak = 0;
  for (const event of events) {
    inFlight += event.delta;
    peak = Math.max(peak, inFlight);
    if (inFlight >= target) return { atMs: event.atMs, peak };
  }
  return { atMs: null, peak };
}

/** Where the window starts: null with the reason when the load was never reached. */
function windowStart(records: readonly RequestRecord[], load: Load): { atMs: number } | { reason: string } {
  if (load.mode === 'closed') {
    const { atMs, peak } = firstReached(records, load.concurrency);
    if (atMs === null) return { reason: `${load.concurrency} requests were never in flight together (at most ${peak} of ${records.length} sent): too short for a steady window` };
    return { atMs };
  }
  return { atMs: records.reduce((min, r) => Math.min(min, r.endMs), Number.POSITIVE_INFINITY) };
}

/** The steady window of a point's measured requests, or why it has none (never a made-up number). */
export function steadyWindow(records: readonly RequestRecord[], load: Load): SteadyOutcome {
  if (records.length === 0) return none('no request was sent');
  const originMs = records.reduce((min, r) => Math.min(min, r.sendMs), Number.POSITIVE_INFINITY);
  const lastSendMs = records.reduce((max, r) => Math.max(max, r.sendMs), Number.NEGATIVE_INFINITY);
  const endMs = records.reduce((min, r) => (r.endMs > lastSendMs ? Math.min(min, r.endMs) : min), Number.POSITIVE_INFINITY);
  if (endMs === Number.POSITIVE_INFINITY) return none('no request ended after the last send');
  const start = windowStart(records, load);
  if ('reason' in start) return none(start.reason);
  const startMs = start.atMs;
  if (startMs >= endMs) {
    return none(
      load.mode === 'closed'
        ? 'the drain began as the concurrency was reached: no steady part'
        : `all ${records.length} requests were sent before the first one ended: arrivals never ran beside departures, so no part of the point was steady`,
    );
  }

  const inside = (atMs: number): boolean => atMs > startMs && atMs <= endMs;
  let completed = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  for (const record of records) {
    if (record.failure !== null) continue;
    if (inside(record.endMs)) completed += 1;
    const times = record.contentTimesMs;
    if (times.length > 0 && inside(times[0]!)) inputTokens += record.inputTokens ?? 0;
    const { tokens } = tokensPerEvent(record);
    times.forEach((atMs, j) => {
      if (inside(atMs)) outputTokens += tokens[j] ?? 0;
    });
  }
  const [startS, endS] = [(startMs - originMs) / 1000, (endMs - originMs) / 1000];
  const durationS = endS - startS;
  return {
    steady: {
      start_s: startS,
      end_s: endS,
      duration_s: durationS,
      completed,
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      request_throughput: completed / durationS,
      output_throughput: outputTokens / durationS,
      total_throughput: (inputTokens + outputTokens) / durationS,
    },
    reason: null,
  };
}
