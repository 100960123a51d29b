/**
 * `servebench collect`, the logic: the result files the nightly's jobs left (their artifacts,
 * downloaded into one folder) → results/, each checked by the store's validator and written at
 * the path its content dictates, never over another file; then the plan's jobs that left no
 * result. Results are measurements: a missing job is reported, never filled in.
 *
 * Idempotent: a re-run finds its files already in place (identical bytes) and writes nothing.
 * A run is collected once: a run_id already in results/ under another path, a different file at
 * the derived path, or two different files of one run_id in the artifacts are conflicts, and
 * none of them is written (which copy is the measurement cannot be told from here).
 *
 * With a detect state file, a new release some of whose planned jobs left no result is put back
 * to pending there, so the next `servebench detect` reports it (and the nightly plans it) again.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { z } from 'zod';
import { usageError } from '../../lib/errors.ts';
import { writeNewFileAtomic } from '../../lib/io/atomic-write.ts';
import { resultRelativePath } from '../../contract/result-path.ts';
import { checkResultText, type ResultProblem } from '../../store/check-result.ts';
import { listResultFiles, MAX_RESULT_BYTES, readResultText, readRunId } from '../../store/result-files.ts';
import type { RunResult } from '../../contract/result.ts';
import { loadDetectState, putBackPending, saveDetectState, serializeDetectState, type PutBack, type PutBackOutcome } from '../detect/state.ts';
import { missingJobs } from '../plan/missing-jobs.ts';
import { LATEST, PLAN_FORMAT, type Plan, type PlannedJob, type PlannedRelease } from '../plan/plan-file.ts';
import { readJsonFile } from '../../lib/io/json-file.ts';

/** What collect reads of a plan.json (`servebench plan --out`): the jobs, as missingJobs matches them. */
const PlanFileSchema = z
  .object({
    format: z.literal(PLAN_FORMAT),
    plan_id: z.string(),
    jobs: z.array(
      z
        .object({
          id: z.string(),
          name: z.string(),
          title: z.string(),
          triggers: z.array(z.string()),
          engine: z.string(),
          version: z.string(),
          model: z
            .object({
              id: z.string(),
              tp: z.number(),
              dtype: z.string().nullable(),
              quantization: z.string().nullable(),
              kv_cache_dtype: z.string().nullable(),
              max_model_len: z.number().nullable(),
              max_num_seqs: z.number().nullable(),
            })
            .loose(),
          gpu_type: z.string(),
          gpu: z.object({ vendor: z.enum(['nvidia', 'amd', 'cpu']), name: z.string(), aliases: z.array(z.string()), count: z.number() }).loose(),
          workload: z.string(),
          load: z.unknown(),
        })
        .loose(),
    ),
    inputs: z
      .object({
        new: z
          .array(
            z
              .object({ engine: z.string(), version: z.string(), tag: z.string().optional(), release_url: z.string().optional(), published_at: z.string().nullable().optional() })
              .loose(),
          )
          .optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

export interface LoadedPlan {
  readonly file: string;
  readonly plan: Pick<Plan, 'plan_id' | 'jobs'> & { readonly inputs?: { readonly new?: readonly PlannedRelease[] } };
}

export function loadPlanFile(file: string): LoadedPlan {
  const fix = 'give the plan.json `servebench plan --out DIR` wrote';
  if (!existsSync(file)) throw usageError(`--plan: no file ${file}; ${fix}`);
  const plan = readJsonFile(file, PlanFileSchema, { flag: '--plan', fix });
  // The fields missingJobs reads were checked above; the rest of a job is carried as written.
  return { file, plan: plan as unknown as LoadedPlan['plan'] };
}

export interface CollectedFile {
  /** Under --from, forward slashes. */
  readonly file: string;
  /** Under --results, forward slashes: the path the content dictates. */
  readonly path: string;
  readonly run_id: string;
  readonly engine: string;
  readonly version: string | null;
  readonly status: RunResult['status'];
}

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
  readonly plan: { readonly file: string; readonly plan_id: string; readonly jobs: number } | null;
  /** *.json files found under --from. */
  readonly found: number;
  /** Other files under --from (server logs, job logs): not results, left alone. */
  readonly ignored: number;
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

export interface DetectStateUpdate {
  readonly file: string;
  /** The day the reasons name (the collect's, UTC). */
  readonly night: string;
  /** Versions now pending again: detect re-checks them on its next poll and reports them new again. */
  readonly put_back: PutBackOutcome['put_back'];
  /** Versions with missing jobs that were not put back, and why. */
  readonly not_put_back: PutBackOutcome['not_put_back'];
  /** Whether the file was rewritten (only when something was put back). */
  readonly written: boolean;
}

export interface CollectOptions {
  /** The folder the artifacts were downloaded into. */
  readonly from: string;
  /** The results folder (results/). */
  readonly resultsDir: string;
  readonly plan: LoadedPlan | null;
  /**
   * A `servebench detect` state file: every (engine, version) a missing job of trigger "new" was
   * planned for is put back to pending in it. Needs a plan.
   */
  readonly detectState?: string | null;
  /** The clock (the night the reasons name); default the system's. */
  readonly now?: () => Date;
}

function posix(path: string): string {
  return path.split(sep).join('/');
}

interface Candidate {
  readonly file: string;
  readonly text: string;
  readonly result: RunResult;
  readonly sha256: string;
  readonly path: string;
}

/** Every *.json under `from` (recursively, links not followed), checked; other files are counted and left. */
function readCandidates(from: string): { candidates: Candidate[]; invalid: ResultProblem[]; found: number; ignored: number } {
  const candidates: Candidate[] = [];
  const invalid: ResultProblem[] = [];
  let found = 0;
  let ignored = 0;
  const entries = readdirSync(from, { recursive: true, withFileTypes: true })
    .map((entry) => ({ entry, file: posix(relative(from, join(entry.parentPath, entry.name))) }))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  for (const { entry, file } of entries) {
    if (entry.isDirectory()) continue;
    if (!entry.name.endsWith('.json')) {
      ignored += 1;
      continue;
    }
    found += 1;
    // An artifact is untrusted: a link could point anywhere on the collecting machine.
    if (!entry.isFile()) {
      invalid.push({ file, path: '', message: entry.isSymbolicLink() ? 'a symbolic link' : 'not a regular file', fix: 'upload the result files `servebench run` wrote, not links to them' });
      continue;
    }
    const absolute = join(from, file);
    let text: string;
    try {
      // Sized before it is read: an artifact may be huge.
      const read = readResultText(absolute);
      if ('tooLarge' in read) {
        invalid.push({ file, path: '', message: `the file is ${read.tooLarge} bytes, over the ${MAX_RESULT_BYTES} limit of a result`, fix: 'upload the result files `servebench run` wrote (drop --save-requests or split the sweep)' });
        continue;
      }
      text = read.text;
    } catch (error) {
      invalid.push({ file, path: '', message: `cannot read: ${(error as Error).message}`, fix: 'check the file permissions' });
      continue;
    }
    // The content is checked here; its place in results/ is derived from it below, so the
    // validator's path check holds by construction.
    const checked = checkResultText(file, text, null);
    if (!checked.result) {
      invalid.push(...checked.problems);
      continue;
    }
    candidates.push({ file, text, result: checked.result, sha256: checked.sha256, path: posix(resultRelativePath(checked.result, text, checked.sha256)) });
  }
  return { candidates, invalid, found, ignored };
}

/** run_id → the file that holds it, over everything already in the results folder. */
function runIdIndex(resultsDir: string): Map<string, string> {
  const index = new Map<string, string>();
  if (!existsSync(resultsDir)) return index;
  for (const file of listResultFiles(resultsDir).files) {
    const runId = readRunId(file.absolutePath);
    if (runId !== null && !index.has(runId)) index.set(runId, file.relativePath);
  }
  return index;
}

function collectedFile(candidate: Candidate): CollectedFile {
  const run = candidate.result.run!;
  return { file: candidate.file, path: candidate.path, run_id: candidate.result.run_id, engine: run.engine.name, version: run.engine.version, status: candidate.result.status };
}

function missingJob(job: PlannedJob): MissingJob {
  return { job_id: job.id, name: job.name, title: job.title, engine: job.engine, version: job.version, model: job.model.id, tp: job.model.tp, gpu_type: job.gpu_type, workload: job.workload };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The new releases to re-check: each (engine, version) a missing job with trigger "new" was
 * planned for (a "latest" job never: it is no release). A release whose jobs all left a result
 * stays seen.
 */
export function releasesToPutBack(plan: LoadedPlan['plan'], missing: readonly PlannedJob[], night: string): PutBack[] {
  const byRelease = new Map<string, { engine: string; version: string; missing: number }>();
  for (const job of missing) {
    if (!job.triggers.includes('new') || job.version === LATEST) continue;
    const key = `${job.engine}@${job.version}`;
    const entry = byRelease.get(key) ?? { engine: job.engine, version: job.version, missing: 0 };
    entry.missing += 1;
    byRelease.set(key, entry);
  }
  const releases = plan.inputs?.new ?? [];
  return [...byRelease.values()].map(({ engine, version, missing: n }) => {
    const release = releases.find((r) => r.engine === engine && r.version === version);
    return {
      engine,
      version,
      tag: release?.tag,
      release_url: release?.release_url,
      published_at: release?.published_at,
      reason: `no result from ${plural(n, 'planned job')} on ${night}`,
    };
  });
}

function updateDetectState(file: string, plan: LoadedPlan['plan'], missing: readonly PlannedJob[], night: string): DetectStateUpdate {
  const versions = releasesToPutBack(plan, missing, night);
  if (versions.length === 0) return { file, night, put_back: [], not_put_back: [], written: false };
  const state = loadDetectState(file, '--detect-state');
  const outcome = putBackPending(state, versions, night);
  const written = outcome.put_back.length > 0 && serializeDetectState(outcome.state) !== serializeDetectState(state);
  if (written) saveDetectState(file, outcome.state);
  return { file, night, put_back: outcome.put_back, not_put_back: outcome.not_put_back, written };
}

export async function collectResults(options: CollectOptions): Promise<CollectReport> {
  const { from, resultsDir } = options;
  if (options.detectState != null && options.plan === null) throw usageError('--detect-state needs --plan: the new releases to put back are those of the planned jobs that left no result');
  if (!existsSync(from) || !lstatSync(from).isDirectory()) throw usageError(`--from: no folder ${from}; give the folder the jobs' artifacts were downloaded into (create it empty when none came)`);
  const { candidates, invalid, found, ignored } = readCandidates(from);
  const collected: CollectedFile[] = [];
  const alreadyPresent: CollectedFile[] = [];
  const duplicates: CollectReport['duplicates'] = [];
  const conflicts: ResultProblem[] = [];
  const inResults: RunResult[] = [];

  // One run, two different files among the artifacts: neither is taken.
  const byRunId = new Map<string, Candidate[]>();
  for (const c of candidates) byRunId.set(c.result.run_id, [...(byRunId.get(c.result.run_id) ?? []), c]);
  const existing = runIdIndex(resultsDir);
  const firstOfContent = new Map<string, string>();

  for (const candidate of candidates) {
    const { file, path, text } = candidate;
    const runId = candidate.result.run_id;
    const same = firstOfContent.get(candidate.sha256);
    if (same !== undefined) {
      duplicates.push({ file, same_as: same });
      continue;
    }
    firstOfContent.set(candidate.sha256, file);
    const rivals = byRunId.get(runId)!.filter((c) => c.sha256 !== candidate.sha256);
    if (rivals.length > 0) {
      conflicts.push({ file, path: 'run_id', message: `run_id ${runId} is also in ${rivals.map((r) => r.file).join(', ')} with different contents`, fix: 'a run has one result file: find out which copy `servebench run` wrote and collect only that one' });
      continue;
    }
    const target = join(resultsDir, path);
    if (existsSync(target)) {
      if (readFileSync(target, 'utf8') === text) {
        alreadyPresent.push(collectedFile(candidate));
        inResults.push(candidate.result);
      } else {
        conflicts.push({ file, path: '', message: `results/${path} already exists with different contents`, fix: 'results are never overwritten: remove the stray file from results/ if it is not a measurement, then collect again' });
      }
      continue;
    }
    const owner = existing.get(runId);
    if (owner !== undefined) {
      conflicts.push({ file, path: 'run_id', message: `run_id ${runId} is already in results/${owner}`, fix: 'a run is collected once; an edited copy of a result is not a new run' });
      continue;
    }
    try {
      await writeNewFileAtomic(target, text);
    } catch (error) {
      // Someone else wrote the same path meanwhile: the same bytes are as good as ours.
      if (existsSync(target) && readFileSync(target, 'utf8') === text) {
        alreadyPresent.push(collectedFile(candidate));
        inResults.push(candidate.result);
        continue;
      }
      throw error;
    }
    existing.set(runId, path);
    collected.push(collectedFile(candidate));
    inResults.push(candidate.result);
  }

  const plan = options.plan;
  // Only what this collect put (or found) in place accounts for a job: an older result of the
  // same configuration in results/ is not tonight's measurement.
  const missing = plan === null ? [] : missingJobs(plan.plan, inResults);
  const night = (options.now ?? (() => new Date()))().toISOString().slice(0, 10);
  const detectState = options.detectState != null && plan !== null ? updateDetectState(options.detectState, plan.plan, missing, night) : null;
  return {
    from,
    results: resultsDir,
    plan: plan === null ? null : { file: plan.file, plan_id: plan.plan.plan_id, jobs: plan.plan.jobs.length },
    found,
    ignored,
    collected,
    already_present: alreadyPresent,
    duplicates,
    invalid,
    conflicts,
    missing: missing.map(missingJob),
    detect_state: detectState,
  };
}


/** Rows beyond this are counted, not listed: a step summary has a size limit (1 MiB). */
