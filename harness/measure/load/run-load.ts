/**
 * A whole `load` run as a function: a preflight, each point of the sweep in turn (each prepares
 * its requests before its clock starts), and the self-describing result object.
 */
import { cpus } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { RequestRecord } from '../metrics/request-record.ts';
import { MAX_LENGTHS_REASON_CHARS, RunResultSchema, SCHEMA_VERSION, type Load, type Point, type RunResult } from '../../contract/result.ts';
import { judgeLengths, lengthMismatch, type LengthsVerdict } from '../../contract/lengths-evidence.ts';
import { redactArgv, redactValue } from '../../contract/credentials.ts';
import { workloadSpecSha256 } from '../../contract/workload-hash.ts';
import { SERVEBENCH_VERSION } from '../../lib/version.ts';
import { getHeaders, preflight } from './endpoint.ts';
import type { LoadConfig } from './load-options.ts';
import type { PromptSpec } from './point-prompts.ts';
import { API_PATHS, type BodyOptions } from './request-body.ts';
import { buildRequest, type BuiltRequest } from '../workloads/build-request.ts';
import { settle } from '../tokenizer/deferred.ts';
import { verifyPromptLengths, type LengthCheck } from '../workloads/verify-lengths.ts';
import { runPoint, type PointProgress } from './run-point.ts';
import { describeLoad } from './describe-load.ts';
import type { ModelTokenizer } from '../tokenizer/hf-tokenizer.ts';
import { chooseTokenizer } from '../tokenizer/choose.ts';
import type { TokenizerSource } from '../../contract/vocabulary.ts';
import { smallestLength, type Workload } from '../../contract/workload.ts';
import { usageError } from '../../lib/errors.ts';
import { preloadDataset } from '../workloads/datasets.ts';

/**
 * What the prompts can be before the server is asked: exact when the model's tokenizer built them
 * and can count them as the server does (the server's counts may still disagree: judgeLengths).
 */
function buildableLengths(workload: Workload, tokenizer: ModelTokenizer | null): LengthsVerdict {
  if (tokenizer === null) return { lengths: 'approximate', reason: 'no tokenizer built the prompts (corpus words)' };
  if (workload.api === 'chat' && !tokenizer.hasChatTemplate) {
    // The name may be any path the user gave: the reason is one line of text, of bounded length.
    const name = tokenizer.name.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '?').slice(0, MAX_LENGTHS_REASON_CHARS - 40);
    return { lengths: 'approximate', reason: `the tokenizer ${name} has no chat template` };
  }
  return { lengths: 'exact', reason: null };
}

/** Refuses, before anything is measured, an input shorter than what every request already holds. */
function checkReachableLengths(workload: Workload, tokenizer: ModelTokenizer | null): void {
  if (!tokenizer || workload.dataset || workload.multi_turn) return;
  const fixed = tokenizer.countRequest(workload.api, '').tokens;
  const smallest = smallestLength(workload.input);
  if (smallest < fixed) {
    throw usageError(
      `input: the scenario can draw ${smallest} tokens, but every ${workload.api} request holds ${fixed} with this tokenizer (special tokens, chat template); raise the input length`,
    );
  }
}

/** The first n requests of the first point, as the length check sends them to the server. */
async function buildSample(prompts: PromptSpec, n: number): Promise<BuiltRequest[]> {
  const sample: BuiltRequest[] = [];
  for (let i = 0; i < n; i++) sample.push(await settle(() => buildRequest(prompts.build, 0, 'measure', i)));
  return sample;
}

type SkippedLoad = NonNullable<RunResult['skipped_loads']>[number];

/** The lowest open-loop rate at which the server was overloaded, and that point's index in the result. */
interface Ceiling {
  readonly rate: number;
  readonly point: number;
}

/**
 * An open-loop sweep does not climb past an overloaded rate: a higher rate only grows the backlog
 * faster, so its numbers would describe the point's length, not the server. Lower rates still run.
 */
function beyond(load: Load, ceiling: Ceiling): boolean {
  return load.mode === 'open' && (load.rate === 'inf' || load.rate >= ceiling.rate);
}

/** Dataset entries read per point when only a duration bounds it. */
const DATASET_ENTRIES_WITHOUT_COUNT = 10_000;

/** Prompts of the first point checked against the server's own tokenizer, when it has an endpoint. */
const LENGTH_CHECK_SAMPLE = 16;

export interface RunLoadEffects {
  readonly signal: AbortSignal;
  /** `pointIndex`: the load's index in the sweep (config.loads). */
  readonly onProgress?: (pointIndex: number, progress: PointProgress) => void;
  /** `pointIndex`: the point's index in result.points (a skipped load has none). */
  readonly onPointDone?: (pointIndex: number, point: Point) => void | Promise<void>;
  /** Called (and awaited) before each point starts: e.g. to scrape the engine's metrics. `pointIndex`: the load's index in the sweep. */
  readonly onPointStart?: (pointIndex: number) => void | Promise<void>;
  readonly argv?: readonly string[];
  /** Keep every point's raw records in memory for the caller (they can be large). */
  readonly keepRecords?: boolean;
  readonly now?: () => Date;
  /** Where a warning for the person at the terminal goes (default: stderr). */
  readonly notice?: (line: string) => void;
  /**
   * The run this load belongs to (servebench run): its id and start, so the result's run_id is the
   * one its engine's container, log files and labels were named with. Default: a new run now.
   */
  readonly run?: { readonly id: string; readonly createdAt: Date };
  /**
   * Tests only, never set by a command: alters each measured request before its body is made (a
   * planted client bug, e.g. an earlier turn rewritten by one byte, that the cache audit must catch).
   */
  readonly alterRequest?: (request: BuiltRequest, index: number) => BuiltRequest;
}

