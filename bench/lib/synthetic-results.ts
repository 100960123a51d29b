/**
 * SYNTHETIC result files, for tests and the compile benchmark only: they pass every check of
 * `servebench validate` but measured nothing. Every one says so: the model id starts with
 * "synthetic/", GPU names with "Synthetic", harness.command writes into synthetic-results/ and
 * the host OS is "synthetic". Never write them into results/.
 * The command line is tests/kit/write-synthetic-results.ts.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ReleasesFile } from '../../harness/contract/releases.ts';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import type { DistributionJson, Point, RunResult } from '../../harness/contract/result.ts';
import type { Workload } from '../../harness/contract/workload.ts';
import { FAILURE_CLASSES, COUNT_SOURCES } from '../../harness/contract/vocabulary.ts';
import { distribution } from '../../harness/measure/metrics/stats.ts';
import { SYNTHETIC_DESCRIPTION_PREFIX, SYNTHETIC_HOST_OS } from '../../harness/contract/synthetic.ts';

export interface SyntheticRun {
  readonly engine: string;
  readonly version: string;
  readonly model: string;
  /** null: a CPU-only run. */
  readonly gpu: string | null;
  readonly gpuCount: number;
  readonly workload: string;
  readonly date: Date;
  readonly concurrencies: readonly number[];
  /** Time per output token at concurrency 1, in ms, before noise. */
  readonly tpotMs: number;
  /** Time to first token at concurrency 1, in ms, before noise. */
  readonly ttftMs: number;
  /** Multiplies TPOT and TTFT: exp(N(0, noise)) drawn from the seed. */
  readonly noise: number;
  readonly seed: number;
  readonly source?: 'official' | 'community';
  readonly power?: boolean;
}

const ISL = 512;
const OSL = 128;
const REQUESTS = 64;

/** mulberry32: small, seedable, good enough for synthetic noise. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Quantile knots of a plausible right-skewed sample, relative to its median (linear between). */
const SHAPE: ReadonlyArray<readonly [number, number]> = [[0, 0.75], [0.5, 1], [0.9, 1.2], [0.95, 1.3], [0.99, 1.5], [1, 1.7]];

/** One value per request, spread over the shape around the median (sorted). */
function sample(median: number): number[] {
  return Array.from({ length: REQUESTS }, (_, i) => {
    const u = i / (REQUESTS - 1);
    const k = SHAPE.findIndex(([q]) => q >= u);
    const [q0, v0] = SHAPE[Math.max(0, k - 1)]!;
    const [q1, v1] = SHAPE[k]!;
    return median * (q1 === q0 ? v1 : v0 + ((v1 - v0) * (u - q0)) / (q1 - q0));
  });
}

/**
 * The summary of a sample, as the harness summarizes one (harness/measure/metrics/stats.ts): derived values
 * (e2el from ttft and tpot, interactivity from tpot) are computed per request, so every
 * identity validate checks holds.
 */
function distributionOf(values: readonly number[]): DistributionJson {
  return distribution(values)!;
}

const zeroCounts = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

