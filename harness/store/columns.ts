/**
 * The compiled tables' columns: one definition of each column's name, SQL type, unit, meaning
 * and (for columns read from result files) where its value comes from. It drives the flattening
 * of result files, the DuckDB table types and the data dictionary shipped with the snapshots.
 */
import { loadLabel } from '../contract/load-label.ts';
import { methodologyOf } from '../contract/methodology.ts';
import { effectiveLengths } from '../contract/lengths-evidence.ts';
import { hardwareLabel } from '../contract/result-path.ts';
import { SCHEMA_VERSION, type Point, type RunBlock, type RunResult } from '../contract/result.ts';
import { versionOrderKey } from './version-order.ts';
import { readRecordedArgv } from '../lib/cli/recorded-argv.ts';
import { reproduceLine } from '../lib/shell/reproduce.ts';
import { RESULT_COMMAND_OPTIONS } from '../contract/command-options.ts';
import { engineVersionKnown } from './known-releases.ts';
import { workloadUsesShippedSpec } from './workload-claims.ts';
import { HEADLINE_METRICS } from '../contract/metric-catalog.ts';
import { MIN_SAMPLES, percentileColumn } from '../contract/sufficiency.ts';
import { insufficientPercentiles, INTERVAL_DISTRIBUTIONS, percentileIntervalOf, sampleCounts } from './sample-counts.ts';

export type SqlType = 'VARCHAR' | 'DOUBLE' | 'BIGINT' | 'INTEGER' | 'BOOLEAN' | 'TIMESTAMP' | 'DATE';
export type Value = string | number | boolean | null;

export interface Column {
  readonly name: string;
  readonly type: SqlType;
  readonly unit: string | null;
  readonly description: string;
}

/** A column read from a result file: `get` finds its value (timestamps as ISO strings). */
export interface SourceColumn<C> extends Column {
  readonly get: (context: C) => Value;
}

/** One validated run (kind "run": check-result.ts rejects the others) and its file. */
export interface RunContext {
  readonly result: RunResult;
  readonly run: RunBlock;
  readonly relativePath: string;
  /** sha256 of the file's text, hex (computed once, by the check). */
  readonly sha256: string;
  /** It has a signature sidecar whose bundle signs these bytes (signature-sidecar.ts; `servebench verify` checks the signer). */
  readonly signed?: boolean;
}

export interface PointContext extends RunContext {
  readonly point: Point;
  readonly index: number;
}

/** A published column that no result field fills directly (derived, or made by another table's code). */
export const col = (name: string, type: SqlType, unit: string | null, description: string): Column => ({ name, type, unit, description });
const from = <C>(name: string, type: SqlType, unit: string | null, description: string, get: (context: C) => Value): SourceColumn<C> => ({ name, type, unit, description, get });

function precisionOf(run: RunBlock): string {
  return [run.model.quantization, run.model.dtype].filter((part): part is string => part !== null && part !== '').join('/') || 'default';
}


const gpusOf = (c: RunContext) => c.run.hardware?.gpus ?? [];

/** The run's reproduce line (the Reproduce block's last line), read as validate reads the command; null when it does not read. */
function reproduceLineOf(result: RunResult): string | null {
  const recorded = readRecordedArgv(result.harness.command, 'run', RESULT_COMMAND_OPTIONS.run);
  return recorded.ok ? reproduceLine({ command: recorded.parsed, image: result.run?.engine.image ?? null, imageDigest: result.run?.engine.image_digest ?? null }) : null;
}

/**
 * The columns that say which configuration a row measured; runs share them with points so each
 * points row stands alone (the site and the downloads filter on them without joins).
 */
