/**
 * A load point's value of a compared metric, read as compile's points table reads it
 * (harness/store/columns.ts: a throughput is the point's own field, `ttft_ms_p50` the p50 of its
 * ttft_ms distribution), and whether its sample supports that percentile at all (the sufficiency
 * rule of harness/contract/sufficiency.ts: a p99 of 8 requests is the maximum, not a p99).
 */
import { COMPARED_METRICS, type HeadlineMetric } from './metric-catalog.ts';
import { MIN_SAMPLES, percentileColumn, percentileSupported } from './sufficiency.ts';
import type { Point } from './result.ts';

const THROUGHPUTS = ['request_throughput', 'output_throughput', 'total_throughput'] as const;
type Throughput = (typeof THROUGHPUTS)[number];

/** The metrics ab compares: the catalog's compared ones (every one a point's value). */
export const AB_METRICS: readonly HeadlineMetric[] = COMPARED_METRICS.filter((m) => (THROUGHPUTS as readonly string[]).includes(m.column) || percentileColumn(m.column) !== null);

/** The point's value of `column`, or why it has none (a percentile its sample cannot support is none). */
export function pointMetricValue(point: Point, column: string): { value: number } | { problem: string } {
  if ((THROUGHPUTS as readonly string[]).includes(column)) {
    const value = point.metrics[column as Throughput];
    return value === null ? { problem: `the point has no ${column} (no request completed)` } : { value };
  }
  const parsed = percentileColumn(column);
  if (parsed === null) return { problem: `${column} is not a metric of a point` };
  const distribution = point.metrics[parsed.distribution as keyof Point['metrics']];
  if (distribution === null || typeof distribution !== 'object') return { problem: `the point has no ${parsed.distribution} sample` };
  // A result written before distributions carried their count: the completed requests are its sample.
  const n = distribution.count ?? point.metrics.completed;
  if (!percentileSupported(parsed.stat, n)) {
    // A point short of its median's samples has no smaller percentile to fall back on: only more requests help.
    const instead = parsed.stat === 'p50' ? '' : ` or compare ${parsed.distribution}_p50`;
    return { problem: `${column} needs at least ${MIN_SAMPLES[parsed.stat]} samples per point, the point has ${n}: give a larger --num-prompts (and a --duration long enough to send them)${instead}` };
  }
  return { value: distribution[parsed.stat] };
}
