/**
 * The compiled data the site reads (build/data/site/*.json, written by `servebench compile`).
 * The site never imports the harness: this is its contract with the compile step.
 */
export interface Delta {
  readonly metric: string;
  readonly better: 'higher' | 'lower';
  readonly previous_version: string;
  readonly version: string;
  readonly previous_value: number;
  readonly value: number;
  readonly change_pct: number;
  readonly ci_low_pct: number | null;
  readonly ci_high_pct: number | null;
  readonly p_value: number | null;
  readonly method: 'welch' | 'noise-band' | 'unknown-noise';
  readonly significant: boolean;
  readonly verdict: 'better' | 'worse' | 'unclear';
  readonly previous_runs: number;
  readonly runs: number;
  readonly previous_run_id: string;
  readonly run_id: string;
  readonly engine: string;
  readonly model: string;
  readonly hardware: string;
  readonly workload: string;
  readonly load: string;
  readonly precision: string;
  readonly scenario_id: string;
}

export interface LeaderboardRow {
  readonly config_id: string;
  readonly scenario_id: string;
  readonly model: string;
  readonly precision: string;
  readonly hardware: string;
  readonly gpu_count: number;
  readonly workload: string;
  readonly methodology: string;
  readonly load: string;
  readonly engine: string;
  readonly engine_version: string;
  readonly runs: number;
  readonly last_run_date: string;
  readonly latest_run_id: string;
  readonly official: boolean;
  readonly isl: number | null;
  readonly osl: number | null;
  readonly [metric: string]: unknown;
  readonly deltas: Readonly<Record<string, Delta>>;
}

export interface Scenario {
  readonly scenario_id: string;
  readonly model: string;
  readonly precision: string;
  readonly hardware: string;
  readonly gpu: string | null;
  readonly gpu_count: number;
  readonly workload: string;
  readonly methodology: string;
  readonly loads: readonly string[];
  readonly engines: readonly string[];
  readonly releases: number;
  readonly last_run_date: string;
}

export interface Release {
  readonly engine: string;
  readonly engine_version: string;
  readonly load: string;
  readonly runs: number;
  readonly first_run_date: string;
  readonly last_run_date: string;
  readonly latest_run_id: string;
  readonly [metric: string]: unknown;
}

export interface ParetoPoint {
  readonly engine: string;
  readonly engine_version: string;
  readonly load: string;
  readonly interactivity: number;
  readonly throughput_per_gpu: number;
  readonly latest_version: boolean;
  readonly on_version_frontier: boolean;
  readonly on_overall_frontier: boolean;
  readonly latest_run_id: string;
}

export interface ScenarioDetail {
  readonly scenario: Scenario;
  readonly history: readonly Release[];
  readonly pareto: readonly ParetoPoint[];
}

export interface HeadlineMetric {
  readonly column: string;
  readonly label: string;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  readonly compared: boolean;
}

export interface SiteMeta {
  readonly generated_at: string;
  readonly schema_version: number;
  readonly snapshot: string;
  readonly runs: number;
  readonly points: number;
  readonly invalid_files: number;
  readonly price_tier: string;
}

export interface RunDetail {
  /** Every column of the runs table (see the data dictionary). */
  readonly run: Readonly<Record<string, string | number | boolean | null>> & { run_id: string; file: string; engine: string; engine_version: string | null; model: string };
  readonly points: ReadonlyArray<Readonly<Record<string, string | number | boolean | null>>>;
}

export interface EngineVersion {
  readonly engine: string;
  readonly engine_version: string;
  readonly configurations: number;
  readonly last_run_date: string;
}