export const CONFIG_COLUMNS: ReadonlyArray<SourceColumn<RunContext>> = [
  from('run_id', 'VARCHAR', null, 'The run: <UTC start yyyymmddThhmmssZ>-<8 hex>', (c) => c.result.run_id),
  from('source', 'VARCHAR', null, 'official (made by the servebench pipeline: the nightly, or its lane commands run by the maintainers) or community (a pull request from anyone else; a file without source is community). Only official runs of a version that is not unverified make the ranked, compared and alerted statistics', (c) => c.result.source ?? 'community'),
  from('status', 'VARCHAR', null, 'completed, failed or interrupted', (c) => c.result.status),
  from('created_at', 'TIMESTAMP', 'UTC', 'When the run started', (c) => c.result.created_at),
  from('run_date', 'DATE', 'UTC', 'The day the run started', (c) => c.result.created_at.slice(0, 10)),
  from('engine', 'VARCHAR', null, 'Engine name as in engines/*.yaml', (c) => c.run.engine.name),
  from('engine_version', 'VARCHAR', null, 'Engine version as reported by the server or given to the runner', (c) => c.run.engine.version),
  from('engine_version_known', 'BOOLEAN', null, 'engine_version is a known release of the engine (fleet/releases.json); false: "unverified", shown but never ranked nor in any statistic; null: no version recorded', (c) => engineVersionKnown(c.run.engine.name, c.run.engine.version)),
  from('engine_version_order', 'VARCHAR', null, 'Sort key of engine_version (numeric parts zero-padded; pre-releases before their release; llama.cpp build numbers bNNNN before its semantic versions)', (c) => versionOrderKey(c.run.engine.version)),
  from('model', 'VARCHAR', null, 'Model id (Hugging Face id or file name)', (c) => c.run.model.id),
  from('precision', 'VARCHAR', null, 'quantization/dtype as requested; "default" when neither was set', (c) => precisionOf(c.run)),
  from('model_weights', 'VARCHAR', null, "dummy: a model file servebench made with seeded random weights of the real model's shape (its compute and memory traffic, never its output quality); null: the published checkpoint's weights", (c) => c.run.model.file?.weights ?? null),
  from('gpu', 'VARCHAR', null, 'GPU model name; null on CPU-only runs', (c) => gpusOf(c)[0]?.name ?? null),
  from('gpu_count', 'INTEGER', 'GPUs', 'GPUs the run owned (0 on CPU-only runs)', (c) => gpusOf(c).length),
  from('hardware', 'VARCHAR', null, 'Hardware key: <count>x-<gpu> or cpu-<cpus>x-<cpu model>, where <cpus> counts logical CPUs (vCPUs on a virtual machine), not sockets; the site shows it as the lane says (lanes.json hardware_label)', (c) => hardwareLabel(c.result)),
  from('workload', 'VARCHAR', null, 'Workload scenario name (workloads/*.yaml)', (c) => c.result.workload.name ?? 'command-line'),
  from('workload_sha256', 'VARCHAR', null, 'sha256 of the effective workload spec; a changed spec is a different configuration', (c) => c.result.workload.spec_sha256),
  from('workload_spec_shipped', 'BOOLEAN', null, 'The run used the scenario as workloads/<workload>.yaml ships it today (workload_sha256 equals its hash); false: flags changed it, or the shipped spec changed since, or no such scenario', (c) => workloadUsesShippedSpec(c.result)),
  from('methodology', 'VARCHAR', null, 'Measurement methodology (schema and metric definitions); a change breaks every series', (c) => methodologyOf(c.result)),
  from('lengths_effective', 'VARCHAR', null, "exact or approximate by the file's own evidence, whatever it claims: exact only when the model tokenizer built the prompts and the server counted every checked prompt (length_check) and every completed request (input_tokens_mismatched) at its built length. An approximate run did not measure the same workload: never ranked beside exact ones", (c) => effectiveLengths(c.result).lengths),
];

const scoredAccuracy = (c: RunContext) => (c.run.accuracy?.status === 'scored' ? c.run.accuracy : null);
const headlineInterval = (c: RunContext) => {
  const block = scoredAccuracy(c);
  return block === null ? null : block.interval[block.headline];
};

