/**
 * The compiled store: a DuckDB database that mirrors the results folder as tables (runs, points,
 * and the verdict on every file). Results are immutable, so a file is read once: later compiles
 * re-read only files that are new or whose size or mtime changed, and drop rows of files gone.
 * A cache written by another compiler version is rebuilt from scratch.
 */
import { lstatSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { SCHEMA_VERSION } from '../contract/result.ts';
import type { ResultProblem } from './check-result.ts';
import { columnOf, POINTS_TABLE, RUN_COLUMNS, type Column } from './columns.ts';
import { CONFIG_KEY, ID_COLUMNS, idSql, SCENARIO_KEY } from './ids.ts';
import { CSV_NULL, PARSE_BATCH_JOB, parseBatch, type BatchFile, type BatchJob, type BatchOutcome, type FileVerdict } from './parse-batch.ts';
import { listResultFiles, type ResultFile } from './result-files.ts';
import { createListingTable, loadListingCache, saveListingCache } from './listing-store.ts';
import { referenceDigest } from './reference-digest.ts';
import { textRows } from './tables.ts';
import { csvLineSizeOptions } from './store-limits.ts';
import { runWorkerJob } from '../lib/process/worker-job.ts';
import { PROBE_COLUMNS } from './fidelity.ts';

/**
 * Bump the number when the tables' shape, the flattening or what validate accepts changes: old
 * caches (and their cached verdicts) are rebuilt. The reference data a verdict reads (known
 * releases, hardware, shipped scenarios) is part of it: a release appended by detect re-reads
 * the results, so engine_version_known is never stale.
 */
function cacheVersion(): string {
  return `12.s${SCHEMA_VERSION}.${RUN_COLUMNS.length}.${POINTS_TABLE.length}.r${referenceDigest()}`;
}
/** Below this many files, parsing in-thread beats starting workers. */
const WORKER_THRESHOLD = 200;
/**
 * Larger files are checked on this thread, whose heap is not capped: checking a valid 8 MiB file
 * that holds a million-entry --extra-body map peaks above a worker's 192 MB, and the worker died.
 */
const WORKER_MAX_FILE_BYTES = 1024 * 1024;

export interface IngestReport {
  readonly files: number;
  readonly parsed: number;
  readonly removed: number;
  readonly valid: number;
  readonly problems: ResultProblem[];
}

export interface Store {
  readonly connection: DuckDBConnection;
  close(): void;
}

function tableSql(name: string, columns: readonly Column[]): string {
  return `CREATE TABLE IF NOT EXISTS ${name} (${columns.map((c) => `${columnOf(c.name)} ${c.type}`).join(', ')})`;
}

/** `longestLine`: bytes of the longest line in the files (parseBatch measures it as it stages). */
function readCsvSql(paths: readonly string[], columns: readonly Column[], longestLine: number): string {
  const list = paths.map((p) => `'${p.replace(/'/g, "''")}'`).join(', ');
  const types = columns.map((c) => `${columnOf(c.name).replace(/'/g, "''")}: '${c.type}'`).join(', ');
  return `SELECT * FROM read_csv([${list}], columns = {${types}}, header = false, delim = ',', quote = '"', escape = '"', nullstr = '${CSV_NULL}', allow_quoted_nulls = false, auto_detect = false, strict_mode = true, new_line = '\\n'${csvLineSizeOptions(longestLine)})`;
}

export async function openStore(path: string, memoryLimit = '1GB'): Promise<Store> {
  if (path !== ':memory:') mkdirSync(join(path, '..'), { recursive: true });
  // Insertion order is not kept: every published table is written with ORDER BY, and keeping it
  // stops large UNPIVOT/COPY pipelines from spilling to disk within the memory limit.
  const settings = { memory_limit: memoryLimit, preserve_insertion_order: 'false' };
  let instance = await DuckDBInstance.create(path, settings);
  let connection = await instance.connect();
  await connection.run('CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)');
  const version = (await connection.runAndReadAll(`SELECT value FROM meta WHERE key = 'cache_version'`)).getRowsJS()[0]?.[0];
  const expected = cacheVersion();
  if (version !== undefined && version !== expected) {
    connection.closeSync();
    instance.closeSync();
    rmSync(path, { force: true });
    rmSync(`${path}.wal`, { force: true });
    instance = await DuckDBInstance.create(path, settings);
    connection = await instance.connect();
    await connection.run('CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)');
  }
  await connection.run(`INSERT OR REPLACE INTO meta VALUES ('cache_version', '${expected}')`);
  await connection.run(tableSql('runs', RUN_COLUMNS));
  await connection.run(tableSql('points', [...POINTS_TABLE, ...ID_COLUMNS]));
  // No PRIMARY KEY: DuckDB writes a table's whole index at every checkpoint, and at 100,000 files
  // that was a third of a second of every compile that added one. Paths stay unique because
  // ingest deletes a path's row before it inserts the path again.
  await connection.run('CREATE TABLE IF NOT EXISTS files (relative_path VARCHAR, stat_key VARCHAR, run_id VARCHAR, problems VARCHAR)');
  // Each run's fidelity probes, staged by the parse pass beside its rows (fidelity.ts judges them); unkeyed as files is.
  await connection.run(tableSql('fidelity_probes', PROBE_COLUMNS));
  // Engine versions whose runs changed since the derived tables were last brought up to date; kept
  // in the store (not in memory) so a compile that stops after ingest leaves them for the next.
  await connection.run('CREATE TABLE IF NOT EXISTS dirty_versions (engine VARCHAR, engine_version VARCHAR)');
  await createListingTable(connection);
  return {
    connection,
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

function runWorker(job: BatchJob): Promise<BatchOutcome> {
  return runWorkerJob(new URL('./parse-batch.ts', import.meta.url), PARSE_BATCH_JOB, job, { maxOldGenerationSizeMb: 192, maxYoungGenerationSizeMb: 32 });
}

/** Check (and with a staging `dir`, flatten) files on every core; rows go to CSV files in `dir`. */
export async function parseFiles(files: readonly BatchFile[], dir: string | null): Promise<{ verdicts: FileVerdict[]; runs: string[]; points: string[]; probes: string[]; longestRunLine: number; longestPointLine: number; longestProbeLine: number }> {
  const sizeOf = (file: BatchFile) => file.size ?? lstatSync(file.absolutePath, { throwIfNoEntry: false })?.size ?? 0;
  const inWorkers = files.length < WORKER_THRESHOLD ? [] : files.filter((file) => sizeOf(file) <= WORKER_MAX_FILE_BYTES);
  const workerSet = new Set(inWorkers);
  const workers = Math.min(availableParallelism(), Math.ceil(inWorkers.length / WORKER_THRESHOLD));
  const staged = (table: string, name: string) => (dir === null ? null : join(dir, `${table}-${name}.csv`));
  const job = (list: readonly BatchFile[], name: string): BatchJob => ({ files: list, runsPath: staged('runs', name), pointsPath: staged('points', name), probesPath: staged('probes', name) });
  const here = job(files.filter((file) => !workerSet.has(file)), 'main');
  const jobs = [here, ...Array.from({ length: workers }, (_, i) => job(inWorkers.filter((_, k) => k % workers === i), String(i)))];
  // The workers start first and run while this thread checks its own files.
  const elsewhere = Promise.all(jobs.slice(1).map(runWorker));
  let own: BatchOutcome;
  try {
    own = parseBatch(here);
  } catch (error) {
    await elsewhere.catch(() => undefined);
    throw error;
  }
  const results = [own, ...(await elsewhere)];
  return {
    verdicts: results.flatMap((r) => r.verdicts),
    runs: jobs.map((j) => j.runsPath!),
    points: jobs.map((j) => j.pointsPath!),
    probes: jobs.map((j) => j.probesPath!),
    longestRunLine: Math.max(...results.map((r) => r.longestRunLine)),
    longestPointLine: Math.max(...results.map((r) => r.longestPointLine)),
    longestProbeLine: Math.max(...results.map((r) => r.longestProbeLine)),
  };
}

/** What a file is recognised by between compiles (results are immutable; an edit changes these). */
function statKey(file: ResultFile): string {
  return `${file.size}:${file.mtimeMs}${file.signature ? `:signed:${file.signature.size}:${file.signature.mtimeMs}` : ''}`;
}

async function insertVerdicts(connection: DuckDBConnection, byPath: Map<string, ResultFile>, verdicts: readonly FileVerdict[]): Promise<void> {
  const appender = await connection.createAppender('files');
  for (const verdict of verdicts) {
    const file = byPath.get(verdict.relativePath)!;
    appender.appendVarchar(verdict.relativePath);
    appender.appendVarchar(statKey(file));
    if (verdict.runId === null) appender.appendNull();
    else appender.appendVarchar(verdict.runId);
    appender.appendVarchar(JSON.stringify(verdict.problems));
    appender.endRow();
  }
  appender.closeSync();
}

/** Records the engine versions of the runs in these files as needing their derived rows rebuilt. */
async function markDirty(connection: DuckDBConnection, filesSql: string): Promise<void> {
  await connection.run(`INSERT INTO dirty_versions SELECT DISTINCT engine, engine_version FROM runs WHERE file IN (${filesSql})`);
}

/** Brings the store up to date with the results folder. */
export async function ingest(store: Store, resultsDir: string): Promise<IngestReport> {
  const { connection } = store;
  const listings = await loadListingCache(connection, resultsDir);
  const listing = listResultFiles(resultsDir, listings);
  await saveListingCache(connection, listings);
  const byPath = new Map(listing.files.map((file) => [file.relativePath, file]));
  const cached = new Map((await textRows(connection, 'files', ['relative_path', 'stat_key'])).map(([path, key]) => [path!, key!]));
  const fresh = listing.files.filter((file) => cached.get(file.relativePath) !== statKey(file));
  const freshPaths = new Set(fresh.map((file) => file.relativePath));
  const gone = [...cached.keys()].filter((path) => !byPath.has(path) || freshPaths.has(path));
  if (gone.length > 0) {
    await connection.run('CREATE OR REPLACE TEMP TABLE gone (relative_path VARCHAR)');
    const appender = await connection.createAppender('gone');
    for (const path of gone) (appender.appendVarchar(path), appender.endRow());
    appender.closeSync();
    await markDirty(connection, 'SELECT relative_path FROM gone');
    await connection.run('DELETE FROM points WHERE file IN (SELECT relative_path FROM gone)');
    await connection.run('DELETE FROM runs WHERE file IN (SELECT relative_path FROM gone)');
    await connection.run('DELETE FROM files WHERE relative_path IN (SELECT relative_path FROM gone)');
    await connection.run('DELETE FROM fidelity_probes WHERE file IN (SELECT relative_path FROM gone)');
  }
  if (fresh.length > 0) {
    const staging = mkdtempSync(join(tmpdir(), 'servebench-compile-'));
    try {
      const { verdicts, runs, points, probes, longestRunLine, longestPointLine, longestProbeLine } = await parseFiles(fresh, staging);
      await connection.run(`INSERT INTO runs ${readCsvSql(runs, RUN_COLUMNS, longestRunLine)}`);
      // The ids are computed here, once per point, so no later query recomputes them per row.
      await connection.run(`INSERT INTO points SELECT *, ${idSql(SCENARIO_KEY)}, ${idSql(CONFIG_KEY)} FROM (${readCsvSql(points, POINTS_TABLE, longestPointLine)})`);
      await connection.run(`INSERT INTO fidelity_probes ${readCsvSql(probes, PROBE_COLUMNS, longestProbeLine)}`);
      await insertVerdicts(connection, byPath, verdicts);
      await connection.run('CREATE OR REPLACE TEMP TABLE fresh (relative_path VARCHAR)');
      const appender = await connection.createAppender('fresh');
      for (const file of fresh) (appender.appendVarchar(file.relativePath), appender.endRow());
      appender.closeSync();
      await markDirty(connection, 'SELECT relative_path FROM fresh');
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const problems: ResultProblem[] = [...listing.problems];
  for (const [text] of (await connection.runAndReadAll(`SELECT problems FROM files WHERE problems <> '[]' ORDER BY relative_path`)).getRowsJS()) {
    problems.push(...(JSON.parse(text as string) as ResultProblem[]));
  }
  const duplicates = (await connection.runAndReadAll('SELECT run_id, list(file ORDER BY file) FROM runs GROUP BY run_id HAVING count(*) > 1 ORDER BY run_id')).getRowsJS();
  for (const [runId, paths] of duplicates) {
    for (const path of (paths as string[]).slice(1)) {
      problems.push({ file: path, path: 'run_id', message: `[duplicate-run] run_id ${String(runId)} is also in ${(paths as string[])[0]}`, fix: 'a run is submitted once; remove the copy' });
    }
  }
  // The first file of a run_id (in path order) stands; later copies are reported above. Without
  // copies (the usual case) the views are the tables, so filters reach the scans unhindered.
  if (duplicates.length === 0) {
    await connection.run('CREATE OR REPLACE TEMP VIEW valid_runs AS SELECT * FROM runs');
    await connection.run('CREATE OR REPLACE TEMP VIEW valid_points AS SELECT * FROM points');
  } else {
    await connection.run('CREATE OR REPLACE TEMP VIEW valid_runs AS SELECT * FROM runs QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY file) = 1');
    await connection.run('CREATE OR REPLACE TEMP VIEW valid_points AS SELECT * FROM points WHERE file IN (SELECT file FROM valid_runs)');
  }
  const valid = Number((await connection.runAndReadAll('SELECT count(*) FROM valid_runs')).getRowsJS()[0]![0]);
  return { files: listing.files.length, parsed: fresh.length, removed: gone.length, valid, problems };
}
