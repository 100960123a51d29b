/**
 * `servebench collect`, the logic: the result files the night's jobs left → results/, each
 * checked by the store's validator and written at the path its content dictates, never over
 * another file; then the plan's jobs that left no result. Results are measurements: a missing job
 * is reported, never filled in.
 *
 * Where the files come from does not matter, only that they are in one folder, nested however:
 * GitHub Actions artifacts downloaded into it (one folder per job, server logs next to the
 * results), a Kubernetes results claim copied out of a helper pod (`kubectl cp`: the claim holds
 * results/<date>/… as the runs wrote them, perhaps a lost+found), or a SLURM job's shared folder
 * (the fleet's results_dir, and the job logs of log_dir next to it). Every *.json is taken for a
 * result (but a signature sidecar, <result>.json.sigstore.json, which is checked with its result and
 * written next to it); logs are counted and left; anything else is reported as stray (file, problem, fix),
 * which does not fail the collect: an unfinished write's temp file, an NFS placeholder, an
 * archive, a link (never followed).
 *
 * A claim or shared folder keeps the nights before too: with --since, only results created from
 * then on (the night's submission) account for the plan's jobs, so last night's result cannot
 * hide tonight's missing job.
 *
 * Idempotent: a re-run finds its files already in place (identical bytes) and writes nothing.
 * A run is collected once: a run_id already in results/ under another path, a different file at
 * the derived path, or two different files of one run_id in the artifacts are conflicts, and
 * none of them is written (which copy is the measurement cannot be told from here).
 *
 * With a detect state file, a new release some of whose planned jobs left no result is put back
 * to pending there, so the next `servebench detect` reports it (and the nightly plans it) again.
 */
import { existsSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { join, sep } from 'node:path';
import { z } from 'zod';
import { usageError } from '../../lib/errors.ts';
import { writeNewFileAtomic } from '../../lib/io/atomic-write.ts';
import { resultRelativePath } from '../../contract/result-path.ts';
import { checkResultText, type ResultProblem } from '../../store/check-result.ts';
import { listResultFiles, readResultText, readRunId } from '../../store/result-files.ts';
import { fileSizeProblem } from '../../store/store-limits.ts';
import { isInRepositoryResults } from '../../store/repository-results.ts';
import { checkSignatureSidecar, isSignatureFile, orphanSignatureProblem, resultPathOfSignature, signaturePathOf } from '../../store/signature-sidecar.ts';
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

function posix(path: string): string {
  return path.split(sep).join('/');
}

interface Candidate {
  readonly file: string;
  readonly text: string;
  readonly result: RunResult;
  readonly sha256: string;
  readonly path: string;
  /** Its signature sidecar's text (checked: a bundle over these bytes), written next to it in results/. */
  readonly signature: string | null;
}

/** Files that belong next to results and are left alone quietly: logs (server, job, SLURM's %x-%j.out), engine settings, job scripts, notes. */
const LOG_FILE = /\.(log|out|err|txt|ya?ml|md|sbatch|sh)$|^\.gitkeep$/i;
/** writeNewFileAtomic's temp name: the result was never linked into place (the writer was killed). */
const UNFINISHED_WRITE = /^\..+\.json\.[0-9a-f]+\.tmp$/;
const ARCHIVE = /\.(gz|tgz|zst|xz|bz2|zip|tar)$/i;
/** What `servebench plan --out` writes: a copy of it next to the results is not a result. */
const PLAN_FILES = new Set(['plan.json', 'matrix.json', 'lanes.json']);

/** Why a file under --from that is no *.json is reported, or null when it is a log, left alone quietly. */
function strayProblem(file: string, entry: Dirent): ResultProblem | null {
  const name = entry.name;
  if (entry.isSymbolicLink()) {
    return { file, path: '', message: '[not-a-result] a symbolic link (links are never followed)', fix: 'copy the files it points to under --from (kubectl cp, rsync -a and cp -r copy the files), or give that folder as --from' };
  }
  if (!entry.isFile()) return { file, path: '', message: '[not-a-result] not a regular file', fix: 'collect reads regular *.json files only; leave it out of --from' };
  if (UNFINISHED_WRITE.test(name)) {
    return { file, path: '', message: '[not-a-result] an unfinished result write (the run was killed while writing its result)', fix: 'that attempt left no result; its job is reported missing if nothing else accounts for it; delete the file' };
  }
  if (name.startsWith('.nfs')) return { file, path: '', message: '[not-a-result] an NFS placeholder of a file deleted while still open', fix: 'it goes away when the process holding it exits; delete it then' };
  if (LOG_FILE.test(name)) return null;
  if (ARCHIVE.test(name)) return { file, path: '', message: '[not-a-result] an archive: the results in it are not read', fix: 'unpack it under --from (collect reads *.json files only)' };
  return { file, path: '', message: '[not-a-result] not a result file (collect reads *.json files; logs are left alone)', fix: 'results are the *.json files `servebench run` writes; move anything else out of --from' };
}

/** A plan's own files (plan.json, matrix.json, lanes.json) copied next to the results: reported, not taken for results. */
function planFileProblem(file: string, name: string, text: string): ResultProblem | null {
  if (!PLAN_FILES.has(name)) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  const record = value as Record<string, unknown>;
  const isPlan = record['format'] === PLAN_FORMAT;
  if (!isPlan && !Array.isArray(record['include'])) return null;
  return { file, path: '', message: isPlan ? '[not-a-result] a plan (`servebench plan --out`), not a result' : '[not-a-result] a GitHub Actions matrix of `servebench plan --out`, not a result', fix: isPlan ? 'give it with --plan; keep the plan folder out of --from' : 'keep the plan folder out of --from' };
}

/**
 * Every file under `from` (recursively, links not followed): *.json files checked as results,
 * logs counted, the rest reported as stray. A folder that cannot be read is a problem (results
 * may be in it); a filesystem's lost+found is skipped.
 */
function readCandidates(from: string, publishedStore: boolean): { candidates: Candidate[]; invalid: ResultProblem[]; stray: ResultProblem[]; found: number; ignored: number } {
  const candidates: Candidate[] = [];
  const invalid: ResultProblem[] = [];
  const stray: ResultProblem[] = [];
  let found = 0;
  let ignored = 0;
  const entries: Array<{ entry: Dirent; file: string }> = [];
  const walk = (dir: string, prefix: string): void => {
    let listed: Dirent[];
    try {
      listed = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      invalid.push({ file: prefix === '' ? '.' : prefix.slice(0, -1), path: '', message: `[unreadable] cannot read the folder: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, fix: 'give collect read access to it (a claim mounted with another owner: copy it out with kubectl cp first), or remove it' });
      return;
    }
    for (const entry of listed) {
      const file = `${prefix}${entry.name}`;
      if (entry.isDirectory()) {
        // ext4's lost+found at a volume's root (a results claim): never results, often unreadable.
        if (entry.name === 'lost+found') ignored += 1;
        else walk(join(dir, entry.name), `${file}/`);
        continue;
      }
      entries.push({ entry, file });
    }
  };
  walk(from, '');
  entries.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const signatures = new Set<string>();
  for (const { entry, file } of entries) {
    // A signature travels with its result; it is checked with it below.
    if (isSignatureFile(entry.name)) {
      if (entry.isFile()) signatures.add(file);
      else stray.push(strayProblem(file, entry)!);
      continue;
    }
    if (!entry.name.endsWith('.json')) {
      const problem = strayProblem(file, entry);
      if (problem === null) ignored += 1;
      else stray.push(problem);
      continue;
    }
    found += 1;
    // An artifact is untrusted: a link could point anywhere on the collecting machine.
    if (!entry.isFile()) {
      invalid.push({ file, path: '', message: entry.isSymbolicLink() ? '[not-a-result] a symbolic link' : '[not-a-result] not a regular file', fix: 'upload the result files `servebench run` wrote, not links to them' });
      continue;
    }
    const absolute = join(from, file);
    let text: string;
    try {
      // Sized before it is read: an artifact may be huge.
      const read = readResultText(absolute);
      if ('tooLarge' in read) {
        invalid.push(fileSizeProblem(file, read.tooLarge));
        continue;
      }
      text = read.text;
    } catch (error) {
      invalid.push({ file, path: '', message: `[unreadable] cannot read: ${(error as Error).message}`, fix: 'check the file permissions' });
      continue;
    }
    const planFile = planFileProblem(file, entry.name, text);
    if (planFile !== null) {
      found -= 1;
      stray.push(planFile);
      continue;
    }
    // The content is checked here; its place in results/ is derived from it below, so the
    // validator's path check holds by construction.
    const checked = checkResultText(file, text, null, { publishedStore });
    if (!checked.result) {
      invalid.push(...checked.problems);
      continue;
    }
    const signature = checkSignatureSidecar(file, absolute, checked.sha256);
    if (signature.problems.length > 0) {
      invalid.push(...signature.problems);
      continue;
    }
    const signatureText = signature.present ? readFileSync(signaturePathOf(absolute), 'utf8') : null;
    candidates.push({ file, text, result: checked.result, sha256: checked.sha256, path: posix(resultRelativePath(checked.result, text, checked.sha256)), signature: signatureText });
  }
  const jsonFiles = new Set(entries.map((e) => e.file));
  for (const file of signatures) if (!jsonFiles.has(resultPathOfSignature(file))) stray.push(orphanSignatureProblem(file));
  return { candidates, invalid, stray, found, ignored };
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

/** Puts a candidate's signature next to its result in results/ (never over another); a conflict, or null. */
async function placeSignature(candidate: Candidate, target: string): Promise<ResultProblem | null> {
  if (candidate.signature === null) return null;
  const path = signaturePathOf(target);
  if (existsSync(path)) {
    if (readFileSync(path, 'utf8') === candidate.signature) return null;
    return { file: signaturePathOf(candidate.file), path: '', message: `[immutable] results/${signaturePathOf(candidate.path)} already exists with different contents`, fix: 'a result has one signature; signatures are never overwritten (remove the one in results/ if it is not the nightly\'s, then collect again)' };
  }
  await writeNewFileAtomic(path, candidate.signature);
  return null;
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
  if (options.since != null && options.plan === null) throw usageError('--since needs --plan: it says which results account for the planned jobs');
  const since = options.since == null ? null : parseSince(options.since);
  // The folder given is followed when it is a link (a claim mounted elsewhere); nothing under it is.
  if (!existsSync(from) || !statSync(from).isDirectory()) {
    throw usageError(`--from: no folder ${from}; give the folder the results are in: the jobs' downloaded artifacts, a Kubernetes results claim copied out, or a SLURM job's shared results folder (create it empty when none came)`);
  }
  if (isCheckout(from)) throw usageError(`--from: ${from} is a servebench checkout, not a results folder; give the folder its runs wrote into (${join(from, 'results')}, the fleet's results_dir), or a copy of it`);
  const { candidates, invalid, stray, found, ignored } = readCandidates(from, isInRepositoryResults(options.resultsDir));
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
      conflicts.push({ file, path: 'run_id', message: `[duplicate-run] run_id ${runId} is also in ${rivals.map((r) => r.file).join(', ')} with different contents`, fix: 'a run has one result file: find out which copy `servebench run` wrote and collect only that one' });
      continue;
    }
    const target = join(resultsDir, path);
    if (existsSync(target)) {
      if (readFileSync(target, 'utf8') === text) {
        alreadyPresent.push(collectedFile(candidate));
        inResults.push(candidate.result);
        const conflict = await placeSignature(candidate, target);
        if (conflict !== null) conflicts.push(conflict);
      } else {
        conflicts.push({ file, path: '', message: `[immutable] results/${path} already exists with different contents`, fix: 'results are never overwritten: remove the stray file from results/ if it is not a measurement, then collect again' });
      }
      continue;
    }
    const owner = existing.get(runId);
    if (owner !== undefined) {
      conflicts.push({ file, path: 'run_id', message: `[duplicate-run] run_id ${runId} is already in results/${owner}`, fix: 'a run is collected once; an edited copy of a result is not a new run' });
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
    const conflict = await placeSignature(candidate, target);
    if (conflict !== null) conflicts.push(conflict);
    collected.push(collectedFile(candidate));
    inResults.push(candidate.result);
  }

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


/** Rows beyond this are counted, not listed: a step summary has a size limit (1 MiB). */
