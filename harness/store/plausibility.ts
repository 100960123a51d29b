/**
 * The plausibility gate: the identities a result's numbers obey because of how servebench
 * computes them (harness/measure/metrics/summarize.ts), and the physical bounds no honest measurement crosses.
 * The schema has already vouched for the types; each broken rule is one problem that names the
 * rule (docs/validation.md lists them with their reasons and tolerances).
 *
 * Tolerances: identities the harness computes in float64 from the same numbers hold to rounding
 * (1e-6 relative); rates recomputed from sums hold to RATE_TOLERANCE (1%), as before.
 */
import { MAX_OUTPUT_TOKENS_PER_S, MAX_REQUESTS_PER_S, MAX_RUN_DAYS, OLDEST_RESULT, FUTURE_SLACK_MS } from './physical-bounds.ts';
import { OVERLOAD_RATIO, type DistributionJson, type Point, type RunResult } from '../contract/result.ts';
import { lengthMismatch } from '../contract/lengths-evidence.ts';
import { checkCacheAudit } from './cache-audit-check.ts';
import { checkFidelity } from './fidelity-check.ts';
import { checkAccuracy } from './accuracy-check.ts';
import { checkSampleCounts } from './sample-counts.ts';

export type AddProblem = (path: string, message: string, fix: string) => void;

/** Relative tolerance for sums and rates recomputed from the file's own numbers. */
const RATE_TOLERANCE = 0.01;
/** Float64 arithmetic on the same inputs: a difference beyond this was not computed, it was written. */
const IDENTITY_TOLERANCE = 1e-6;
const ORDER_EPSILON = 1e-9;
/** Wall-clock timestamps may step (NTP, chrony makestep on a fresh node) while monotonic durations do not. */
const CLOCK_SLACK_MS = 5 * 60_000;
const STATS = ['min', 'p50', 'p90', 'p95', 'p99', 'p999', 'max'] as const;
const LATENCIES = ['ttft_ms', 'tpot_ms', 'itl_ms', 'itl_event_ms', 'e2el_ms', 'queue_ms'] as const;

const rule = (name: string, message: string) => `[${name}] ${message}`;

/**
 * [lengths-exact] refuses files created from this moment on: the harness writes `approximate` on
 * any mismatch from then (contract/lengths-evidence.ts). Files before it are immutable and stay
 * valid (the embedded engine's of 2026-12-02 claim exact against their own counts); compile's
 * lengths_effective judges every file by the same rule, so a file backdated past this moment
 * gains nothing: it is compiled as approximate all the same. created_at rather than the harness
 * version, which this change did not bump (0.1.0 wrote both kinds of files).
 */
export const LENGTHS_RULE_SINCE = '2026-12-03T16:00:00Z';

/** A file may not claim exact lengths that its own length check or request counts contradict. */
function checkLengthsClaim(result: RunResult, add: AddProblem): void {
  if (result.workload.lengths !== 'exact' || Date.parse(result.created_at) < Date.parse(LENGTHS_RULE_SINCE)) return;
  const mismatch = lengthMismatch(result.workload.length_check, result.points);
  if (mismatch !== null) {
    add('workload.lengths', rule('lengths-exact', `lengths is exact, but ${mismatch}`), 'keep what the harness wrote: a run the server counted otherwise has lengths approximate, with lengths_reason; for exact lengths measure with the tokenizer and chat template the server uses');
  }
}

function near(actual: number, expected: number, tolerance: number): boolean {
  return Math.abs(actual - expected) <= tolerance * Math.max(Math.abs(expected), Math.abs(actual), 1e-9);
}

function checkDistribution(d: DistributionJson, path: string, add: AddProblem): void {
  STATS.slice(1).forEach((highName, i) => {
    const lowName = STATS[i]!;
    const [low, high] = [d[lowName], d[highName]];
    if (low > high + ORDER_EPSILON * Math.max(1, Math.abs(high))) {
      add(`${path}.${highName}`, rule('percentile-order', `${lowName} (${low}) is above ${highName} (${high})`), 'percentiles must not decrease: min ≤ p50 ≤ p90 ≤ p95 ≤ p99 ≤ p999 ≤ max');
    }
  });
  if (d.mean < d.min - ORDER_EPSILON * Math.abs(d.min) || d.mean > d.max + ORDER_EPSILON * Math.abs(d.max)) {
    add(`${path}.mean`, rule('mean-in-range', `mean ${d.mean} lies outside [min ${d.min}, max ${d.max}]`), 'the mean of a sample lies between its min and max');
  }
}

