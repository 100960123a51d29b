/**
 * The sample count behind each distribution of a point, as compile publishes it (`<distribution>_n`)
 * and validate checks it ([sample-count]); the rule they feed is contract/sufficiency.ts.
 *
 * A file written since the count was recorded says it (distribution.count). An older file is
 * immutable and judged by the same rule, so its counts are derived from what the point says
 * (docs/metrics.md#sample-sufficiency): TTFT and E2EL, one per completed request; queue, one per
 * sent request; TPOT and interactivity, one per completed request with more than one output token
 * (exact from the saved requests; otherwise completed, the bound the file supports, exact when
 * every request produced more than one token, as a fixed max_tokens L > 1 with output_tokens =
 * completed · L shows); ITL per token, output_tokens −
 * completed (every token after each request's first); ITL per event, the gaps between the saved
 * requests' events, else as ITL per token (one token per event, the common stream).
 */
import type { DistributionJson, Point } from '../contract/result.ts';
import { MIN_SAMPLES, PERCENTILE_PROBABILITIES, SAMPLED_DISTRIBUTIONS, type PercentileStat, type SampledDistribution } from '../contract/sufficiency.ts';
import { percentileInterval } from './percentile-interval.ts';

export type SampleCounts = Record<SampledDistribution, number | null>;

/** How a point's counts were obtained: recorded by the harness, or derived by compile from an older file. */
export type CountsSource = 'recorded' | 'derived';

/** The saved per-request facts when they are every request of the point (--save-requests); null otherwise. */
function allRequests(point: Point): NonNullable<Point['requests']> | null {
  return point.requests !== undefined && point.requests.length === point.requests_sent ? point.requests : null;
}

/** The counts an older file supports (see the header); null where the distribution is empty. */
function derivedCounts(point: Point): SampleCounts {
  const m = point.metrics;
  const requests = allRequests(point)?.filter((r) => r.ok) ?? null;
  const tpot = requests !== null ? requests.filter((r) => r.tpot_ms !== null).length : m.completed;
  // Without saved requests: equal to TPOT's when every TPOT is positive, else at most it.
  const interactivity = requests !== null ? requests.filter((r) => (r.tpot_ms ?? 0) > 0).length : tpot;
  const perToken = Math.max(0, m.output_tokens - m.completed);
  const perEvent = requests !== null ? requests.reduce((sum, r) => sum + Math.max(0, r.content_events - 1), 0) : perToken;
  const counted: Record<SampledDistribution, number> = {
    ttft_ms: m.completed,
    e2el_ms: m.completed,
    queue_ms: point.requests_sent,
    tpot_ms: tpot,
    interactivity_tok_s: interactivity,
    itl_ms: perToken,
    itl_event_ms: perEvent,
  };
  return Object.fromEntries(SAMPLED_DISTRIBUTIONS.map((d) => [d, m[d] === null ? null : counted[d]])) as SampleCounts;
}

const memo = new WeakMap<Point, { counts: SampleCounts; source: CountsSource }>();

/** Each distribution's sample count: the recorded one where the file has it, else derived; null for an empty distribution. */
export function sampleCounts(point: Point): { counts: SampleCounts; source: CountsSource } {
  // Compile asks once per column of a point: computed once.
  const known = memo.get(point);
  if (known !== undefined) return known;
  const found = countsOf(point);
  memo.set(point, found);
  return found;
}

function countsOf(point: Point): { counts: SampleCounts; source: CountsSource } {
  const distributions = SAMPLED_DISTRIBUTIONS.map((d) => point.metrics[d]).filter((d): d is DistributionJson => d !== null);
  if (distributions.every((d) => d.count !== undefined)) {
    return { counts: Object.fromEntries(SAMPLED_DISTRIBUTIONS.map((d) => [d, point.metrics[d]?.count ?? null])) as SampleCounts, source: 'recorded' };
  }
  return { counts: derivedCounts(point), source: 'derived' };
}

/** The percentile columns (`ttft_ms_p95`, …) whose sample is below the rule's minimum, in column order. */
export function insufficientPercentiles(counts: SampleCounts): string[] {
  return SAMPLED_DISTRIBUTIONS.flatMap((d) => {
    const n = counts[d];
    if (n === null) return [];
    return (Object.keys(MIN_SAMPLES) as PercentileStat[]).filter((stat) => n < MIN_SAMPLES[stat]).map((stat) => `${d}_${stat}`);
  });
}

/** The per-request values of a distribution, from the saved requests of a point that saved every one; null otherwise. */
const PER_REQUEST: Partial<Record<SampledDistribution, (r: NonNullable<Point['requests']>[number]) => number | null>> = {
  ttft_ms: (r) => r.ttft_ms,
  tpot_ms: (r) => r.tpot_ms,
  e2el_ms: (r) => r.e2el_ms,
};

/** The distributions whose order-statistic interval compile can compute (from saved requests). */
export const INTERVAL_DISTRIBUTIONS = Object.keys(PER_REQUEST) as SampledDistribution[];

/**
 * The distribution-free 95% interval of a percentile from the saved requests (percentile-interval.ts);
 * null when the point did not save every request, or its sample is too small for any such interval.
 */
export function percentileIntervalOf(point: Point, distribution: SampledDistribution, stat: PercentileStat): readonly [number, number] | null {
  const get = PER_REQUEST[distribution];
  const requests = allRequests(point);
  if (get === undefined || requests === null) return null;
  const values = requests.filter((r) => r.ok).map(get).filter((v): v is number => v !== null);
  const interval = percentileInterval(Float64Array.from(values).sort(), PERCENTILE_PROBABILITIES[stat]);
  return interval === null ? null : [interval.low, interval.high];
}

type AddProblem = (path: string, message: string, fix: string) => void;

/**
 * [sample-count]: a recorded count agrees with what the point says where that is derivable
 * exactly (TTFT and E2EL: completed; queue: sent; TPOT ≤ completed and, from saved requests,
 * exactly theirs; interactivity ≤ TPOT, equal when every TPOT is positive).
 */
export function checkSampleCounts(point: Point, at: string, add: AddProblem): void {
  const m = point.metrics;
  const requests = allRequests(point)?.filter((r) => r.ok) ?? null;
  const tpotCount = m.tpot_ms?.count;
  const expected: Array<[SampledDistribution, number | undefined, 'equal' | 'at most', string]> = [
    ['ttft_ms', m.completed, 'equal', 'one per completed request'],
    ['e2el_ms', m.completed, 'equal', 'one per completed request'],
    ['queue_ms', point.requests_sent, 'equal', 'one per sent request'],
    requests !== null ? ['tpot_ms', requests.filter((r) => r.tpot_ms !== null).length, 'equal', 'one per saved request with a TPOT'] : ['tpot_ms', m.completed, 'at most', 'one per completed request with more than one output token'],
    ['interactivity_tok_s', tpotCount, m.tpot_ms !== null && m.tpot_ms.min > 0 ? 'equal' : 'at most', 'one per request with a positive TPOT'],
  ];
  for (const [name, bound, relation, what] of expected) {
    const count = m[name]?.count;
    if (count === undefined || bound === undefined) continue;
    if (relation === 'equal' ? count !== bound : count > bound) {
      add(`${at}.metrics.${name}.count`, `[sample-count] ${name} counts ${count} samples, the point says ${relation === 'equal' ? '' : `${relation} `}${bound} (${what})`, `keep the count the harness wrote: ${name} has ${what}`);
    }
  }
}
