/**
 * What makes two points comparable, and the short ids that name it:
 * - a scenario is model × precision × hardware × workload (spec hash) × methodology (a page);
 * - a configuration is a scenario at one load point (a leaderboard row, a series in history).
 * Anything else differing is not comparable, so series break there. The ids are computed once,
 * when a point enters the store, from the point's own columns.
 */
import { columnOf, type Column } from './columns.ts';

export const SCENARIO_KEY = ['model', 'precision', 'hardware', 'gpu', 'gpu_count', 'workload', 'workload_sha256', 'methodology'] as const;
export const CONFIG_KEY = [...SCENARIO_KEY, 'load', 'load_mode', 'concurrency', 'rate'] as const;

/** SQL for the 12-hex id of a key over the columns in scope. */
export function idSql(key: readonly string[]): string {
  return `substr(md5(concat_ws('|', ${key.map((k) => `coalesce(CAST(${columnOf(k)} AS VARCHAR), '')`).join(', ')})), 1, 12)`;
}

/** The id columns of every stored point. */
export const ID_COLUMNS: readonly Column[] = [
  { name: 'scenario_id', type: 'VARCHAR', unit: null, description: 'Scenario id: hash of model, precision, hardware, GPU, workload and its spec, methodology' },
  { name: 'config_id', type: 'VARCHAR', unit: null, description: 'Configuration id: the scenario at one load point' },
];
