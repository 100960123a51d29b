/**
 * The llm-d Benchmark Report, version 0.2 (llm-d/llm-d-benchmark,
 * llmdbenchmark/analysis/benchmark_report/schema_v0_2.py and br_v0_2_1_json_schema.json; the
 * format inference-perf writes natively, one report per load stage), as far as servebench writes
 * it: a strict subset. Every object here forbids unknown keys as the pydantic models do, the
 * required fields are theirs, and each statistic is held to the units its field allows, so a
 * document this schema accepts the v0.2 (and the additive v0.2.1) schema accepts too. Parts
 * servebench never fills (time series, session performance, component health, profiling,
 * multi-modal payloads) are left out, so a document carrying them is refused here.
 */
import { z } from 'zod';

export const LLMD_REPORT_VERSION = '0.2';
/** The schema version the component and workload blocks declare (the pydantic default). */
export const LLMD_BLOCK_SCHEMA_VERSION = '0.0.1';

/** Units of v0.2 (base.py Units) that servebench's numbers come in, grouped as the validators group them. */
export const LLMD_UNITS = {
  time: ['ms', 's'],
  perToken: ['ms/token', 's/token'],
  quantity: ['count'],
  tokenRate: ['tokens/s'],
  requestRate: ['queries/s'],
  portion: ['percent', 'fraction'],
  power: ['Watts'],
} as const;

const number = z.number();
const nonNegativeInt = z.number().int().nonnegative();

/** Statistics: units and mean required, the rest optional (percentiles p0p1 … p99p9). */
function statistics<const U extends readonly [string, ...string[]]>(units: U) {
  return z
    .object({
      units: z.enum(units),
      mean: number,
      mode: number.optional(),
      stddev: number.nonnegative().optional(),
      min: number.optional(),
      p0p1: number.optional(),
      p1: number.optional(),
      p5: number.optional(),
      p10: number.optional(),
      p25: number.optional(),
      p50: number.optional(),
      p75: number.optional(),
      p90: number.optional(),
      p95: number.optional(),
      p99: number.optional(),
      p99p9: number.optional(),
      max: number.optional(),
    })
    .strict();
}

const SequenceLengthSchema = z
  .object({
    distribution: z.enum(['fixed', 'gaussian', 'uniform', 'other']),
    value: number.nonnegative(),
    std_dev: number.nonnegative().optional(),
    min: nonNegativeInt.optional(),
    max: z.number().int().min(1).optional(),
  })
  .strict();

const ComponentMetadataSchema = z
  .object({ schema_version: z.string(), label: z.string(), cfg_id: z.string(), description: z.string().optional() })
  .strict();

const NativeSchema = z
  .object({ args: z.record(z.string(), z.unknown()).optional(), envars: z.record(z.string(), z.unknown()).optional(), config: z.unknown().optional() })
  .strict();

const InferenceEngineSchema = z
  .object({
    kind: z.literal('inference_engine'),
    tool: z.string(),
    tool_version: z.string(),
    role: z.enum(['replica', 'prefill', 'decode']),
    replicas: z.number().int().min(1),
    model: z.object({ name: z.string() }).strict(),
    accelerator: z
      .object({
        model: z.string(),
        count: nonNegativeInt,
        parallelism: z
          .object({
            tp: nonNegativeInt.optional(),
            dp: nonNegativeInt.optional(),
            dp_local: nonNegativeInt.optional(),
            workers: nonNegativeInt.optional(),
            ep: z.number().int().min(1).optional(),
            pp: z.number().int().min(1).optional(),
          })
          .strict(),
      })
      .strict(),
  })
  .strict();

const ComponentSchema = z.object({ metadata: ComponentMetadataSchema, standardized: InferenceEngineSchema, native: NativeSchema }).strict();

const LoadSchema = z
  .object({
    metadata: z.object({ schema_version: z.string(), cfg_id: z.string().optional(), description: z.string().optional() }).strict(),
    standardized: z
      .object({
        tool: z.string(),
        tool_version: z.string(),
        parallelism: z.number().int().min(1).optional(),
        source: z.enum(['random', 'sampled', 'unknown']),
        stage: nonNegativeInt.optional(),
        input_seq_len: SequenceLengthSchema,
        output_seq_len: SequenceLengthSchema.optional(),
        multi_turn: z.object({ enabled: z.boolean(), max_turns: SequenceLengthSchema.optional() }).strict().optional(),
        rate_qps: number.positive().optional(),
        // An integer, or .inf (which JSON cannot carry: servebench never writes it).
        concurrency: z.number().int().min(1).optional(),
      })
      .strict(),
    native: NativeSchema,
  })
  .strict();

const RequestPerformanceSchema = z
  .object({
    aggregate: z
      .object({
        requests: z
          .object({
            total: nonNegativeInt,
            failures: nonNegativeInt.optional(),
            incomplete: nonNegativeInt.optional(),
            input_length: statistics(LLMD_UNITS.quantity).optional(),
            output_length: statistics(LLMD_UNITS.quantity).optional(),
          })
          .strict()
          .optional(),
        latency: z
          .object({
            time_to_first_token: statistics(LLMD_UNITS.time).optional(),
            normalized_time_per_output_token: statistics(LLMD_UNITS.perToken).optional(),
            time_per_output_token: statistics(LLMD_UNITS.perToken).optional(),
            inter_token_latency: statistics(LLMD_UNITS.perToken).optional(),
            request_latency: statistics(LLMD_UNITS.time).optional(),
          })
          .strict()
          .optional(),
        throughput: z
          .object({
            input_token_rate: statistics(LLMD_UNITS.tokenRate).optional(),
            output_token_rate: statistics(LLMD_UNITS.tokenRate).optional(),
            total_token_rate: statistics(LLMD_UNITS.tokenRate).optional(),
            request_rate: statistics(LLMD_UNITS.requestRate).optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const ObservabilitySchema = z
  .object({
    components: z
      .array(
        z
          .object({
            component_label: z.string(),
            aggregate: z
              .object({ gpu_utilization: statistics(LLMD_UNITS.portion).optional(), power_consumption: statistics(LLMD_UNITS.power).optional() })
              .strict()
              .optional(),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();

/** ISO-8601 duration in seconds, as inference-perf writes it (PT49.97S). */
const isoSeconds = z.string().regex(/^PT\d+(\.\d+)?S$/);

export const LlmdReportSchema = z
  .object({
    version: z.literal(LLMD_REPORT_VERSION),
    run: z
      .object({
        uid: z.string(),
        eid: z.string().optional(),
        cid: z.string().optional(),
        pid: z.string().optional(),
        time: z.object({ start: z.iso.datetime().optional(), end: z.iso.datetime().optional(), duration: isoSeconds.optional() }).strict().optional(),
        user: z.string().optional(),
        description: z.string().optional(),
        keywords: z.array(z.string()).optional(),
      })
      .strict(),
    scenario: z.object({ stack: z.array(ComponentSchema).optional(), load: LoadSchema.optional() }).strict().optional(),
    results: z.object({ request_performance: RequestPerformanceSchema.optional(), observability: ObservabilitySchema.optional() }).strict(),
  })
  .strict();

export type LlmdReport = z.infer<typeof LlmdReportSchema>;
/** Statistics in the units `U` (each field's validator allows only its own). */
export type LlmdStatistics<U extends string = string> = Omit<z.infer<ReturnType<typeof statistics>>, 'units'> & { units: U };
export type LlmdSequenceLength = z.infer<typeof SequenceLengthSchema>;
