/**
 * Did an open-loop point keep its schedule? A server that cannot keep up with the arrival rate
 * builds a backlog that grows for as long as the point lasts: its latencies then measure how long
 * the point ran, not the server, and its throughput is the server's capacity, not the rate the
 * point names. Such a point is marked overloaded, is not ranked, and the sweep stops climbing.
 *
 * Each request's delay behind its schedule (send − scheduled: the client's queue under
 * --max-concurrency; end − scheduled: the whole backlog) stays level while the schedule is kept,
 * and grows by b seconds per second of schedule when requests go out or complete at rate / (1 + b)
 * only. So the fraction of the scheduled rate achieved is 1 / (1 + b), b the slope of delay over
 * scheduled time (Tukey's resistant line through the medians of the first and last thirds: one
 * long request at either end does not tilt it). Definitions: docs/metrics.md#overloaded-points.
 */
import { OVERLOAD_RATIO, type Load } from '../../contract/result.ts';
import type { RequestRecord } from './request-record.ts';
import { median } from '../../lib/stats/median.ts';

/** Requests in each third for its median to mean something; with fewer a point is not judged. */
export const MIN_REQUESTS_PER_THIRD = 5;

export interface OverloadVerdict {
  readonly achieved_rate: { readonly send_ratio: number; readonly completion_ratio: number } | null;
  /** null: too few requests to tell. */
  readonly overloaded: boolean | null;
  /** Why overloaded is true or null. */
  readonly overload_reason?: string;
}

interface Sample {
  readonly x: number;
  readonly y: number;
}

/** Tukey's resistant line: the slope through the medians of the first and last thirds by x; null when they span no x. */
export function resistantSlope(samples: readonly Sample[]): number | null {
  const byX = [...samples].sort((a, b) => a.x - b.x);
  const third = Math.floor(byX.length / 3);
  if (third === 0) return null;
  const [left, right] = [byX.slice(0, third), byX.slice(byX.length - third)];
  const dx = median(right.map((s) => s.x)) - median(left.map((s) => s.x));
  if (!(dx > 0)) return null;
  return (median(right.map((s) => s.y)) - median(left.map((s) => s.y))) / dx;
}

/** The fraction of the scheduled rate kept when the delay grows by `slope` per unit of schedule; a shrinking delay (catching up) kept it whole. */
export function keptFraction(slope: number): number {
  return 1 / (1 + Math.max(0, slope));
}

const percent = (ratio: number): string => `${(ratio * 100).toFixed(1)}%`;
const perSecond = (rate: number): string => `${Number(rate.toPrecision(3))} requests/s`;

/** The verdict on one point; null for loads that have no schedule to keep (closed loop, trace, rate inf). */
export function judgeOverload(records: readonly RequestRecord[], load: Load): OverloadVerdict | null {
  if (load.mode !== 'open' || load.rate === 'inf') return null;
  const rate = load.rate;
  const completed = records.filter((r) => r.failure === null);
  const least = 3 * MIN_REQUESTS_PER_THIRD;
  if (completed.length < least) {
    return { achieved_rate: null, overloaded: null, overload_reason: `${completed.length} requests completed, fewer than ${least}: too few to tell whether the schedule was kept` };
  }
  const sendSlope = resistantSlope(records.map((r) => ({ x: r.scheduledMs, y: r.sendMs - r.scheduledMs })));
  const endSlope = resistantSlope(completed.map((r) => ({ x: r.scheduledMs, y: r.endMs - r.scheduledMs })));
  if (sendSlope === null || endSlope === null) {
    return { achieved_rate: null, overloaded: null, overload_reason: 'the schedule spans no time: nothing to keep up with' };
  }
  const achieved = { send_ratio: keptFraction(sendSlope), completion_ratio: keptFraction(endSlope) };
  const behind: string[] = [];
  if (achieved.send_ratio < OVERLOAD_RATIO) {
    const cause = load.max_concurrency === null ? 'the client fell behind' : `--max-concurrency ${load.max_concurrency} was full`;
    behind.push(`requests went out at ${percent(achieved.send_ratio)} of the scheduled ${perSecond(rate)}: the client queue grew (${cause})`);
  }
  if (achieved.completion_ratio < OVERLOAD_RATIO) {
    behind.push(`requests completed at ${percent(achieved.completion_ratio)} of the scheduled ${perSecond(rate)} (about ${perSecond(rate * achieved.completion_ratio)}): the backlog grew`);
  }
  return { achieved_rate: achieved, overloaded: behind.length > 0, ...(behind.length > 0 ? { overload_reason: behind.join('; ') } : {}) };
}
