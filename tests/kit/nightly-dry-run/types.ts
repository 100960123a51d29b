/**
 * The dry run's report: every step it ran (with the exit codes the workflow allows it) and what
 * each night's steps produced, parsed, for the reader and for
 * tests/pipeline/nightly-dry-run.pipeline.test.ts, which holds them to what the story planted.
 */
import type { ScenarioRef } from '../../../harness/pipeline/alert/groups.ts';

export interface StepRecord {
  readonly night: number;
  readonly step: string;
  readonly command: readonly string[];
  /** The folder the command ran in: the temp checkout for the workflow's servebench steps, the repository for the jobs. */
  readonly cwd: string;
  /** The exit codes the workflow allows this step (regress's 1, "regressions found", on the planted night). */
  readonly expected: readonly number[];
  readonly code: number | null;
  readonly wall_s: number;
  readonly ok: boolean;
  /** Key numbers of the step (jobs planned, files collected, regressions, issues …). */
  counts: Record<string, number | string>;
  readonly log: string;
}

/** A row of `servebench regress --json` (the fields the test reads): its configuration, and what moved. */
export interface DryRunRegression extends ScenarioRef {
  readonly key: string;
  readonly engine: string;
  readonly version: string;
  readonly previous_version: string;
  readonly metric: string;
  readonly load: string;
  readonly change_pct: number;
  readonly method: string;
}

export type DetectOutput = {
  new: Array<{ engine: string; version: string; tag?: string }>;
  pending: Array<{ engine: string; version: string }>;
  errors: unknown[];
  notes?: Array<{ engine: string; message: string }>;
};
export type AlertOutput = { actions: Array<{ action: string; key: string | null; issue: number | null }> };
/** `servebench confirm`'s output (the fields the test reads). */
export type ConfirmOutput = {
  status: string;
  ab_runs: number;
  bisections: number;
  confirmations: Array<{ key: string; metric: string; load: string; status: string; reason: string; paired: { verdict: string | null; effect: number | null; interval: [number, number] | null; derived: boolean } | null }>;
};

/** What each night's steps produced, parsed. */
export interface NightOutputs {
  detect?: DetectOutput;
  /**
   * The night's detect output planned on the official fleet's CPU lane (not run: the real lane takes
   * hours): runs per llama.cpp version, the lanes and their builds, the jobs the bench matrix got,
   * and each job's build and run arguments.
   */
  lane?: {
    runs: Record<string, number>;
    lanes: number;
    builds: string[];
    in_matrix: number;
    jobs: Array<{ id: string; version: string; in_lane: boolean; build: string[] | null; argv: string[] }>;
  };
  plan?: { plan_id: string; jobs: Array<{ id: string; name: string; engine: string; version: string; workload: string }>; notes: string[] };
  matrix?: { include: Array<{ job_id: string; name: string; command: string; engine: string; version: string; timeout_minutes: number }> };
  /** Jobs whose runner the dry run let die (no result, no artifact). */
  died?: string[];
  /** `git rev-parse HEAD` before collect (the workflow's collect output `base`), and HEAD after the commit step. */
  base?: string;
  commit?: string;
  /** Whether the commit step committed, and the result files collect added (the workflow's `committed` and `added` outputs). */
  committed?: boolean;
  added?: number;
  collect?: {
    collected: Array<{ path: string; engine: string; version: string | null }>;
    already_present: unknown[];
    invalid: unknown[];
    conflicts: unknown[];
    missing: Array<{ job_id: string; name: string; engine: string; version: string }>;
    ignored: number;
    detect_state: { file: string; put_back: Array<{ engine: string; version: string; reason: string }>; not_put_back: unknown[]; written: boolean } | null;
  };
  /** The exit status of collect (the workflow fails the night on anything above 1). */
  collect_code?: number | null;
  /** summary.md of `servebench summarize` (the workflow appends it to the step summary). */
  summary_md?: string;
  /** Every result file in the store checked as `servebench validate` checks it (in-process: the workflow runs no validate step). */
  validate?: { files: number; problems: unknown[] };
  /** From compile's report on stderr (the workflow passes no --json). */
  compile?: { snapshot: string; tables: Record<string, number>; ingest: { valid: number } };
  /** The built site's pages, and which simulated releases its regressions page names. */
  site?: { pages: number; leaderboard_pages: string[]; regressions_page: boolean; regressions_page_names: string[] };
  regress?: { compared: number; regressions: DryRunRegression[] };
  /** The confirm job (the CPU lane's class), on a night whose regress found something. */
  confirm?: ConfirmOutput;
  /** From alert's text output (the workflow passes no --json); each issue's key (one per engine release and configuration) read back from the fake GitHub. */
  alert?: AlertOutput;
  /** The file-comparisons job, after confirm: the comparisons it filed (paths under results/) and whether it committed them. */
  file_comparisons?: { filed: string[]; committed: boolean };
}

export interface DryRunReport {
  /** Every step ran and exited as the workflow allows it (what the dry run itself asserts; the test asserts the rest). */
  readonly ok: boolean;
  readonly dir: string;
  readonly kept: boolean;
  readonly wall_s: number;
  readonly steps: StepRecord[];
  readonly nights: Record<string, NightOutputs>;
  /** alert run again after the planted night (idempotence), and the detect of the poll after the runner died. */
  readonly final: { detect?: DetectOutput; alert_rerun?: AlertOutput; alert_rerun_writes: number };
  /** The temp repository's commits, oldest first (the initial checkout, then each night that committed). */
  readonly commits: Array<{ sha: string; subject: string }>;
  readonly github: {
    /** key: the group key in the body's marker; rows: the metric × load point rows its state lists; paired: their paired confirmation (alert --confirmations). */
    readonly issues: Array<{ number: number; title: string; state: string; labels: string[]; key: string | null; rows: Array<{ metric: string; load: string }>; paired: Array<{ metric: string; load: string; verdict: string }> }>;
    readonly webhook_posts: number;
    readonly requests: number;
  };
  readonly error: string | null;
  /** SIGINT or SIGTERM when the dry run was stopped (every step's processes were stopped with it). */
  readonly interrupted: NodeJS.Signals | null;
}
