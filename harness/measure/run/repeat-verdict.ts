/**
 * `run --repeats`: what the repeats so far say, and whether the group stops. Pure: the repeat loop
 * (repeats.ts) hands in the results and the clock. The interval is compile's, from the one shared
 * definition (harness/lib/stats/log-interval.ts): the 95% CI of the geometric mean over the runs,
 * a t-interval of the logs, so `auto` stops on exactly the interval the site then shows.
 */
import { logInterval } from '../../lib/stats/log-interval.ts';
import { MIN_CONVERGED_REPEATS, REPEAT_METRICS, type Point, type RunResult } from '../../contract/result.ts';
import type { REPEAT_STOP_REASONS } from '../../contract/result.ts';

export type RepeatMetric = (typeof REPEAT_METRICS)[number];
export type StopReason = (typeof REPEAT_STOP_REASONS)[number];
/** Per metric, the relative half-width of its interval at one point (null: fewer than 2 values). */
export type HalfWidths = Record<RepeatMetric, number | null>;

export type RepeatPolicy =
  | { readonly mode: 'fixed'; readonly count: number }
  | { readonly mode: 'auto'; readonly target: number; readonly maxRepeats: number; readonly maxTimeS: number };

/** The most repeats the policy may run (run.repeat.of). */
export function repeatLimit(policy: RepeatPolicy): number {
  return policy.mode === 'fixed' ? policy.count : policy.maxRepeats;
}

/**
 * A point's value of a metric as compile's points table reads it (harness/store/columns.ts:
 * output_throughput, ttft_ms_p50, tpot_ms_p50; tests/run/repeats.test.ts holds the two together).
 */
export function repeatMetricValue(point: Point, metric: RepeatMetric): number | null {
  switch (metric) {
    case 'output_throughput':
      return point.metrics.output_throughput;
    case 'ttft_ms_p50':
      return point.metrics.ttft_ms?.p50 ?? null;
    case 'tpot_ms_p50':
      return point.metrics.tpot_ms?.p50 ?? null;
  }
}

/** One metric at one point over the repeats: its positive values (compile takes logs of those only). */
function valuesAt(results: readonly RunResult[], pointIndex: number, metric: RepeatMetric): number[] {
  return results.flatMap((r) => {
    const point = r.points[pointIndex];
    const value = point ? repeatMetricValue(point, metric) : null;
    return value !== null && value > 0 ? [value] : [];
  });
}

/** Only completed repeats count, as compile's release values count only completed runs. */
const counted = (results: readonly RunResult[]) => results.filter((r) => r.status === 'completed');

const pointCount = (results: readonly RunResult[]) => Math.max(0, ...results.map((r) => r.points.length));

/** Per load point, each metric's relative half-width over the completed repeats. */
export function halfWidthsOf(results: readonly RunResult[]): HalfWidths[] {
  const done = counted(results);
  return Array.from({ length: pointCount(results) }, (_, i) =>
    Object.fromEntries(REPEAT_METRICS.map((m) => [m, logInterval(valuesAt(done, i, m)).relativeHalfWidth])) as HalfWidths,
  );
}

/**
 * Every metric that some repeat measured at some point has an interval within `target`; a metric
 * no repeat measured there (TPOT of one-token outputs) has nothing to converge. False when
 * nothing was measured at all.
 */
export function intervalsConverged(results: readonly RunResult[], target: number): boolean {
  const done = counted(results);
  let measured = 0;
  for (let i = 0; i < pointCount(done); i++) {
    for (const metric of REPEAT_METRICS) {
      const values = valuesAt(done, i, metric);
      if (values.length === 0) continue;
      measured++;
      const width = logInterval(values).relativeHalfWidth;
      if (width === null || width > target) return false;
    }
  }
  return measured > 0;
}

export interface StopInput {
  readonly policy: RepeatPolicy;
  /** The repeats so far, the one just ended last. */
  readonly results: readonly RunResult[];
  /** Since the first repeat began. */
  readonly elapsedS: number;
}

/**
 * Whether the group ends with the repeat just ended, and why; null: another repeat follows.
 * A failed or interrupted repeat ends it first; max-time is judged before a repeat starts, by the
 * mean repeat so far, so the group ends inside its budget rather than one repeat past it.
 */
export function stopReason({ policy, results, elapsedS }: StopInput): StopReason | null {
  const last = results[results.length - 1]!;
  const index = results.length;
  if (last.outcome.interrupted) return 'interrupted';
  if (last.status === 'failed' || last.outcome.exceeded_max_failure_rate) return 'failed';
  if (policy.mode === 'fixed') return index >= policy.count ? 'completed' : null;
  if (index >= MIN_CONVERGED_REPEATS && intervalsConverged(results, policy.target)) return 'converged';
  if (index >= policy.maxRepeats) return 'max-repeats';
  if (elapsedS + elapsedS / index > policy.maxTimeS) return 'max-time';
  return null;
}

const percent = (width: number | null) => (width === null ? 'n/a' : `±${(width * 100).toFixed(1)}%`);

/** The widest half-width of each metric over the points, for the progress line. */
export function describeHalfWidths(widths: readonly HalfWidths[]): string {
  return REPEAT_METRICS.map((metric) => {
    const known = widths.map((w) => w[metric]);
    const widest = known.some((w) => w === null) ? null : Math.max(...(known as number[]));
    return `${metric} ${known.length === 0 ? 'n/a' : percent(widest)}`;
  }).join(', ');
}
