/**
 * The run-result schema: the one definition of what a servebench result file holds.
 * Every producer (load, run) and consumer (validate, compile, site) imports it from here.
 * A result file is self-describing: it names its schema version, the harness that wrote it,
 * the target, the workload and every load point with its metrics and client health.
 *
 * Versioning: add optional fields freely; anything that changes a field's meaning or removes one
 * bumps SCHEMA_VERSION and gets a line in docs/CHANGELOG.md.
 */
import { z } from 'zod';
import { COUNT_SOURCES, FAILURE_CLASSES, LATER_FAILURE_CLASSES, TOKENIZER_SOURCES, type FailureClass, type LaterFailureClass } from './vocabulary.ts';
import { APIS, ARRIVALS, MAX_LENGTHS_REASON_CHARS, noteText, SloSchema } from './common.ts';
import { WorkloadSchema } from './workload.ts';
import { CacheAuditSchema } from './cache-audit.ts';
import { RunBlockSchema } from './run-block.ts';
import { EngineGaugesSchema } from './engine-gauges.ts';

export { APIS, ARRIVALS, MAX_LENGTHS_REASON_CHARS, SloSchema };
// The blocks with modules of their own, re-exported: importers read the whole result schema from here.
export { CacheAuditSchema, type CacheAudit } from './cache-audit.ts';
export { ProbeSchema, RunBlockSchema, type Probe, type RunBlock } from './run-block.ts';
export { MIN_CONVERGED_REPEATS, REPEAT_METRICS, REPEAT_STOP_REASONS, RepeatSchema, type Repeat } from './repeat.ts';

export const SCHEMA_VERSION = 1;

const count = z.number().int().nonnegative();
const nonNegative = z.number().nonnegative();
/** zod 4 numbers are finite: NaN and ±Infinity are rejected. */
const finite = z.number();

export const DistributionSchema = z
  .object({
    mean: finite,
    std: nonNegative,
    min: finite,
    p50: finite,
    p90: finite,
    p95: finite,
    p99: finite,
    p999: finite,
    max: finite,
    count: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('The samples behind the summary: requests (ttft, e2el, tpot, queue, interactivity), tokens (itl per token) or gaps between events (itl per event); absent in results written before it was recorded (compile derives it from the point, docs/metrics.md#sample-sufficiency)'),
  })
  .strict()
  .describe('Summary of a sample: population std, percentiles by linear interpolation (numpy default).');

const distributionOrNull = DistributionSchema.nullable().describe('null when the sample is empty');

export const PointMetricsSchema = z
  .object({
    completed: count,
    failed: count,
    input_tokens: count,
    output_tokens: count,
    duration_s: nonNegative.describe('First measured send to the last request end, failed requests included.'),
    request_throughput: nonNegative.nullable(),
    output_throughput: nonNegative.nullable(),
    total_throughput: nonNegative.nullable(),
    goodput: nonNegative.nullable().describe('Completed requests meeting every SLO, per second; null without SLOs.'),
    ttft_ms: distributionOrNull,
    tpot_ms: distributionOrNull,
    itl_ms: distributionOrNull.describe('Per token: each event gap split evenly over the tokens it carries.'),
    itl_event_ms: distributionOrNull.describe('Per event gap (vLLM bench serve\'s ITL).'),
    e2el_ms: distributionOrNull,
    queue_ms: distributionOrNull.describe('Client-side queueing: actual send minus scheduled send.'),
    interactivity_tok_s: distributionOrNull.describe('1000 / TPOT per request (tokens/s/user).'),
  })
  .strict();