export interface LoadRun {
  readonly result: RunResult;
  /** Raw request records per point when effects.keepRecords (tests, calibration); else empty. */
  readonly records: RequestRecord[][];
}

/** Sortable and unique: UTC time to the second plus 32 random bits. */
export function newRunId(date: Date): string {
  const stamp = date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}

/** The body options of every request of a load (and of the runner's probe). */
export function bodyOptionsOf(config: LoadConfig): BodyOptions {
  return {
    model: config.model,
    temperature: config.workload.sampling.temperature,
    ignoreEos: config.workload.sampling.ignore_eos,
    ...(config.engineRequest ? { ignoreEosField: config.engineRequest.ignoreEosField, engineBody: config.engineRequest.body } : {}),
    extraBody: config.extraBody,
  };
}

export async function runLoad(config: LoadConfig, effects: RunLoadEffects): Promise<LoadRun> {
  const now = effects.now ?? (() => new Date());
  const createdAt = effects.run?.createdAt ?? now();
  const runId = effects.run?.id ?? newRunId(createdAt);
  const { workload } = config;
  const connectHeaders = getHeaders(config.headers);
  // The server first: an unreachable one is a usage error before anything else is asked of it.
  const facts = await preflight(config.endpoint, config.model, connectHeaders);
  const choice = await chooseTokenizer({
    flag: config.tokenizerPath,
    model: config.modelSource ?? null,
    servedModel: config.model,
    server: `${config.endpoint.origin}${config.endpoint.basePath}`,
    headers: connectHeaders,
    // A dataset's texts are counted one by one: too many server round trips (and its lengths come from the dataset).
    allowServer: workload.dataset === undefined,
  });
  const tokenizer = choice.tokenizer;
  const notice = effects.notice ?? ((line: string) => process.stderr.write(`${line}\n`));
  const buildable = buildableLengths(workload, tokenizer);
  if (buildable.lengths === 'approximate') {
    const why = tokenizer === null
      ? 'no tokenizer found (no --tokenizer, the model is not a local GGUF file, the server has no /tokenize, the model is not in the Hugging Face cache)'
      : `the tokenizer ${tokenizer.name} has no chat template`;
    if (config.requireExactLengths) throw usageError(`prompt lengths would be approximate: ${why}; give --tokenizer (official results need exact lengths)`);
    notice(`servebench: WARNING: prompt lengths are APPROXIMATE: ${why}. Token counts will not match the scenario; give --tokenizer for exact lengths.`);
  }
  await settle(() => checkReachableLengths(workload, tokenizer));
  if (workload.dataset) {
    // Enough conversations for every point and warmup to get its own (a huge file is not read whole).
    const perPoint = (workload.requests.count ?? DATASET_ENTRIES_WITHOUT_COUNT) + workload.requests.warmup;
    await preloadDataset(workload.dataset, workload.api, tokenizer, perPoint * config.loads.length);
  }

  const prompts: PromptSpec = {
    build: { workload, tokenizer },
    body: bodyOptionsOf(config),
    ...(effects.alterRequest ? { alter: effects.alterRequest } : {}),
  };
  const lengthCheck = await verifyPromptLengths(
    `${config.endpoint.origin}${config.endpoint.basePath}/tokenize`,
    config.model,
    connectHeaders,
    await buildSample(prompts, Math.min(LENGTH_CHECK_SAMPLE, config.numPrompts ?? LENGTH_CHECK_SAMPLE)),
  );
  const checkDisagrees = lengthMismatch(lengthCheckBlock(lengthCheck), []);
  if (checkDisagrees !== null && buildable.lengths === 'exact') {
    notice(`servebench: WARNING: prompt lengths are APPROXIMATE: ${checkDisagrees}. The server evaluates other prompts than the scenario declares (another tokenizer or chat template); the result will say approximate.`);
  }

  const points: Point[] = [];
  const records: RequestRecord[][] = [];
  const skipped: SkippedLoad[] = [];
  let ceiling: Ceiling | null = null;
  for (let i = 0; i < config.loads.length; i++) {
    if (effects.signal.aborted) break;
    const load = config.loads[i]!;
    if (ceiling !== null && beyond(load, ceiling)) {
      const reason = `not run: the sweep stops climbing past rate ${ceiling.rate}, where the server was overloaded (points[${ceiling.point}])`;
      skipped.push({ load, reason });
      notice(`servebench: ${describeLoad(load)} ${reason}`);
      continue;
    }
    await effects.onPointStart?.(i);
    const { records: pointRecords, ...point } = await runPoint(
      {
        origin: config.endpoint.origin,
        path: `${config.endpoint.basePath}${API_PATHS[workload.api]}`,
        connectPath: `${config.endpoint.basePath}/v1/models`,
        connectHeaders,
        headers: config.headers,
        timeoutMs: config.timeoutS * 1000,
        ignoreEos: workload.sampling.ignore_eos,
        tokenizer,
        prompts,
        warmup: workload.requests.warmup,
        count: config.numPrompts,
        durationS: config.durationS,
        seed: workload.seed,
        slo: workload.slo ?? null,
        saveRequests: config.saveRequests,
        requestIdPrefix: `sb-${runId}`,
      },
      load,
      i,
      effects.signal,
      (progress) => effects.onProgress?.(i, progress),
    );
    // A point cut short by an interrupt would report a distorted load: keep only whole points.
    if (effects.signal.aborted) break;
    points.push(point);
    if (effects.keepRecords) records.push(pointRecords);
    if (point.overloaded === true && load.mode === 'open' && load.rate !== 'inf') {
      ceiling = { rate: ceiling === null ? load.rate : Math.min(ceiling.rate, load.rate), point: points.length - 1 };
    }
    await effects.onPointDone?.(points.length - 1, point);
  }

  const result = assembleResult(config, {
    runId,
    createdAt,
    finishedAt: now(),
    argv: effects.argv ?? [],
    tokenizer,
    tokenizerSource: choice.source,
    serverVersion: facts.serverVersion,
    lengthCheck,
    points,
    skipped,
    interrupted: effects.signal.aborted,
  });
  // Our own output must satisfy our own schema; a failure here is a servebench bug.
  return { result: RunResultSchema.parse(result), records };
}