/** The workload's accuracy task (docs/accuracy.md): the headline filter's numbers, or why it was skipped. */
const ACCURACY_COLUMNS: ReadonlyArray<SourceColumn<RunContext>> = [
  from('accuracy_task', 'VARCHAR', null, "The accuracy task the workload declares (gsm8k), scored after the load points on the same server or skipped (accuracy_skipped); null: the workload declares none, or the run stopped before it", (c) => c.run.accuracy?.task ?? null),
  from('accuracy', 'DOUBLE', 'ratio', "Share of the answered problems answered right, by the headline filter (gsm8k: lm-eval's flexible-extract); null: not scored, or nothing answered", (c) => {
    const block = scoredAccuracy(c);
    return block === null ? null : block.accuracy[block.headline];
  }),
  from('accuracy_ci_low', 'DOUBLE', 'ratio', "95% Wilson score interval of accuracy, low end (docs/accuracy.md#interval)", (c) => headlineInterval(c)?.[0] ?? null),
  from('accuracy_ci_high', 'DOUBLE', 'ratio', "The same interval's high end", (c) => headlineInterval(c)?.[1] ?? null),
  from('accuracy_problems', 'INTEGER', 'problems', 'Problems in the seeded slice asked', (c) => scoredAccuracy(c)?.problems ?? null),
  from('accuracy_answered', 'INTEGER', 'problems', "Problems whose request succeeded: accuracy's denominator (failed requests are counted, not scored)", (c) => scoredAccuracy(c)?.answered ?? null),
  from('accuracy_skipped', 'VARCHAR', null, 'Why the declared task was not scored (dummy weights answer noise; the sim has no weights); null when scored or not declared', (c) => (c.run.accuracy?.status === 'skipped' ? c.run.accuracy.skipped : null)),
];