const countsBySource = z.object(Object.fromEntries(COUNT_SOURCES.map((s) => [s, count])) as Record<(typeof COUNT_SOURCES)[number], typeof count>).strict();
const isLaterClass = (c: FailureClass): c is LaterFailureClass => (LATER_FAILURE_CLASSES as readonly FailureClass[]).includes(c);
const failuresByClass = z
  .object({
    ...(Object.fromEntries(FAILURE_CLASSES.filter((c) => !isLaterClass(c)).map((c) => [c, count])) as Record<Exclude<FailureClass, LaterFailureClass>, typeof count>),
    ...(Object.fromEntries(LATER_FAILURE_CLASSES.map((c) => [c, count.optional().describe('absent in results written before this class existed')])) as Record<LaterFailureClass, z.ZodOptional<typeof count>>),
  })
  .strict();

/** A point keeps at most this many distinct failure messages (the most frequent), each at most this long. */
export const MAX_FAILURE_MESSAGES = 20;
export const MAX_FAILURE_MESSAGE_CHARS = 300;

export const FailureMessageSchema = z
  .object({
    class: z.enum(FAILURE_CLASSES),
    // Shown as text wherever a result is read: one line, nothing that displays as something else.
    message: z.string().max(MAX_FAILURE_MESSAGE_CHARS).regex(/^[^\p{Cc}\p{Cf}\u2028\u2029]*$/u, 'a failure message holds no control or invisible format characters'),
    count: z.number().int().positive(),
  })
  .strict();

export const LoadSchema = z.discriminatedUnion('mode', [
  z
    .object({
      mode: z.literal('closed'),
      concurrency: z.number().int().positive(),
    })
    .strict(),
  z
    .object({
      mode: z.literal('open'),
      rate: z.union([z.number().positive(), z.literal('inf')]).describe('Requests per second; "inf" sends all at once.'),
      arrival: z.enum(ARRIVALS),
      burstiness: z.number().positive().describe('Gamma shape; 1 is Poisson.'),
      max_concurrency: z.number().int().positive().nullable(),
    })
    .strict(),
  z
    .object({
      mode: z.literal('trace'),
      time_scale: z.number().positive().describe('Gaps between the trace timestamps were multiplied by this.'),
      max_concurrency: z.number().int().positive().nullable(),
    })
    .strict(),
]);

export const ClientHealthSchema = z
  .object({
    event_loop_delay_p99_ms: nonNegative,
    event_loop_delay_max_ms: nonNegative,
    cpu_percent: nonNegative.describe('Client process CPU time over wall time, in % of one core.'),
    content_events_per_s: nonNegative,
    saturated: z.boolean().describe('The client itself may have been the bottleneck at this point.'),
  })
  .strict();

export const RequestSummarySchema = z
  .object({
    index: count,
    ok: z.boolean(),
    failure: z.enum(FAILURE_CLASSES).nullable(),
    status: z.number().int().nullable(),
    queue_ms: finite,
    ttft_ms: finite.nullable(),
    e2el_ms: finite.nullable(),
    tpot_ms: finite.nullable(),
    input_tokens: count.nullable(),
    output_tokens: count.nullable(),
    server_prompt_tokens: nonNegative.nullable().describe("usage.prompt_tokens as the server reported it (any number: an implausible one is flagged by usage_implausible)"),
    server_completion_tokens: nonNegative
      .nullable()
      .optional()
      .describe('usage.completion_tokens as the server reported it; absent when it reported none'),
    usage_implausible: z
      .boolean()
      .optional()
      .describe('The server reported a usage count it cannot have meant (not a whole number, above max_tokens, or a prompt above 2^24 tokens); the counts came from the tokenizer or the stream'),
    content_events: count,
    finish_reason: z.string().nullable(),
    retries: count.optional().describe('Times this request was re-sent: its connection closed before any response byte'),
    server_timings: z
      .object({ prompt_n: nonNegative, prompt_ms: nonNegative, predicted_n: nonNegative, predicted_ms: nonNegative })
      .strict()
      .optional()
      .describe("The server's own timings, where it reports them (llama.cpp's final-chunk timings): prompt tokens evaluated and their time, tokens generated and the time from the first to the last"),
    reusable_prompt_tokens: count
      .optional()
      .describe('Prompt tokens a perfect prefix cache would have reused for this request, given what the workload shares and which earlier requests were done when it was sent (docs/metrics.md#cache-audit); absent in older results'),
    cached_prompt_tokens: count
      .nullable()
      .optional()
      .describe('Prompt tokens the server said it took from its cache (cache.source says where it said so); null: it said nothing; absent in older results'),
  })
  .strict();

