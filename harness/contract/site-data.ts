/**
 * The compiled data the site reads: compile writes each file through these schemas (a value that
 * does not fit is a compile bug, caught before it is published) and the site's pages take their
 * types from here (type imports are erased: no harness code reaches the pages). Files live under
 * <out>/site/ (SITE_FILES); rows carry every headline metric column besides the named fields.
 */
import { z } from 'zod';
import type { HeadlineMetric } from './metric-catalog.ts';
import { SlaTierSchema, SlaTiersSchema } from './sla-tiers.ts';
import { VALIDITY_STATUSES } from './validity.ts';

/** The validity words the pages show (plain values: the site takes them from here). */
export { exclusionSummary, VALIDITY_LABELS, VALIDITY_STATUSES, type Validity } from './validity.ts';

const metricValue = z.number().nullable();
const text = z.string();
const count = z.number().int().nonnegative();

export const SITE_FILES = {
  meta: 'meta.json',
  scenarios: 'scenarios.json',
  leaderboard: 'leaderboard.json',
  deltas: 'deltas.json',
  regressions: 'regressions.json',
  metrics: 'metrics.json',
  versions: 'versions.json',
  releasesArrow: 'releases.arrow',
  /** Capacity at the SLA tiers: a row per release (scenario × engine × version) × tier. */
  capacity: 'capacity.json',
  /** The SLA tier file the capacity rows were computed with (fleet/sla-tiers.yaml, as parsed). */
  slaTiers: 'sla-tiers.json',
  /** Per engine × hardware × load and compared metric, the noise σ of ln(value) pooled over repeated releases (the history chart's noise band). */
  noise: 'noise.json',
  /** The valid bisections of results/comparisons/, each with its steps' A/B verdicts (BisectionRowSchema). */
  bisections: 'bisections.json',
  /** What changed since the previous snapshot (or in the last 7 days): new releases, significant changes, failed runs. */
  changes: 'changes.json',
  /** The release rows of community and unverified-version runs: shown apart, never ranked (CommunityReleaseSchema). */
  community: 'community.json',
  /** The lanes the runs were measured on (hardware, virtualization, weights, engines), each said in one line (LaneSchema). */
  lanes: 'lanes.json',
  scenario: (id: string) => `scenarios/${id}.json`,
  /** One scenario's rows of releases.arrow (same columns), for the SLA filter of its page. */
  releasesOf: (id: string) => `releases/${id}.arrow`,
  pointsArrow: (id: string) => `points/${id}.arrow`,
  run: (id: string) => `runs/${id}.json`,
} as const;

/** Where the site's raw-file links and Reproduce block point (repository-url.ts); re-exported for the pages' data loader. */
export { repositoryUrlFromEnv } from './repository-url.ts';

/** The fields that say which configuration a row is about (store/ids.ts defines the keys). */
const configuration = { model: text, precision: text, hardware: text, workload: text, methodology: text };

/**
 * Where a release row's runs come from (store/official.ts): official (the project's pipeline, a
 * known release) rows are the only ones ranked, compared, used as baselines or alerted on; the
 * others (community, or an engine version not in the committed release list: "unverified") are
 * aggregated on rows of their own and shown with a badge behind a filter that is off by default.
 */
const standing = {
  source: z.enum(['official', 'community']),
  /** false: the version is not a known release of the engine ("unverified version"). */
  engine_version_known: z.boolean().nullable(),
  /** The row counts in the official statistics: official source and a version that is not unverified. */
  official: z.boolean(),
};
const officialStanding = { source: z.literal('official'), engine_version_known: z.boolean().nullable(), official: z.literal(true) };

/**
 * A release row's validity (store/validity.ts, docs/metrics.md#validity): any but valid is shown
 * greyed with its reason, never ranked, compared or used as a baseline.
 */
const releaseValidity = { validity: z.enum(VALIDITY_STATUSES), validity_reason: text.nullable(), invalid_points: count };

export const DeltaSchema = z
  .object({
    config_id: text,
    scenario_id: text,
    ...configuration,
    load: text,
    engine: text,
    metric: text,
    better: z.enum(['higher', 'lower']),
    previous_version: text,
    version: text,
    previous_value: z.number(),
    value: z.number(),
    change_pct: z.number(),
    ci_low_pct: z.number().nullable(),
    ci_high_pct: z.number().nullable(),
    p_value: z.number().nullable(),
    method: z.enum(['welch', 'noise-band', 'unknown-noise']),
    significant: z.boolean(),
    /** better / worse when significant, else unclear. */
    verdict: z.enum(['better', 'worse', 'unclear']),
    previous_runs: count,
    runs: count,
    previous_run_id: text,
    run_id: text,
  })
  .strict();