/** Every completed request has e2el ≥ ttft, so each order statistic (and the mean) keeps the order. */
function checkTtftBelowE2el(ttft: DistributionJson, e2el: DistributionJson, at: string, add: AddProblem): void {
  for (const stat of [...STATS, 'mean'] as const) {
    if (ttft[stat] > e2el[stat] + IDENTITY_TOLERANCE * Math.max(1, Math.abs(e2el[stat]))) {
      add(`${at}.metrics.ttft_ms.${stat}`, rule('e2el≥ttft', `TTFT ${stat} (${ttft[stat]} ms) is above end-to-end latency ${stat} (${e2el[stat]} ms)`), 'the first token arrives before the last: every request has e2el ≥ ttft');
    }
  }
}

/** interactivity = 1000 / tpot per request (positive tpot only), so the extremes swap exactly. */
function checkInteractivity(point: Point, at: string, add: AddProblem): void {
  const { tpot_ms: tpot, interactivity_tok_s: inter } = point.metrics;
  const path = `${at}.metrics.interactivity_tok_s`;
  if (inter === null) {
    if (tpot !== null && tpot.max > 0) add(path, rule('interactivity=1000/tpot', 'interactivity is missing though TPOT was measured'), 'interactivity is 1000 / TPOT of each request with a positive TPOT');
    return;
  }
  if (tpot === null) {
    add(path, rule('interactivity=1000/tpot', 'interactivity is given without a TPOT'), 'interactivity is 1000 / TPOT of each request; without TPOT it is null');
    return;
  }
  if (inter.min <= 0 || !near(inter.min, 1000 / tpot.max, IDENTITY_TOLERANCE)) {
    add(`${path}.min`, rule('interactivity=1000/tpot', `interactivity min ${inter.min} tok/s is not 1000 / TPOT max (${tpot.max} ms)`), 'interactivity is 1000 / TPOT per request: its min is 1000 / the largest TPOT');
  }
  if (tpot.min > 0 && !near(inter.max, 1000 / tpot.min, IDENTITY_TOLERANCE)) {
    add(`${path}.max`, rule('interactivity=1000/tpot', `interactivity max ${inter.max} tok/s is not 1000 / TPOT min (${tpot.min} ms)`), 'interactivity is 1000 / TPOT per request: its max is 1000 / the smallest TPOT');
  }
}

function checkRates(point: Point, at: string, gpus: number, add: AddProblem): void {
  const m = point.metrics;
  const rates: Array<[string, number | null, number]> = [
    ['request_throughput', m.request_throughput, m.completed / m.duration_s],
    ['output_throughput', m.output_throughput, m.output_tokens / m.duration_s],
    ['total_throughput', m.total_throughput, (m.input_tokens + m.output_tokens) / m.duration_s],
  ];
  if (m.duration_s === 0) {
    if (m.completed > 0) add(`${at}.metrics.duration_s`, rule('duration>0', `${m.completed} requests completed in 0 s`), 'duration_s is the time from the first send to the last end: a point that completed requests took time');
    for (const [name, value] of [...rates, ['goodput', m.goodput, 0] as const]) {
      if (value !== null) add(`${at}.metrics.${name}`, rule('rate-needs-duration', `${name} is ${value} over a duration of 0 s`), 'a rate over no time is null');
    }
    return;
  }
  for (const [name, value, expected] of rates) {
    if (value === null || !near(value, expected, RATE_TOLERANCE)) {
      add(`${at}.metrics.${name}`, rule('rate=sum/duration', `${name} ${value} disagrees with the sums over duration_s (${expected.toPrecision(6)})`), `throughputs are counts / duration_s (within ${RATE_TOLERANCE * 100}%)`);
    }
  }
  if ((m.goodput ?? 0) > m.completed / m.duration_s * (1 + RATE_TOLERANCE)) add(`${at}.metrics.goodput`, rule('goodput≤throughput', 'goodput exceeds request throughput'), 'goodput counts a subset of the completed requests');
  const perDevice = m.output_tokens / m.duration_s / Math.max(1, gpus);
  if (perDevice > MAX_OUTPUT_TOKENS_PER_S) {
    add(`${at}.metrics.output_throughput`, rule('physical-decode-rate', `${perDevice.toPrecision(4)} output tokens/s per ${gpus > 0 ? 'GPU' : 'host'} is beyond any hardware (limit ${MAX_OUTPUT_TOKENS_PER_S})`), 'see docs/validation.md: physical bounds');
  }
  if (m.completed / m.duration_s > MAX_REQUESTS_PER_S) {
    add(`${at}.metrics.request_throughput`, rule('physical-request-rate', `${(m.completed / m.duration_s).toPrecision(4)} requests/s is beyond any server (limit ${MAX_REQUESTS_PER_S})`), 'see docs/validation.md: physical bounds');
  }
}

