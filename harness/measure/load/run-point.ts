/**
 * One load point: a fresh connection pool sized to the load, warmup (excluded from statistics),
 * the measured requests under the client monitor, then the metric summary, the steady window
 * and, for an open loop, whether the schedule was kept.
 */
import { Pool } from 'undici';
import type { RequestRecord } from '../metrics/request-record.ts';
import { requestTimings, summarizePoint, type Slo } from '../metrics/summarize.ts';
import { steadyWindow } from '../metrics/steady-window.ts';
import { judgeOverload } from '../metrics/overload.ts';
import { auditCache, type RequestCache } from '../metrics/cache-audit.ts';
import type { Load, Point, RequestSummary } from '../../contract/result.ts';
import { startClientMonitor } from './client-monitor.ts';
import { driveClosedLoop, driveOpenLoop, type DriveOptions } from './drive.ts';
import type { PreparedRequest } from './prepared-request.ts';
import { resolveCounts } from './resolve-counts.ts';
import { failureMessages } from './failure-messages.ts';
import { pointPrompts, type PromptSpec } from './point-prompts.ts';
import { arrivalOffsetsMs } from './schedule.ts';
import { loadDataset, traceOffsetsMs } from '../workloads/datasets.ts';
import { sendRequest, type LiveCounters, type RequestContext } from './send-request.ts';
import { abortFanout } from './abort-fanout.ts';
import type { ModelTokenizer } from '../tokenizer/hf-tokenizer.ts';

export interface PointPlan {
  readonly origin: string;
  readonly path: string;
  /** A cheap GET used to open the pool's connections before the clock starts. */
  readonly connectPath: string;
  readonly headers: Record<string, string>;
  /** Headers for GETs: credentials and the user's, without the POST's content-type and accept. */
  readonly connectHeaders: Record<string, string>;
  readonly timeoutMs: number;
  readonly ignoreEos: boolean;
  readonly tokenizer: ModelTokenizer | null;
  readonly prompts: PromptSpec;
  readonly warmup: number;
  readonly count: number | null;
  readonly durationS: number | null;
  readonly seed: number;
  readonly slo: Slo | null;
  readonly saveRequests: boolean;
  /** Prefix of x-request-id headers, so server logs can be matched to this run. */
  readonly requestIdPrefix: string;
}

export interface PointProgress {
  readonly phase: 'warmup' | 'measure';
  readonly counters: LiveCounters;
  readonly startedMs: number;
}

function summarizeRequest(record: RequestRecord, cache: RequestCache | undefined): RequestSummary {
  const timings = record.failure === null ? requestTimings(record) : null;
  return {
    index: record.index,
    ok: record.failure === null,
    failure: record.failure?.class ?? null,
    status: record.failure?.status ?? null,
    queue_ms: record.sendMs - record.scheduledMs,
    ttft_ms: timings?.ttftMs ?? null,
    e2el_ms: timings?.e2elMs ?? null,
    tpot_ms: timings?.tpotMs ?? null,
    input_tokens: record.inputTokens,
    output_tokens: record.outputTokens,
    server_prompt_tokens: record.serverPromptTokens,
    ...(record.serverCompletionTokens !== null ? { server_completion_tokens: record.serverCompletionTokens } : {}),
    ...(record.usageImplausible ? { usage_implausible: true } : {}),
    content_events: record.contentTimesMs.length,
    finish_reason: record.finishReason,
    retries: record.retries,
    ...(record.serverTimings
      ? {
          server_timings: {
            prompt_n: record.serverTimings.promptN,
            prompt_ms: record.serverTimings.promptMs,
            predicted_n: record.serverTimings.predictedN,
            predicted_ms: record.serverTimings.predictedMs,
          },
        }
      : {}),
    ...(cache !== undefined ? { reusable_prompt_tokens: cache.reusable, cached_prompt_tokens: cache.cached } : {}),
  };
}

function connectionsFor(load: Load): number | null {
  if (load.mode === 'closed') return load.concurrency;
  return load.max_concurrency;
}

/** Prepared ahead for a closed loop that only a duration stops; more are made on demand. */
const DURATION_PREPARE_AHEAD_PER_WORKER = 16;

/** The answers are ignored (read at most 128 KiB, then dropped); a server that trickles is not waited for beyond this. */
const OPEN_CONNECTIONS_TIMEOUT_MS = 10_000;

/**
 * Opens `n` connections (concurrent GETs, answers ignored) so that TCP setup is not inside the
 * TTFT of the first request on each connection.
 */
async function openConnections(pool: Pool, n: number, path: string, headers: Record<string, string>): Promise<void> {
  const signal = AbortSignal.timeout(OPEN_CONNECTIONS_TIMEOUT_MS);
  await Promise.all(
    Array.from({ length: n }, () =>
      pool.request({ path, method: 'GET', headers, signal }).then(
        (response) => response.body.dump({ limit: 128 * 1024, signal }).catch(() => undefined),
        () => undefined,
      ),
    ),
  );
}