export const RegressionSchema = DeltaSchema.extend({ key: text, previous_file: text.nullable(), file: text.nullable() }).strict();

export const RegressionsFileSchema = z.object({ threshold_pct: z.number().nonnegative(), regressions: z.array(RegressionSchema) }).strict();

/**
 * One engine's newest release on one configuration; the metric columns ride along (catchall), and
 * for every compared metric and output_throughput_per_gpu its 95% interval over the runs,
 * `<metric>__lo` and `<metric>__hi` (null with fewer than 2 runs; see interval.ts in the store).
 */
export const LeaderboardRowSchema = z
  .object({
    config_id: text,
    scenario_id: text,
    ...configuration,
    gpu_count: count,
    load: text,
    engine: text,
    engine_version: text,
    runs: count,
    last_run_date: text,
    latest_run_id: text,
    // Official rows only: a community or unverified row here is a compile bug, caught before publishing.
    ...officialStanding,
    isl: metricValue,
    osl: metricValue,
    engines: count,
    deltas: z.record(text, DeltaSchema),
    ...releaseValidity,
  })
  .catchall(z.unknown());

export const ScenarioSchema = z
  .object({
    scenario_id: text,
    ...configuration,
    gpu: text.nullable(),
    gpu_count: count,
    loads: z.array(text),
    /** Engines with official releases here (community runs never count). */
    engines: z.array(text),
    /** Official release rows (configuration × engine × version). */
    releases: count,
    /** The newest official run's day; for a scenario without official runs, the newest community run's. */
    last_run_date: text,
    /** The scenario has official releases; false: only community or unverified runs measured it (no loads, engines or releases). */
    official: z.boolean(),
    /** Community and unverified release rows (community.json). */
    community_releases: count,
  })
  .strict();

/**
 * A release's values (geometric means over its runs) on one load point of a scenario (the history); metric columns and their
 * `__lo`/`__hi` intervals ride along. Community and unverified rows are there too, `official` false.
 * The history chart draws them in release order, each with its published day and release notes.
 */
export const ReleaseSchema = z
  .object({
    engine: text,
    engine_version: text,
    /** The version's sort key (store/version-order.ts): the history chart's release order. */
    engine_version_order: text,
    /** The UTC day the release was published (fleet/releases.json published_at); null when the list has none. */
    release_date: z.iso.date().nullable(),
    /** Its release notes (fleet/releases.json release_url, https only); null when the list has none. */
    release_url: z.url({ protocol: /^https$/ }).nullable(),
    /** How it was measured (harness/contract/methodology.ts): values under different labels are never compared. */
    methodology: text,
    load: text,
    runs: count,
    first_run_date: text,
    last_run_date: text,
    latest_run_id: text,
    ...standing,
    ...releaseValidity,
  })
  .catchall(z.unknown());

/** community.json: a community or unverified release on one configuration, with its geometric means over its own runs. */
export const CommunityReleaseSchema = z
  .object({
    config_id: text,
    scenario_id: text,
    ...configuration,
    gpu_count: count,
    load: text,
    engine: text,
    engine_version: text,
    runs: count,
    first_run_date: text,
    last_run_date: text,
    latest_run_id: text,
    ...standing,
    official: z.literal(false),
  })
  .catchall(z.unknown());

export const ParetoPointSchema = z
  .object({
    engine: text,
    engine_version: text,
    load: text,
    interactivity: z.number(),
    throughput_per_gpu: z.number(),
    latest_version: z.boolean(),
    on_version_frontier: z.boolean(),
    on_overall_frontier: z.boolean(),
    latest_run_id: text,
  })
  .strict();

export const ScenarioDetailSchema = z.object({ scenario: ScenarioSchema, history: z.array(ReleaseSchema), pareto: z.array(ParetoPointSchema) }).strict();

export const HeadlineMetricSchema = z
  .object({ column: text, label: text, unit: text, better: z.enum(['higher', 'lower']), compared: z.boolean() })
  .strict() satisfies z.ZodType<HeadlineMetric>;