/**
 * The steady window (harness/measure/metrics/steady-window.ts) lies inside its point, and its
 * throughputs are its counts over its own duration, as the whole point's are over duration_s.
 */
function checkSteady(point: Point, at: string, add: AddProblem): void {
  const { steady, metrics: m } = point;
  const path = `${at}.steady`;
  if ((steady === null) !== (point.steady_reason !== undefined)) {
    add(steady === null ? path : `${at}.steady_reason`, rule('steady-window', steady === null ? 'steady is null without a steady_reason' : 'a steady_reason without steady: null'), 'a point without a steady window has steady: null and says why (steady_reason); one with a window has no reason');
  }
  if (steady === null || steady === undefined) return;
  const slack = IDENTITY_TOLERANCE * Math.max(1, m.duration_s);
  if (!(steady.start_s < steady.end_s) || steady.end_s > m.duration_s + slack || Math.abs(steady.duration_s - (steady.end_s - steady.start_s)) > slack) {
    add(`${path}.end_s`, rule('steady-window', `the window ${steady.start_s} s … ${steady.end_s} s (duration_s ${steady.duration_s}) is not inside the point's 0 … ${m.duration_s} s`), 'the steady window starts before it ends, inside the point (0 ≤ start_s < end_s ≤ metrics.duration_s), and lasts end_s − start_s');
  }
  if (steady.completed > m.completed || steady.input_tokens > m.input_tokens) {
    add(path, rule('steady-window', `the window counts ${steady.completed} requests and ${steady.input_tokens} input tokens, the point ${m.completed} and ${m.input_tokens}`), 'the steady window counts a part of the point’s completed requests');
  }
  const rates: Array<[string, number, number]> = [
    ['request_throughput', steady.request_throughput, steady.completed / steady.duration_s],
    ['output_throughput', steady.output_throughput, steady.output_tokens / steady.duration_s],
    ['total_throughput', steady.total_throughput, (steady.input_tokens + steady.output_tokens) / steady.duration_s],
  ];
  for (const [name, value, expected] of rates) {
    if (steady.duration_s > 0 && !near(value, expected, RATE_TOLERANCE)) {
      add(`${path}.${name}`, rule('steady-window', `steady ${name} ${value} disagrees with its counts over its duration_s (${expected.toPrecision(6)})`), `steady throughputs are the window's counts / its duration_s (within ${RATE_TOLERANCE * 100}%)`);
    }
  }
}

/** An open-loop point is overloaded exactly when it kept less than OVERLOAD_RATIO of its schedule (harness/measure/metrics/overload.ts). */
function checkOverloaded(point: Point, at: string, add: AddProblem): void {
  if (point.overloaded === undefined && point.achieved_rate === undefined) return;
  const { load } = point;
  const scheduled = load.mode === 'open' && load.rate !== 'inf';
  const achieved = point.achieved_rate ?? null;
  const expected = !scheduled ? undefined : achieved === null ? null : achieved.send_ratio < OVERLOAD_RATIO || achieved.completion_ratio < OVERLOAD_RATIO;
  const reasoned = point.overload_reason !== undefined;
  if (point.overloaded !== expected || reasoned !== (expected !== false)) {
    add(`${at}.overloaded`, rule('overloaded', `overloaded is ${String(point.overloaded)} (reason ${reasoned ? 'given' : 'absent'}) for ${scheduled ? `achieved_rate ${JSON.stringify(achieved)}` : `a ${load.mode === 'open' ? 'rate inf' : load.mode} load`}`), `only an open loop at a finite rate is judged: overloaded when a ratio of achieved_rate is below ${OVERLOAD_RATIO}, null without achieved_rate, with overload_reason whenever it is not false`);
  }
}

