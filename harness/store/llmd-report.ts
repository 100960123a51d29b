/**
 * One servebench result as llm-d Benchmark Reports v0.2 (llmd-report-schema.ts): a report per
 * load point, because a v0.2 report describes one benchmark run at one load (inference-perf
 * writes one per stage). Only what the result measured or recorded is mapped; a field it cannot
 * fill honestly is left out. The mapping, field by field: docs/results-store.md#llm-d-benchmark-reports.
 *
 * v0.2 forbids unknown keys everywhere and has no free metadata block, so servebench's own
 * provenance (result file and its sha256, methodology, validity, source) travels in the run's
 * description and keywords (`key=value`), and each block's metadata carries what its schema has
 * room for (a description, a configuration hash).
 */
import { createHash } from 'node:crypto';
import { loadLabel } from '../contract/load-label.ts';
import { methodologyOf } from '../contract/methodology.ts';
import type { DistributionJson, Point, RunResult } from '../contract/result.ts';
import type { Validity } from '../contract/validity.ts';
import { smallestLength, type LengthDistribution, type Workload } from '../contract/workload.ts';
import { LLMD_BLOCK_SCHEMA_VERSION, LLMD_REPORT_VERSION, LlmdReportSchema, type LlmdReport, type LlmdSequenceLength, type LlmdStatistics } from './llmd-report-schema.ts';

/** Where the result came from and how compile judged its points: what the result file cannot say of itself. */
export interface LlmdProvenance {
  /** The result file's path under results/. */
  readonly file: string;
  readonly sha256: string;
  /** Each point's validity (store/validity.ts) by point index; absent: not judged. */
  readonly validity?: ReadonlyArray<{ readonly status: Validity; readonly reason: string | null }>;
}

type Stack = NonNullable<NonNullable<LlmdReport['scenario']>['stack']>[number];
type LoadBlock = NonNullable<NonNullable<LlmdReport['scenario']>['load']>;
type RequestPerformance = NonNullable<LlmdReport['results']['request_performance']>;
type Aggregate = NonNullable<RequestPerformance['aggregate']>;

const MS_PER_S = 1000;

/** A servebench distribution (milliseconds) as v0.2 statistics in seconds, the unit inference-perf writes. */
function secondsOf<U extends 's' | 's/token'>(d: DistributionJson | null, units: U): LlmdStatistics<U> | undefined {
  if (d === null) return undefined;
  const s = (ms: number) => ms / MS_PER_S;
  return { units, mean: s(d.mean), stddev: s(d.std), min: s(d.min), p50: s(d.p50), p90: s(d.p90), p95: s(d.p95), p99: s(d.p99), p99p9: s(d.p999), max: s(d.max) };
}

function meanOnly<U extends string>(units: U, value: number | null): LlmdStatistics<U> | undefined {
  return value === null ? undefined : { units, mean: value };
}

/** Drops undefined members, so an absent value is absent from the JSON and from the key set. */
function defined<T extends Record<string, unknown>>(object: T): T {
  // A loop, not Object.entries/fromEntries: a cold compile calls this for every block of 400,000 reports.
  const kept: Record<string, unknown> = {};
  for (const key in object) if (object[key] !== undefined) kept[key] = object[key];
  return kept as T;
}

