/**
 * The metric math, in one place: raw request records in, every per-point metric out.
 * Definitions are documented in docs/metrics.md; change them here and there together.
 */
import { distribution } from './stats.ts';
import type { PointMetricsJson } from '../../contract/result.ts';
import { COUNT_SOURCES, FAILURE_CLASSES, type CountSource, type FailureClass } from '../../contract/vocabulary.ts';
import type { RequestRecord } from './request-record.ts';

export interface Slo {
  readonly ttft_ms?: number;
  readonly tpot_ms?: number;
  readonly e2el_ms?: number;
}

export type PointMetrics = PointMetricsJson;

export type ItlSplit = 'exact' | 'estimated';

export interface PointSummary {
  metrics: PointMetrics;
  failures: Record<FailureClass, number>;
  /** How many completed requests had their counts from each source. */
  token_count_sources: { input: Record<CountSource, number>; output: Record<CountSource, number> };
  /** Completed requests whose per-token ITL split was exact vs estimated from characters. */
  itl_split: Record<ItlSplit, number>;
}

export interface RequestTimings {
  ttftMs: number;
  e2elMs: number;
  /** null when the request produced a single token (no decode interval). */
  tpotMs: number | null;
  queueMs: number;
  itlTokenMs: number[];
  itlEventMs: number[];
  itlSplit: ItlSplit;
}

/**
 * Tokens carried by each content event. Exact when the server's token count equals the number of
 * events (one each), or when a tokenizer's per-event counts add up to the request's count;
 * otherwise each event gets one token and the rest are shared out in proportion to its
 * characters (largest remainder), and the split is "estimated".
 */
export function tokensPerEvent(record: RequestRecord): { tokens: number[]; split: ItlSplit } {
  const events = record.contentTimesMs.length;
  if (record.contentTokens) {
    const sum = record.contentTokens.reduce((a, b) => a + b, 0);
    return { tokens: record.contentTokens, split: sum === (record.outputTokens ?? sum) ? 'exact' : 'estimated' };
  }
  const total = record.outputTokens ?? events;
  const ones = new Array<number>(events).fill(1);
  // Fewer tokens than events: each event still gets one, and the split is a guess.
  if (total <= events) return { tokens: ones, split: total === events ? 'exact' : 'estimated' };
  const extra = total - events;
  const chars = record.contentChars;
  const totalChars = chars.reduce((sum, c) => sum + c, 0);
  const shares = chars.map((c) => (totalChars > 0 ? (c / totalChars) * extra : extra / events));
  const tokens = shares.map((share) => 1 + Math.floor(share));
  let remaining = extra - shares.reduce((sum, share) => sum + Math.floor(share), 0);
  const byRemainder = shares
    .map((share, i) => ({ i, rest: share - Math.floor(share) }))
    // Array.prototype.sort is stable: equal remainders keep the events' order.
    .sort((a, b) => b.rest - a.rest);
  for (const { i } of byRemainder) {
    if (remaining <= 0) break;
    tokens[i]! += 1;
    remaining -= 1;
  }
  return { tokens, split: 'estimated' };
}

/** Per-request latencies; only meaningful for a request with at least one content event. */
export function requestTimings(record: RequestRecord): RequestTimings {
  const times = record.contentTimesMs;
  const first = times[0]!;
  const last = times[times.length - 1]!;
  const ttftMs = first - record.sendMs;
  const e2elMs = last - record.sendMs;
  const n = record.outputTokens ?? times.length;
  const tpotMs = n > 1 ? (e2elMs - ttftMs) / (n - 1) : null;

  const itlEventMs: number[] = [];
  for (let j = 1; j < times.length; j++) itlEventMs.push(times[j]! - times[j - 1]!);

  // Each event's gap is split evenly over the tokens it carries. An event with zero tokens
  // (a tokenizer may count a fragment as none) hands its gap to the next event that has some,
  // so the samples always add up to E2EL − TTFT.
  const { tokens, split } = tokensPerEvent(record);
  const itlTokenMs: number[] = [];
  let carried = 0;
  // Stryker disable next-line ObjectLiteral: an empty group and no group are alike: the loop below runs over neither.
  let lastGroup = { start: 0, count: 0 };
  for (let j = 1; j < times.length; j++) {
    carried += itlEventMs[j - 1]!;
    const k = tokens[j] ?? 0;
    if (k <= 0) continue;
    lastGroup = { start: itlTokenMs.length, count: k };
    for (let t = 0; t < k; t++) itlTokenMs.push(carried / k);
    carried = 0;
  }
  // The gap after the last event that carried tokens belongs to that event's tokens (0 when nothing was carried).
  for (let t = lastGroup.start; t < lastGroup.start + lastGroup.count; t++) itlTokenMs[t]! += carried / lastGroup.count;
  return { ttftMs, e2elMs, tpotMs, queueMs: record.sendMs - record.scheduledMs, itlTokenMs, itlEventMs, itlSplit: split };
}