export const TelemetrySchema = z
  .object({
    gpu: z
      .object({
        peak_memory_mib: nonNegative.nullable(),
        mean_power_w: nonNegative.nullable(),
        energy_j: nonNegative.nullable().describe('Power integrated over the point (trapezoid), all GPUs'),
        mean_utilization_percent: nonNegative.nullable(),
        mean_sm_clock_mhz: nonNegative.nullable(),
        samples: count,
      })
      .strict()
      .nullable()
      .describe('From nvidia-smi (sampled every 200 ms) or amd-smi (polled, about every 250 ms or as fast as it answers; sm clock: the GFX clock); null where there is none'),
    server: z
      .object({ cpu_percent: nonNegative.nullable(), rss_peak_bytes: count.nullable() })
      .strict()
      .nullable()
      .describe("The server's CPU and memory: its process group from /proc (process launches) or its container from docker stats"),
    engine_metrics: z
      .object({
        before: z.record(z.string(), finite),
        after: z.record(z.string(), finite),
        gauges: EngineGaugesSchema.optional().describe("The common quantities (running, waiting, KV usage, prefix hit rate, tokens, preemptions) from the engine's metrics under one name per quantity (engine-gauges.ts; docs/metrics.md#engine-gauges); absent for an engine the map does not know and in older results"),
      })
      .strict()
      .nullable()
      .describe("The engine's Prometheus metrics before and after the point, under the engine's own names"),
  })
  .strict();

/** A point's steady window (harness/measure/metrics/steady-window.ts; docs/metrics.md#steady-window). */
export const SteadyWindowSchema = z
  .object({
    start_s: nonNegative.describe("Seconds from the point's first send: closed loop, when the concurrency was first reached; open loop, the first request end"),
    end_s: nonNegative.describe("Seconds from the point's first send to the first request end after the last send (the drain begins)"),
    duration_s: nonNegative.describe('end_s − start_s'),
    completed: count.describe('Completed requests that ended inside the window'),
    input_tokens: count.describe('Input tokens of the completed requests whose first content event lies inside the window'),
    output_tokens: count.describe('Output tokens of completed requests carried by content events inside the window'),
    request_throughput: nonNegative.describe('completed / duration_s'),
    output_throughput: nonNegative.describe('output_tokens / duration_s'),
    total_throughput: nonNegative.describe('(input_tokens + output_tokens) / duration_s'),
  })
  .strict();

/**
 * An open-loop point that sent or completed its requests at less than this fraction of its
 * scheduled rate is overloaded (harness/measure/metrics/overload.ts; validate checks the flag by it).
 */
export const OVERLOAD_RATIO = 0.98;