export const RUN_ONLY_COLUMNS: ReadonlyArray<SourceColumn<RunContext>> = [
  from('file', 'VARCHAR', null, 'Path of the result file under results/', (c) => c.relativePath),
  from('file_sha256', 'VARCHAR', null, 'sha256 of the result file', (c) => c.sha256),
  from('attestation', 'VARCHAR', null, 'Official runs: signed (a Sigstore signature sidecar over the file, made by the nightly workflow; `servebench verify` checks its signer) or unsigned (official, made outside the workflow, e.g. the CPU lane run by hand); null for community runs', (c) => (c.result.source === 'official' ? (c.signed === true ? 'signed' : 'unsigned') : null)),
  from('kind', 'VARCHAR', null, 'run (servebench launched or attached to the engine) or load', (c) => c.result.kind),
  from('finished_at', 'TIMESTAMP', 'UTC', 'When the run ended', (c) => c.result.finished_at),
  from('launcher', 'VARCHAR', null, 'docker, process or external', (c) => c.run.engine.launcher),
  from('image', 'VARCHAR', null, 'Container image (docker launcher)', (c) => c.run.engine.image),
  from('image_digest', 'VARCHAR', null, 'Container image digest', (c) => c.run.engine.image_digest),
  from('command', 'VARCHAR', null, 'The rendered serve command, space-separated', (c) => c.run.engine.command.join(' ')),
  from('model_revision', 'VARCHAR', null, 'Model revision (Hugging Face commit) or file sha256', (c) => c.run.model.revision),
  from('dtype', 'VARCHAR', null, 'Requested dtype', (c) => c.run.model.dtype),
  from('quantization', 'VARCHAR', null, 'Requested quantization', (c) => c.run.model.quantization),
  from('parameters', 'VARCHAR', null, 'The common serve parameters, as JSON', (c) => JSON.stringify(c.run.parameters)),
  from('gpu_memory_mib', 'DOUBLE', 'MiB', 'Memory of one GPU', (c) => gpusOf(c)[0]?.memory_total_mib ?? null),
  from('driver', 'VARCHAR', null, 'GPU driver version', (c) => c.run.hardware?.driver ?? null),
  from('cuda', 'VARCHAR', null, 'CUDA version', (c) => c.run.hardware?.cuda ?? null),
  from('host_cpu', 'VARCHAR', null, 'Host CPU model', (c) => c.run.host.cpu_model),
  from('host_cpus', 'INTEGER', 'CPUs', 'Host logical CPUs (vCPUs on a virtual machine: host_virtualization)', (c) => c.run.host.cpus),
  from('host_memory_bytes', 'BIGINT', 'bytes', 'Host memory', (c) => c.run.host.memory_bytes),
  from('host_os', 'VARCHAR', null, 'Host operating system and kernel', (c) => c.run.host.os),
  from('host_virtualization', 'VARCHAR', null, 'The hypervisor when the host was a virtual machine (kvm, …: its CPUs are vCPUs shared with other tenants), none on bare metal; null when not recorded', (c) => c.run.host.virtualization ?? null),
  from('host_steal_pct', 'DOUBLE', '%', 'CPU time the hypervisor stole from the host over the measured window, % of all CPU time (/proc/stat); null when not readable or not recorded', (c) => c.run.host.steal_pct ?? null),
  from('harness_version', 'VARCHAR', null, 'servebench version', (c) => c.result.harness.version),
  from('harness_git_commit', 'VARCHAR', null, 'servebench commit', (c) => c.result.harness.git_commit ?? null),
  from('harness_git_dirty', 'BOOLEAN', null, 'The harness checkout had uncommitted changes', (c) => c.result.harness.git_dirty ?? null),
  from('harness_command', 'VARCHAR', null, 'The servebench command line that produced the run (secrets redacted)', (c) => c.result.harness.command.join(' ')),
  from('harness_argv', 'VARCHAR', null, 'The same command line as a JSON array of arguments (what the reproduce command is built from)', (c) => JSON.stringify(c.result.harness.command)),
  from('reproduce_line', 'VARCHAR', null, 'The command that reproduces the run, shell-quoted (npx servebench run …): read from harness_argv by servebench\'s own option table, machine-local options left out, the engine image pinned by its digest; run it at harness_git_commit. Null when the recorded command does not read as a servebench run', (c) => reproduceLineOf(c.result)),
  from('schema_version', 'INTEGER', null, `Result schema version (this compiler: ${SCHEMA_VERSION})`, (c) => c.result.schema_version),
  from('api', 'VARCHAR', null, 'completions or chat', (c) => c.result.target.api),
  from('lengths', 'VARCHAR', null, 'exact (prompts built with the model tokenizer) or approximate', (c) => c.result.workload.lengths),
  from('lengths_reason', 'VARCHAR', null, 'Why lengths_effective is approximate (the recorded reason, or the mismatch the file itself shows); null when exact', (c) => effectiveLengths(c.result).reason),
  from('tokenizer', 'VARCHAR', null, 'Tokenizer that built the prompts', (c) => c.result.workload.tokenizer?.name ?? null),
  from('points', 'INTEGER', null, 'Load points measured', (c) => c.result.points.length),
  from('failure_rate', 'DOUBLE', 'ratio', 'Failed / sent requests over the run', (c) => c.result.outcome.failure_rate),
  from('failure_phase', 'VARCHAR', null, 'Where a failed run failed: plan, launch, health, probe, measure, teardown', (c) => c.run.failure?.phase ?? null),
  from('failure_message', 'VARCHAR', null, 'Why a failed run failed', (c) => c.run.failure?.message ?? null),
  from('probe_ignore_eos', 'BOOLEAN', null, 'The server honoured ignore_eos in the pre-run probe', (c) => c.run.probe?.ignore_eos_honoured ?? null),
  from('probe_usage', 'VARCHAR', null, 'How the server streams usage: usage_chunk, final_chunk, none', (c) => c.run.probe?.usage ?? null),
  // Filled after ingest by fidelity.ts: a verdict compares the run with another run, its reference.
  from('fidelity_verdict', 'VARCHAR', null, "pass or fail: the run's output-fidelity probe against its configuration's reference run (docs/metrics.md#output-fidelity; a failed run is never ranked nor a baseline); null: no probe, or no reference run for the configuration", () => null),
  from('fidelity_identical_share', 'DOUBLE', 'ratio', "Share of the probe's prompts answered exactly as the reference run answered them (token ids where both have them, else text)", () => null),
  from('fidelity_mean_divergence', 'DOUBLE', 'tokens', 'Mean position of the first differing token over the prompts answered otherwise than the reference (characters where an engine gives no token ids); null when none differs', () => null),
  from('fidelity_logprob_drift', 'DOUBLE', 'nats', 'Mean |Δ logprob| against the reference over the tokens both produced alike; null where either offers no logprobs', () => null),
  from('fidelity_reference_run', 'VARCHAR', null, "The run_id of the configuration's reference run (the oldest known release of the reference engine: docs/metrics.md#output-fidelity)", () => null),
  from('cache_equality', 'VARCHAR', null, "identical or differs: the probe's greedy requests answered alike cold and with their prompts cached (workloads with shared prefixes or conversations); null: not checked", (c) => c.run.fidelity?.cache_equality?.verdict ?? null),
  ...ACCURACY_COLUMNS,
];