export function meetsSlo(timings: RequestTimings, slo: Slo): boolean {
  // A bound not given is no bound; a single-token request has no TPOT and meets any TPOT bound.
  if (timings.ttftMs > (slo.ttft_ms ?? Infinity)) return false;
  if ((timings.tpotMs ?? -Infinity) > (slo.tpot_ms ?? Infinity)) return false;
  if (timings.e2elMs > (slo.e2el_ms ?? Infinity)) return false;
  return true;
}

function zeroCounts<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;
}

function perSecond(count: number, durationS: number): number | null {
  return durationS > 0 ? count / durationS : null;
}

/** Every metric of one load point, from the measured (non-warmup) requests of that point. */
export function summarizePoint(records: readonly RequestRecord[], slo: Slo | null): PointSummary {
  const failures = zeroCounts(FAILURE_CLASSES);
  const inputSources = zeroCounts(COUNT_SOURCES);
  const outputSources = zeroCounts(COUNT_SOURCES);
  const itlSplit = zeroCounts(['exact', 'estimated'] as const);
  const ttft: number[] = [];
  const tpot: number[] = [];
  const itl: number[] = [];
  const itlEvent: number[] = [];
  const e2el: number[] = [];
  const queue: number[] = [];
  const interactivity: number[] = [];
  let completed = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let good = 0;
  let firstSend = Number.POSITIVE_INFINITY;
  let lastEnd = Number.NEGATIVE_INFINITY;

  for (const record of records) {
    firstSend = Math.min(firstSend, record.sendMs);
    lastEnd = Math.max(lastEnd, record.endMs);
    queue.push(record.sendMs - record.scheduledMs);
    if (record.failure) {
      failures[record.failure.class] += 1;
      continue;
    }
    completed += 1;
    inputTokens += record.inputTokens ?? 0;
    outputTokens += record.outputTokens ?? 0;
    if (record.inputTokensSource) inputSources[record.inputTokensSource] += 1;
    if (record.outputTokensSource) outputSources[record.outputTokensSource] += 1;
    const timings = requestTimings(record);
    itlSplit[timings.itlSplit] += 1;
    ttft.push(timings.ttftMs);
    e2el.push(timings.e2elMs);
    for (const gap of timings.itlTokenMs) itl.push(gap);
    for (const gap of timings.itlEventMs) itlEvent.push(gap);
    if (timings.tpotMs !== null) {
      tpot.push(timings.tpotMs);
      if (timings.tpotMs > 0) interactivity.push(1000 / timings.tpotMs);
    }
    if (slo && meetsSlo(timings, slo)) good += 1;
  }

  const durationS = records.length > 0 ? (lastEnd - firstSend) / 1000 : 0;
  return {
    metrics: {
      completed,
      failed: records.length - completed,
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      duration_s: durationS,
      request_throughput: perSecond(completed, durationS),
      output_throughput: perSecond(outputTokens, durationS),
      total_throughput: perSecond(inputTokens + outputTokens, durationS),
      goodput: slo ? perSecond(good, durationS) : null,
      ttft_ms: distribution(ttft),
      tpot_ms: distribution(tpot),
      itl_ms: distribution(itl),
      itl_event_ms: distribution(itlEvent),
      e2el_ms: distribution(e2el),
      queue_ms: distribution(queue),
      interactivity_tok_s: distribution(interactivity),
    },
    failures,
    token_count_sources: { input: inputSources, output: outputSources },
    itl_split: itlSplit,
  };
}
