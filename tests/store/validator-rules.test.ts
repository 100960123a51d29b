/**
 * Every rule of `servebench validate`, one named test each: a valid result, the one edit that breaks
 * that rule, and the rule reported at the JSON path it names (with exactly the rules listed beside
 * it: an edit that cannot break one rule alone says which others it breaks, and why). Deleting any
 * single rule from harness/store fails the test named after it. The list is complete by
 * construction: the first test reads the rule tags out of harness/store's sources, each with the
 * number of places that report it, and fails when a tag has fewer cases here than places there.
 *
 * The results are SYNTHETIC (tests/store/claim-fixtures.ts: measured nothing, and say so), with
 * per-request records added as `--save-requests` writes them; the rules across files run on real
 * files in a temporary folder, through validate's and compile's own code.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import { workloadSpecSha256 } from '../../harness/contract/workload-hash.ts';
import { wilsonInterval } from '../../harness/lib/stats/wilson-interval.ts';
import type { Point, RunResult } from '../../harness/contract/result.ts';
import { checkResultText, type ResultProblem } from '../../harness/store/check-result.ts';
import { diffAgainstBase } from '../../harness/store/immutability.ts';
import { parseBatch } from '../../harness/store/parse-batch.ts';
import { LENGTHS_RULE_SINCE } from '../../harness/store/plausibility.ts';
import { listResultFiles } from '../../harness/store/result-files.ts';
import { expandPositionals } from '../../harness/store/result-targets.ts';
import { checkSignatureSidecar } from '../../harness/store/signature-sidecar.ts';
import { MAX_NAME_CHARS, MAX_NESTING_DEPTH, MAX_RESULT_BYTES } from '../../harness/store/store-limits.ts';
import { ingest, openStore } from '../../harness/store/store.ts';
import { validateCommand } from '../../harness/store/validate-command.ts';
import { atOutputRate, synthetic, withSavedRequests } from './claim-fixtures.ts';
import { ruleSites, STORE } from './rule-sites.ts';


/**
 * Modules of harness/store that report problems for commands other than validate (and compile and
 * collect, which run validate's checks): their rules are those commands' own, tested with them.
 */
const NOT_VALIDATE: Record<string, string> = {
  'comparison-check.ts': 'the comparison kinds (A/B, bisection) in results/comparisons/: tests/store/comparisons.test.ts',
  'comparisons.ts': 'the comparison kinds: tests/store/comparisons.test.ts',
  'file-comparison-command.ts': '`servebench file-comparison`: tests/store/comparisons.test.ts',
  'file-comparisons.ts': '`servebench file-comparison` and `file-confirmations`: tests/store/comparisons.test.ts, tests/confirm/confirm-sim.test.ts',
  'verify.ts': '`servebench verify` (signer, content hash, bad input): tests/store/verify.test.ts',
  'verify-signature.ts': '`servebench verify`: tests/store/verify.test.ts',
  'verify-command.ts': '`servebench verify`: tests/store/verify.test.ts',
  'sign-command.ts': '`servebench sign`: tests/store/verify.test.ts',
};

// ---- Results --------------------------------------------------------------------------------

/**
 * The synthetic fixture run (vllm 1.0.0 on 1 × Synthetic H100, chat at c=1 and c=8, 64 requests each), its requests saved.
 * Without the distributions' sample counts, as files written before them (an edit of a point's
 * counts would break [sample-count] too); `counted` keeps them as the harness writes them.
 */
function valid(changes: Parameters<typeof synthetic>[0] = {}, keepCounts = false): RunResult {
  const result = synthetic(changes);
  if (!keepCounts) for (const point of result.points) for (const d of Object.values(point.metrics)) if (typeof d === 'object' && d !== null) delete d.count;
  return withSavedRequests(result);
}

const counted = () => valid({}, true);

/** The synthetic run relabelled Llama 3.1 8B in bf16 on H100 SXM (as nvidia-smi names it): the roofline bounds apply. */
function onH100(concurrencies: number[] = [1, 8]): RunResult {
  const result = synthetic({ concurrencies });
  result.run!.model.id = 'meta-llama/Llama-3.1-8B-Instruct';
  for (const gpu of result.run!.hardware!.gpus) gpu.name = 'NVIDIA H100 80GB HBM3';
  return result;
}

const textOf = (result: unknown) => `${JSON.stringify(result, null, 2)}\n`;
/** As validate checks a file given on its own (no path rule: an edited file no longer matches its name). */
const problemsOf = (result: unknown): ResultProblem[] => checkResultText('f.json', textOf(result), null).problems;
/** As validate checks a file in results/: at the path its content dictates, unless `path` says otherwise. */
const placedProblemsOf = (text: string, path = resultRelativePath(JSON.parse(text) as RunResult, text)) => checkResultText('f.json', text, path).problems;
const ruleOf = (problem: ResultProblem) => /^\[([^\]]+)\] /.exec(problem.message)?.[1] ?? `(no rule) ${problem.message}`;

/** A point's duration changed, its rates recomputed from it (so only what the duration means can be wrong). */
function setDuration(point: Point, seconds: number): void {
  const m = point.metrics;
  m.duration_s = seconds;
  m.request_throughput = m.completed / seconds;
  m.output_throughput = m.output_tokens / seconds;
  m.total_throughput = (m.input_tokens + m.output_tokens) / seconds;
}

/** A steady window over the middle 80% of the point, holding 80% of its counts, its rates agreeing. */
function withSteady(point: Point): void {
  const m = point.metrics;
  const [start, end] = [0.1 * m.duration_s, 0.9 * m.duration_s];
  const [completed, input, output] = [Math.floor(0.8 * m.completed), Math.floor(0.8 * m.input_tokens), Math.floor(0.8 * m.output_tokens)];
  const d = end - start;
  point.steady = { start_s: start, end_s: end, duration_s: d, completed, input_tokens: input, output_tokens: output, request_throughput: completed / d, output_throughput: output / d, total_throughput: (input + output) / d };
}

/** The point as an open loop at 8 requests/s, judged: `ratio` of the schedule kept by completions. */
function openLoopJudged(point: Point, ratio: number): void {
  point.load = { mode: 'open', rate: 8, arrival: 'poisson', burstiness: 1, max_concurrency: null };
  point.achieved_rate = { send_ratio: 1, completion_ratio: ratio };
  point.overloaded = ratio < 0.98;
  if (point.overloaded) point.overload_reason = 'requests completed behind the schedule: the backlog grew';
}

