/**
 * The llm-d Benchmark Report download: every load point of every official run (OFFICIAL_RUN_SQL:
 * source official, a known or unchecked release) as a v0.2 report (llmd-report.ts), one JSON
 * document a line, one file per ISO week of runs as the per-run Parquet tables are
 * (<out>/llmd/2026-W48.jsonl; runs in created_at, run_id order), each listed in MANIFEST.json.
 * A run without points (it failed before measuring) has no report: it is skipped and counted.
 *
 * Incremental as the weekly Parquet files are: a week's file is rewritten only when what it is made
 * of changed (the compile context, its official runs' files and their points' validity, which can
 * change without the file, e.g. when a fidelity reference arrives). Within a rewritten week, a run
 * whose file and validity did not change keeps its lines from the week's previous file (its index,
 * <out>/.cache/llmd/<week>.json, says which lines are whose and under what digest), so a new
 * result converts one file, not its week; no file is kept per run (thousands of small files cost
 * more to write than the conversion itself).
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { RunResult } from '../contract/result.ts';
import { LLMD_REPORTS_DIR, type ManifestFile } from '../contract/site-data.ts';
import type { Validity } from '../contract/validity.ts';
import { writeFileAtomic } from '../lib/io/atomic-write.ts';
import { llmdReports } from './llmd-report.ts';
import { LLMD_REPORT_VERSION } from './llmd-report-schema.ts';
import { OFFICIAL_RUN_SQL } from './official.ts';
import { readResultText } from './result-files.ts';
import { sha256File } from './snapshots.ts';
import { sqlString } from './tables.ts';

export interface LlmdDownload {
  /** One manifest entry per week file; rows: its reports (lines). */
  readonly files: ManifestFile[];
  /** Official runs with at least one point (each has a report per point). */
  readonly runs: number;
  readonly reports: number;
  /** Official runs without points (failed before measuring): no report. */
  readonly skipped_runs: number;
}

interface WeekState {
  readonly week: string;
  readonly digest: string;
  readonly runs: number;
  readonly reports: number;
  readonly skipped: number;
}

/**
 * The official runs (with their week) and their points' validity, read once into temp tables:
 * priced_points is a view, and each query of it would compute its joins over every point again.
 */
async function stageOfficial(connection: DuckDBConnection): Promise<void> {
  await connection.run(`CREATE OR REPLACE TEMP TABLE llmd_runs AS
    SELECT strftime(run_date, '%G-W%V') AS week, run_id, file, file_sha256, created_at FROM valid_runs WHERE ${OFFICIAL_RUN_SQL}`);
  await connection.run(`CREATE OR REPLACE TEMP TABLE llmd_points AS
    SELECT run_id, point, validity, validity_reason FROM priced_points WHERE ${OFFICIAL_RUN_SQL}`);
}

/** Every week of official runs with the digest of its inputs (each run's file and its points' validity in point order) and its counts. */
async function weekStates(connection: DuckDBConnection, context: string): Promise<WeekState[]> {
  const rows = (await connection.runAndReadAll(`
    WITH v AS (
      SELECT run_id, string_agg(validity || '|' || coalesce(validity_reason, ''), chr(10) ORDER BY point) AS validity, count(*) AS points
      FROM llmd_points GROUP BY run_id)
    SELECT week, md5(string_agg(r.file || ':' || r.file_sha256 || ':' || coalesce(v.validity, ''), ',' ORDER BY r.file)),
      count(v.points)::INTEGER, coalesce(sum(v.points), 0)::INTEGER, (count(*) - count(v.points))::INTEGER
    FROM llmd_runs r LEFT JOIN v USING (run_id) GROUP BY week ORDER BY week`)).getRowsJS() as Array<[string, string, number, number, number]>;
  return rows.map(([week, inputs, runs, reports, skipped]) => ({
    week,
    digest: createHash('sha256').update(`${context}|${LLMD_REPORT_VERSION}|${inputs}`).digest('hex').slice(0, 16),
    runs,
    reports,
    skipped,
  }));
}

interface WeekRun {
  readonly runId: string;
  readonly file: string;
  readonly sha256: string;
  readonly validity: Array<{ status: Validity; reason: string | null }>;
}

/** A week's official runs with points, in run order, each with its points' validity in point order. */
async function runsOfWeek(connection: DuckDBConnection, week: string): Promise<WeekRun[]> {
  const runs = (await connection.runAndReadAll(`
    SELECT run_id, file, file_sha256 FROM llmd_runs WHERE week = ${sqlString(week)} AND run_id IN (SELECT run_id FROM llmd_points) ORDER BY created_at, run_id`)).getRowsJS() as Array<[string, string, string]>;
  const points = (await connection.runAndReadAll(`
    SELECT run_id, validity, validity_reason FROM llmd_points WHERE run_id IN (SELECT run_id FROM llmd_runs WHERE week = ${sqlString(week)}) ORDER BY run_id, point`)).getRowsJS() as Array<[string, Validity, string | null]>;
  const byRun = new Map<string, WeekRun['validity']>();
  for (const [runId, status, reason] of points) {
    const list = byRun.get(runId);
    if (list) list.push({ status, reason });
    else byRun.set(runId, [{ status, reason }]);
  }
  return runs.map(([runId, file, sha256]) => ({ runId, file, sha256, validity: byRun.get(runId) ?? [] }));
}

