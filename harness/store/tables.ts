/**
 * The published tables and the SQL that selects each from the store's tables (store.ts, derive.ts):
 * shared by the snapshots, which write them, and the data dictionary, which describes them.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { columnOf, LONG_METRICS, METRIC_COLUMNS, POINT_COLUMNS, PRICED_COLUMNS, RUN_COLUMNS } from './columns.ts';

export const TABLES = ['runs', 'points', 'metrics', 'leaderboard', 'deltas', 'history', 'pareto', 'capacity', 'ab_comparisons', 'bisections'] as const;
export type Table = (typeof TABLES)[number];
/**
 * The per-run tables grow with every night, so they are published as one file per ISO week of runs
 * (`points/2026-W48.parquet`; a fleet's night of runs is small, a week of them a few thousand): a
 * new result rewrites its week's files, and every other week is linked
 * from the previous snapshot. The derived tables are small and written whole.
 */
export const WEEKLY: readonly Table[] = ['runs', 'points', 'metrics'];

/** The Parquet files of a table in a snapshot: `<table>.parquet`, or `<table>/<week>.parquet`. */
export function tableFile(table: Table, week?: string): string {
  return week === undefined ? `${table}.parquet` : `${table}/${week}.parquet`;
}

/** The table a snapshot file belongs to. */
export function tableOfFile(path: string): string {
  return path.replace(/^parquet\/(latest|snapshots\/[^/]+)\//, '').replace(/(\/[^/]+)?\.parquet$/, '');
}

/**
 * Release rows of both kinds (derive.ts): the official ones and those of community or
 * unverified-version runs, told apart by source, engine_version_known and official. For
 * publishing only: a statistic reads releases.
 */
export const ALL_RELEASES = '(SELECT * FROM releases UNION ALL BY NAME SELECT * FROM community_releases)';

export function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

export async function scalar(connection: DuckDBConnection, sql: string): Promise<unknown> {
  return (await connection.runAndReadAll(sql)).getRowsJS()[0]?.[0];
}

/**
 * Every row of `columns` (text that holds no NUL) from `table`, read as one string joined by NUL
 * and split here: converting 100,000 rows to JS values one by one took longer.
 */
export async function textRows(connection: DuckDBConnection, table: string, columns: readonly string[]): Promise<string[][]> {
  const text = (await scalar(connection, `SELECT coalesce(string_agg(${columns.join(" || chr(0) || ")}, chr(0)), '') FROM ${table}`)) as string;
  const fields = text === '' ? [] : text.split('\0');
  const rows: string[][] = [];
  for (let i = 0; i + columns.length <= fields.length; i += columns.length) rows.push(fields.slice(i, i + columns.length));
  return rows;
}

/** The tables as SQL over the store's temp tables (derive.ts). */
export function tableQueries(where = 'true'): Record<Table, string> {
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
    history: `SELECT * FROM ${ALL_RELEASES} ORDER BY config_id, engine, engine_version_order, source, engine_version_known`,
    pareto: 'SELECT * FROM pareto ORDER BY scenario_id, engine, engine_version_order, interactivity',
    // The columns of the site's capacity.json, in the same order.
    capacity: 'SELECT * EXCLUDE (engine_version_order, tier_order) FROM capacity ORDER BY scenario_id, engine, engine_version_order, tier_order',
    // The comparisons of results/comparisons/ (comparison-tables.ts), one row per valid file.
    ab_comparisons: 'SELECT * FROM ab_comparisons ORDER BY started_at, file',
    bisections: 'SELECT * FROM bisections ORDER BY started_at, file',
  };
}