/** Every request of the point failed (timeouts), with the outcome block recomputed. */
function allFailed(result: RunResult, i: number): void {
  const point = result.points[i]!;
  const m = point.metrics;
  m.failed = point.requests_sent;
  m.completed = 0;
  m.input_tokens = 0;
  m.output_tokens = 0;
  setDuration(point, m.duration_s);
  point.failures.timeout = point.requests_sent;
  delete point.requests;
  const sent = result.points.reduce((sum, p) => sum + p.requests_sent, 0);
  result.outcome.failure_rate = result.points.reduce((sum, p) => sum + p.metrics.failed, 0) / sent;
  result.outcome.exceeded_max_failure_rate = result.outcome.failure_rate > result.max_failure_rate;
}

/** The recorded command with `flag`'s value replaced (or the flag removed, value null). */
function withFlag(result: RunResult, flag: string, value: string | null): void {
  const argv = result.harness.command;
  const at = argv.indexOf(flag);
  if (value === null) argv.splice(at, 2);
  else if (at < 0) argv.push(flag, value);
  else argv[at + 1] = value;
}

// ---- The rules, each with its breaking edit -------------------------------------------------

interface RuleCase {
  /** The tag the problem's message begins with (without brackets). */
  readonly rule: string;
  /** What the edit breaks: the test's name. */
  readonly breaks: string;
  /** The problems of the broken file. */
  readonly problems: () => ResultProblem[];
  /** The JSON path the rule's problem names. */
  readonly path: string;
  /** Other rules the edit cannot help breaking too, and why (in the case's name or a comment). */
  readonly also?: readonly string[];
}

/** A case on the valid synthetic result (or `base`), edited in place by `edit`. */
function edited(rule: string, breaks: string, path: string, edit: (r: RunResult) => void, also: string[] = [], base: () => RunResult = valid): RuleCase {
  return {
    rule,
    breaks,
    path,
    also,
    problems: () => {
      const result = base();
      edit(result);
      return problemsOf(result);
    },
  };
}

/**
 * The run's workload declares a 2-problem gsm8k task (its spec hash recomputed) and the run scored
 * it: both problems answered right, each interval the Wilson interval of 2 of 2.
 */
function withAccuracyTask(r: RunResult): void {
  r.workload.spec.accuracy = { task: 'gsm8k', problems: 2, seed: 0, shots: 0, concurrency: 1 };
  r.workload.spec_sha256 = workloadSpecSha256(r.workload.spec);
  const record = (id: number) => ({ id, reference: '18', extracted: { strict: '18', flexible: '18' }, correct: { strict: true, flexible: true }, finish_reason: 'stop', failure: null, failure_message: null });
  const interval = wilsonInterval(2, 2)!;
  r.run!.accuracy = {
    status: 'scored', task: 'gsm8k', task_version: 1,
    dataset: { file: 'workloads/datasets/gsm8k/test.jsonl', sha256: '3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14', split: 'test', size: 1319, source: 'openai/grade-school-math grade_school_math/data/test.jsonl at 3101c7d', license: 'MIT' },
    model: r.target.model, api: r.target.api, seed: 0, shots: 0, exemplar_ids: [],
    generation: { temperature: 0, max_tokens: 256, stop: ['Question:'] },
    problems: 2, answered: 2, failed: 0, failures: {},
    correct: { strict: 2, flexible: 2 }, accuracy: { strict: 1, flexible: 1 }, interval: { strict: interval, flexible: interval },
    interval_method: 'wilson-95', headline: 'flexible', duration_s: 1, records: [record(3), record(7)],
  };
}

const p0 = (r: RunResult) => r.points[0]!;
const m0 = (r: RunResult) => r.points[0]!.metrics;
const req0 = (r: RunResult) => r.points[0]!.requests![0]!;