export const RUN_COLUMNS: readonly Column[] = [...CONFIG_COLUMNS, ...RUN_ONLY_COLUMNS];

const DISTRIBUTIONS: ReadonlyArray<readonly [DistributionName, string, string]> = [
  ['ttft_ms', 'ms', 'Time to first token'],
  ['tpot_ms', 'ms', 'Time per output token after the first, per request'],
  ['itl_ms', 'ms', 'Inter-token latency, per token'],
  ['itl_event_ms', 'ms', 'Inter-token latency, per streamed event'],
  ['e2el_ms', 'ms', 'End-to-end request latency'],
  ['queue_ms', 'ms', 'Client-side queueing before the send'],
  ['interactivity_tok_s', 'tokens/s', 'Tokens per second per user (1000 / TPOT)'],
];
type DistributionName = 'ttft_ms' | 'tpot_ms' | 'itl_ms' | 'itl_event_ms' | 'e2el_ms' | 'queue_ms' | 'interactivity_tok_s';
const DISTRIBUTION_NAMES = DISTRIBUTIONS.map(([name]) => name);
export const STATS = ['mean', 'std', 'min', 'p50', 'p90', 'p95', 'p99', 'p999', 'max'] as const;

const metricsOf = (c: PointContext) => c.point.metrics;

/**
 * Sample sufficiency (contract/sufficiency.ts, docs/metrics.md#sample-sufficiency): the count
 * behind each distribution, which percentiles it cannot support, and for the headline
 * percentiles of per-request metrics their distribution-free 95% interval where the requests were saved.
 */
// INTEGER: summarize holds every sample of a point in memory, so a count past 2^31 (16 GiB of doubles) is no measurement;
// column-fit refuses it at validate, and the published columns stay plain JSON numbers.
const SAMPLE_COLUMNS: ReadonlyArray<SourceColumn<PointContext>> = [
  ...DISTRIBUTIONS.map(([name, , what]) => from<PointContext>(`${name}_n`, 'INTEGER', 'samples', `${what}: the samples behind its statistics (requests; tokens for itl_ms; event gaps for itl_event_ms), recorded or derived (sample_counts); null when it has none`, (c) => sampleCounts(c.point).counts[name])),
  from('sample_counts', 'VARCHAR', null, 'recorded: the file gives each distribution\'s count; derived: an older file, counted from the point (docs/metrics.md#sample-sufficiency: TPOT and interactivity at most the completed requests, ITL the output tokens after each first)', (c) => sampleCounts(c.point).source),
  from('insufficient', 'VARCHAR', null, `The percentile columns whose sample is too small to support them, comma-separated (p is supported from n ≥ ⌈1/(1−p)⌉: ${Object.entries(MIN_SAMPLES).map(([stat, n]) => `${stat} ${n}`).join(', ')}); the site shows their sample size instead and never ranks, compares or judges them; null when none`, (c) => insufficientPercentiles(sampleCounts(c.point).counts).join(',') || null),
  ...HEADLINE_METRICS.flatMap((m) => {
    const parsed = percentileColumn(m.column);
    if (parsed === null || !INTERVAL_DISTRIBUTIONS.includes(parsed.distribution)) return [];
    const interval = (c: PointContext) => percentileIntervalOf(c.point, parsed.distribution, parsed.stat);
    return [
      from<PointContext>(`${m.column}_ci_low`, 'DOUBLE', m.unit, `Distribution-free 95% confidence interval of ${m.column} from order statistics (binomial ranks; Conover 1999, §3.2), low end; null without saved requests (the percentiles alone do not determine it) or too few of them`, (c) => interval(c)?.[0] ?? null),
      from<PointContext>(`${m.column}_ci_high`, 'DOUBLE', m.unit, `The same interval's high end`, (c) => interval(c)?.[1] ?? null),
    ];
  }),
];
const perCompleted = (total: number, completed: number) => (completed > 0 ? Math.round(total / completed) : null);

