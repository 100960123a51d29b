/**
 * Two engine versions side by side on every configuration both measured, as SQL over the
 * compiled releases (one row per configuration × engine × version × where its runs come from,
 * geometric means over its runs). A release is named by its engine, version, source and whether the
 * version is known, so a community repeat of an official release is never mixed into it.
 * All four are bound parameters; the metrics are a fixed list. Each side brings its validity
 * (docs/metrics.md#validity): an invalid release is shown, greyed with its reason, and no change
 * is computed against or for it.
 */
export { COMPARE_METRICS } from '../../harness/contract/metric-catalog.ts';
import { COMPARE_METRICS } from '../../harness/contract/metric-catalog.ts';
import { VALIDITY_STATUSES, type Validity } from '../../harness/contract/validity.ts';

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

/** What each side carries besides the metrics: its validity and why (docs/metrics.md#validity). */
const SIDE_COLUMNS = ['validity', 'validity_reason'] as const;

/** Parameters: compareParameters(A, B). Columns: config_id (what compare-significance.ts finds each side's runs by), model … load, a_<metric>, b_<metric>, a_validity, a_validity_reason, b_validity, b_validity_reason. */
export function compareSql(): string {
  const columns = [...COMPARE_METRICS.map((m) => m.column), ...SIDE_COLUMNS].join(', ');
  const pairs = [...COMPARE_METRICS.map((m) => m.column), ...SIDE_COLUMNS].map((c) => `a.${c} AS a_${c}, b.${c} AS b_${c}`).join(', ');
  return `
    WITH a AS (SELECT config_id, model, precision, hardware, workload, load, concurrency, rate, ${columns} FROM releases WHERE ${SIDE}),
         b AS (SELECT config_id, ${columns} FROM releases WHERE ${SIDE})
    SELECT config_id, a.model, a.precision, a.hardware, a.workload, a.load, ${pairs}
    FROM a JOIN b USING (config_id)
    ORDER BY a.model, a.hardware, a.workload, a.concurrency NULLS LAST, a.rate NULLS LAST, a.load`;
}

/** One side of a compared row that is not valid: shown greyed with its status and reason. */
export interface InvalidSide {
  readonly side: 'A' | 'B';
  readonly validity: Exclude<Validity, 'valid'>;
  readonly reason: string | null;
}

/** A side's status; data compiled before validity travelled in releases.arrow reads as valid, as compile judged nothing then. */
function validityOf(row: CompareRow, side: 'a' | 'b'): Validity {
  const value = row[`${side}_validity`];
  return typeof value === 'string' && (VALIDITY_STATUSES as readonly string[]).includes(value) ? (value as Validity) : 'valid';
}

/** The sides of a compared row that are not valid, A first; empty when both are. */
export function invalidSides(row: CompareRow): InvalidSide[] {
  return (['a', 'b'] as const).flatMap((side): InvalidSide[] => {
    const validity = validityOf(row, side);
    if (validity === 'valid') return [];
    const reason = row[`${side}_validity_reason`];
    return [{ side: side === 'a' ? 'A' : 'B', validity, reason: typeof reason === 'string' ? reason : null }];
  });
}

/** A compared row's status: the first, by precedence, of its two sides' (valid when both are). */
export function rowValidity(row: CompareRow): Validity {
  return VALIDITY_STATUSES.find((status) => validityOf(row, 'a') === status || validityOf(row, 'b') === status) ?? 'valid';
}

/**
 * B's change against A in percent; null when a value is missing or zero, or when either side is
 * not valid: an invalid release never yields a faster or slower.
 */
export function changePct(row: CompareRow, column: string): number | null {
  const a = row[`a_${column}`];
  const b = row[`b_${column}`];
  if (typeof a !== 'number' || typeof b !== 'number' || a === 0 || b === 0 || invalidSides(row).length > 0) return null;
  return (b / a - 1) * 100;
}
