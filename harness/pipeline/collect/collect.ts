/**
 * `servebench collect`, the logic: the result files the night's jobs left → results/, each
 * checked by the store's validator and written at the path its content dictates, never over
 * another file; then the plan's jobs that left no result. Results are measurements: a missing job
 * is reported, never filled in.
 *
 * The files under --from are read and checked by candidates.ts, placed into results/ by
 * place.ts; a missing job's new release is put back to pending by put-back.ts.
 *
 * A claim or shared folder keeps the nights before too: with --since, only results created from
 * then on (the night's submission) account for the plan's jobs, so last night's result cannot
 * hide tonight's missing job.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { usageError } from '../../lib/errors.ts';
import type { ResultProblem } from '../../store/check-result.ts';
import { isInRepositoryResults } from '../../store/repository-results.ts';
import { missingJobs } from '../plan/missing-jobs.ts';
import type { PlannedJob } from '../plan/plan-file.ts';
import { readCandidates } from './candidates.ts';
import { placeCandidates, type CollectedFile } from './place.ts';
import type { LoadedPlan } from './plan-input.ts';
import { updateDetectState, type DetectStateUpdate } from './put-back.ts';

export interface MissingJob {
  readonly job_id: string;
  readonly name: string;
  readonly title: string;
  readonly engine: string;
  readonly version: string;
  readonly model: string;
  readonly tp: number;
  readonly gpu_type: string;
  readonly workload: string;
}

export interface CollectReport {
  readonly from: string;
  readonly results: string;
  /** since: only results created from then on account for a job (--since; absent without it). */
  readonly plan: { readonly file: string; readonly plan_id: string; readonly jobs: number; readonly since?: string } | null;
  /** *.json files found under --from. */
  readonly found: number;
  /** Other files under --from that belong there (server logs, job logs, a claim's lost+found): not results, left alone. */
  readonly ignored: number;
  /** Files under --from that are neither results nor logs (a temp file of an interrupted write, an archive, a link): left alone, reported. */
  readonly stray: ResultProblem[];
  /** Written into results/ by this call. */
  readonly collected: CollectedFile[];
  /** Already in results/ with the same bytes (a re-run, or a result already committed). */
  readonly already_present: CollectedFile[];
  /** The same bytes as another file under --from (an artifact downloaded twice): one copy counts. */
  readonly duplicates: Array<{ readonly file: string; readonly same_as: string }>;
  /** Problems that keep a file out: the validator's, and links or unreadable files. */
  readonly invalid: ResultProblem[];
  /** Valid files that would replace or duplicate a run in results/: never written. */
  readonly conflicts: ResultProblem[];
  /** Planned jobs no collected result accounts for; empty without a plan. */
  readonly missing: MissingJob[];
  /** With --detect-state: the new releases put back to pending because jobs planned for them left no result. */
  readonly detect_state: DetectStateUpdate | null;
}

export interface CollectOptions {
  /** The folder the artifacts were downloaded into. */
  readonly from: string;
  /** The results folder (results/). */
  readonly resultsDir: string;
  readonly plan: LoadedPlan | null;
  /**
   * Only results created at or after this instant (ISO 8601) account for the plan's jobs: a
   * results claim or a shared folder also holds the nights before. Older ones are still collected.
   */
  readonly since?: string | null;
  /**
   * A `servebench detect` state file: every (engine, version) a missing job of trigger "new" was
   * planned for is put back to pending in it. Needs a plan.
   */
  readonly detectState?: string | null;
  /** The clock (the night the reasons name); default the system's. */
  readonly now?: () => Date;
}

/** A servebench checkout given as --from: its package.json, node_modules and fixtures are no results. */
function isCheckout(dir: string): boolean {
  return existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'harness', 'cli.ts'));
}

/** --since: an ISO 8601 instant with its zone, or a day (its UTC midnight). */
export function parseSince(text: string): string {
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/;
  const ms = iso.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw usageError(`--since: "${text}" is not an ISO 8601 time with its zone (2026-12-02T01:00:00Z) or a day (2026-12-02); give the time the night's jobs were submitted (date -u +%Y-%m-%dT%H:%M:%SZ before submitting)`);
  }
  return new Date(ms).toISOString();
}

function missingJob(job: PlannedJob): MissingJob {
  return { job_id: job.id, name: job.name, title: job.title, engine: job.engine, version: job.version, model: job.model.id, tp: job.model.tp, gpu_type: job.gpu_type, workload: job.workload };
}

export async function collectResults(options: CollectOptions): Promise<CollectReport> {
  const { from, resultsDir } = options;
  if (options.detectState != null && options.plan === null) throw usageError('--detect-state needs --plan: the new releases to put back are those of the planned jobs that left no result');
  if (options.since != null && options.plan === null) throw usageError('--since needs --plan: it says which results account for the planned jobs');
  const since = options.since == null ? null : parseSince(options.since);
  // The folder given is followed when it is a link (a claim mounted elsewhere); nothing under it is.
  if (!existsSync(from) || !statSync(from).isDirectory()) {
    throw usageError(`--from: no folder ${from}; give the folder the results are in: the jobs' downloaded artifacts, a Kubernetes results claim copied out, or a SLURM job's shared results folder (create it empty when none came)`);
  }
  if (isCheckout(from)) throw usageError(`--from: ${from} is a servebench checkout, not a results folder; give the folder its runs wrote into (${join(from, 'results')}, the fleet's results_dir), or a copy of it`);
  const { candidates, invalid, stray, found, ignored } = readCandidates(from, isInRepositoryResults(options.resultsDir));
  const { collected, alreadyPresent, duplicates, conflicts, inResults } = await placeCandidates(candidates, resultsDir);

  const plan = options.plan;
  // Only what this collect put (or found) in place accounts for a job: an older result of the
  // same configuration in results/ is not tonight's measurement.
  const missing = plan === null ? [] : missingJobs(plan.plan, inResults, since === null ? {} : { since });
  const night = (options.now ?? (() => new Date()))().toISOString().slice(0, 10);
  const detectState = options.detectState != null && plan !== null ? updateDetectState(options.detectState, plan.plan, missing, night) : null;
  return {
    from,
    results: resultsDir,
    plan: plan === null ? null : { file: plan.file, plan_id: plan.plan.plan_id, jobs: plan.plan.jobs.length, ...(since === null ? {} : { since }) },
    found,
    ignored,
    stray,
    collected,
    already_present: alreadyPresent,
    duplicates,
    invalid,
    conflicts,
    missing: missing.map(missingJob),
    detect_state: detectState,
  };
}