export const POINT_ONLY_COLUMNS: ReadonlyArray<SourceColumn<PointContext>> = [
  from('point', 'INTEGER', null, 'Index of the load point in the run', (c) => c.index),
  from('load', 'VARCHAR', null, 'The load point: c=<concurrency>, rate=<req/s> or trace', (c) => loadLabel(c.point.load)),
  from('load_mode', 'VARCHAR', null, 'closed (fixed concurrency), open (arrival rate) or trace', (c) => c.point.load.mode),
  from('concurrency', 'INTEGER', 'requests', 'Closed loop: requests in flight', (c) => (c.point.load.mode === 'closed' ? c.point.load.concurrency : null)),
  from('rate', 'DOUBLE', 'requests/s', 'Open loop: arrival rate; null for "inf" (all at once)', (c) => (c.point.load.mode === 'open' && c.point.load.rate !== 'inf' ? c.point.load.rate : null)),
  from('max_concurrency', 'INTEGER', 'requests', 'Open loop or trace: cap on requests in flight', (c) => (c.point.load.mode === 'closed' ? null : c.point.load.max_concurrency)),
  from('isl', 'INTEGER', 'tokens', 'Mean input length of the completed requests', (c) => perCompleted(metricsOf(c).input_tokens, metricsOf(c).completed)),
  from('osl', 'INTEGER', 'tokens', 'Mean output length of the completed requests', (c) => perCompleted(metricsOf(c).output_tokens, metricsOf(c).completed)),
  from('started_at', 'TIMESTAMP', 'UTC', 'When the point started', (c) => c.point.started_at),
  from('requests_sent', 'INTEGER', 'requests', 'Requests sent at the point', (c) => c.point.requests_sent),
  from('completed', 'INTEGER', 'requests', 'Requests that completed', (c) => metricsOf(c).completed),
  from('failed', 'INTEGER', 'requests', 'Requests that failed', (c) => metricsOf(c).failed),
  from('input_tokens', 'BIGINT', 'tokens', 'Input tokens of the completed requests', (c) => metricsOf(c).input_tokens),
  from('output_tokens', 'BIGINT', 'tokens', 'Output tokens of the completed requests', (c) => metricsOf(c).output_tokens),
  from('duration_s', 'DOUBLE', 's', 'First send to last end', (c) => metricsOf(c).duration_s),
  from('request_throughput', 'DOUBLE', 'requests/s', 'Completed requests per second', (c) => metricsOf(c).request_throughput),
  from('output_throughput', 'DOUBLE', 'tokens/s', 'Output tokens per second', (c) => metricsOf(c).output_throughput),
  from('total_throughput', 'DOUBLE', 'tokens/s', 'Input plus output tokens per second', (c) => metricsOf(c).total_throughput),
  from('goodput', 'DOUBLE', 'requests/s', 'Completed requests meeting every SLO of the workload, per second', (c) => metricsOf(c).goodput),
  from('output_throughput_per_gpu', 'DOUBLE', 'tokens/s/GPU', 'Output throughput divided by gpu_count (null on CPU-only runs)', (c) => {
    const gpus = gpusOf(c).length;
    const throughput = metricsOf(c).output_throughput;
    return gpus > 0 && throughput !== null ? throughput / gpus : null;
  }),
  from('steady_start_s', 'DOUBLE', 's', "Start of the point's steady window, seconds from its first send (closed loop: the concurrency first reached; open loop: the first request end). Null when the point had none (steady_reason) and in results written before the window was recorded", (c) => c.point.steady?.start_s ?? null),
  from('steady_end_s', 'DOUBLE', 's', 'End of the steady window: the first request end after the last send (the drain begins). Null as steady_start_s', (c) => c.point.steady?.end_s ?? null),
  from('steady_request_throughput', 'DOUBLE', 'requests/s', 'Completed requests that ended inside the steady window, per second of it (no ramp, no drain tail). Null as steady_start_s', (c) => c.point.steady?.request_throughput ?? null),
  from('steady_output_throughput', 'DOUBLE', 'tokens/s', 'Output tokens that arrived inside the steady window, per second of it: the rate the server sustained at this load. Null as steady_start_s', (c) => c.point.steady?.output_throughput ?? null),
  from('steady_reason', 'VARCHAR', null, 'Why the point has no steady window (too short to reach its load); null when it has one and in older results', (c) => c.point.steady_reason ?? null),
  from('overloaded', 'BOOLEAN', null, 'Open loop at a finite rate: the client or the server fell behind the schedule (sent or completed under 98% of the scheduled rate); never ranked. Null for other loads, when too few requests to tell, and in results written before it was recorded', (c) => c.point.overloaded ?? null),
  from('overload_reason', 'VARCHAR', null, 'Why overloaded is true (how far behind the schedule) or null', (c) => c.point.overload_reason ?? null),
  from('cache_theoretical', 'DOUBLE', 'ratio', "Prompt tokens a perfect prefix cache would have reused, over all prompt tokens of the point's completed requests (docs/metrics.md#cache-audit); 0 when the workload shares no prefix; null in results written before the audit", (c) => c.point.cache?.theoretical_hit_rate ?? null),
  from('cache_observed', 'DOUBLE', 'ratio', 'Prompt tokens the server said it took from its cache, over the same prompt tokens; null when it did not say (vLLM without --enable-prompt-tokens-details) and in older results', (c) => c.point.cache?.observed_hit_rate ?? null),
  from('cache_verdict', 'VARCHAR', null, 'consistent, or cache_mismatch (observed below the audit\'s min_ratio of theoretical: never ranked, never a baseline); null when there is nothing to judge and in older results', (c) => c.point.cache?.verdict ?? null),
  ...DISTRIBUTIONS.flatMap(([name, unit, what]) => STATS.map((stat) => from<PointContext>(`${name}_${stat}`, 'DOUBLE', unit, `${what}: ${stat}`, (c) => metricsOf(c)[name]?.[stat] ?? null))),
  ...SAMPLE_COLUMNS,
  from('gpu_peak_memory_mib', 'DOUBLE', 'MiB', 'Peak GPU memory used during the point (busiest GPU)', (c) => c.point.telemetry?.gpu?.peak_memory_mib ?? null),
  from('gpu_mean_power_w', 'DOUBLE', 'W', 'Mean power of all the run GPUs together', (c) => c.point.telemetry?.gpu?.mean_power_w ?? null),
  from('gpu_energy_j', 'DOUBLE', 'J', 'Energy of all the run GPUs over the point', (c) => c.point.telemetry?.gpu?.energy_j ?? null),
  from('gpu_utilization_percent', 'DOUBLE', '%', 'Mean GPU utilization', (c) => c.point.telemetry?.gpu?.mean_utilization_percent ?? null),
  from('server_cpu_percent', 'DOUBLE', '% of one core', 'Server CPU over the point', (c) => c.point.telemetry?.server?.cpu_percent ?? null),
  from('server_rss_peak_bytes', 'BIGINT', 'bytes', 'Server resident memory peak', (c) => c.point.telemetry?.server?.rss_peak_bytes ?? null),
  from('client_saturated', 'BOOLEAN', null, 'The client may have been the bottleneck', (c) => c.point.client.saturated),
  from('input_tokens_mismatched', 'INTEGER', 'requests', 'Completed requests whose server-counted prompt length differed from the built one', (c) => c.point.input_tokens_mismatched),
  from('prompt_set_sha256', 'VARCHAR', null, 'sha256 of the prompts sent; equal across engines for the same scenario', (c) => c.point.prompt_set_sha256),
];

