/**
 * Everything that makes one result file acceptable in results/: it parses, it is the schema
 * version this harness knows, it passes the schema, its numbers agree with each other, it carries
 * the provenance a leaderboard needs, and its path is the one its content dictates. Each problem
 * names the file, the JSON path and the fix. Hostile input (huge, deeply nested, wrong types,
 * markup in names) ends as problems, never as an exception.
 */
import { createHash } from 'node:crypto';
import { resultRelativePath } from '../run/result-path.ts';
import { RunResultSchema, SCHEMA_VERSION, type DistributionJson, type RunResult } from '../schema/result.ts';

export interface ResultProblem {
  readonly file: string;
  /** JSON path inside the file, e.g. "points[2].metrics.ttft_ms.p99"; "" for the file itself. */
  readonly path: string;
  readonly message: string;
  readonly fix: string;
}

export interface CheckedResult {
  readonly result: RunResult | null;
  /** sha256 of the file's text, hex. */
  readonly sha256: string;
  readonly problems: ResultProblem[];
}

/** A run with --save-requests over thousands of requests stays well under this. */
export const MAX_RESULT_BYTES = 8 * 1024 * 1024;
const MAX_DEPTH = 32;
/** Relative tolerance for sums and rates recomputed from the file's own numbers. */
const RATE_TOLERANCE = 0.01;
const ORDER_EPSILON = 1e-9;
/** Names shown on the leaderboard: letters, digits and a few separators; never markup or control characters. */
const SAFE_NAME = /^[\p{L}\p{N} ._:/@+()\-,]*$/u;
const SAFE_PATH = /^[a-z0-9][a-z0-9./-]*\.json$/;

function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}${text ? '.' : ''}${String(key)}`), '');
}

/** Depth of nesting without recursion, so a million nested arrays cannot overflow the stack. */
function depthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

function checkDistribution(d: DistributionJson, path: string, add: (path: string, message: string, fix: string) => void): void {
  const order: Array<[keyof DistributionJson, number]> = [['min', d.min], ['p50', d.p50], ['p90', d.p90], ['p95', d.p95], ['p99', d.p99], ['p999', d.p999], ['max', d.max]];
  for (let i = 1; i < order.length; i++) {
    const [lowName, low] = order[i - 1]!;
    const [highName, high] = order[i]!;
    if (low > high + ORDER_EPSILON * Math.max(1, Math.abs(high))) {
      add(`${path}.${highName}`, `${lowName} (${low}) is above ${highName} (${high})`, 'percentiles must not decrease: min ≤ p50 ≤ p90 ≤ p95 ≤ p99 ≤ p999 ≤ max');
    }
  }
  if (d.mean < d.min - ORDER_EPSILON * Math.abs(d.min) || d.mean > d.max + ORDER_EPSILON * Math.abs(d.max)) {
    add(`${path}.mean`, `mean ${d.mean} lies outside [min ${d.min}, max ${d.max}]`, 'the mean of a sample lies between its min and max');
  }
}

function near(actual: number | null, expected: number): boolean {
  if (actual === null) return false;
  return Math.abs(actual - expected) <= RATE_TOLERANCE * Math.max(Math.abs(expected), 1e-9);
}

/** Consistency of the numbers with each other; the schema has already vouched for their types. */
function checkSemantics(result: RunResult, add: (path: string, message: string, fix: string) => void): void {
  if (Date.parse(result.finished_at) < Date.parse(result.created_at)) add('finished_at', 'finished before it was created', 'finished_at must be ≥ created_at');
  const stamp = result.created_at.replace(/[-:]/g, '').slice(0, 15);
  if (!result.run_id.startsWith(stamp)) add('run_id', `run_id ${result.run_id} does not start with created_at's timestamp ${stamp}Z`, 'keep the run_id the harness generated');
  result.points.forEach((point, i) => {
    const at = `points[${i}]`;
    const m = point.metrics;
    if (m.completed + m.failed !== point.requests_sent) {
      add(`${at}.requests_sent`, `completed (${m.completed}) + failed (${m.failed}) ≠ requests_sent (${point.requests_sent})`, 'every sent request either completed or failed');
    }
    const failures = Object.values(point.failures).reduce((a, b) => a + b, 0);
    if (failures !== m.failed) add(`${at}.failures`, `failures by class sum to ${failures}, metrics.failed is ${m.failed}`, 'each failed request has exactly one class');
    if (m.duration_s > 0) {
      const rates: Array<[string, number | null, number]> = [
        ['request_throughput', m.request_throughput, m.completed / m.duration_s],
        ['output_throughput', m.output_throughput, m.output_tokens / m.duration_s],
        ['total_throughput', m.total_throughput, (m.input_tokens + m.output_tokens) / m.duration_s],
      ];
      for (const [name, value, expected] of rates) {
        if (value !== null && !near(value, expected)) {
          add(`${at}.metrics.${name}`, `${name} ${value} disagrees with the token sums over duration_s (${expected.toPrecision(6)})`, `throughputs are counts / duration_s (within ${RATE_TOLERANCE * 100}%)`);
        }
      }
      if (m.goodput !== null && m.goodput > m.request_throughput! * (1 + RATE_TOLERANCE)) add(`${at}.metrics.goodput`, 'goodput exceeds request throughput', 'goodput counts a subset of the completed requests');
    }
    for (const key of ['ttft_ms', 'tpot_ms', 'itl_ms', 'itl_event_ms', 'e2el_ms', 'queue_ms', 'interactivity_tok_s'] as const) {
      const d = m[key];
      if (d) checkDistribution(d, `${at}.metrics.${key}`, add);
    }
    const started = Date.parse(point.started_at);
    if (started < Date.parse(result.created_at) - 1000 || started > Date.parse(result.finished_at) + 1000) {
      add(`${at}.started_at`, 'the point started outside the run (created_at … finished_at)', 'points happen during their run');
    }
  });
}