export const PointSchema = z
  .object({
    load: LoadSchema,
    started_at: z.iso.datetime(),
    stop: z.enum(['count', 'duration']).describe('What ended the point: the request count or the duration.'),
    requests_sent: count,
    retries: count
      .optional()
      .describe('Re-sends of requests whose keep-alive connection the server closed before answering (the server never started them); each counts once as a request, its TTFT from the re-send; absent in older results'),
    implausible_usage: count
      .optional()
      .describe("Requests whose usage the server reported as a count it cannot have meant (each flagged usage_implausible); their counts came from the tokenizer or the stream; absent in older results"),
    warmup_requests: count,
    prompt_set_sha256: z.string().regex(/^[0-9a-f]{64}$/).describe('sha256 of the prompts (or messages) and max_tokens this point sent, in order: equal across engines for the same scenario, seed and tokenizer.'),
    input_tokens_mismatched: count.describe("Completed requests whose usage.prompt_tokens differs from the length the prompt was built to"),
    metrics: PointMetricsSchema,
    failures: failuresByClass,
    failure_messages: z
      .array(FailureMessageSchema)
      .max(MAX_FAILURE_MESSAGES)
      .optional()
      .describe(`What the failed requests said (the server's own error message, or the client's account of the failure), redacted: each distinct message of a class with how many requests gave it, the ${MAX_FAILURE_MESSAGES} most frequent, most frequent first; absent when nothing failed and in older results`),
    token_count_sources: z.object({ input: countsBySource, output: countsBySource }).strict(),
    itl_split: z.object({ exact: count, estimated: count }).strict(),
    client: ClientHealthSchema,
    requests: z.array(RequestSummarySchema).optional().describe('Per-request facts, when --save-requests was given.'),
    telemetry: TelemetrySchema.optional().describe('Server-side measurements during the point (servebench run)'),
    steady: SteadyWindowSchema.nullable()
      .optional()
      .describe('The throughputs over the steady window, where the load was what the point says (no ramp, no drain tail); null: the point had none (steady_reason says why); absent in older results'),
    steady_reason: noteText.optional().describe('Why steady is null'),
    achieved_rate: z
      .object({
        send_ratio: z.number().min(0).max(1).describe('Requests sent, as a fraction of the scheduled rate: 1 / (1 + b), b the growth of send − scheduled per second of schedule (Tukey resistant line), at most 1'),
        completion_ratio: z.number().min(0).max(1).describe('Requests completed, as a fraction of the scheduled rate: 1 / (1 + b), b the growth of end − scheduled per second of schedule, at most 1'),
      })
      .strict()
      .nullable()
      .optional()
      .describe('Open loop at a finite rate: how much of the scheduled rate was kept (null: too few requests to tell); absent for other loads and in older results'),
    overloaded: z
      .boolean()
      .nullable()
      .optional()
      .describe(`Open loop at a finite rate: the client or the server fell behind the schedule (a ratio of achieved_rate below ${OVERLOAD_RATIO}); null: too few requests to tell. An overloaded point is not ranked, and the sweep does not climb past it`),
    overload_reason: noteText.optional().describe('Why overloaded is true or null'),
    cache: CacheAuditSchema.optional().describe("The prefix cache's hit rate against a perfect cache's for this workload, and the verdict (docs/metrics.md#cache-audit); absent in older results"),
  })
  .strict();


