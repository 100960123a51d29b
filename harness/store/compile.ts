/**
 * `servebench compile`: results/ → DuckDB → published data.
 *   <out>/parquet/snapshots/<day>-<inputs hash>/*.parquet   dated, immutable (same inputs, same name)
 *   <out>/parquet/latest/*.parquet                           the newest snapshot's copy
 *   <out>/MANIFEST.json                                      sha256, rows and bytes of every file
 *   <out>/dictionary.json, <out>/DICTIONARY.md               every column, its type and unit
 *   <out>/site/…                                             what the site prerenders (JSON) and
 *                                                            queries in the browser (Arrow IPC)
 *   <out>/.cache/store.duckdb                                the incremental store
 */
import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { writeFileAtomic } from '../lib/io/atomic-write.ts';
import type { PriceTable } from '../contract/prices.ts';
import { SCHEMA_VERSION } from '../contract/result.ts';
import { queryToArrowIpc, splitByScenario, type ArrowColumnType } from './arrow-export.ts';
import type { ResultProblem } from './check-result.ts';
import { claimOutFolder, markOutFolder } from './out-folder.ts';
import { columnOf, CONFIG_COLUMNS, LONG_METRICS, METRIC_COLUMNS, POINT_COLUMNS, PRICED_COLUMNS, RUN_COLUMNS, type Column } from './columns.ts';
import { computeDeltas, deriveTables, type Delta } from './derive.ts';
import { describeColumn } from './dictionary.ts';
import { DEFAULT_REGRESSION_THRESHOLD_PCT, HEADLINE_METRICS } from '../contract/metric-catalog.ts';
import { DeltaSchema, EngineVersionSchema, HeadlineMetricSchema, LeaderboardRowSchema, RegressionsFileSchema, RunDetailSchema, ScenarioDetailSchema, ScenarioSchema, SITE_FILES, SiteMetaSchema } from '../contract/site-data.ts';
import { findRegressions } from './regress.ts';
import { ID_COLUMNS } from './ids.ts';
import { ingest, openStore, type IngestReport, type Store } from './store.ts';

export interface CompileOptions {
  readonly resultsDir: string;
  readonly outDir: string;
  readonly prices: PriceTable;
  /** Fixed "now" for reproducible outputs in tests. */
  readonly now?: Date;
}

export interface ManifestFile {
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
  readonly rows: number | null;
}

export interface CompileReport {
  readonly ingest: IngestReport;
  readonly problems: ResultProblem[];
  readonly snapshot: string;
  readonly snapshotWritten: boolean;
  readonly tables: Record<string, number>;
  readonly deltas: Delta[];
  /** Wall seconds per phase (ingest, derive, parquet, site, manifest). */
  readonly phases: Record<string, number>;
}

/** Bump when what compile writes changes for the same inputs: snapshots are keyed on it too. */
const COMPILER_VERSION = 12;

const TABLES = ['runs', 'points', 'metrics', 'leaderboard', 'deltas', 'history', 'pareto'] as const;
type Table = (typeof TABLES)[number];
/**
 * The per-run tables grow with every night, so they are published as one file per ISO week of runs
 * (`points/2026-W48.parquet`; a fleet's night of runs is small, a week of them a few thousand): a
 * new result rewrites its week's files, and every other week is linked
 * from the previous snapshot. The derived tables are small and written whole.
 */
const WEEKLY: readonly Table[] = ['runs', 'points', 'metrics'];

/** The Parquet files of a table in a snapshot: `<table>.parquet`, or `<table>/<week>.parquet`. */
function tableFile(table: Table, week?: string): string {
  return week === undefined ? `${table}.parquet` : `${table}/${week}.parquet`;
}