/** What a leaderboard row needs to be trusted and reproduced. */
function checkProvenance(result: RunResult, add: (path: string, message: string, fix: string) => void): void {
  const run = result.run;
  if (result.kind !== 'run' || !run) {
    add('kind', 'results/ takes runs with provenance (kind "run"); this is a bare load result', 'produce it with `servebench run` (use --launcher external for a server you started yourself)');
    return;
  }
  if (result.status === 'completed') {
    if (!run.engine.version) add('run.engine.version', 'the engine version is missing', 'a completed run names the engine version it measured (the runner reads it from the server or --engine-version)');
    if (!result.harness.git_commit) add('harness.git_commit', 'the harness commit is missing', 'run servebench from a git checkout so the result records which harness measured it');
    if (result.points.length === 0) add('points', 'a completed run has no points', 'completed runs measured at least one load point');
  }
  const names: Array<[string, string | null | undefined]> = [
    ['run.engine.name', run.engine.name],
    ['run.engine.version', run.engine.version],
    ['run.engine.image', run.engine.image],
    ['run.model.id', run.model.id],
    ['run.model.dtype', run.model.dtype],
    ['run.model.quantization', run.model.quantization],
    ['run.host.cpu_model', run.host.cpu_model],
    ['workload.name', result.workload.name],
    ...(run.hardware?.gpus ?? []).map((gpu, i) => [`run.hardware.gpus[${i}].name`, gpu.name] as [string, string]),
  ];
  for (const [path, value] of names) {
    if (value && (!SAFE_NAME.test(value) || value.length > 200)) {
      add(path, `"${value.slice(0, 60).replace(/[^\x20-\x7e]/g, '?')}" has characters a name may not have`, 'names use letters, digits, spaces and . _ : / @ + ( ) - , only (at most 200)');
    }
  }
}

/**
 * Checks one file's text. `relativePath` is its path under the results folder (forward
 * slashes); null skips the path check (a file checked on its own).
 */
export function checkResultText(file: string, text: string, relativePath: string | null): CheckedResult {
  const problems: ResultProblem[] = [];
  const add = (path: string, message: string, fix: string) => problems.push({ file, path, message, fix });
  const bytes = Buffer.byteLength(text);
  const sha256 = bytes > MAX_RESULT_BYTES ? '' : createHash('sha256').update(text).digest('hex');
  const rejected = (): CheckedResult => ({ result: null, sha256, problems });
  if (bytes > MAX_RESULT_BYTES) {
    add('', `the file is ${Buffer.byteLength(text)} bytes, over the ${MAX_RESULT_BYTES} limit`, 'drop per-request records (--save-requests) or split the sweep into several runs');
    return rejected();
  }
  if (relativePath !== null && !SAFE_PATH.test(relativePath)) {
    add('', `the path "${relativePath.slice(0, 120)}" is not a result path`, 'result paths are lower-case letters, digits, dots, dashes and slashes, ending in .json, as `servebench run` writes them');
    return rejected();
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    add('', `not JSON: ${(error as Error).message.slice(0, 200)}`, 'a result file is the JSON `servebench run` wrote, unedited');
    return rejected();
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    add('', 'not a JSON object', 'a result file is the JSON object `servebench run` wrote, unedited');
    return rejected();
  }
  const version = (data as { schema_version?: unknown }).schema_version;
  if (version !== SCHEMA_VERSION) {
    add('schema_version', `schema_version ${String(JSON.stringify(version) ?? 'missing').slice(0, 40)} is not one this validator knows (${SCHEMA_VERSION})`, 'write it with this harness version, or update servebench');
    return rejected();
  }
  // The schema bounds the depth everywhere except the free-form extra_body, which later readers may walk.
  if (depthExceeds((data as { workload?: { extra_body?: unknown } }).workload?.extra_body, MAX_DEPTH)) {
    add('', `nested deeper than ${MAX_DEPTH} levels`, 'a result file is the JSON `servebench run` wrote, unedited');
    return rejected();
  }
  const parsed = RunResultSchema.safeParse(data);
  if (!parsed.success) {
    for (const issue of parsed.error.issues.slice(0, 50)) add(jsonPath(issue.path), issue.message, 'match docs/result.schema.json');
    return rejected();
  }
  const result = parsed.data;
  checkSemantics(result, add);
  checkProvenance(result, add);
  if (relativePath !== null && result.run) {
    const expected = resultRelativePath(result, text, sha256);
    if (expected !== relativePath) add('', `the path does not match the content: expected ${expected}`, `move the file to results/${expected} (the name carries the content's sha256; edited files no longer match)`);
  }
  return { result: problems.length === 0 ? result : null, sha256, problems };
}