const FILE_RULES: RuleCase[] = [
  // The file as text.
  { rule: 'file-size', breaks: 'a file over 8 MiB', path: '', problems: () => checkResultText('f.json', ' '.repeat(MAX_RESULT_BYTES + 1), null).problems },
  { rule: 'result-path', breaks: 'a path that is no result path', path: '', problems: () => placedProblemsOf(textOf(valid()), '../etc/passwd.json') },
  { rule: 'json', breaks: 'text that is not JSON', path: '', problems: () => checkResultText('f.json', '{"schema_version": 1,', null).problems },
  { rule: 'json', breaks: 'JSON that is not an object', path: '', problems: () => checkResultText('f.json', '[1]', null).problems },
  { rule: 'synthetic', breaks: 'the SYNTHETIC fixture checked as bound for the repository\'s results/', path: 'run.host.os', problems: () => checkResultText('f.json', textOf(valid()), null, { publishedStore: true }).problems },
  { rule: 'schema-version', breaks: 'a schema version this validator does not know', path: 'schema_version', problems: () => problemsOf({ ...valid(), schema_version: 2 }) },
  edited('nesting-depth', 'a free-form object nested past 32 levels', `workload.extra_body${'.a'.repeat(MAX_NESTING_DEPTH - 2)}`, (r) => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < MAX_NESTING_DEPTH; i++) deep = { a: deep };
    r.workload.extra_body = deep;
  }),
  edited('schema', 'a throughput that is not a number', 'points[0].metrics.output_throughput', (r) => ((m0(r) as unknown as Record<string, unknown>).output_throughput = 'fast')),
  { rule: 'path-matches-content', breaks: 'a file at another result\'s path', path: '', problems: () => placedProblemsOf(textOf(valid()), resultRelativePath(valid({ seed: 9 }), textOf(valid({ seed: 9 })))) },
  edited('credential', 'an API key in the engine command', 'run.engine.command[4]', (r) => r.run!.engine.command.push('--api-key', 'sk-live-5f2a9c0d8e7b6a41')),

  // Plausibility: the identities a result's numbers obey.
  edited('sent=completed+failed', 'one more request sent than completed or failed', 'points[0].requests_sent', (r) => (p0(r).requests_sent += 1)),
  edited('failures-by-class', 'a failure class counting a request that did not fail', 'points[0].failures', (r) => (p0(r).failures.timeout = 1)),
  edited('messages≤failures', 'a failure message of a class with no failures', 'points[0].failure_messages', (r) => (p0(r).failure_messages = [{ class: 'timeout', message: 'timed out', count: 1 }])),
  edited('messages≤failures', 'two messages of one class counting more requests than failed in it', 'points[0].failure_messages', (r) => {
    oneFailed(r);
    p0(r).failure_messages = [{ class: 'timeout', message: 'timed out', count: 1 }, { class: 'timeout', message: 'timed out again', count: 1 }];
  }),
  edited('mismatched≤completed', 'more prompts counted otherwise than completed', 'points[0].input_tokens_mismatched', (r) => (p0(r).input_tokens_mismatched = m0(r).completed + 1)),
  edited('steady-window', 'a point without a steady window that does not say why', 'points[0].steady', (r) => (p0(r).steady = null)),
  edited('steady-window', 'a steady_reason beside a steady window', 'points[0].steady_reason', (r) => {
    withSteady(p0(r));
    p0(r).steady_reason = 'too short';
  }),
  edited('steady-window', 'a steady window that ends after its point', 'points[0].steady.end_s', (r) => {
    withSteady(p0(r));
    const steady = p0(r).steady!;
    steady.end_s = m0(r).duration_s * 1.01;
    steady.duration_s = steady.end_s - steady.start_s;
    Object.assign(steady, { request_throughput: steady.completed / steady.duration_s, output_throughput: steady.output_tokens / steady.duration_s, total_throughput: (steady.input_tokens + steady.output_tokens) / steady.duration_s });
  }),
  edited('steady-window', 'a steady window whose duration is not end − start', 'points[0].steady.end_s', (r) => {
    withSteady(p0(r));
    p0(r).steady!.duration_s *= 1.5;
    const steady = p0(r).steady!;
    Object.assign(steady, { request_throughput: steady.completed / steady.duration_s, output_throughput: steady.output_tokens / steady.duration_s, total_throughput: (steady.input_tokens + steady.output_tokens) / steady.duration_s });
  }),
  edited('steady-window', 'a steady window holding more completed requests than its point (its rates agreeing)', 'points[0].steady', (r) => {
    withSteady(p0(r));
    const steady = p0(r).steady!;
    steady.completed = m0(r).completed + 1;
    steady.request_throughput = steady.completed / steady.duration_s;
  }),
  edited('steady-window', 'a steady output throughput 5% above its counts', 'points[0].steady.output_throughput', (r) => {
    withSteady(p0(r));
    p0(r).steady!.output_throughput *= 1.05;
  }),
  edited('overloaded', 'an open-loop point that kept 90% of its schedule marked not overloaded', 'points[0].overloaded', (r) => {
    openLoopJudged(p0(r), 0.9);
    p0(r).overloaded = false;
    delete p0(r).overload_reason;
  }),
  edited('overloaded', 'a closed-loop point marked not overloaded (nothing to judge)', 'points[0].overloaded', (r) => (p0(r).overloaded = false)),
  edited('overloaded', 'an overloaded point without its reason', 'points[0].overloaded', (r) => {
    openLoopJudged(p0(r), 0.5);
    delete p0(r).overload_reason;
  }),
  edited('cache-audit', 'a point that reused a fifth of what a perfect cache would, called consistent', 'points[0].cache.verdict', (r) => {
    p0(r).cache = { requests: m0(r).completed, prompt_tokens: 1000, reusable_tokens: 500, cached_tokens: 100, theoretical_hit_rate: 0.5, observed_hit_rate: 0.1, source: 'timings_cache_n', reuse_after: 'end', theory: 'exact', min_ratio: 0.8, verdict: 'consistent' };
  }),
  edited('fidelity', "a fidelity probe whose answer's text_sha256 is not its text's", 'run.fidelity.outputs[0].text_sha256', (r) => {
    const text = ' the river';
    r.run!.fidelity = { probe_set: { version: 'fidelity-v1', sha256: 'a'.repeat(64), prompts: 1, max_tokens: 16 }, outputs: [{ text, text_sha256: 'b'.repeat(64), token_ids: null, logprobs: null }], cache_equality: null, error: null };
  }),
  edited('accuracy', 'an accuracy interval that is not the Wilson interval of its counts (2 of 2 answered: [0.342, 1])', 'run.accuracy.interval.flexible', (r) => {
    withAccuracyTask(r);
    const block = r.run!.accuracy!;
    if (block.status === 'scored') block.interval.flexible = [0.5, 1];
  }),
  edited('accuracy', 'an accuracy block in a run whose workload declares no task', 'run.accuracy', (r) => {
    withAccuracyTask(r);
    delete r.workload.spec.accuracy;
    r.workload.spec_sha256 = workloadSpecSha256(r.workload.spec);
  }),
  // Files created before the rule keep their claim (immutable); compile's lengths_effective judges them.
  edited('lengths-exact', 'exact lengths in a file created after the rule, whose own length check counted every prompt otherwise', 'workload.lengths', (r) => {
    r.workload.length_check = { endpoint: '/tokenize (vllm style)', checked: 16, mismatched: 16, examples: [{ expected: 512, server: 509 }] };
  }, [], () => valid({ date: new Date(LENGTHS_RULE_SINCE) })),
  edited('duration>0', 'requests completed in no time (its rates null)', 'points[0].metrics.duration_s', (r) => {
    Object.assign(m0(r), { duration_s: 0, request_throughput: null, output_throughput: null, total_throughput: null });
  }),
  // With completed requests a zero duration is duration>0's problem too; the rates are this rule's.
  edited('rate-needs-duration', 'a rate over a duration of 0 s', 'points[0].metrics.request_throughput', (r) => (m0(r).duration_s = 0), ['duration>0']),
  edited('rate=sum/duration', 'an output throughput 5% above its sums', 'points[0].metrics.output_throughput', (r) => (m0(r).output_throughput! *= 1.05)),
  edited('goodput≤throughput', 'a goodput above the request throughput', 'points[0].metrics.goodput', (r) => (m0(r).goodput = m0(r).request_throughput! * 1.05)),
  edited('physical-decode-rate', '2 million output tokens/s on one GPU', 'points[0].metrics.output_throughput', () => {}, [], () => atOutputRate(valid(), 2e6)),
  edited('physical-decode-rate', '2 million output tokens/s on a CPU-only host (the bound is per host)', 'points[0].metrics.output_throughput', () => {}, [], () => atOutputRate(valid({ gpu: null }), 2e6)),
  // 16 GPUs keep 1.2e5 requests/s of 128 tokens below the decode bound per GPU.
  edited('physical-request-rate', '120,000 requests/s', 'points[0].metrics.request_throughput', () => {}, [], () => atOutputRate(valid({ gpuCount: 16 }), 1.2e5 * 128)),
  edited('percentile-order', 'a TTFT p90 below its p50', 'points[0].metrics.ttft_ms.p90', (r) => (m0(r).ttft_ms!.p90 = m0(r).ttft_ms!.p50 - 1)),
  edited('mean-in-range', 'a TTFT mean above its max', 'points[0].metrics.ttft_ms.mean', (r) => (m0(r).ttft_ms!.mean = m0(r).ttft_ms!.max + 1)),
  edited('latency≥0', 'a negative queueing time', 'points[0].metrics.queue_ms.min', (r) => (m0(r).queue_ms!.min = -1)),
  edited('latency≥0', 'a saved request with a negative TTFT (its e2el still ttft + (n−1)·tpot)', 'points[0].requests[0]', (r) => Object.assign(req0(r), { ttft_ms: -1, e2el_ms: -1 + 127 * 10 })),
  // A negative end-to-end latency is also below the request's (non-negative) TTFT.
  edited('latency≥0', 'a saved request with a negative end-to-end latency', 'points[0].requests[0]', (r) => Object.assign(req0(r), { ttft_ms: 0, e2el_ms: -1, tpot_ms: null }), ['e2el≥ttft']),
  edited('latency-present', 'completed requests without a TTFT', 'points[0].metrics', (r) => (m0(r).ttft_ms = null)),
  edited('latency-present', 'completed requests without an end-to-end latency', 'points[0].metrics', (r) => (m0(r).e2el_ms = null)),
  edited('latency-present', 'latencies of a point where nothing completed', 'points[0].metrics', (r) => allFailed(r, 0)),
  edited('e2el≥ttft', 'TTFT above end-to-end latency at every statistic', 'points[0].metrics.ttft_ms.min', (r) => {
    const [ttft, e2el] = [m0(r).ttft_ms!, m0(r).e2el_ms!];
    for (const stat of ['min', 'p50', 'p90', 'p95', 'p99', 'p999', 'max', 'mean'] as const) ttft[stat] = e2el[stat] + 1;
  }),
  edited('e2el≥ttft', 'a saved request whose first token came after its last (no TPOT)', 'points[0].requests[0].ttft_ms', (r) => Object.assign(req0(r), { ttft_ms: 2000, tpot_ms: null })),
  edited('interactivity=1000/tpot', 'interactivity missing though TPOT was measured', 'points[0].metrics.interactivity_tok_s', (r) => (m0(r).interactivity_tok_s = null)),
  edited('interactivity=1000/tpot', 'interactivity without a TPOT', 'points[0].metrics.interactivity_tok_s', (r) => (m0(r).tpot_ms = null)),
  edited('interactivity=1000/tpot', 'an interactivity min 1% above 1000 / TPOT max', 'points[0].metrics.interactivity_tok_s.min', (r) => (m0(r).interactivity_tok_s!.min *= 1.01)),
  edited('interactivity=1000/tpot', 'an interactivity max 1% above 1000 / TPOT min', 'points[0].metrics.interactivity_tok_s.max', (r) => (m0(r).interactivity_tok_s!.max *= 1.01)),
  edited('e2el=ttft+(n−1)·tpot', 'a saved request whose TPOT is 10% off', 'points[0].requests[0].tpot_ms', (r) => (req0(r).tpot_ms = 11)),
  edited('requests=counts', 'a saved request that failed while every request completed', 'points[0].requests', (r) => Object.assign(req0(r), { ok: false, failure: 'timeout' })),
  edited('sample-count', 'a TTFT counted over one request more than completed', 'points[0].metrics.ttft_ms.count', (r) => (m0(r).ttft_ms!.count = m0(r).completed + 1), [], counted),
  edited('sample-count', 'an end-to-end latency counted over one request less than completed', 'points[0].metrics.e2el_ms.count', (r) => (m0(r).e2el_ms!.count = m0(r).completed - 1), [], counted),
  edited('sample-count', 'a queueing time counted over one request less than were sent', 'points[0].metrics.queue_ms.count', (r) => (m0(r).queue_ms!.count = p0(r).requests_sent - 1), [], counted),
  edited('sample-count', 'a TPOT counted over one request less than the saved requests with a TPOT', 'points[0].metrics.tpot_ms.count', (r) => (m0(r).tpot_ms!.count = m0(r).completed - 1), [], counted),
  edited('sample-count', 'without saved requests, a TPOT counted over more requests than completed', 'points[0].metrics.tpot_ms.count', (r) => {
    delete p0(r).requests;
    // Interactivity's count follows (it is TPOT's where every TPOT is positive): only TPOT's is wrong.
    m0(r).tpot_ms!.count = m0(r).interactivity_tok_s!.count = m0(r).completed + 1;
  }, [], counted),
  edited('sample-count', 'an interactivity counted over one request less than TPOT, every TPOT positive', 'points[0].metrics.interactivity_tok_s.count', (r) => (m0(r).interactivity_tok_s!.count = m0(r).tpot_ms!.count! - 1), [], counted),
  edited('ok⇔no-failure', 'a saved request ok with a failure class', 'points[0].requests[0].ok', (r) => (req0(r).failure = 'timeout')),
  edited('point-inside-run', 'a point that started 10 minutes before its run', 'points[1].started_at', (r) => (r.points[1]!.started_at = new Date(Date.parse(r.created_at) - 600_000).toISOString())),
  edited('point-inside-run', 'a point that started 10 minutes after its run ended', 'points[1].started_at', (r) => (r.points[1]!.started_at = new Date(Date.parse(r.finished_at) + 600_000).toISOString())),
  edited('point-inside-run', 'a point 400 s longer than its run', 'points[0].metrics.duration_s', (r) => setDuration(p0(r), (Date.parse(r.finished_at) - Date.parse(r.created_at)) / 1000 + 400)),
  // A run that finished before it began also holds points that started after it finished.
  edited('time-order', 'a run that finished 10 minutes before it was created', 'finished_at', (r) => (r.finished_at = new Date(Date.parse(r.created_at) - 600_000).toISOString()), ['point-inside-run']),
  edited('plausible-date', 'a run from 2023', 'created_at', () => {}, [], () => valid({ date: new Date(Date.UTC(2023, 5, 1, 3)) })),
  edited('plausible-date', 'a run created two days from now', 'created_at', () => {}, [], () => valid({ date: new Date(Math.floor(Date.now() / 1000) * 1000 + 2 * 86_400_000) })),
  edited('plausible-date', 'a run that lasted 32 days', 'finished_at', (r) => (r.finished_at = new Date(Date.parse(r.created_at) + 32 * 86_400_000).toISOString())),
  edited('run-id', 'a run_id that does not start with created_at', 'run_id', (r) => (r.run_id = `20250101T000000Z-${r.run_id.split('-')[1]}`)),
  edited('outcome=points', 'a failure rate that is not failed / sent', 'outcome.failure_rate', (r) => (r.outcome.failure_rate = 0.01)),
  edited('outcome=points', 'a failed run without points that claims a failure rate', 'outcome.failure_rate', (r) => {
    Object.assign(r, { status: 'failed', points: [] });
    r.outcome = { failure_rate: 0.5, exceeded_max_failure_rate: true, interrupted: false };
    r.run!.failure = { phase: 'health', message: 'the server never answered', log_tail: [] };
  }),
  edited('outcome=points', 'exceeded_max_failure_rate without exceeding it', 'outcome.exceeded_max_failure_rate', (r) => (r.outcome.exceeded_max_failure_rate = true)),
  edited('outcome=status', 'a completed run whose outcome says interrupted', 'outcome.interrupted', (r) => (r.outcome.interrupted = true)),
  edited('outcome=status', 'a completed run with a failure block', 'run.failure', (r) => (r.run!.failure = { phase: 'measure', message: 'server exited', log_tail: [] })),
  edited('outcome=status', 'a failed run without a failure block', 'run.failure', (r) => (r.status = 'failed')),
  edited('outcome=status', 'an interrupted run whose outcome says it was not', 'outcome.interrupted', (r) => (r.status = 'interrupted')),

  // Provenance, names and commands.
  edited('run-kind', 'a bare load result', 'kind', (r) => ((r as { kind: string }).kind = 'load')),
  edited('provenance', 'a completed run without its engine version', 'run.engine.version', (r) => (r.run!.engine.version = null)),
  edited('provenance', 'a completed run without the harness commit', 'harness.git_commit', (r) => (r.harness.git_commit = null)),
  edited('provenance', 'a completed run without points', 'points', (r) => (r.points = [])),
  edited('name-length', `a served model name over ${MAX_NAME_CHARS} characters`, 'run.model.served_name', (r) => (r.run!.model.served_name = 'a'.repeat(MAX_NAME_CHARS + 1))),
  edited('name-characters', 'a served model name with a Cyrillic letter', 'run.model.served_name', (r) => (r.run!.model.served_name = 'vllм')),
  // An upper-case engine is no engine file name, no engine servebench knows, and not the command's --engine.
  edited('engine-name', 'an engine name that is no engine file name', 'run.engine.name', (r) => (r.run!.engine.name = 'VLLM'), ['known-engine', 'command-agrees']),
  edited('hidden-character', 'a right-to-left override in the engine command', 'run.engine.command[0]', (r) => (r.run!.engine.command[0] += '\u202e')),
  edited('recorded-command', 'a command line that is not servebench', 'harness.command[0]', (r) => (r.harness.command[0] = 'npx')),
  edited('command-agrees', 'a command line without --engine', 'harness.command', (r) => withFlag(r, '--engine', null)),
  edited('command-agrees', 'a result relabelled sglang whose command ran --engine vllm', 'run.engine.name', (r) => withFlag(r, '--engine', 'sglang')),
  edited('command-agrees', 'another --launcher than the result records', 'run.engine.launcher', (r) => withFlag(r, '--launcher', 'external')),
  edited('command-agrees', 'a community run that says official', 'source', (r) => withFlag(r, '--source', 'community')),
  edited('command-agrees', 'another scenario than the result records', 'workload.name', (r) => withFlag(r, '--workload', 'summarize')),
  // Every case of the rule: tests/run/repeat-verdict.test.ts.
  edited('repeat', 'a repeat block on a run whose command line ran a single run', 'run.repeat', (r) => (r.run!.repeat = { group_id: r.run_id, index: 1, of: 2, mode: 'fixed', stop_reason: null })),
  edited('repeat', '--repeats auto converged at its second repeat', 'run.repeat.stop_reason', (r) => {
    withFlag(r, '--repeats', 'auto');
    r.run!.repeat = { group_id: '20200101T000000Z-00000000', index: 2, of: 10, mode: 'auto', stop_reason: 'converged', target: 0.05, half_widths: r.points.map(() => ({ output_throughput: 0.01, ttft_ms_p50: 0.01, tpot_ms_p50: 0.01 })) };
  }),

  // What the result claims.
  edited('known-engine', 'an engine servebench has no spec for (its command agreeing)', 'run.engine.name', (r) => {
    r.run!.engine.name = 'v1lm';
    withFlag(r, '--engine', 'v1lm');
  }),
  edited('column-fit', 'a host CPU count beyond a 32-bit column', '', (r) => (r.run!.host.cpus = 2 ** 31)),
  edited('spec-hash', 'a spec edited after the run', 'workload.spec_sha256', (r) => (r.workload.spec.seed = 1)),
  edited('workload-lengths', '51 input tokens per request under a 512-token spec', 'points[0].metrics.input_tokens', (r) => {
    m0(r).input_tokens = 51 * m0(r).completed;
    setDuration(p0(r), m0(r).duration_s);
  }),
  edited('workload-lengths', '64 output tokens per request where ignore_eos forced 128', 'points[0].metrics.output_tokens', (r) => {
    m0(r).output_tokens = 64 * m0(r).completed;
    setDuration(p0(r), m0(r).duration_s);
  }),
  edited('workload-lengths', 'a saved request of 51 input tokens', 'points[0].requests[0].input_tokens', (r) => (req0(r).input_tokens = 51)),
  edited('workload-lengths', 'a saved request of 300 output tokens (no TPOT)', 'points[0].requests[0].output_tokens', (r) => Object.assign(req0(r), { output_tokens: 300, tpot_ms: null })),
  // At c=1 the bandwidth bound (16 × 3,350 GB/s / 15 GB of bf16 weights = 3,573 tokens/s) is far below the compute bound.
  edited('roofline-bandwidth', '5,000 output tokens/s of Llama 3.1 8B at c=1 on one H100', 'points[0].metrics.output_throughput', () => {}, [], () => atOutputRate(onH100([1]), 5000)),
  // At c=32 the bandwidth bound is 114,000 tokens/s; 70,000 is above the compute bound (989 TFLOPS / 15 GFLOP = 65,900), and its prompts above the prefill bound too.
  edited('roofline-compute', '70,000 output tokens/s of Llama 3.1 8B on one H100', 'points[0].metrics.output_throughput', () => {}, ['roofline-prefill'], () => atOutputRate(onH100([32]), 70_000)),
  // 14,000 output tokens/s at c=8 is under both decode bounds; with 512-token prompts, 70,000 tokens/s of prefill is not.
  edited('roofline-prefill', '14,000 output (70,000 total) tokens/s at c=8 on one H100', 'points[0].metrics.total_throughput', () => {}, [], () => atOutputRate(onH100([8]), 14_000)),
];