/** One run's report lines (JSON Lines, each ending in a newline). */
function reportLines(resultsDir: string, run: WeekRun): string {
  const read = readResultText(join(resultsDir, run.file));
  // Compile ingested and checked this file a moment ago: one that cannot be read now changed under it.
  if (!('text' in read)) throw new Error(`${run.file}: grew past the result size limit during the compile`);
  return llmdReports(JSON.parse(read.text) as RunResult, { file: run.file, sha256: run.sha256, validity: run.validity })
    .map((r) => `${JSON.stringify(r)}\n`)
    .join('');
}

/** What the cache keeps of a week file it wrote: the week's digest, its manifest entry, and its runs in file order with each one's digest and number of lines. */
interface WeekIndex {
  readonly digest: string;
  readonly file: ManifestFile;
  readonly runs: Array<[runId: string, digest: string, lines: number]>;
}

/** Each run's lines in the week file `index` describes, by run id, with the digest they were made under; empty when the file is not the one described. */
function previousLines(outDir: string, index: WeekIndex | null): Map<string, { digest: string; text: string }> {
  const lines = new Map<string, { digest: string; text: string }>();
  const path = join(outDir, index?.file.path ?? '');
  if (index === null || !existsSync(path) || statSync(path).size !== index.file.bytes) return lines;
  const all = readFileSync(path, 'utf8').split('\n');
  let at = 0;
  for (const [runId, digest, count] of index.runs) {
    lines.set(runId, { digest, text: all.slice(at, at + count).map((line) => `${line}\n`).join('') });
    at += count;
  }
  return lines;
}

/**
 * Writes a week's file; a run whose file and validity are those of the week file written before
 * keeps its lines from it, the others are converted. Returns the week's new index.
 */
async function writeWeek(connection: DuckDBConnection, resultsDir: string, outDir: string, context: string, week: WeekState, previous: WeekIndex | null): Promise<WeekIndex> {
  const relative = `${LLMD_REPORTS_DIR}/${week.week}.jsonl`;
  const target = join(outDir, relative);
  const partial = `${target}.partial`;
  const reusable = previousLines(outDir, previous);
  const runs: WeekIndex['runs'] = [];
  const out = openSync(partial, 'w');
  try {
    for (const run of await runsOfWeek(connection, week.week)) {
      const digest = createHash('sha256').update(`${context}|${LLMD_REPORT_VERSION}|${run.sha256}|${JSON.stringify(run.validity)}`).digest('hex').slice(0, 16);
      const old = reusable.get(run.runId);
      writeSync(out, old !== undefined && old.digest === digest ? old.text : reportLines(resultsDir, run));
      runs.push([run.runId, digest, run.validity.length]);
    }
  } finally {
    closeSync(out);
  }
  renameSync(partial, target);
  return { digest: week.digest, file: { path: relative, sha256: await sha256File(target), bytes: statSync(target).size, rows: week.reports }, runs };
}

/** Writes <out>/llmd/<week>.jsonl for every week of official runs with points (after deriveTables: it reads priced_points). */
export async function writeLlmdDownload(connection: DuckDBConnection, resultsDir: string, outDir: string, context: string): Promise<LlmdDownload> {
  const cacheDir = join(outDir, '.cache', 'llmd');
  mkdirSync(cacheDir, { recursive: true });
  mkdirSync(join(outDir, LLMD_REPORTS_DIR), { recursive: true });
  const indexPath = (week: string) => join(cacheDir, `${week}.json`);
  await stageOfficial(connection);
  const all = await weekStates(connection, context);
  // A week of runs that all failed before measuring has no report and no file.
  const weeks = all.filter((w) => w.reports > 0);
  const files: ManifestFile[] = [];
  for (const week of weeks) {
    const previous = existsSync(indexPath(week.week)) ? (JSON.parse(readFileSync(indexPath(week.week), 'utf8')) as WeekIndex) : null;
    if (previous !== null && previous.digest === week.digest && existsSync(join(outDir, previous.file.path))) {
      files.push(previous.file);
      continue;
    }
    const index = await writeWeek(connection, resultsDir, outDir, context, week, previous);
    writeFileAtomic(indexPath(week.week), `${JSON.stringify(index)}\n`);
    files.push(index.file);
  }
  // Weeks gone (their runs deleted or no longer official) leave the download and the cache.
  const kept = new Set(weeks.map((w) => w.week));
  for (const name of readdirSync(join(outDir, LLMD_REPORTS_DIR))) if (!kept.has(name.replace(/\.jsonl$/, ''))) rmSync(join(outDir, LLMD_REPORTS_DIR, name), { force: true });
  for (const name of readdirSync(cacheDir)) if (!kept.has(name.replace(/\.json$/, ''))) rmSync(join(cacheDir, name), { recursive: true, force: true });
  return {
    files,
    runs: all.reduce((sum, w) => sum + w.runs, 0),
    reports: all.reduce((sum, w) => sum + w.reports, 0),
    skipped_runs: all.reduce((sum, w) => sum + w.skipped, 0),
  };
}