/** An object with at least one member, or undefined. */
function nonEmpty<T extends Record<string, unknown>>(object: T): T | undefined {
  const kept = defined(object);
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/**
 * A length distribution of the spec as a v0.2 sequence length. Empirical lengths (a dataset's)
 * have no parameters: the point's measured mean per completed request stands for them (null
 * when nothing completed).
 */
export function sequenceLength(dist: LengthDistribution, measuredMean: number | null): LlmdSequenceLength | null {
  switch (dist.dist) {
    case 'fixed':
      return { distribution: 'fixed', value: dist.tokens };
    case 'uniform':
      return { distribution: 'uniform', value: (dist.min + dist.max) / 2, min: dist.min, max: dist.max };
    case 'range_ratio': {
      // The bounds the harness draws between (measure/workloads/lengths.ts), both inclusive.
      const min = smallestLength(dist);
      const max = dist.convention === 'vllm' ? Math.trunc(dist.tokens * (1 + dist.ratio)) : dist.tokens;
      return { distribution: 'uniform', value: (min + max) / 2, min, max };
    }
    case 'normal':
      return { distribution: 'gaussian', value: dist.mean, std_dev: dist.std, min: dist.min, max: dist.max };
    case 'lognormal':
      return { distribution: 'other', value: dist.median, min: dist.min, max: dist.max };
    case 'empirical':
      return measuredMean === null ? null : { distribution: 'other', value: measuredMean };
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The inference engine component: present only when servebench launched the engine (kind run), so it knows the engine and its GPUs. */
function engineComponent(result: RunResult): Stack | null {
  const run = result.run;
  if (run === undefined) return null;
  const gpus = run.hardware?.gpus ?? [];
  const names = [...new Set(gpus.map((g) => g.name))];
  const parameter = (name: string) => (typeof run.parameters[name] === 'number' ? (run.parameters[name] as number) : undefined);
  const version = run.engine.version ?? result.target.server_version;
  return {
    metadata: {
      schema_version: LLMD_BLOCK_SCHEMA_VERSION,
      label: run.engine.name,
      // What launched it: the engine block, the model and the serve parameters.
      cfg_id: sha256(JSON.stringify({ engine: run.engine, model: run.model, parameters: run.parameters })),
      description: `${run.engine.name} ${version ?? '(version unknown)'} serving ${run.model.id} on ${gpus.length > 0 ? `${gpus.length} x ${names.join(' + ')}` : `CPU (${run.host.cpu_model})`}, launched by servebench (${run.engine.launcher})`,
    },
    standardized: {
      kind: 'inference_engine',
      tool: run.engine.name,
      tool_version: version ?? run.engine.image ?? 'unknown',
      role: 'replica',
      replicas: 1,
      model: { name: run.model.id },
      // A CPU-only run used no accelerator: count 0 (the schema's minimum), the CPU in native.config.host.
      accelerator: { model: names.length > 0 ? names.join(' + ') : 'none', count: gpus.length, parallelism: defined({ tp: parameter('tensor_parallel'), pp: parameter('pipeline_parallel'), dp: parameter('data_parallel') }) },
    },
    native: {
      config: defined({
        launcher: run.engine.launcher,
        command: run.engine.command,
        image: run.engine.image,
        image_digest: run.engine.image_digest,
        settings: run.engine.config ?? undefined,
        serve_parameters: run.parameters,
        model: run.model,
        host: run.host,
        hardware: run.hardware,
      }),
    },
  };
}

function loadBlock(result: RunResult, point: Point, index: number): LoadBlock | null {
  const spec: Workload = result.workload.spec;
  const m = point.metrics;
  const perRequest = (tokens: number) => (m.completed > 0 ? tokens / m.completed : null);
  const input = sequenceLength(spec.input, perRequest(m.input_tokens));
  // The input length is required: a dataset's lengths with nothing completed leave the workload block out.
  if (input === null) return null;
  // max_tokens is the output length only when the end-of-sequence token is ignored; otherwise it is a cap, not enforced.
  const output = spec.sampling.ignore_eos ? sequenceLength(spec.output, perRequest(m.output_tokens)) : null;
  const load = point.load;
  return {
    metadata: { schema_version: LLMD_BLOCK_SCHEMA_VERSION, cfg_id: result.workload.spec_sha256, description: `${result.workload.name ?? 'workload from command-line flags'}: ${spec.description}` },
    standardized: defined({
      tool: 'servebench',
      tool_version: result.harness.version,
      // Prompts are cut from a text corpus or taken from a dataset, never random token ids (docs/workloads.md).
      source: 'sampled' as const,
      stage: index,
      input_seq_len: input,
      output_seq_len: output ?? undefined,
      multi_turn: spec.multi_turn ? { enabled: true, max_turns: { distribution: 'fixed' as const, value: spec.multi_turn.turns } } : undefined,
      rate_qps: load.mode === 'open' && load.rate !== 'inf' ? load.rate : undefined,
      concurrency: load.mode === 'closed' ? load.concurrency : (load.max_concurrency ?? undefined),
    }),
    native: {
      config: { workload: result.workload.name, spec, load, load_label: loadLabel(load), stop: point.stop, warmup_requests: point.warmup_requests, prompt_set_sha256: point.prompt_set_sha256, command: result.harness.command },
    },
  };
}

function aggregateOf(point: Point): Aggregate {
  const m = point.metrics;
  return defined({
    requests: defined({
      total: point.requests_sent,
      failures: m.failed,
      input_length: m.completed > 0 ? { units: 'count' as const, mean: m.input_tokens / m.completed } : undefined,
      output_length: m.completed > 0 ? { units: 'count' as const, mean: m.output_tokens / m.completed } : undefined,
    }),
    latency: nonEmpty({
      time_to_first_token: secondsOf(m.ttft_ms, 's'),
      time_per_output_token: secondsOf(m.tpot_ms, 's/token'),
      // Per token (each event gap split over the tokens it carries), the quantity v0.2 calls ITL.
      inter_token_latency: secondsOf(m.itl_ms, 's/token'),
      request_latency: secondsOf(m.e2el_ms, 's'),
    }),
    throughput: nonEmpty({
      input_token_rate: meanOnly('tokens/s', m.duration_s > 0 ? m.input_tokens / m.duration_s : null),
      output_token_rate: meanOnly('tokens/s', m.output_throughput),
      total_token_rate: meanOnly('tokens/s', m.total_throughput),
      request_rate: meanOnly('queries/s', m.request_throughput),
    }),
  });
}

/** The GPUs' mean utilization and power over the point, on the engine component (all its GPUs together). */
function observabilityOf(point: Point, component: Stack | null): LlmdReport['results']['observability'] {
  const gpu = point.telemetry?.gpu;
  if (component === null || gpu === null || gpu === undefined) return undefined;
  const aggregate = nonEmpty({ gpu_utilization: meanOnly('percent', gpu.mean_utilization_percent), power_consumption: meanOnly('Watts', gpu.mean_power_w) });
  return aggregate === undefined ? undefined : { components: [{ component_label: component.metadata.label, aggregate }] };
}

/** ISO-8601 duration in seconds (PT12.5S). */
function isoDuration(seconds: number): string {
  return `PT${seconds}S`;
}

/** The result's reports, one per point in point order; a result without points has none. Each is checked against the v0.2 schema. */
export function llmdReports(result: RunResult, provenance: LlmdProvenance): LlmdReport[] {
  const methodology = methodologyOf(result);
  const source = result.source ?? 'community';
  const component = engineComponent(result);
  return result.points.map((point, index) => {
    const validity = provenance.validity?.[index];
    const label = loadLabel(point.load);
    const load = loadBlock(result, point, index);
    const scenario = nonEmpty({ stack: component === null ? undefined : [component], load: load ?? undefined });
    const report = defined({
      version: LLMD_REPORT_VERSION,
      run: {
        uid: `${result.run_id}/${index}`,
        eid: result.run_id,
        time: { start: point.started_at, duration: isoDuration(point.metrics.duration_s) },
        description: `servebench ${result.kind} ${result.run_id}, load point ${index} (${label}) of ${result.points.length}; ${source} result ${provenance.file} (sha256 ${provenance.sha256}), run ${result.status}, methodology ${methodology}${validity === undefined ? '' : `, point ${validity.status}${validity.reason === null ? '' : ` (${validity.reason})`}`}`,
        keywords: [
          'servebench',
          `source=${source}`,
          `run_status=${result.status}`,
          `methodology=${methodology}`,
          ...(validity === undefined ? [] : [`validity=${validity.status}`]),
          `load=${label}`,
          `result_file=${provenance.file}`,
          `result_sha256=${provenance.sha256}`,
        ],
      },
      scenario,
      results: defined({ request_performance: { aggregate: aggregateOf(point) }, observability: observabilityOf(point, component) }),
    });
    return LlmdReportSchema.parse(report);
  });
}

/** Stands for the run's engine component while a report is stringified (llmdReportLines). */
const STACK_MARK = '\u0001';
const MARKED_STACK = `"stack":${JSON.stringify([STACK_MARK])}`;

/**
 * The result's reports as JSON Lines, each line ending in a newline: what the download writes.
 * Every report of a run carries the same engine component (its command, settings, host and
 * hardware: about a third of a report), so it is stringified once and spliced into each line.
 */
export function llmdReportLines(result: RunResult, provenance: LlmdProvenance): string {
  const reports = llmdReports(result, provenance);
  const component = reports[0]?.scenario?.stack;
  if (component === undefined) return reports.map((report) => `${JSON.stringify(report)}\n`).join('');
  const stack = `"stack":${JSON.stringify(component)}`;
  let lines = '';
  for (const report of reports) {
    // Spread keeps each key where it was, so the line is the report's own JSON with the component in its place.
    const text = JSON.stringify({ ...report, scenario: { ...report.scenario, stack: [STACK_MARK] } });
    // The first match is the stack: only the version and the run block come before it, and their strings are JSON-escaped, so no key or array starts inside them.
    const at = text.indexOf(MARKED_STACK);
    lines += `${text.slice(0, at)}${stack}${text.slice(at + MARKED_STACK.length)}\n`;
  }
  return lines;
}