// ---- Just inside each limit: still valid ---------------------------------------------------

/** One request of the point failed (a timeout, with its message), the counts, rates and outcome agreeing. */
function oneFailed(result: RunResult): void {
  const point = p0(result);
  const m = point.metrics;
  const [input, output] = [m.input_tokens / m.completed, m.output_tokens / m.completed];
  m.completed -= 1;
  m.failed = 1;
  m.input_tokens -= input;
  m.output_tokens -= output;
  setDuration(point, m.duration_s);
  point.failures.timeout = 1;
  point.failure_messages = [{ class: 'timeout', message: 'timed out after 600 s', count: 1 }];
  Object.assign(point.requests![0]!, { ok: false, failure: 'timeout', status: null, ttft_ms: null, e2el_ms: null, tpot_ms: null, output_tokens: null });
  result.outcome.failure_rate = 1 / result.points.reduce((sum, p) => sum + p.requests_sent, 0);
}

/** A valid result edited to sit exactly at (or just inside) a rule's limit: no problem. */
const VALID_EDGES: Array<readonly [string, () => RunResult]> = [
  ['a rate 0.99% off its sums (the tolerance is 1%)', () => withEdit(valid(), (r) => (m0(r).output_throughput! *= 1.0099))],
  ['a goodput 0.99% above the request throughput', () => withEdit(valid(), (r) => (m0(r).goodput = m0(r).request_throughput! * 1.0099))],
  ['as many failure messages of a class as failures of it', () => withEdit(valid(), oneFailed)],
  ['as many prompts counted otherwise as completed', () => withEdit(valid(), (r) => (p0(r).input_tokens_mismatched = m0(r).completed))],
  ['a point where nothing completed, in no time, with no rates and no latencies', () =>
    withEdit(valid(), (r) => {
      allFailed(r, 0);
      Object.assign(m0(r), { duration_s: 0, request_throughput: null, output_throughput: null, total_throughput: null });
      for (const key of ['ttft_ms', 'tpot_ms', 'itl_ms', 'itl_event_ms', 'e2el_ms', 'queue_ms', 'interactivity_tok_s'] as const) m0(r)[key] = null;
    })],
  ['99% of the decode rate bound on one GPU', () => atOutputRate(valid(), 0.99e6)],
  ['a steady window from 0 s to the end of its point, its rates 0.99% off its counts; a point without one that says why', () =>
    withEdit(valid(), (r) => {
      withSteady(p0(r));
      const steady = p0(r).steady!;
      Object.assign(steady, { start_s: 0, end_s: m0(r).duration_s, duration_s: m0(r).duration_s });
      Object.assign(steady, { request_throughput: (steady.completed / steady.duration_s) * 1.0099, output_throughput: steady.output_tokens / steady.duration_s, total_throughput: (steady.input_tokens + steady.output_tokens) / steady.duration_s });
      r.points[1]!.steady = null;
      r.points[1]!.steady_reason = '8 requests were never in flight together (at most 7 of 7 sent): too short for a steady window';
    })],
  ['an open-loop point that kept 98% of its schedule, one overloaded with its reason, one too short to judge', () =>
    withEdit(valid({ concurrencies: [1, 8, 32] }), (r) => {
      openLoopJudged(p0(r), 0.98);
      openLoopJudged(r.points[1]!, 0.97);
      openLoopJudged(r.points[2]!, 1);
      Object.assign(r.points[2]!, { achieved_rate: null, overloaded: null, overload_reason: '9 requests completed, fewer than 15: too few to tell whether the schedule was kept' });
    })],
  ['99% of the request rate bound (16 GPUs)', () => atOutputRate(valid({ gpuCount: 16 }), 0.99e5 * 128)],
  ['a TTFT p90 equal to its p50, and a mean equal to its max', () => withEdit(valid(), (r) => Object.assign(m0(r).ttft_ms!, { p90: m0(r).ttft_ms!.p50, mean: m0(r).ttft_ms!.max }))],
  ['a queueing time of 0', () => withEdit(valid(), (r) => (m0(r).queue_ms!.min = 0))],
  ['a TTFT max equal to the end-to-end max', () => withEdit(valid(), (r) => (m0(r).ttft_ms!.max = m0(r).e2el_ms!.max))],
  ['interactivity min and max 1e-7 off 1000 / TPOT (float rounding)', () => withEdit(valid(), (r) => (m0(r).interactivity_tok_s!.min *= 1 + 1e-7, m0(r).interactivity_tok_s!.max *= 1 - 1e-7))],
  ['a saved request 1e-7 off e2el = ttft + (n−1)·tpot', () => withEdit(valid(), (r) => (req0(r).e2el_ms! *= 1 + 1e-7))],
  ['a point that started 4 minutes before its run, and one 4 minutes after it ended (clock steps)', () =>
    withEdit(valid(), (r) => {
      p0(r).started_at = new Date(Date.parse(r.created_at) - 240_000).toISOString();
      r.points[1]!.started_at = new Date(Date.parse(r.finished_at) + 240_000).toISOString();
    })],
  ['a point 299 s longer than its run', () => withEdit(valid(), (r) => setDuration(p0(r), (Date.parse(r.finished_at) - Date.parse(r.created_at)) / 1000 + 299))],
  ['a run that finished a minute before it was created (a clock step)', () => withEdit(valid(), (r) => (r.finished_at = new Date(Date.parse(r.created_at) - 60_000).toISOString()))],
  ['a run created at 2024-01-01T00:00:00Z', () => valid({ date: new Date('2024-01-01T00:00:00Z') })],
  ['a run that lasted exactly 31 days', () => withEdit(valid(), (r) => (r.finished_at = new Date(Date.parse(r.created_at) + 31 * 86_400_000).toISOString()))],
  ['an interrupted run', () => withEdit(valid(), (r) => ((r.status = 'interrupted'), (r.outcome.interrupted = true)))],
  ['a run created 23 hours from now (clocks drift)', () => valid({ date: new Date(Math.floor(Date.now() / 1000) * 1000 + 23 * 3_600_000) })],
  ['a p50 1e-8 ms above its p90 (float rounding)', () => withEdit(valid(), (r) => (m0(r).ttft_ms!.p50 = m0(r).ttft_ms!.p90 + 1e-8))],
  ['a mean 1e-10 relative beyond its max and its min (float rounding)', () => withEdit(valid(), (r) => ((m0(r).ttft_ms!.mean = m0(r).ttft_ms!.max * (1 + 1e-10)), (m0(r).e2el_ms!.mean = m0(r).e2el_ms!.min * (1 - 1e-10))))],
  ['a TTFT max 1e-7 relative above the end-to-end max (float rounding)', () => withEdit(valid(), (r) => (m0(r).ttft_ms!.max = m0(r).e2el_ms!.max * (1 + 1e-7)))],
  ['a saved request whose TTFT is its end-to-end latency, and one 1e-7 relative above it', () =>
    withEdit(valid(), (r) => {
      Object.assign(req0(r), { ttft_ms: req0(r).e2el_ms, tpot_ms: null });
      Object.assign(p0(r).requests![1]!, { ttft_ms: p0(r).requests![1]!.e2el_ms! * (1 + 1e-7), tpot_ms: null });
    })],
  ['a saved request of one output token (no TPOT identity), its outputs counted from the stream', () =>
    withEdit(valid(), (r) => {
      p0(r).token_count_sources.output = { ...p0(r).token_count_sources.output, usage: 0, events: m0(r).completed };
      Object.assign(req0(r), { output_tokens: 1, tpot_ms: 5, e2el_ms: req0(r).ttft_ms });
    })],
  ['some of the requests saved (their ok count is not the point\'s)', () => withEdit(valid(), (r) => (p0(r).requests = p0(r).requests!.slice(0, 10).map((q) => ({ ...q, ok: false, failure: 'timeout', ttft_ms: null, e2el_ms: null, tpot_ms: null, output_tokens: null }))))],
  ['TPOT 0 at every statistic (a server that sends everything in one event) and no interactivity', () =>
    withEdit(valid(), (r) => {
      m0(r).tpot_ms = { ...m0(r).tpot_ms!, min: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0, mean: 0, std: 0 };
      m0(r).interactivity_tok_s = null;
    })],
  ['a TPOT min of 0 (that request has no interactivity; the max is of the others)', () => withEdit(valid(), (r) => (m0(r).tpot_ms!.min = 0))],
  ['without saved requests, a TPOT counted over fewer requests than completed (some produced one token)', () =>
    withEdit(counted(), (r) => {
      delete p0(r).requests;
      m0(r).tpot_ms!.count = m0(r).interactivity_tok_s!.count = m0(r).completed - 3;
    })],
  ['every sample count as the harness writes it', counted],
  ['an interactivity counted over fewer requests than TPOT, where a TPOT is 0', () => withEdit(counted(), (r) => ((m0(r).tpot_ms!.min = 0), (m0(r).interactivity_tok_s!.count = m0(r).tpot_ms!.count! - 1)))],
  ['a failure rate 1e-10 off failed / sent', () => withEdit(valid(), (r) => (r.outcome.failure_rate = 1e-10))],
  [`a served model name of exactly ${MAX_NAME_CHARS} characters`, () => withEdit(valid(), (r) => (r.run!.model.served_name = 'a'.repeat(MAX_NAME_CHARS)))],
  ['a free-form object nested exactly 32 levels', () =>
    withEdit(valid(), (r) => {
      let deep: Record<string, unknown> = {};
      for (let i = 0; i < MAX_NESTING_DEPTH - 3; i++) deep = { a: deep };
      r.workload.extra_body = deep;
    })],
  ['tabs and line breaks in the engine command', () => withEdit(valid(), (r) => r.run!.engine.command.push('--extra', '{\n\t"a": 1\r\n}'))],
  ['a failed, interrupted run', () =>
    withEdit(valid(), (r) => {
      r.status = 'failed';
      r.outcome.interrupted = true;
      r.run!.failure = { phase: 'measure', message: 'interrupted', log_tail: [] };
    })],
  ['445 and 579 input tokens per request under a 512-token exact spec (444.8..579.2 allowed)', () =>
    withEdit(valid(), (r) => {
      m0(r).input_tokens = 445 * m0(r).completed;
      r.points[1]!.metrics.input_tokens = 579 * r.points[1]!.metrics.completed;
      for (const point of r.points) setDuration(point, point.metrics.duration_s);
    })],
  ['156 output tokens per request counted from the stream, of max_tokens 128 (at most 156.8)', () =>
    withEdit(valid(), (r) => {
      m0(r).output_tokens = 156 * m0(r).completed;
      p0(r).token_count_sources.output = { ...p0(r).token_count_sources.output, usage: 0, events: m0(r).completed };
      setDuration(p0(r), m0(r).duration_s);
      delete p0(r).requests;
    })],
  ['99% of each roofline bound on one H100', () => atOutputRate(onH100([1]), 0.99 * 3573.33)],
];