export const RunResultSchema = z
  .object({
    $schema: z.string().optional(),
    schema_version: z.literal(SCHEMA_VERSION),
    run_id: z.string().regex(/^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$/, 'run_id is <UTC yyyymmddThhmmssZ>-<8 hex>'),
    kind: z.enum(['load', 'run']).describe('load: measured an endpoint as given; run: servebench launched the engine too'),
    source: z
      .enum(['official', 'community'])
      .optional()
      .describe('official: measured by the servebench fleet (only its pipeline may say so); community: submitted by pull request. Absent: community.'),
    status: z.enum(['completed', 'failed', 'interrupted']),
    created_at: z.iso.datetime(),
    finished_at: z.iso.datetime(),
    harness: z
      .object({
        name: z.literal('servebench'),
        version: z.string(),
        node: z.string(),
        platform: z.string(),
        arch: z.string(),
        cpus: count,
        command: z.array(z.string()).describe('argv with secrets redacted'),
        // Shown as "the exact commit" and checked out by the Reproduce block: a commit id, nothing else.
        git_commit: z.string().regex(/^[0-9a-f]{40}$/, 'a git commit is 40 lower-case hex digits (git rev-parse HEAD), or null when unknown').nullable().optional().describe('The harness checkout the run used (40 hex); null: unknown'),
        git_dirty: z.boolean().nullable().optional().describe('Whether that checkout had uncommitted changes'),
      })
      .strict(),
    target: z
      .object({
        endpoint: z.string().describe('Base URL without credentials'),
        api: z.enum(APIS),
        model: z.string(),
        server_version: z.string().nullable().describe('As the server reports it: GET /version (vLLM), /props build_info (llama.cpp) or /server_info (SGLang)'),
      })
      .strict(),
    workload: z
      .object({
        name: z.string().nullable().describe('The scenario from workloads/, or null when it was made of command-line flags'),
        spec: WorkloadSchema.describe('The effective scenario: the spec with the command-line overrides applied'),
        spec_sha256: z.string().regex(/^[0-9a-f]{64}$/),
        lengths: z
          .enum(['exact', 'approximate'])
          .describe("exact: prompts built to their token lengths with the model's tokenizer, and the server counted every checked prompt and every completed request at that length; approximate: otherwise (see lengths_reason)"),
        // Shown as text on the site (noteText: one line, nothing that displays as something else).
        lengths_reason: noteText
          .optional()
          .describe('Why the lengths are approximate: no tokenizer, a tokenizer without a chat template, or the server counted prompts otherwise (its /tokenize before measuring, usage.prompt_tokens while measuring). Absent when exact, and in files written before it was recorded'),
        tokenizer: z
          .object({
            name: z.string(),
            sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
            source: z
              .enum(TOKENIZER_SOURCES)
              .optional()
              .describe("flag: --tokenizer; gguf: the GGUF model file's own vocabulary (llama.cpp); server: the server's /tokenize and /detokenize; hf_cache: the model's tokenizer in the local Hugging Face cache"),
          })
          .strict()
          .nullable()
          .describe('The tokenizer that built the prompts and made the fallback counts (null: none was found, lengths approximate).'),
        length_check: z
          .object({
            endpoint: z.string().nullable().describe("The server's tokenize endpoint used, or null when it has none"),
            checked: count,
            mismatched: count,
            examples: z.array(z.object({ expected: count, server: count }).strict()),
          })
          .strict()
          .describe("A sample of prompts counted by the server's own tokenizer before measuring"),
        extra_body: z.record(z.string(), z.unknown()),
      })
      .strict(),
    max_failure_rate: z.number().min(0).max(1),
    timeout_s: z.number().positive(),
    run: RunBlockSchema.optional().describe('Present when servebench launched the engine (kind: run)'),
    points: z.array(PointSchema),
    skipped_loads: z
      .array(z.object({ load: LoadSchema, reason: noteText }).strict())
      .optional()
      .describe('Loads of the sweep that were not run, and why (an open-loop sweep stops climbing past an overloaded rate); absent when none was skipped'),
    outcome: z
      .object({
        failure_rate: z.number().min(0).max(1),
        exceeded_max_failure_rate: z.boolean(),
        interrupted: z.boolean(),
      })
      .strict(),
  })
  .strict();

export type DistributionJson = z.infer<typeof DistributionSchema>;
export type PointMetricsJson = z.infer<typeof PointMetricsSchema>;
export type SteadyWindowJson = z.infer<typeof SteadyWindowSchema>;
export type Load = z.infer<typeof LoadSchema>;
export type ClientHealth = z.infer<typeof ClientHealthSchema>;
export type RequestSummary = z.infer<typeof RequestSummarySchema>;
export type FailureMessage = z.infer<typeof FailureMessageSchema>;
export type Point = z.infer<typeof PointSchema>;
export type RunResult = z.infer<typeof RunResultSchema>;
export type Api = (typeof APIS)[number];
export type Arrival = (typeof ARRIVALS)[number];

/** The JSON Schema for outside consumers (committed as docs/result.schema.json). */
export function resultJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(RunResultSchema, { target: 'draft-2020-12' }),
    $id: `urn:servebench:result:v${SCHEMA_VERSION}`,
    title: 'servebench run result',
  };
}