export const POINT_COLUMNS: readonly Column[] = [...CONFIG_COLUMNS, ...POINT_ONLY_COLUMNS];

/** The store's points table: points keep their file, so the rows of a duplicated run_id can be told apart. */
export const POINTS_TABLE: readonly Column[] = [...POINT_COLUMNS, RUN_ONLY_COLUMNS[0]!];

/** Columns the compile step derives (with the price table; the validity rule of store/validity.ts); the dictionary lists them too. */
export const PRICED_COLUMNS: readonly Column[] = [
  col('gpu_price_usd_per_hour', 'DOUBLE', 'USD/GPU-hour', 'Price of one GPU-hour in effect on run_date (fleet/prices.yaml)'),
  col('price_source', 'VARCHAR', null, 'Where that price comes from, and since when it applies'),
  col('tokens_per_gpu_hour', 'DOUBLE', 'tokens/GPU-hour', 'Output tokens per GPU-hour at this point'),
  col('cost_per_1m_output_tokens', 'DOUBLE', 'USD', 'GPU cost of one million output tokens at this point'),
  col('energy_per_output_token_j', 'DOUBLE', 'J/token', 'GPU energy per output token, where power was measured'),
  col('validity', 'VARCHAR', null, "valid, or why the point is not (first that applies): invalid_output (the run's output-fidelity probe failed, or its outputs differed with the cache on and off), cache_mismatch (cache_verdict), overloaded, insufficient_samples (no headline percentile has the sample it needs). Derived by compile from the file, so older results are judged by the same rule; any but valid is shown, never ranked, compared, pooled or used as a baseline (docs/metrics.md#validity)"),
  col('validity_reason', 'VARCHAR', null, 'Why validity is not valid, in words; null when valid'),
];