/** Per-request facts (--save-requests) obey the definitions exactly. */
function checkRequests(point: Point, at: string, add: AddProblem): void {
  const requests = point.requests;
  if (!requests) return;
  if (requests.length === point.requests_sent) {
    const ok = requests.filter((r) => r.ok).length;
    if (ok !== point.metrics.completed) add(`${at}.requests`, rule('requests=counts', `${ok} saved requests are ok, metrics.completed is ${point.metrics.completed}`), 'the saved requests are the point’s requests: as many ok as completed');
  }
  requests.forEach((r, k) => {
    const path = `${at}.requests[${k}]`;
    if (r.ok !== (r.failure === null)) add(`${path}.ok`, rule('ok⇔no-failure', `ok is ${r.ok} with failure ${String(r.failure)}`), 'a request either completed (ok, failure null) or failed with a class');
    if (r.ttft_ms !== null && r.e2el_ms !== null) {
      if (r.ttft_ms < 0 || r.e2el_ms < 0) add(path, rule('latency≥0', 'a latency is negative'), 'latencies are times after the send');
      if (r.ttft_ms > r.e2el_ms * (1 + IDENTITY_TOLERANCE) + 1e-9) add(`${path}.ttft_ms`, rule('e2el≥ttft', `TTFT ${r.ttft_ms} ms is above end-to-end latency ${r.e2el_ms} ms`), 'the first token arrives before the last');
      if (r.tpot_ms !== null && r.output_tokens !== null && r.output_tokens > 1) {
        const expected = r.ttft_ms + (r.output_tokens - 1) * r.tpot_ms;
        if (Math.abs(expected - r.e2el_ms) > IDENTITY_TOLERANCE * Math.max(1, r.e2el_ms)) {
          add(`${path}.tpot_ms`, rule('e2el=ttft+(n−1)·tpot', `ttft + (n−1)·tpot = ${expected} ms, e2el is ${r.e2el_ms} ms`), 'TPOT is (e2el − ttft) / (output tokens − 1)');
        }
      }
    }
  });
}

function checkPoint(result: RunResult, point: Point, i: number, add: AddProblem): void {
  const at = `points[${i}]`;
  const m = point.metrics;
  if (m.completed + m.failed !== point.requests_sent) {
    add(`${at}.requests_sent`, rule('sent=completed+failed', `completed (${m.completed}) + failed (${m.failed}) ≠ requests_sent (${point.requests_sent})`), 'every sent request either completed or failed');
  }
  const failures = Object.values(point.failures).reduce((a, b) => a + b, 0);
  if (failures !== m.failed) add(`${at}.failures`, rule('failures-by-class', `failures by class sum to ${failures}, metrics.failed is ${m.failed}`), 'each failed request has exactly one class');
  const messaged = new Map<string, number>();
  // Stryker disable next-line ArrayDeclaration: an entry that is no message object counts NaN requests under no class, and NaN > failed adds nothing.
  for (const message of point.failure_messages ?? []) messaged.set(message.class, (messaged.get(message.class) ?? 0) + message.count);
  for (const [cls, count] of messaged) {
    const failed = point.failures[cls as keyof Point['failures']] ?? 0;
    if (count > failed) add(`${at}.failure_messages`, rule('messages≤failures', `messages of ${cls} count ${count} requests, ${failed} failed as ${cls}`), 'each failed request gives at most one message, counted under its own class');
  }
  if (point.input_tokens_mismatched > m.completed) add(`${at}.input_tokens_mismatched`, rule('mismatched≤completed', `${point.input_tokens_mismatched} mismatched of ${m.completed} completed`), 'only completed requests are compared');
  checkRates(point, at, result.run?.hardware?.gpus.length ?? 0, add);
  for (const key of [...LATENCIES, 'interactivity_tok_s'] as const) {
    const d = m[key];
    if (!d) continue;
    checkDistribution(d, `${at}.metrics.${key}`, add);
    if (d.min < 0) add(`${at}.metrics.${key}.min`, rule('latency≥0', `${key} min is ${d.min}`), 'latencies and rates are never negative');
  }
  if (m.completed > 0 && (m.ttft_ms === null || m.e2el_ms === null)) add(`${at}.metrics`, rule('latency-present', 'completed requests without TTFT or end-to-end latency'), 'every completed request has a TTFT and an end-to-end latency');
  if (m.completed === 0 && (m.ttft_ms !== null || m.e2el_ms !== null)) add(`${at}.metrics`, rule('latency-present', 'latencies without a completed request'), 'latencies are measured on completed requests');
  if (m.ttft_ms && m.e2el_ms) checkTtftBelowE2el(m.ttft_ms, m.e2el_ms, at, add);
  checkInteractivity(point, at, add);
  checkSampleCounts(point, at, add);
  checkRequests(point, at, add);
  checkSteady(point, at, add);
  checkOverloaded(point, at, add);
  checkCacheAudit(point, at, add);
  const started = Date.parse(point.started_at);
  if (started < Date.parse(result.created_at) - CLOCK_SLACK_MS || started > Date.parse(result.finished_at) + CLOCK_SLACK_MS) {
    add(`${at}.started_at`, rule('point-inside-run', 'the point started outside the run (created_at … finished_at)'), 'points happen during their run');
  }
  const runSeconds = (Date.parse(result.finished_at) - Date.parse(result.created_at)) / 1000;
  // duration_s is monotonic time, the run's span wall-clock time: the slack covers a clock step (NTP) during the run.
  if (m.duration_s > runSeconds + CLOCK_SLACK_MS / 1000) add(`${at}.metrics.duration_s`, rule('point-inside-run', `the point lasted ${m.duration_s} s, longer than its run (${runSeconds} s)`), 'a point happens during its run');
}

