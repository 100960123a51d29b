/**
 * The llm-d Benchmark Report download: every load point of every official run (OFFICIAL_RUN_SQL:
 * source official, a known or unchecked release) as a v0.2 report (llmd-report.ts), one JSON
 * document a line, one file per ISO week of runs as the per-run Parquet tables are
 * (<out>/llmd/2026-W48.jsonl.zst, zstd-compressed; runs in created_at, run_id order), each listed in MANIFEST.json.
 * A run without points (it failed before measuring) has no report: it is skipped and counted.
 *
 * Incremental as the weekly Parquet files are: a week's file is rewritten only when what it is made
 * of changed (the compile context, its official runs' files and their points' validity, which can
 * change without the file, e.g. when a fidelity reference arrives). Within a rewritten week, a run
 * whose file and validity did not change keeps its lines from the week's previous file (its index,
 * <out>/.cache/llmd/<week>.json, says which lines are whose and under what digest), so a new
 * result converts one file, not its week; no file is kept per run (thousands of small files cost
 * more to write than the conversion itself). The weeks to write are written by llmd-week-file.ts, on
 * every core when there are many (a cold compile converts every official run).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { LLMD_REPORTS_DIR, LLMD_WEEK_SUFFIX, type ManifestFile } from '../contract/site-data.ts';
import type { Validity } from '../contract/validity.ts';
import { writeFileAtomic } from '../lib/io/atomic-write.ts';
import { runWorkerJob } from '../lib/process/worker-job.ts';
import { LLMD_REPORT_VERSION } from './llmd-report-schema.ts';
import { WEEK_FILES_JOB, writeWeekFiles, type WeekIndex, type WeekJob, type WeekRun } from './llmd-week-file.ts';
import { OFFICIAL_RUN_SQL } from './official.ts';
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

/**
 * Every week of official runs with the digest of its inputs (each run's file and its points'
 * validity) and its counts. A run's points enter as the XOR of one 64-bit hash per point (its
 * number, validity and reason): unordered, so no sort of every point's text, which took a quarter
 * of a second at 100,000 runs; a changed validity changes its run's XOR but with odds of 2⁻⁶⁴.
 */
async function weekStates(connection: DuckDBConnection, context: string): Promise<WeekState[]> {
  const rows = (await connection.runAndReadAll(`
    WITH v AS (
      SELECT run_id, bit_xor(hash(point, validity, validity_reason)) AS validity, count(*) AS points
      FROM llmd_points GROUP BY run_id)
    SELECT week, md5(string_agg(r.file || ':' || r.file_sha256 || ':' || coalesce(v.validity::VARCHAR || ':' || v.points, ''), ',' ORDER BY r.file)),
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

/** Below this many runs to write, the weeks are written in-thread: starting workers costs more. */
const WORKER_THRESHOLD = 400;

function defaultWorkers(jobs: readonly WeekJob[]): number {
  const runs = jobs.reduce((sum, job) => sum + job.runs.length, 0);
  return runs < WORKER_THRESHOLD ? 1 : Math.min(availableParallelism(), jobs.length);
}

/**
 * Writes the weeks' files, spread over the cores when there is much to write (a cold compile): each
 * worker takes whole weeks, the largest first to the least loaded worker.
 */
export async function writeWeeks(jobs: readonly WeekJob[], workers = defaultWorkers(jobs)): Promise<WeekIndex[]> {
  if (workers < 2) return writeWeekFiles(jobs);
  const shares = Array.from({ length: workers }, () => ({ runs: 0, jobs: [] as WeekJob[] }));
  for (const job of [...jobs].sort((a, b) => b.runs.length - a.runs.length)) {
    const least = shares.reduce((min, share) => (share.runs < min.runs ? share : min));
    least.jobs.push(job);
    least.runs += job.runs.length;
  }
  // The most a worker holds at once is a week's previous file, read whole to keep its unchanged runs' lines.
  const written = await Promise.all(shares.filter((share) => share.jobs.length > 0).map((share) => runWorkerJob<WeekJob[], WeekIndex[]>(new URL('./llmd-week-file.ts', import.meta.url), WEEK_FILES_JOB, share.jobs, { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 32 })));
  const byPath = new Map(written.flat().map((index) => [index.file.path, index]));
  return jobs.map((job) => byPath.get(job.relative)!);
}

/** Writes <out>/llmd/<week>.jsonl.zst for every week of official runs with points (after deriveTables: it reads priced_points). */
export async function writeLlmdDownload(connection: DuckDBConnection, resultsDir: string, outDir: string, context: string): Promise<LlmdDownload> {
  const cacheDir = join(outDir, '.cache', 'llmd');
  mkdirSync(cacheDir, { recursive: true });
  mkdirSync(join(outDir, LLMD_REPORTS_DIR), { recursive: true });
  const indexPath = (week: string) => join(cacheDir, `${week}.json`);
  await stageOfficial(connection);
  const all = await weekStates(connection, context);
  // A week of runs that all failed before measuring has no report and no file.
  const weeks = all.filter((w) => w.reports > 0);
  const files = new Map<string, ManifestFile>();
  const jobs: WeekJob[] = [];
  const jobWeeks: string[] = [];
  for (const week of weeks) {
    const previous = existsSync(indexPath(week.week)) ? (JSON.parse(readFileSync(indexPath(week.week), 'utf8')) as WeekIndex) : null;
    if (previous !== null && previous.digest === week.digest && existsSync(join(outDir, previous.file.path))) {
      files.set(week.week, previous.file);
      continue;
    }
    const runs = await runsOfWeek(connection, week.week);
    jobs.push({ resultsDir, outDir, relative: `${LLMD_REPORTS_DIR}/${week.week}${LLMD_WEEK_SUFFIX}`, context, digest: week.digest, reports: week.reports, runs, previous });
    jobWeeks.push(week.week);
  }
  (await writeWeeks(jobs)).forEach((index, i) => {
    writeFileAtomic(indexPath(jobWeeks[i]!), `${JSON.stringify(index)}\n`);
    files.set(jobWeeks[i]!, index.file);
  });
  // Weeks gone (their runs deleted or no longer official) leave the download and the cache.
  const kept = new Set(weeks.map((w) => w.week));
  // Anything else in the folder goes too (an uncompressed .jsonl an older compiler wrote among them).
  for (const name of readdirSync(join(outDir, LLMD_REPORTS_DIR))) if (!(name.endsWith(LLMD_WEEK_SUFFIX) && kept.has(name.slice(0, -LLMD_WEEK_SUFFIX.length)))) rmSync(join(outDir, LLMD_REPORTS_DIR, name), { force: true });
  for (const name of readdirSync(cacheDir)) if (!kept.has(name.replace(/\.json$/, ''))) rmSync(join(cacheDir, name), { recursive: true, force: true });
  return {
    files: weeks.map((w) => files.get(w.week)!),
    runs: all.reduce((sum, w) => sum + w.runs, 0),
    reports: all.reduce((sum, w) => sum + w.reports, 0),
    skipped_runs: all.reduce((sum, w) => sum + w.skipped, 0),
  };
}