/** The long table, with the columns the issue that defined it names (join points on run_id, point for more). */
export const METRIC_COLUMNS: readonly Column[] = [
  ...CONFIG_COLUMNS.filter((c) => ['run_id', 'source', 'run_date', 'engine', 'engine_version', 'engine_version_known', 'model', 'precision', 'gpu', 'gpu_count', 'workload'].includes(c.name)),
  col('point', 'INTEGER', null, 'Index of the load point in the run'),
  col('load_mode', 'VARCHAR', null, 'closed, open or trace'),
  col('concurrency', 'INTEGER', 'requests', 'Closed loop concurrency'),
  col('rate', 'DOUBLE', 'requests/s', 'Open loop rate'),
  col('isl', 'INTEGER', 'tokens', 'Mean input length'),
  col('osl', 'INTEGER', 'tokens', 'Mean output length'),
  col('metric', 'VARCHAR', null, 'Metric name, e.g. ttft_ms, output_throughput'),
  col('stat', 'VARCHAR', null, 'Statistic: mean, p50, p90, p95, p99, max, or value for scalars'),
  col('value', 'DOUBLE', 'see metric', 'The value, in the unit of the metric (the points table names it)'),
];

/** Long-format metrics: the distributions' headline statistics and the scalar rates. */
export const LONG_METRICS: ReadonlyArray<readonly [string, string]> = [
  ...DISTRIBUTION_NAMES.filter((name) => name !== 'queue_ms').flatMap((name) => (['mean', 'p50', 'p90', 'p95', 'p99', 'max'] as const).map((stat) => [name, stat] as const)),
  ...['request_throughput', 'output_throughput', 'total_throughput', 'goodput', 'output_throughput_per_gpu', 'gpu_peak_memory_mib', 'gpu_mean_power_w', 'cost_per_1m_output_tokens', 'tokens_per_gpu_hour', 'energy_per_output_token_j'].map((name) => [name, 'value'] as const),
];

export function columnOf(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The deltas table (newest vs previous release), as derive.ts computes it. */
export const DELTA_COLUMN_DESCRIPTIONS: Record<string, { unit: string | null; description: string }> = {
  metric: { unit: null, description: 'The compared metric (a points column)' },
  better: { unit: null, description: 'Which direction is better: higher or lower' },
  previous_version: { unit: null, description: "The engine's previous release measured on this configuration" },
  version: { unit: null, description: "The engine's newest release measured on this configuration" },
  previous_value: { unit: 'metric unit', description: "The previous release's value: the geometric mean over its runs (as the leaderboard shows it)" },
  value: { unit: 'metric unit', description: "The newest release's value: the geometric mean over its runs (as the leaderboard shows it)" },
  change_pct: { unit: '%', description: 'Change of the geometric mean, newest vs previous' },
  ci_low_pct: { unit: '%', description: '95% confidence interval of the change, low end (null: noise unknown)' },
  ci_high_pct: { unit: '%', description: '95% confidence interval of the change, high end' },
  p_value: { unit: null, description: 'Two-sided p-value of no change (Welch t-test on logs, or the pooled noise band)' },
  method: { unit: null, description: 'welch (both releases repeated), noise-band (pooled noise of repeats), unknown-noise' },
  significant: { unit: null, description: 'p_value < 0.05' },
  verdict: { unit: null, description: 'better or worse when significant, else unclear' },
  previous_runs: { unit: 'runs', description: 'Runs of the previous release' },
  previous_run_id: { unit: null, description: 'Latest run of the previous release' },
  run_id: { unit: null, description: 'Latest run of the newest release' },
};