function checkTimes(result: RunResult, add: AddProblem, now: number): void {
  const created = Date.parse(result.created_at);
  const finished = Date.parse(result.finished_at);
  if (finished < created - CLOCK_SLACK_MS) add('finished_at', rule('time-order', 'finished before it was created'), 'finished_at must be ≥ created_at');
  if (created < Date.parse(OLDEST_RESULT) || created > now + FUTURE_SLACK_MS) {
    add('created_at', rule('plausible-date', `created_at ${result.created_at} is before ${OLDEST_RESULT} or in the future`), 'keep the timestamps the harness wrote (UTC)');
  }
  if (finished - created > MAX_RUN_DAYS * 86_400_000) add('finished_at', rule('plausible-date', `the run lasted more than ${MAX_RUN_DAYS} days`), 'keep the timestamps the harness wrote');
  const stamp = result.created_at.replace(/[-:]/g, '').slice(0, 15);
  if (!result.run_id.startsWith(stamp)) add('run_id', `[run-id] run_id ${result.run_id} does not start with created_at's timestamp ${stamp}Z`, 'keep the run_id the harness generated');
}

/** The outcome block restates the points and the status: it must agree with both. */
function checkOutcome(result: RunResult, add: AddProblem): void {
  const sent = result.points.reduce((sum, p) => sum + p.requests_sent, 0);
  const failed = result.points.reduce((sum, p) => sum + p.metrics.failed, 0);
  const rate = sent > 0 ? failed / sent : 0;
  const { outcome } = result;
  if (Math.abs(outcome.failure_rate - rate) > 1e-9) add('outcome.failure_rate', rule('outcome=points', `failure_rate ${outcome.failure_rate} is not failed / sent over the points (${rate})`), 'failure_rate is the failed requests of all points over those sent');
  if (outcome.exceeded_max_failure_rate !== outcome.failure_rate > result.max_failure_rate) {
    add('outcome.exceeded_max_failure_rate', rule('outcome=points', `exceeded_max_failure_rate is ${outcome.exceeded_max_failure_rate} with failure_rate ${outcome.failure_rate} and max_failure_rate ${result.max_failure_rate}`), 'it is failure_rate > max_failure_rate');
  }
  if ((result.status === 'interrupted') !== (outcome.interrupted && result.status !== 'failed')) {
    add('outcome.interrupted', rule('outcome=status', `status ${result.status} with outcome.interrupted ${outcome.interrupted}`), 'an interrupted run has status interrupted (or failed, when the interruption made it fail)');
  }
  if (result.run && (result.status === 'failed') !== (result.run.failure !== null)) {
    add('run.failure', rule('outcome=status', `status ${result.status} with ${result.run.failure ? 'a' : 'no'} failure block`), 'a failed run says where and why it failed; a run that did not fail has failure null');
  }
}

/** Every rule; `now` bounds the dates (injectable for tests). */
export function checkPlausibility(result: RunResult, add: AddProblem, now = Date.now()): void {
  checkTimes(result, add, now);
  checkOutcome(result, add);
  checkLengthsClaim(result, add);
  result.points.forEach((point, i) => checkPoint(result, point, i, add));
  checkFidelity(result, add);
  checkAccuracy(result, add);
}
