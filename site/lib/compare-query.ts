/**
 * Two engine versions side by side on every configuration both measured, as SQL over the
 * compiled releases (one row per configuration × engine × version, medians over its runs).
 * Engines and versions are bound parameters; the metrics are a fixed list.
 */
export { COMPARE_METRICS } from '../../harness/contract/metric-catalog.ts';
import { COMPARE_METRICS } from '../../harness/contract/metric-catalog.ts';

export interface CompareRow {
  readonly model: string;
  readonly precision: string;
  readonly hardware: string;
  readonly workload: string;
  readonly load: string;
  readonly [metric: string]: string | number | null;
}

/** Parameters: engine A, version A, engine B, version B. Columns: a_<metric>, b_<metric>. */
export function compareSql(): string {
  const columns = COMPARE_METRICS.map((m) => m.column).join(', ');
  const pairs = COMPARE_METRICS.map((m) => `a.${m.column} AS a_${m.column}, b.${m.column} AS b_${m.column}`).join(', ');
  return `
    WITH a AS (SELECT config_id, model, precision, hardware, workload, load, concurrency, rate, ${columns} FROM releases WHERE engine = ?::VARCHAR AND engine_version = ?::VARCHAR),
         b AS (SELECT config_id, ${columns} FROM releases WHERE engine = ?::VARCHAR AND engine_version = ?::VARCHAR)
    SELECT a.model, a.precision, a.hardware, a.workload, a.load, ${pairs}
    FROM a JOIN b USING (config_id)
    ORDER BY a.model, a.hardware, a.workload, a.concurrency NULLS LAST, a.rate NULLS LAST, a.load`;
}