function withEdit(result: RunResult, edit: (r: RunResult) => void): RunResult {
  edit(result);
  return result;
}

// ---- Rules across files: a temporary results folder -----------------------------------------

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Writes `results` into `dir` where `servebench run` would; returns their paths under it. */
function writeResults(dir: string, results: readonly RunResult[]): string[] {
  return results.map((result) => {
    const text = textOf(result);
    const path = resultRelativePath(result, text);
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
    return path;
  });
}

/** A temporary results folder holding `results`; returns it and their paths. */
function resultsFolder(...results: RunResult[]): { dir: string; paths: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'sb-rules-'));
  folders.push(dir);
  return { dir, paths: writeResults(dir, results) };
}

/** `servebench validate … --json`, in this process: its problems. */
async function validateProblems(...argv: string[]): Promise<ResultProblem[]> {
  let out = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  const quiet = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await validateCommand.run([...argv, '--json']);
  } finally {
    write.mockRestore();
    quiet.mockRestore();
  }
  return (JSON.parse(out) as { problems: ResultProblem[] }).problems;
}

/** One run in two files: the second a copy with one field changed, so it has a name of its own. */
function duplicated(): { dir: string; paths: string[] } {
  const copy = valid();
  copy.harness.git_dirty = true;
  return resultsFolder(valid(), copy);
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
}