/** The result's length_check block of a check (null: none was made). */
function lengthCheckBlock(check: LengthCheck | null): RunResult['workload']['length_check'] {
  return {
    endpoint: check === null || check.style === null ? null : `/tokenize (${check.style} style)`,
    checked: check?.checked ?? 0,
    mismatched: check?.mismatched ?? 0,
    examples: check?.examples ?? [],
  };
}

export interface ResultParts {
  readonly runId: string;
  readonly createdAt: Date;
  readonly finishedAt: Date;
  readonly argv: readonly string[];
  readonly tokenizer: ModelTokenizer | null;
  readonly tokenizerSource?: TokenizerSource | null;
  readonly serverVersion: string | null;
  readonly lengthCheck: LengthCheck | null;
  readonly points: Point[];
  /** Loads of the sweep that were not run, and why. */
  readonly skipped?: readonly SkippedLoad[];
  readonly interrupted: boolean;
}

/**
 * The self-describing result around a run's points (also for runs that failed before measuring).
 * Results are public: the whole of it passes through the credential rules `validate` enforces, so
 * a password in --endpoint, a key in --extra-body or any other credential is never written.
 */
export function assembleResult(config: LoadConfig, parts: ResultParts): RunResult {
  const { workload } = config;
  const { points, tokenizer } = parts;
  const lengthCheck = lengthCheckBlock(parts.lengthCheck);
  const lengths = judgeLengths(buildableLengths(workload, tokenizer), lengthCheck, points);
  const sent = points.reduce((sum, point) => sum + point.requests_sent, 0);
  const failed = points.reduce((sum, point) => sum + point.metrics.failed, 0);
  const failureRate = sent > 0 ? failed / sent : 0;
  return redactValue<RunResult>({
    schema_version: SCHEMA_VERSION,
    run_id: parts.runId,
    kind: 'load',
    status: parts.interrupted ? 'interrupted' : 'completed',
    created_at: parts.createdAt.toISOString(),
    finished_at: parts.finishedAt.toISOString(),
    harness: {
      name: 'servebench',
      version: SERVEBENCH_VERSION,
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      cpus: cpus().length,
      command: redactArgv(parts.argv),
    },
    target: { endpoint: config.endpoint.display, api: workload.api, model: config.model, server_version: parts.serverVersion },
    workload: {
      name: config.workloadName,
      spec: workload,
      // Of the spec as recorded (redacted), so the hash always matches the file's own spec.
      spec_sha256: workloadSpecSha256(workload),
      lengths: lengths.lengths,
      ...(lengths.reason !== null ? { lengths_reason: lengths.reason } : {}),
      tokenizer: tokenizer === null ? null : { name: tokenizer.name, sha256: tokenizer.sha256, ...(parts.tokenizerSource ? { source: parts.tokenizerSource } : {}) },
      length_check: lengthCheck,
      extra_body: config.extraBody,
    },
    max_failure_rate: config.maxFailureRate,
    timeout_s: config.timeoutS,
    points,
    ...(parts.skipped && parts.skipped.length > 0 ? { skipped_loads: [...parts.skipped] } : {}),
    outcome: {
      failure_rate: failureRate,
      exceeded_max_failure_rate: failureRate > config.maxFailureRate,
      interrupted: parts.interrupted,
    },
  });
}