export const SiteMetaSchema = z
  .object({
    generated_at: text,
    schema_version: z.number().int(),
    snapshot: text,
    /** Every valid run (the runs table's rows), community and unverified ones included. */
    runs: count,
    /** The runs the official statistics are made of (what the leaderboard counts). */
    official_runs: count,
    points: count,
    invalid_files: count,
    price_tier: text,
  })
  .strict();

const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const RunDetailSchema = z
  .object({
    /** Every column of the runs table (see the data dictionary). */
    run: z.object({ run_id: text, file: text, engine: text, engine_version: text.nullable(), model: text }).catchall(cell),
    points: z.array(z.record(text, cell)),
  })
  .strict();

export const EngineVersionSchema = z.object({ engine: text, engine_version: text, configurations: count, last_run_date: text }).strict();

/**
 * Capacity at one SLA tier of one release (scenario × engine × version): among the release's
 * measured load points (release values: geometric means over runs) whose ttft_ms_p95 and tpot_ms_p95 are within the tier's
 * limits, the one with the highest throughput per GPU (output throughput on CPU-only runs). No
 * point meets the tier: meets is false and the point's fields (config_id included) are null.
 */
export const CapacityRowSchema = z
  .object({
    /** The chosen load point's configuration; null when no point meets the tier. */
    config_id: text.nullable(),
    scenario_id: text,
    ...configuration,
    gpu_count: count,
    engine: text,
    engine_version: text,
    /** This is the engine's newest version measured on the scenario. */
    latest_version: z.boolean(),
    tier: text,
    meets: z.boolean(),
    load: text.nullable(),
    concurrency: z.number().nullable(),
    throughput_per_gpu: metricValue,
    /** The 95% interval of throughput_per_gpu over the chosen point's runs (null with fewer than 2). */
    throughput_per_gpu_lo: metricValue,
    throughput_per_gpu_hi: metricValue,
    ttft_ms_p95: metricValue,
    tpot_ms_p95: metricValue,
    cost_per_1m_output_tokens: metricValue,
    /** Runs behind the chosen point (with no point meeting the tier: the most runs of any of the release's load points). */
    runs: count,
    /** The latest run of the chosen point. */
    run_id: text.nullable(),
    /** The release's load points the tier could not judge: a p95 it limits has too few samples to be published (n < 20); the page says so. */
    unjudged_loads: count,
    /** The largest sample among those load points (the smaller of TTFT's and TPOT's); null when there are none. */
    unjudged_samples_max: count.nullable(),
    tiers_version: z.number().int().positive(),
  })
  .strict();

export { SlaTierSchema };
/** sla-tiers.json: the tier file as compile read it. */
export const SlaTiersFileSchema = SlaTiersSchema;

/**
 * The noise of one compared metric for one engine on one hardware at one load point: σ of ln(value)
 * pooled over that engine's repeated releases there (harness/store/noise.ts); null without repeats.
 */
export const NoiseRowSchema = z.object({ engine: text, hardware: text, load: text, metric: text, log_sd: z.number().nonnegative().nullable(), releases: count }).strict();

const day = z.iso.date();

export { BisectionRowSchema, type BisectionRow } from './site-comparisons.ts';

export const NewReleaseSchema = z.object({ engine: text, engine_version: text, first_run_date: day, /** Model × precision × hardware × workload combinations it was measured on. */ scenarios: count }).strict();

export const FailedRunSchema = z
  .object({
    run_id: text,
    engine: text,
    engine_version: text.nullable(),
    model: text,
    precision: text,
    hardware: text,
    workload: text,
    /** When the run started, UTC, ISO 8601. */
    created_at: text,
    failure_phase: text.nullable(),
    failure_message: text.nullable(),
    /** The result file under results/. */
    file: text,
  })
  .strict();

/**
 * changes.json. With a snapshot published before this one (basis previous-snapshot), `since` is
 * its day, new_releases are the releases it did not have and failed_runs the failed runs it did
 * not have; without one (basis last-7-days), `since` (exclusive) is 7 days before `until`, the
 * newest official run date, and both count what is dated after it. changes: the significant deltas
 * (better or worse) of the new releases, or of every release when there is no new one, largest
 * |change_pct| first. failed_runs: newest first, at most 100. Official runs only (community and
 * unverified runs never count as a release, a change or a failure here).
 */