/** A git checkout whose results/ holds two committed results, then `change` applied to the working tree. */
function committedFolder(change: (dir: string, paths: string[]) => void): ResultProblem[] {
  const { dir: root } = resultsFolder();
  const dir = join(root, 'results');
  const paths = writeResults(dir, [valid(), valid({ seed: 9 })]);
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'base');
  change(dir, paths);
  return diffAgainstBase(dir, 'HEAD').problems;
}

interface AsyncRuleCase extends Omit<RuleCase, 'problems'> {
  readonly problems: () => ResultProblem[] | Promise<ResultProblem[]>;
}

const FOLDER_RULES: AsyncRuleCase[] = [
  {
    rule: 'not-a-result',
    breaks: 'a file in the results folder that is not a result',
    path: '',
    problems: () => {
      const { dir } = resultsFolder(valid());
      writeFileSync(join(dir, 'notes.txt'), 'x');
      return listResultFiles(dir).problems;
    },
  },
  {
    rule: 'not-a-result',
    breaks: 'a symbolic link in the results folder',
    path: '',
    problems: () => {
      const { dir, paths } = resultsFolder(valid());
      symlinkSync(join(dir, paths[0]!), join(dir, 'link.json'));
      return listResultFiles(dir).problems;
    },
  },
  {
    rule: 'not-a-result',
    breaks: 'a README inside a date folder named on the command line',
    path: '',
    problems: () => {
      const { dir, paths } = resultsFolder(valid());
      const dateFolder = join(dir, paths[0]!.split('/')[0]!);
      writeFileSync(join(dateFolder, 'README.md'), 'x');
      return expandPositionals('validate', dir, [dateFolder]).problems;
    },
  },
  {
    rule: 'not-a-result',
    breaks: 'a symbolic link named on the command line',
    path: '',
    problems: async () => {
      const { dir, paths } = resultsFolder(valid());
      const link = join(dir, 'link.json');
      symlinkSync(join(dir, paths[0]!), link);
      return validateProblems('--results', dir, link);
    },
  },
  {
    rule: 'not-a-result',
    breaks: 'a file added since the base that is not a result',
    path: '',
    problems: () => committedFolder((dir) => writeFileSync(join(dir, 'notes.txt'), 'x')),
  },
  {
    rule: 'immutable',
    breaks: 'a committed result deleted',
    path: '',
    problems: () => committedFolder((dir, paths) => rmSync(join(dir, paths[0]!))),
  },
  {
    rule: 'immutable',
    breaks: 'a committed result modified',
    path: '',
    problems: () => committedFolder((dir, paths) => writeFileSync(join(dir, paths[0]!), `${readFileSync(join(dir, paths[0]!), 'utf8')} `)),
  },
  {
    rule: 'duplicate-run',
    breaks: 'one run_id in two files of the folder (validate)',
    path: 'run_id',
    problems: () => validateProblems('--results', duplicated().dir),
  },
  {
    rule: 'duplicate-run',
    breaks: 'a file named on the command line whose run_id another file of the folder has (validate)',
    path: 'run_id',
    problems: () => {
      const { dir, paths } = duplicated();
      return validateProblems('--results', dir, join(dir, paths[1]!));
    },
  },
  {
    rule: 'duplicate-run',
    breaks: 'one run_id in two files of the folder (compile\'s ingest)',
    path: 'run_id',
    problems: async () => {
      const store = await openStore(':memory:');
      try {
        return (await ingest(store, duplicated().dir)).problems;
      } finally {
        store.close();
      }
    },
  },
  {
    rule: 'unreadable',
    breaks: 'a listed file gone before it is read',
    path: '',
    problems: () => parseBatch({ files: [{ relativePath: 'gone.json', absolutePath: join(tmpdir(), 'sb-rules-no-such-file.json') }], runsPath: null, pointsPath: null, probesPath: null }).verdicts.flatMap((v) => v.problems),
  },
  {
    rule: 'signature',
    breaks: 'a signature sidecar without its result',
    path: '',
    problems: () => {
      const { dir, paths } = resultsFolder(valid());
      writeFileSync(join(dir, `${paths[0]!.replace(/\.json$/, '-x.json')}.sigstore.json`), '{}');
      return listResultFiles(dir).problems;
    },
  },
  {
    rule: 'signature',
    breaks: 'a signature sidecar that is not a Sigstore bundle',
    path: '',
    problems: () => {
      const { dir, paths } = resultsFolder(valid());
      writeFileSync(join(dir, `${paths[0]!}.sigstore.json`), '{"not": "a bundle"}');
      return checkSignatureSidecar(paths[0]!, join(dir, paths[0]!), '0'.repeat(64)).problems;
    },
  },
];

