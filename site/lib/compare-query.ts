/**
 * Two engine versions side by side on every configuration both measured, as SQL over the
 * compiled releases (one row per configuration × engine × version × where its runs come from,
 * geometric means over its runs). A release is named by its engine, version, source and whether the
 * version is known, so a community repeat of an official release is never mixed into it.
 * All four are bound parameters; the metrics are a fixed list.
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

/** One side of a comparison: a release as the compare page offers it. */
export interface CompareSide {
  readonly engine: string;
  readonly version: string;
  readonly source: string;
  /** false: an unverified version; null counts as known (no version to check). */
  readonly known: boolean | null;
}

const SIDE = `engine = ?::VARCHAR AND engine_version = ?::VARCHAR AND source = ?::VARCHAR AND coalesce(engine_version_known, true) = ?::BOOLEAN`;

/** The parameters of compareSql, in order. */
export function compareParameters(a: CompareSide, b: CompareSide): Array<string | boolean> {
  return [a, b].flatMap((side) => [side.engine, side.version, side.source, side.known !== false]);
}

/** Parameters: compareParameters(A, B). Columns: a_<metric>, b_<metric>. */
export function compareSql(): string {
  const columns = COMPARE_METRICS.map((m) => m.column).join(', ');
  const pairs = COMPARE_METRICS.map((m) => `a.${m.column} AS a_${m.column}, b.${m.column} AS b_${m.column}`).join(', ');
  return `
    WITH a AS (SELECT config_id, model, precision, hardware, workload, load, concurrency, rate, ${columns} FROM releases WHERE ${SIDE}),
         b AS (SELECT config_id, ${columns} FROM releases WHERE ${SIDE})
    SELECT a.model, a.precision, a.hardware, a.workload, a.load, ${pairs}
    FROM a JOIN b USING (config_id)
    ORDER BY a.model, a.hardware, a.workload, a.concurrency NULLS LAST, a.rate NULLS LAST, a.load`;
}