/** The table a snapshot file belongs to. */
function tableOfFile(path: string): string {
  return path.replace(/^parquet\/(latest|snapshots\/[^/]+)\//, '').replace(/(\/[^/]+)?\.parquet$/, '');
}

function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function readJsonIfExists<T>(path: string): T | null {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : null;
}

async function scalar(connection: DuckDBConnection, sql: string): Promise<unknown> {
  return (await connection.runAndReadAll(sql)).getRowsJS()[0]?.[0];
}

/** The tables as SQL over the store's temp tables (derive.ts). */
function tableQueries(where = 'true'): Record<Table, string> {
  const pointCols = [...POINT_COLUMNS, ...PRICED_COLUMNS].map((c) => columnOf(c.name)).join(', ');
  const longSelect = LONG_METRICS.map(([metric, stat]) => `${columnOf(stat === 'value' ? metric : `${metric}_${stat}`)} AS ${columnOf(`${metric}@${stat}`)}`).join(', ');
  const metricKeep = METRIC_COLUMNS.filter((c) => !['metric', 'stat', 'value'].includes(c.name)).map((c) => columnOf(c.name));
  return {
    runs: `SELECT ${RUN_COLUMNS.map((c) => columnOf(c.name)).join(', ')} FROM valid_runs WHERE ${where} ORDER BY created_at, run_id`,
    points: `SELECT ${pointCols}, scenario_id, config_id FROM priced_points WHERE ${where} ORDER BY created_at, run_id, point`,
    // Not sorted: 40+ rows per point; readers filter or aggregate, and sorting it would dominate the compile.
    metrics: `SELECT ${metricKeep.join(', ')}, split_part(name, '@', 1) AS metric, split_part(name, '@', 2) AS stat, value FROM (
        UNPIVOT (SELECT ${metricKeep.join(', ')}, ${longSelect} FROM priced_points WHERE status = 'completed' AND ${where})
        ON ${LONG_METRICS.map(([metric, stat]) => columnOf(`${metric}@${stat}`)).join(', ')} INTO NAME name VALUE value)`,
    leaderboard: 'SELECT * FROM leaderboard ORDER BY model, hardware, workload, load, rank_output_throughput',
    deltas: 'SELECT * FROM deltas ORDER BY model, hardware, workload, load, engine, metric',
    history: 'SELECT * FROM releases ORDER BY config_id, engine, engine_version_order',
    pareto: 'SELECT * FROM pareto ORDER BY scenario_id, engine, engine_version_order, interactivity',
  };
}

async function stageDeltas(connection: DuckDBConnection, deltas: readonly Delta[], dir: string): Promise<void> {
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

interface SnapshotManifest {
  readonly snapshot: string;
  readonly generated_at: string;
  readonly schema_version: number;
  /** Week → digest of what that week's files were compiled from (reused when equal). */
  readonly weeks: Record<string, string>;
  readonly files: ManifestFile[];
}

interface Week {
  /** The first day (a Monday): the week's rows are the runs of that day and the six after it. */
  readonly monday: string;
  /** What the week's files were compiled from: its result files, the prices, the compiler. */
  readonly digest: string;
}

/** Each ISO week of valid runs (e.g. "2026-W48") with its first day and the digest of its inputs. */
async function weekDigests(connection: DuckDBConnection, prices: PriceTable): Promise<Map<string, Week>> {
  const rows = (await connection.runAndReadAll(`
    SELECT strftime(run_date, '%G-W%V') AS week, min(date_trunc('week', run_date))::DATE::VARCHAR, md5(string_agg(file || ':' || file_sha256, ',' ORDER BY file))
    FROM valid_runs GROUP BY week ORDER BY week`)).getRowsJS() as Array<[string, string, string]>;
  const context = `${SCHEMA_VERSION}|${COMPILER_VERSION}|${JSON.stringify(prices)}`;
  return new Map(rows.map(([week, monday, files]) => [week, { monday, digest: createHash('sha256').update(`${context}|${files}`).digest('hex').slice(0, 16) }]));
}

const PARQUET_OPTIONS = 'FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880';

/** A range on run_date, so each week's query reads only the row groups of its days. */
function weekFilter(week: Week): string {
  return `run_date >= DATE '${week.monday}' AND run_date < DATE '${week.monday}' + INTERVAL 7 DAY`;
}

/** Hard link (results are immutable, so are snapshot files); a copy where links are not possible. */
function linkOrCopy(from: string, to: string): void {
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
async function writeSnapshot(connection: DuckDBConnection, dir: string, weeks: ReadonlyMap<string, Week>, previous: { dir: string; manifest: SnapshotManifest } | null, head: Omit<SnapshotManifest, 'weeks' | 'files'>): Promise<SnapshotManifest> {
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

async function manifestOf(root: string, files: readonly string[], rows: Record<string, number>): Promise<ManifestFile[]> {
  const entries: ManifestFile[] = [];
  for (const file of files) {
    const path = join(root, file);
    const table = file.match(/([a-z]+)\.parquet$/)?.[1];
    entries.push({ path: file, sha256: await sha256File(path), bytes: statSync(path).size, rows: table !== undefined ? (rows[table] ?? null) : null });
  }
  return entries;
}

/** Every column of every published table with its type, unit and meaning. */
async function writeDictionary(connection: DuckDBConnection, outDir: string): Promise<void> {
  const queries = tableQueries();
  const tables: Record<string, Array<{ name: string; type: string; unit: string | null; description: string }>> = {};
  for (const table of TABLES) {
    const described = (await connection.runAndReadAll(`DESCRIBE ${queries[table]}`)).getRowObjectsJS() as Array<{ column_name: string; column_type: string }>;
    tables[table] = described.map((c) => ({ name: c.column_name, type: c.column_type, ...describeColumn(table, c.column_name) }));
  }
  writeFileAtomic(join(outDir, 'dictionary.json'), `${JSON.stringify({ schema_version: SCHEMA_VERSION, tables }, null, 2)}\n`);
  const md = ['# servebench data dictionary', '', 'Generated by `servebench compile`. Units as stated; null means not measured.', ''];
  for (const [table, columns] of Object.entries(tables)) {
    md.push(`## ${table}`, '', '| column | type | unit | description |', '| --- | --- | --- | --- |');
    for (const c of columns) md.push(`| ${c.name} | ${c.type} | ${c.unit ?? ''} | ${c.description.replace(/\|/g, '\\|')} |`);
    md.push('');
  }
  writeFileAtomic(join(outDir, 'DICTIONARY.md'), md.join('\n'));
}

// Without run ids: their dictionary would repeat in every scenario's file, and no query needs them.
const ARROW_POINT_COLUMNS: readonly Column[] = [
  ...ID_COLUMNS,
  ...CONFIG_COLUMNS.filter((c) => !['status', 'workload_sha256', 'created_at', 'run_id'].includes(c.name)),
  ...POINT_COLUMNS.filter((c) => ['point', 'load', 'load_mode', 'concurrency', 'rate', 'isl', 'osl', 'completed', 'failed', 'request_throughput', 'output_throughput', 'output_throughput_per_gpu', 'goodput'].includes(c.name)),
  ...POINT_COLUMNS.filter((c) => /^(ttft_ms|tpot_ms|itl_ms|e2el_ms)_(p50|p90|p95|p99)$|^interactivity_tok_s_p50$|^gpu_peak_memory_mib$/.test(c.name)),
  ...PRICED_COLUMNS.filter((c) => c.name === 'cost_per_1m_output_tokens'),
];

/** The Arrow type a published column travels as. */
function arrowColumn(c: Pick<Column, 'name' | 'type'>): { name: string; type: ArrowColumnType; sql: string } {
  const type: ArrowColumnType = c.type === 'BIGINT' ? 'DOUBLE' : c.type === 'DATE' || c.type === 'TIMESTAMP' ? 'VARCHAR' : (c.type as ArrowColumnType);
  return { name: c.name, type, sql: `CAST(${columnOf(c.name)} AS ${type})` };
}

/** Per release (configuration × engine × version) medians, for the compare page's SQL. */
const ARROW_RELEASE_COLUMNS: ReadonlyArray<Pick<Column, 'name' | 'type'>> = [
  { name: 'config_id', type: 'VARCHAR' as const },
  ...CONFIG_COLUMNS.filter((c) => ['model', 'precision', 'hardware', 'workload', 'engine', 'engine_version'].includes(c.name)),
  ...POINT_COLUMNS.filter((c) => ['load', 'concurrency', 'rate'].includes(c.name)),
  { name: 'runs', type: 'INTEGER' as const },
  ...HEADLINE_METRICS.map((m) => ({ name: m.column, type: 'DOUBLE' as const })),
];

/**
 * The site's files that are many and costly to write (a page per linked run, the history and the
 * points of each scenario) are rewritten only when what they were made from changed: each is published with a
 * digest of its inputs, kept in the store. Their folders move from the previous site into the new
 * one (a rename, not thousands of links); what is stale is overwritten, what is gone is deleted.
 */
class SiteFiles {
  static readonly FOLDERS = ['runs', 'points', 'scenarios'] as const;
  private readonly next = new Map<string, string>();
  private readonly connection: DuckDBConnection;
  private readonly dir: string;
  private previous = new Map<string, string>();

  constructor(connection: DuckDBConnection, dir: string) {
    this.connection = connection;
    this.dir = dir;
  }

  /** Takes the previous site's folders over into `dir`. */
  async adopt(previousDir: string): Promise<void> {
    await this.connection.run('CREATE TABLE IF NOT EXISTS published (path VARCHAR PRIMARY KEY, digest VARCHAR)');
    const rows = (await this.connection.runAndReadAll('SELECT path, digest FROM published')).getRowsJS() as Array<[string, string]>;
    this.previous = new Map(rows);
    for (const folder of SiteFiles.FOLDERS) {
      if (existsSync(join(previousDir, folder))) renameSync(join(previousDir, folder), join(this.dir, folder));
      else mkdirSync(join(this.dir, folder), { recursive: true });
    }
  }

  /** True when the file is there with an unchanged digest; false when it must be written. */
  reuse(path: string, digest: string): boolean {
    this.next.set(path, digest);
    return this.previous.get(path) === digest && existsSync(join(this.dir, path));
  }

  /** Deletes what no longer belongs, and records the digests of what does. */
  async save(): Promise<void> {
    for (const folder of SiteFiles.FOLDERS) {
      for (const name of readdirSync(join(this.dir, folder))) if (!this.next.has(`${folder}/${name}`)) rmSync(join(this.dir, folder, name), { force: true });
    }
    await this.connection.run('BEGIN TRANSACTION');
    await this.connection.run('DELETE FROM published');
    const appender = await this.connection.createAppender('published');
    for (const [path, digest] of this.next) (appender.appendVarchar(path), appender.appendVarchar(digest), appender.endRow());
    appender.closeSync();
    await this.connection.run('COMMIT');
  }
}

/** The site's data: small JSON for prerendered pages, Arrow IPC for SQL in the browser. */
async function writeSiteData(connection: DuckDBConnection, siteDir: string, deltas: readonly Delta[], meta: Record<string, unknown>, context: string): Promise<void> {
  // Built next to the published folder and swapped in whole.
  const next = `${siteDir}.next`;
  rmSync(next, { recursive: true, force: true });
  mkdirSync(next, { recursive: true });
  const files = new SiteFiles(connection, next);
  await files.adopt(siteDir);
  const digest = (text: string) => createHash('sha256').update(`${context}|${text}`).digest('hex').slice(0, 16);
  // Every file goes through its schema in the contract: the site reads exactly what it declares.
  const json = <T>(file: string, schema: z.ZodType<T>, value: unknown) => writeFileSync(join(next, file), `${JSON.stringify(schema.parse(value))}\n`);
  const jsonRows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJson();
  const deltaKey = (d: Pick<Delta, 'config_id' | 'engine'>) => `${d.config_id}|${d.engine}`;
  const deltasByRow = new Map<string, Record<string, Delta>>();
  for (const d of deltas) deltasByRow.set(deltaKey(d), { ...deltasByRow.get(deltaKey(d)), [d.metric]: d });
  const leaderboard = (await jsonRows(`SELECT * EXCLUDE (engine_version_order) FROM leaderboard ORDER BY model, hardware, workload, concurrency NULLS LAST, rate NULLS LAST, load, rank_output_throughput`)) as Array<Record<string, unknown>>;
  json(SITE_FILES.leaderboard, z.array(LeaderboardRowSchema), leaderboard.map((row) => ({ ...row, deltas: deltasByRow.get(`${String(row.config_id)}|${String(row.engine)}`) ?? {} })));
  json(SITE_FILES.deltas, z.array(DeltaSchema), deltas);
  const runFiles = new Map((await connection.runAndReadAll('SELECT run_id, file FROM valid_runs')).getRowsJS() as Array<[string, string]>);
  json(SITE_FILES.regressions, RegressionsFileSchema, { threshold_pct: DEFAULT_REGRESSION_THRESHOLD_PCT, regressions: findRegressions(deltas, DEFAULT_REGRESSION_THRESHOLD_PCT, runFiles) });
  json(SITE_FILES.metrics, z.array(HeadlineMetricSchema), HEADLINE_METRICS);
  json(SITE_FILES.versions, z.array(EngineVersionSchema), await jsonRows(`SELECT engine, engine_version, count(DISTINCT config_id)::INTEGER AS configurations, max(last_run_date)::VARCHAR AS last_run_date FROM releases GROUP BY engine, engine_version, engine_version_order ORDER BY engine, engine_version_order DESC`));
  await writeRunPages(connection, next, deltas, files, digest);
  const scenarios = (await jsonRows(`
    WITH loads AS (SELECT DISTINCT scenario_id, load, concurrency, rate FROM releases)
    SELECT scenario_id, any_value(model) AS model, any_value(precision) AS precision, any_value(hardware) AS hardware, any_value(gpu) AS gpu, any_value(gpu_count) AS gpu_count,
      any_value(workload) AS workload, any_value(methodology) AS methodology,
      (SELECT list(l.load ORDER BY l.concurrency NULLS LAST, l.rate NULLS LAST, l.load) FROM loads l WHERE l.scenario_id = r.scenario_id) AS loads,
      list(DISTINCT engine ORDER BY engine) AS engines,
      count(*)::INTEGER AS releases, max(last_run_date)::VARCHAR AS last_run_date
    FROM releases r GROUP BY scenario_id ORDER BY model, hardware, workload`)) as Array<Record<string, unknown>>;
  json(SITE_FILES.scenarios, z.array(ScenarioSchema), scenarios);
  // A scenario's page data and points depend on its runs only: rewritten when those changed.
  const scenarioInputs = (await connection.runAndReadAll(`
    SELECT p.scenario_id, md5(string_agg(r.file || ':' || r.file_sha256, ',' ORDER BY r.file))
    FROM (SELECT DISTINCT scenario_id, file FROM valid_points WHERE status = 'completed') p JOIN valid_runs r USING (file) GROUP BY p.scenario_id`)).getRowsJS() as Array<[string, string]>;
  const stale = scenarioInputs.filter(([id, inputs]) => ![`points/${id}.arrow`, `scenarios/${id}.json`].map((path) => files.reuse(path, digest(inputs))).every(Boolean)).map(([id]) => id);
  await connection.run('CREATE OR REPLACE TEMP TABLE stale_scenarios (scenario_id VARCHAR)');
  const appender = await connection.createAppender('stale_scenarios');
  for (const id of stale) (appender.appendVarchar(id), appender.endRow());
  appender.closeSync();
  const staleOnly = 'scenario_id IN (SELECT scenario_id FROM stale_scenarios)';
  const byScenario = <T extends Record<string, unknown>>(rows: T[]) => {
    const groups = new Map<string, T[]>();
    for (const row of rows) {
      const id = String(row.scenario_id);
      delete row.scenario_id;
      groups.set(id, [...(groups.get(id) ?? []), row]);
    }
    return groups;
  };
  const history = byScenario((await jsonRows(`SELECT * EXCLUDE (engine_version_order) FROM releases WHERE ${staleOnly} ORDER BY scenario_id, engine, engine_version_order, load`)) as Array<Record<string, unknown>>);
  const pareto = byScenario((await jsonRows(`SELECT scenario_id, engine, engine_version, load, interactivity, throughput_per_gpu, latest_version, on_version_frontier, on_overall_frontier, latest_run_id FROM pareto WHERE ${staleOnly} ORDER BY scenario_id, engine, engine_version_order, interactivity`)) as Array<Record<string, unknown>>);
  const staleSet = new Set(stale);
  for (const scenario of scenarios) {
    const id = String(scenario.scenario_id);
    if (staleSet.has(id)) json(SITE_FILES.scenario(id), ScenarioDetailSchema, { scenario, history: history.get(id) ?? [], pareto: pareto.get(id) ?? [] });
  }
  writeFileSync(join(next, SITE_FILES.releasesArrow), await queryToArrowIpc(connection, { from: 'releases', orderBy: 'config_id, engine, engine_version_order', columns: ARROW_RELEASE_COLUMNS.map(arrowColumn) }));
  // Each scenario's points on their own, so a scenario page's SQL loads only what it queries.
  if (stale.length > 0) {
    const points = await queryToArrowIpc(connection, {
      from: `(SELECT * FROM priced_points WHERE status = 'completed' AND ${staleOnly})`,
      orderBy: 'scenario_id, created_at, run_id, point',
      columns: ARROW_POINT_COLUMNS.map(arrowColumn),
    });
    for (const [id, bytes] of splitByScenario(points, [])) writeFileSync(join(next, SITE_FILES.pointsArrow(id)), bytes);
  }
  json(SITE_FILES.meta, SiteMetaSchema, meta);
  await files.save();
  rmSync(siteDir, { recursive: true, force: true });
  renameSync(next, siteDir);
}

/** Per-run detail for every run a page links to (leaderboard, deltas, Pareto): provenance and points. */
async function writeRunPages(connection: DuckDBConnection, siteDir: string, deltas: readonly Delta[], files: SiteFiles, digest: (text: string) => string): Promise<void> {
  await connection.run(`CREATE OR REPLACE TEMP TABLE linked_runs AS
    SELECT latest_run_id AS run_id FROM leaderboard UNION SELECT latest_run_id FROM pareto`);
  const appender = await connection.createAppender('linked_runs');
  for (const d of deltas) for (const id of [d.run_id, d.previous_run_id]) (appender.appendVarchar(id), appender.endRow());
  appender.closeSync();
  const linked = (await connection.runAndReadAll('SELECT DISTINCT run_id, file_sha256 FROM valid_runs WHERE run_id IN (SELECT run_id FROM linked_runs)')).getRowsJS() as Array<[string, string]>;
  await connection.run('CREATE OR REPLACE TEMP TABLE stale_runs (run_id VARCHAR)');
  const stale = await connection.createAppender('stale_runs');
  for (const [id, sha] of linked) if (!files.reuse(`runs/${id}.json`, digest(sha))) (stale.appendVarchar(id), stale.endRow());
  stale.closeSync();
  const runs = (await connection.runAndReadAll(`SELECT * FROM valid_runs WHERE run_id IN (SELECT run_id FROM stale_runs) ORDER BY run_id`)).getRowObjectsJson() as Array<Record<string, unknown>>;
  const points = (await connection.runAndReadAll(`
    SELECT run_id, point, load, requests_sent, completed, failed, isl, osl, duration_s, request_throughput, output_throughput, output_throughput_per_gpu,
      ttft_ms_p50, ttft_ms_p99, tpot_ms_p50, tpot_ms_p95, itl_ms_p99, e2el_ms_p50, e2el_ms_p99, interactivity_tok_s_p50, gpu_peak_memory_mib, gpu_mean_power_w,
      cost_per_1m_output_tokens, price_source, client_saturated
    FROM priced_points WHERE run_id IN (SELECT run_id FROM stale_runs) ORDER BY run_id, point`)).getRowObjectsJson() as Array<Record<string, unknown>>;
  const byRun = new Map<string, Array<Record<string, unknown>>>();
  for (const p of points) byRun.set(String(p.run_id), [...(byRun.get(String(p.run_id)) ?? []), p]);
  for (const run of runs) writeFileSync(join(siteDir, SITE_FILES.run(String(run.run_id))), `${JSON.stringify(RunDetailSchema.parse({ run, points: byRun.get(String(run.run_id)) ?? [] }))}\n`);
}

/** Rows per table, summed over its weekly files. */
function rowsByTable(files: readonly ManifestFile[]): Record<string, number> {
  const rows: Record<string, number> = {};
  for (const f of files) rows[tableOfFile(f.path)] = (rows[tableOfFile(f.path)] ?? 0) + (f.rows ?? 0);
  return rows;
}

/** A digest of what the compile read (valid files and their content) and how: one per week, combined. */
function inputsDigest(weeks: ReadonlyMap<string, Week>, prices: PriceTable): string {
  return createHash('sha256').update(`${SCHEMA_VERSION}|${COMPILER_VERSION}|${JSON.stringify(prices)}|${[...weeks].map(([id, week]) => `${id}:${week.digest}`).join(',')}`).digest('hex').slice(0, 12);
}

export function storePath(outDir: string): string {
  return join(outDir, '.cache', 'store.duckdb');
}

/** Store up to date, tables derived, deltas computed: what compile publishes and regress reads. */
export async function analyze(store: Store, resultsDir: string, prices: PriceTable): Promise<{ report: IngestReport; deltas: Delta[] }> {
  const report = await ingest(store, resultsDir);
  await deriveTables(store.connection, prices);
  return { report, deltas: await computeDeltas(store.connection) };
}

export async function compile(options: CompileOptions): Promise<CompileReport> {
  const now = options.now ?? new Date();
  claimOutFolder(options.outDir);
  mkdirSync(options.outDir, { recursive: true });
  markOutFolder(options.outDir);
  const store = await openStore(storePath(options.outDir));
  const phases: Record<string, number> = {};
  let mark = performance.now();
  const lap = (phase: string) => {
    phases[phase] = Number(((performance.now() - mark) / 1000).toFixed(3));
    mark = performance.now();
  };
  try {
    const { connection } = store;
    const report = await ingest(store, options.resultsDir);
    lap('ingest');
    const parquetRoot = join(options.outDir, 'parquet');
    mkdirSync(join(parquetRoot, 'snapshots'), { recursive: true });
    const weeks = await weekDigests(connection, options.prices);
    const digest = inputsDigest(weeks, options.prices);
    // Same inputs as an existing snapshot (any day): that snapshot stands, nothing is rewritten.
    const existing = readdirSync(join(parquetRoot, 'snapshots')).find((name) => name.endsWith(`-${digest}`) && existsSync(join(parquetRoot, 'snapshots', name, 'MANIFEST.json')));
    const snapshot = existing ?? `${now.toISOString().slice(0, 10)}-${digest}`;
    const snapshotDir = join(parquetRoot, 'snapshots', snapshot);
    const published = readJsonIfExists<{ snapshot?: string }>(join(options.outDir, 'site', 'meta.json'));
    if (existing !== undefined && published?.snapshot === snapshot && existsSync(join(options.outDir, 'MANIFEST.json')) && existsSync(join(parquetRoot, 'latest'))) {
      const files = (readJsonIfExists<{ files: ManifestFile[] }>(join(snapshotDir, 'MANIFEST.json'))?.files ?? []);
      const deltas = readJsonIfExists<Delta[]>(join(options.outDir, 'site', 'deltas.json')) ?? [];
      lap('unchanged');
      return { ingest: report, problems: report.problems, snapshot, snapshotWritten: false, tables: rowsByTable(files), deltas, phases };
    }
    await deriveTables(connection, options.prices);
    const deltas = await computeDeltas(connection);
    lap('derive');
    const staging = join(options.outDir, '.cache', 'staging');
    mkdirSync(staging, { recursive: true });
    await stageDeltas(connection, deltas, staging);
    const snapshotWritten = !existsSync(snapshotDir);
    if (snapshotWritten) {
      // Written next to its final place, then renamed: a snapshot folder is whole or absent.
      const partial = `${snapshotDir}.partial`;
      rmSync(partial, { recursive: true, force: true });
      const previousId = published?.snapshot;
      const previousDir = previousId === undefined ? null : join(parquetRoot, 'snapshots', previousId);
      const previousManifest = previousDir === null ? null : readJsonIfExists<SnapshotManifest>(join(previousDir, 'MANIFEST.json'));
      const manifest = await writeSnapshot(connection, partial, weeks, previousDir !== null && previousManifest?.weeks !== undefined ? { dir: previousDir, manifest: previousManifest } : null, { snapshot, generated_at: now.toISOString(), schema_version: SCHEMA_VERSION });
      writeFileSync(join(partial, 'MANIFEST.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      renameSync(partial, snapshotDir);
    }
    lap('parquet');
    const snapshotManifest = (id: string) => JSON.parse(readFileSync(join(parquetRoot, 'snapshots', id, 'MANIFEST.json'), 'utf8')) as SnapshotManifest;
    const current = snapshotManifest(snapshot).files;
    const rows = rowsByTable(current);
    const latestNext = join(parquetRoot, 'latest.next');
    rmSync(latestNext, { recursive: true, force: true });
    for (const table of WEEKLY) mkdirSync(join(latestNext, table), { recursive: true });
    for (const file of current) linkOrCopy(join(snapshotDir, file.path), join(latestNext, file.path));
    rmSync(join(parquetRoot, 'latest'), { recursive: true, force: true });
    renameSync(latestNext, join(parquetRoot, 'latest'));
    await writeDictionary(connection, options.outDir);
    const meta = {
      generated_at: now.toISOString(),
      schema_version: SCHEMA_VERSION,
      snapshot,
      runs: rows.runs,
      points: rows.points,
      invalid_files: new Set(report.problems.map((p) => p.file)).size,
      price_tier: options.prices.tier,
    };
    await writeSiteData(connection, join(options.outDir, 'site'), deltas, meta, `${SCHEMA_VERSION}|${COMPILER_VERSION}|${JSON.stringify(options.prices)}`);
    lap('site');
    const snapshots = readdirSync(join(parquetRoot, 'snapshots')).filter((name) => !name.endsWith('.partial')).sort();
    const files: ManifestFile[] = [
      ...current.map((f) => ({ ...f, path: `parquet/latest/${f.path}` })),
      ...snapshots.flatMap((id) => snapshotManifest(id).files.map((f) => ({ ...f, path: `parquet/snapshots/${id}/${f.path}` }))),
      ...(await manifestOf(options.outDir, ['dictionary.json', 'DICTIONARY.md'], {})),
    ];
    writeFileAtomic(join(options.outDir, 'MANIFEST.json'), `${JSON.stringify({ ...meta, snapshots, files }, null, 2)}\n`);
    lap('manifest');
    return { ingest: report, problems: report.problems, snapshot, snapshotWritten, tables: rows, deltas, phases };
  } finally {
    store.close();
  }
}