// ---------------------------------------------------------------------------------------------

/** The case's rule is reported at its path, saying what is wrong and how to fix it; no rule but those listed is reported. */
function expectRule(c: Pick<RuleCase, 'rule' | 'path' | 'also'>, problems: readonly ResultProblem[]): void {
  const reported = problems.filter((p) => ruleOf(p) === c.rule && p.path === c.path);
  expect(reported.length, `[${c.rule}] at ${JSON.stringify(c.path)} among ${JSON.stringify(problems.map((p) => `${p.path}: ${p.message}`))}`).toBeGreaterThan(0);
  for (const problem of reported) {
    expect(problem.message).toMatch(/^\[[^\]]+\] .{8,}/);
    expect(problem.fix).toMatch(/.{8,}/);
  }
  expect([...new Set(problems.map(ruleOf))].sort()).toEqual([c.rule, ...(c.also ?? [])].sort());
}

describe('the list of rules', () => {
  it('covers every rule harness/store reports, each as often as the sources report it', () => {
    const covered = new Map<string, number>();
    for (const c of [...FILE_RULES, ...FOLDER_RULES]) covered.set(c.rule, (covered.get(c.rule) ?? 0) + 1);
    const sites = ruleSites(readdirSync(STORE).filter((f) => f.endsWith('.ts') && !(f in NOT_VALIDATE)));
    // The scan is awake: it finds rules of every form.
    expect([...sites.keys()]).toEqual(expect.arrayContaining(['percentile-order', 'command-agrees', 'file-size', 'column-fit', 'roofline-prefill', 'duplicate-run']));
    const missing = [...sites].filter(([rule, n]) => (covered.get(rule) ?? 0) < n).map(([rule, n]) => `[${rule}]: reported in ${n} places, ${covered.get(rule) ?? 0} cases here`);
    expect(missing, 'add a case that breaks each to tests/store/validator-rules.test.ts').toEqual([]);
    // And nothing here names a rule that no longer exists.
    expect([...covered.keys()].filter((rule) => !sites.has(rule))).toEqual([]);
  });

  it('start from valid results: the synthetic run with its saved requests, and the H100 relabelling at each load', () => {
    expect(problemsOf(valid())).toEqual([]);
    expect(placedProblemsOf(textOf(valid()))).toEqual([]);
    for (const concurrencies of [[1], [8], [32]]) expect(problemsOf(onH100(concurrencies))).toEqual([]);
  });
});

describe('just inside each limit, a result stays valid', () => {
  it.each(VALID_EDGES)('%s', (_name, result) => {
    expect(problemsOf(result()).map((p) => `${p.path}: ${p.message}`)).toEqual([]);
  });

  it('a file of exactly 8 MiB is read: its problem is what it holds, not its size', () => {
    expect(checkResultText('f.json', ' '.repeat(MAX_RESULT_BYTES), null).problems.map(ruleOf)).toEqual(['json']);
  });
});

describe('each rule of a result file', () => {
  it.each(FILE_RULES.map((c) => [`[${c.rule}] ${c.breaks}`, c] as const))('%s', (_name, c) => expectRule(c, c.problems()));
});

describe('each rule across files', () => {
  it.each(FOLDER_RULES.map((c) => [`[${c.rule}] ${c.breaks}`, c] as const))('%s', async (_name, c) => expectRule(c, await c.problems()));
});