export async function runPoint(
  plan: PointPlan,
  load: Load,
  pointIndex: number,
  signal: AbortSignal,
  onProgress: (progress: PointProgress) => void = () => {},
): Promise<Point & { records: RequestRecord[] }> {
  const pool = new Pool(plan.origin, {
    connections: connectionsFor(load),
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    connect: { timeout: 10_000 },
  });
  let sequence = 0;
  const abort = abortFanout(signal);
  // Generated text is counted after the point by a local tokenizer only (a server's would take a round trip per event).
  const localCounter = plan.tokenizer !== null && plan.tokenizer.remote !== true ? plan.tokenizer : null;
  const makeContext = (counters: LiveCounters): RequestContext => ({
    dispatcher: pool,
    path: plan.path,
    headers: plan.headers,
    timeoutMs: plan.timeoutMs,
    keepTexts: localCounter !== null,
    abort,
    counters,
  });
  const driveWith = (requestAt: (i: number) => PreparedRequest | Promise<PreparedRequest>, counters: LiveCounters, count: number | null, deadlineMs: number | null): DriveOptions => {
    const context = makeContext(counters);
    return {
      requestAt,
      count,
      deadlineMs,
      signal,
      send: (prepared, scheduledMs) => sendRequest(context, prepared, scheduledMs, `${plan.requestIdPrefix}-p${pointIndex}-${sequence++}`),
    };
  };

  try {
    // Everything that costs time happens before the clock: the schedule, the prompts and bodies,
    // the connections, the warmup.
    const offsets =
      load.mode === 'trace'
        ? traceOffsetsMs(loadDataset(plan.prompts.build.workload.dataset!, plan.prompts.build.workload.api, plan.tokenizer), load.time_scale, plan.count)
        : load.mode === 'open'
        ? arrivalOffsetsMs({
            rate: load.rate === 'inf' ? Number.POSITIVE_INFINITY : load.rate,
            arrival: load.arrival,
            burstiness: load.burstiness,
            seed: plan.seed + pointIndex,
            count: plan.count,
            durationS: plan.durationS,
          })
        : null;
    const ahead = offsets?.length ?? plan.count ?? (load.mode === 'closed' ? load.concurrency * DURATION_PREPARE_AHEAD_PER_WORKER : 0);
    const measured = await pointPrompts(plan.prompts, pointIndex, 'measure', ahead);
    const connections = connectionsFor(load);
    if (connections !== null) await openConnections(pool, connections, plan.connectPath, plan.connectHeaders);

    if (plan.warmup > 0) {
      const warmup = await pointPrompts(plan.prompts, pointIndex, 'warmup', plan.warmup);
      const counters: LiveCounters = { contentEvents: 0, requestsDone: 0, requestsFailed: 0, retries: 0 };
      const startedMs = performance.now();
      const ticker = setInterval(() => onProgress({ phase: 'warmup', counters, startedMs }), 100);
      const warmupConcurrency = Math.min(plan.warmup, connections ?? plan.warmup);
      await driveClosedLoop(driveWith(warmup.at, counters, plan.warmup, null), warmupConcurrency).finally(() => clearInterval(ticker));
    }

    const counters: LiveCounters = { contentEvents: 0, requestsDone: 0, requestsFailed: 0, retries: 0 };
    const startedAt = new Date().toISOString();
    const startedMs = performance.now();
    const deadlineMs = plan.durationS === null ? null : startedMs + plan.durationS * 1000;
    const ticker = setInterval(() => onProgress({ phase: 'measure', counters, startedMs }), 100);
    const monitor = startClientMonitor(counters);
    const options = driveWith(measured.at, counters, plan.count, deadlineMs);
    const outcome = await (offsets === null
      ? driveClosedLoop(options, (load as Load & { mode: 'closed' }).concurrency)
      : driveOpenLoop(options, offsets, load.mode === 'closed' ? null : load.max_concurrency, startedMs)
    ).finally(() => clearInterval(ticker));
    const client = monitor.stop();
    onProgress({ phase: 'measure', counters, startedMs });

    const records = outcome.records.sort((a, b) => a.sendMs - b.sendMs);
    for (const record of records) resolveCounts(record, measured.built(record.index), localCounter, plan.ignoreEos, plan.tokenizer !== null);
    const summary = summarizePoint(records, plan.slo);
    const steady = steadyWindow(records, load);
    const overload = judgeOverload(records, load);
    const cache = auditCache(records, (i) => measured.built(i));
    const messages = failureMessages(records);
    return {
      load,
      started_at: startedAt,
      stop: outcome.stop,
      requests_sent: records.length,
      retries: records.reduce((sum, r) => sum + r.retries, 0),
      implausible_usage: records.filter((r) => r.usageImplausible).length,
      warmup_requests: plan.warmup,
      input_tokens_mismatched: records.filter(
        (r) => r.failure === null && r.serverPromptTokens !== null && r.serverPromptTokens !== measured.built(r.index).declaredInputTokens,
      ).length,
      // Both loops send prompts 0…n−1, each once.
      prompt_set_sha256: measured.sha256(records.length),
      metrics: summary.metrics,
      steady: steady.steady,
      ...(steady.reason !== null ? { steady_reason: steady.reason } : {}),
      ...(overload ?? {}),
      cache: cache.block,
      failures: summary.failures,
      ...(messages !== null ? { failure_messages: messages } : {}),
      token_count_sources: summary.token_count_sources,
      itl_split: summary.itl_split,
      client,
      ...(plan.saveRequests ? { requests: records.map((r) => summarizeRequest(r, cache.perRequest.get(r.index))) } : {}),
      records,
    };
  } finally {
    abort.close();
    await pool.destroy();
  }
}