export const ChangesFileSchema = z
  .object({
    basis: z.enum(['previous-snapshot', 'last-7-days']),
    since: day,
    until: day,
    new_releases: z.array(NewReleaseSchema),
    changes: z.array(DeltaSchema),
    failed_runs: z.array(FailedRunSchema).max(100),
  })
  .strict();

/**
 * One lane: the runs of one hardware key (store/lane.ts), what they were measured on as their own
 * fields say, and the line every page that shows their numbers states (`label`). Why: a hardware
 * key such as cpu-2x-AMD EPYC reads as a dual-socket server, and nothing else says that the
 * weights were random or the CPUs a shared virtual machine's.
 */
export const LaneSchema = z
  .object({
    /** The hardware key of the configurations (result paths and configuration ids are named by it). */
    hardware: text,
    kind: z.enum(['cpu', 'gpu']),
    gpu: text.nullable(),
    gpu_count: count,
    /** The runs' host CPU and its logical CPUs (the most common, where a GPU lane's hosts differ). */
    host_cpu: text,
    host_cpus: count,
    /** The runs' distinct host_virtualization values, sorted ("none": bare metal); empty when no run recorded it. */
    virtualization: z.array(text),
    /** Median and largest host_steal_pct of the runs that recorded it; null when none did. */
    steal_pct_median: z.number().nonnegative().nullable(),
    steal_pct_max: z.number().nonnegative().nullable(),
    /** The runs' distinct model weights, sorted: "dummy" (seeded random weights of the real shape) or "checkpoint" (the published model). */
    weights: z.array(z.enum(['checkpoint', 'dummy'])),
    engines: z.array(text),
    runs: count,
    /** The display name of the hardware key: "2 vCPU AMD EPYC (KVM)", "8× NVIDIA H100 80GB HBM3". */
    hardware_label: text,
    /** What throughput is divided by: one GPU, or the whole host on a CPU lane. */
    throughput_per: z.enum(['GPU', 'host']),
    /** The lane in one line: "CPU lane: 2 vCPU AMD EPYC (KVM guest, …), dummy-weight models, engines on the CPU: …". */
    label: text,
  })
  .strict();

export const ManifestFileSchema = z.object({ path: text, sha256: text, bytes: count, rows: count.nullable() }).strict();
/** The llm-d Benchmark Report (v0.2) download's folder under the compile's output (and /data/ on the site): <week>.jsonl.zst, one report a line per load point of the official runs (store/llmd-download.ts). */
export const LLMD_REPORTS_DIR = 'llmd';
/**
 * A week file's ending: Zstandard-compressed JSON Lines (one frame; DuckDB's read_json and the zstd
 * tool read it as it is). Uncompressed, 100,000 runs made 1.9 GB of reports, past the 1 GB a GitHub
 * Pages site may hold; zstd makes them about a twelfth of that.
 */
export const LLMD_WEEK_SUFFIX = '.jsonl.zst';

export type Delta = z.infer<typeof DeltaSchema>;
export type Regression = z.infer<typeof RegressionSchema>;
export type RegressionsFile = z.infer<typeof RegressionsFileSchema>;
export type LeaderboardRow = z.infer<typeof LeaderboardRowSchema>;
export type Scenario = z.infer<typeof ScenarioSchema>;
export type Release = z.infer<typeof ReleaseSchema>;
export type CommunityRelease = z.infer<typeof CommunityReleaseSchema>;
export type ParetoPoint = z.infer<typeof ParetoPointSchema>;
export type ScenarioDetail = z.infer<typeof ScenarioDetailSchema>;
export type SiteMeta = z.infer<typeof SiteMetaSchema>;
export type RunDetail = z.infer<typeof RunDetailSchema>;
export type EngineVersion = z.infer<typeof EngineVersionSchema>;
export type ManifestFile = z.infer<typeof ManifestFileSchema>;
export type Lane = z.infer<typeof LaneSchema>;
export type CapacityRow = z.infer<typeof CapacityRowSchema>;
export type SlaTier = z.infer<typeof SlaTierSchema>;
export type SlaTiersFile = z.infer<typeof SlaTiersFileSchema>;
export type NoiseRow = z.infer<typeof NoiseRowSchema>;
export type NewRelease = z.infer<typeof NewReleaseSchema>;
export type FailedRun = z.infer<typeof FailedRunSchema>;
export type ChangesFile = z.infer<typeof ChangesFileSchema>;
