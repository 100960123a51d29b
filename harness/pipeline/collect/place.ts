/**
 * collect's writing side: the checked candidates → results/, each at the path its content
 * dictates, never over another file, with its signature next to it.
 *
 * Idempotent: a re-run finds its files already in place (identical bytes) and writes nothing.
 * A run is collected once: a run_id already in results/ under another path, a different file at
 * the derived path, or two different files of one run_id in the artifacts are conflicts, and
 * none of them is written (which copy is the measurement cannot be told from here).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from '../../contract/result.ts';
import { writeNewFileAtomic } from '../../lib/io/atomic-write.ts';
import type { ResultProblem } from '../../store/check-result.ts';
import { listResultFiles, readRunId } from '../../store/result-files.ts';
import { signaturePathOf } from '../../store/signature-sidecar.ts';
import type { Candidate } from './candidates.ts';

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

/** What placing the candidates did, file by file. */
export interface Placement {
  /** Written into results/ by this call. */
  readonly collected: CollectedFile[];
  /** Already in results/ with the same bytes. */
  readonly alreadyPresent: CollectedFile[];
  /** The same bytes as another candidate: one copy counts. */
  readonly duplicates: Array<{ readonly file: string; readonly same_as: string }>;
  /** Valid files that would replace or duplicate a run in results/: never written. */
  readonly conflicts: ResultProblem[];
  /** The results now in place (written or found), which alone account for the plan's jobs. */
  readonly inResults: RunResult[];
}

/** Puts every candidate into resultsDir, in order; conflicts are reported, never written. */
export async function placeCandidates(candidates: readonly Candidate[], resultsDir: string): Promise<Placement> {
  const collected: CollectedFile[] = [];
  const alreadyPresent: CollectedFile[] = [];
  const duplicates: Placement['duplicates'] = [];
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
  return { collected, alreadyPresent, duplicates, conflicts, inResults };
}