function syntheticPoint(run: SyntheticRun, concurrency: number, start: Date, factor: number): Point {
  const tpot = run.tpotMs * factor * (1 + concurrency / 64);
  const ttft = run.ttftMs * factor * (1 + concurrency / 32);
  const e2el = ttft + (OSL - 1) * tpot;
  const ttfts = sample(ttft);
  const tpots = sample(tpot);
  const requestThroughput = (concurrency * 1000) / e2el;
  const duration = REQUESTS / requestThroughput;
  return {
    load: { mode: 'closed', concurrency },
    started_at: start.toISOString(),
    stop: 'count',
    requests_sent: REQUESTS,
    warmup_requests: 0,
    prompt_set_sha256: createHash('sha256').update(`${run.workload}:${concurrency}`).digest('hex'),
    input_tokens_mismatched: 0,
    metrics: {
      completed: REQUESTS,
      failed: 0,
      input_tokens: REQUESTS * ISL,
      output_tokens: REQUESTS * OSL,
      duration_s: duration,
      request_throughput: REQUESTS / duration,
      output_throughput: (REQUESTS * OSL) / duration,
      total_throughput: (REQUESTS * (ISL + OSL)) / duration,
      goodput: null,
      ttft_ms: distributionOf(ttfts),
      tpot_ms: distributionOf(tpots),
      itl_ms: distributionOf(tpots),
      itl_event_ms: distributionOf(tpots),
      e2el_ms: distributionOf(ttfts.map((t, i) => t + (OSL - 1) * tpots[i]!)),
      queue_ms: distributionOf(sample(0.1)),
      interactivity_tok_s: distributionOf(tpots.map((t) => 1000 / t)),
    },
    failures: zeroCounts(FAILURE_CLASSES),
    token_count_sources: { input: { ...zeroCounts(COUNT_SOURCES), usage: REQUESTS }, output: { ...zeroCounts(COUNT_SOURCES), usage: REQUESTS } },
    itl_split: { exact: REQUESTS, estimated: 0 },
    client: { event_loop_delay_p99_ms: 1, event_loop_delay_max_ms: 2, cpu_percent: 5, content_events_per_s: 1000, saturated: false },
    telemetry: {
      gpu: run.gpu && run.power !== false ? { peak_memory_mib: 60000 + concurrency * 10, mean_power_w: 500 * run.gpuCount, energy_j: 500 * run.gpuCount * duration, mean_utilization_percent: 90, mean_sm_clock_mhz: 1900, samples: Math.round(duration * 5) } : null,
      server: { cpu_percent: 100, rss_peak_bytes: 4_000_000_000 },
      engine_metrics: null,
    },
  };
}

export function syntheticResult(run: SyntheticRun): RunResult {
  const random = rng(run.seed);
  const factor = Math.exp(run.noise * gaussian(random));
  const created = run.date;
  const stamp = created.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  const runId = `${stamp}-${Math.floor(random() * 0xffffffff).toString(16).padStart(8, '0')}`;
  let clock = created.getTime() + 1000;
  const points = run.concurrencies.map((c) => {
    const point = syntheticPoint(run, c, new Date(clock), factor);
    clock += point.metrics.duration_s * 1000 + 1000;
    return point;
  });
  const spec: Workload = {
    name: run.workload,
    description: `${SYNTHETIC_DESCRIPTION_PREFIX}: generated by bench/lib/synthetic-results.ts, measured nothing`,
    api: 'completions',
    input: { dist: 'fixed', tokens: ISL },
    output: { dist: 'fixed', tokens: OSL },
    requests: { count: REQUESTS, warmup: 0 },
    load: { concurrency: [...run.concurrencies] },
    sampling: { temperature: 0, ignore_eos: true },
    seed: 0,
    prefix_caching: 'irrelevant',
  };
  return {
    schema_version: 1,
    run_id: runId,
    kind: 'run',
    source: run.source ?? 'community',
    status: 'completed',
    created_at: created.toISOString(),
    finished_at: new Date(clock).toISOString(),
    harness: { name: 'servebench', version: '0.1.0', node: 'v24.0.0', platform: 'linux', arch: 'x64', cpus: 2, command: ['servebench', 'run', '--engine', run.engine, '--launcher', 'docker', '--model', run.model, '--workload', run.workload, '--concurrency', run.concurrencies.join(','), '--source', run.source ?? 'community', '--results-dir', `synthetic-results/seed-${run.seed}`], git_commit: '0'.repeat(40), git_dirty: false },
    target: { endpoint: 'http://127.0.0.1:8000', api: 'completions', model: run.model, server_version: run.version },
    workload: {
      name: run.workload,
      spec,
      spec_sha256: createHash('sha256').update(JSON.stringify(spec)).digest('hex'),
      lengths: 'exact',
      tokenizer: null,
      length_check: { endpoint: null, checked: 0, mismatched: 0, examples: [] },
      extra_body: {},
    },
    max_failure_rate: 0.05,
    timeout_s: 600,
    run: {
      engine: { name: run.engine, version: run.version, launcher: 'docker', command: [run.engine, 'serve', run.model], image: null, image_digest: null },
      model: { id: run.model, served_name: run.model, revision: null, dtype: 'bfloat16', quantization: null },
      parameters: { model: run.model },
      host: { cpu_model: 'Synthetic CPU', cpus: 64, memory_bytes: 512 * 1024 ** 3, os: SYNTHETIC_HOST_OS },
      hardware: run.gpu ? { gpus: Array.from({ length: run.gpuCount }, (_, index) => ({ index, name: run.gpu!, memory_total_mib: 81559 })), driver: 'synthetic', cuda: 'synthetic' } : null,
      probe: null,
      failure: null,
    },
    points,
    outcome: { failure_rate: 0, exceeded_max_failure_rate: false, interrupted: false },
  };
}

