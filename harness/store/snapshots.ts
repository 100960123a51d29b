/**
 * Parquet snapshots: dated folders of the published tables, immutable once written. The per-run
 * tables are one file per ISO week; a week whose inputs did not change is linked from the previous
 * snapshot. Each snapshot has a manifest (sha256, rows and bytes of every file).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, existsSync, linkSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Delta, ManifestFile } from '../contract/site-data.ts';
import { scalar, sqlString, TABLES, tableFile, tableQueries, WEEKLY } from './tables.ts';

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The deltas (computed in JavaScript) as a temp table, for the deltas Parquet file. */
export async function stageDeltas(connection: DuckDBConnection, deltas: readonly Delta[], dir: string): Promise<void> {
  const path = join(dir, 'deltas.ndjson');
  writeFileSync(path, deltas.map((d) => JSON.stringify(d)).join('\n'));
  const types: Record<keyof Delta, string> = {
    config_id: 'VARCHAR', scenario_id: 'VARCHAR', model: 'VARCHAR', precision: 'VARCHAR', hardware: 'VARCHAR', workload: 'VARCHAR', methodology: 'VARCHAR', load: 'VARCHAR',
    engine: 'VARCHAR', metric: 'VARCHAR', better: 'VARCHAR', previous_version: 'VARCHAR', version: 'VARCHAR', previous_value: 'DOUBLE', value: 'DOUBLE', change_pct: 'DOUBLE',
    ci_low_pct: 'DOUBLE', ci_high_pct: 'DOUBLE', p_value: 'DOUBLE', method: 'VARCHAR', significant: 'BOOLEAN', verdict: 'VARCHAR', previous_runs: 'INTEGER', runs: 'INTEGER',
    previous_run_id: 'VARCHAR', run_id: 'VARCHAR',
  };
  const columns = Object.entries(types).map(([name, type]) => `${name}: '${type}'`).join(', ');
  await connection.run(
    deltas.length === 0
      ? `CREATE OR REPLACE TEMP TABLE deltas AS SELECT * FROM (SELECT ${Object.entries(types).map(([name, type]) => `NULL::${type} AS ${name}`).join(', ')}) WHERE false`
      : `CREATE OR REPLACE TEMP TABLE deltas AS SELECT * FROM read_json(${sqlString(path)}, columns = {${columns}}, format = 'newline_delimited')`,
  );
}

export interface SnapshotManifest {
  readonly snapshot: string;
  readonly generated_at: string;
  readonly schema_version: number;
  /** Week → digest of what that week's files were compiled from (reused when equal). */
  readonly weeks: Record<string, string>;
  readonly files: ManifestFile[];
}

export interface Week {
  /** The first day (a Monday): the week's rows are the runs of that day and the six after it. */
  readonly monday: string;
  /** What the week's files were compiled from: its result files, the prices, the compiler. */
  readonly digest: string;
}

/** Each ISO week of valid runs (e.g. "2026-W48") with its first day and the digest of its inputs. */
export async function weekDigests(connection: DuckDBConnection, context: string): Promise<Map<string, Week>> {
  const rows = (await connection.runAndReadAll(`
    SELECT strftime(run_date, '%G-W%V') AS week, min(date_trunc('week', run_date))::DATE::VARCHAR, md5(string_agg(file || ':' || file_sha256, ',' ORDER BY file))
    FROM valid_runs GROUP BY week ORDER BY week`)).getRowsJS() as Array<[string, string, string]>;
  return new Map(rows.map(([week, monday, files]) => [week, { monday, digest: createHash('sha256').update(`${context}|${files}`).digest('hex').slice(0, 16) }]));
}

const PARQUET_OPTIONS = 'FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880';

/** A range on run_date, so each week's query reads only the row groups of its days. */
function weekFilter(week: Week): string {
  return `run_date >= DATE '${week.monday}' AND run_date < DATE '${week.monday}' + INTERVAL 7 DAY`;
}

/** Hard link (results are immutable, so are snapshot files); a copy where links are not possible. */
export function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

/**
 * Writes a snapshot into a fresh folder: every week whose digest matches a week of `previous`
 * is linked from there, the others and the derived tables are written. Returns its manifest.
 */
export async function writeSnapshot(connection: DuckDBConnection, dir: string, weeks: ReadonlyMap<string, Week>, previous: { dir: string; manifest: SnapshotManifest } | null, head: Omit<SnapshotManifest, 'weeks' | 'files'>): Promise<SnapshotManifest> {
  for (const table of WEEKLY) mkdirSync(join(dir, table), { recursive: true });
  const files: ManifestFile[] = [];
  const record = async (file: string) => {
    const path = join(dir, file);
    const rows = Number(await scalar(connection, `SELECT count(*) FROM read_parquet(${sqlString(path)})`));
    files.push({ path: file, sha256: await sha256File(path), bytes: statSync(path).size, rows });
  };
  const write = async (file: string, sql: string) => {
    await connection.run(`COPY (${sql}) TO ${sqlString(join(dir, file))} (${PARQUET_OPTIONS})`);
    await record(file);
  };
  const reused = new Map((previous?.manifest.files ?? []).map((f) => [f.path, f]));
  for (const [id, week] of weeks) {
    const old = WEEKLY.map((table) => reused.get(tableFile(table, id)));
    if (previous !== null && previous.manifest.weeks[id] === week.digest && old.every((f) => f !== undefined && existsSync(join(previous.dir, f.path)))) {
      for (const f of old) (linkOrCopy(join(previous.dir, f!.path), join(dir, f!.path)), files.push(f!));
    } else {
      // One query per week and table (measured: faster than one COPY … PARTITION_BY over all weeks).
      const queries = tableQueries(weekFilter(week));
      for (const table of WEEKLY) await write(tableFile(table, id), queries[table]);
    }
  }
  const queries = tableQueries();
  for (const table of TABLES.filter((t) => !WEEKLY.includes(t))) await write(tableFile(table), queries[table]);
  return { ...head, weeks: Object.fromEntries([...weeks].map(([id, week]) => [id, week.digest])), files };
}

export async function manifestOf(root: string, files: readonly string[], rows: Record<string, number>): Promise<ManifestFile[]> {
  const entries: ManifestFile[] = [];
  for (const file of files) {
    const path = join(root, file);
    const table = file.match(/([a-z]+)\.parquet$/)?.[1];
    entries.push({ path: file, sha256: await sha256File(path), bytes: statSync(path).size, rows: table !== undefined ? (rows[table] ?? null) : null });
  }
  return entries;
}