/** Writes a result where `servebench run` would, returning its path under `dir`. */
export function writeResult(dir: string, result: RunResult): string {
  const json = `${JSON.stringify(result, null, 2)}\n`;
  const relative = resultRelativePath(result, json);
  const path = join(dir, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, json, { flag: 'wx' });
  return relative;
}

const ENGINES = ['vllm', 'sglang', 'trtllm', 'lmdeploy', 'llamacpp', 'mlc'];
const GPUS = ['Synthetic H100', 'Synthetic H200', 'Synthetic B200', 'Synthetic MI300X'];
const MODELS = ['synthetic/llama-8b', 'synthetic/llama-70b', 'synthetic/qwen-32b', 'synthetic/mixtral-8x7b'];
const WORKLOADS = ['chat', 'summarize', 'reasoning', 'rag-shared-prefix'];

/**
 * A fleet's history: every night a release of each engine on every GPU × model × workload,
 * with a new minor version every 30 days, until `count` runs exist.
 */
export function* fleetHistory(count: number, seed = 1): Generator<SyntheticRun> {
  const start = Date.UTC(2024, 0, 1);
  const perNight = ENGINES.length * GPUS.length * MODELS.length * WORKLOADS.length;
  for (let i = 0; i < count; i++) {
    const night = Math.floor(i / perNight);
    const k = i % perNight;
    const engine = ENGINES[k % ENGINES.length]!;
    const gpu = GPUS[Math.floor(k / ENGINES.length) % GPUS.length]!;
    const model = MODELS[Math.floor(k / (ENGINES.length * GPUS.length)) % MODELS.length]!;
    const workload = WORKLOADS[Math.floor(k / (ENGINES.length * GPUS.length * MODELS.length)) % WORKLOADS.length]!;
    yield {
      engine,
      version: `1.${Math.floor(night / 30)}.0`,
      model,
      gpu,
      gpuCount: model.includes('70b') ? 4 : 1,
      workload,
      date: new Date(start + night * 86_400_000 + k * 1000),
      concurrencies: [1, 8, 32, 128],
      tpotMs: 5 + (k % 7),
      ttftMs: 40 + (k % 11) * 5,
      noise: 0.03,
      seed: seed * 1_000_003 + i,
      source: 'official',
    };
  }
}

/**
 * The known-release list of a synthetic history (its made-up versions, for SERVEBENCH_EXTRA_RELEASES):
 * without it every synthetic version is "unverified" and no official statistic is derived, so a
 * benchmark of compile would measure less work than a real fleet's.
 */
export function syntheticReleases(runs: Iterable<SyntheticRun>): ReleasesFile {
  const engines: ReleasesFile['engines'] = {};
  for (const run of runs) {
    const list = (engines[run.engine] ??= { sources: ['SYNTHETIC: bench/lib/synthetic-results.ts; no engine released these versions'], releases: [] });
    if (!list.releases.some((r) => r.version === run.version)) list.releases.push({ version: run.version, tag: null, published_at: null, release_url: null, source: 'SYNTHETIC' });
  }
  return { schema_version: 1, description: 'SYNTHETIC release list of a synthetic fleet history (benchmarks only).', engines };
}

/** The one configuration the store's and the site's SYNTHETIC fixtures measure (each adds engine, version, date and seed). */
export const FIXTURE_CONFIGURATION: Omit<SyntheticRun, 'engine' | 'version' | 'date' | 'seed'> = {
  model: 'synthetic/llama-8b',
  gpu: 'Synthetic H100',
  gpuCount: 1,
  workload: 'chat',
  concurrencies: [1, 8],
  tpotMs: 10,
  ttftMs: 60,
  noise: 0.02,
  source: 'official',
};
