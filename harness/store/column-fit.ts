/**
 * Every value a valid file puts in the compiled tables fits its SQL column: what validate
 * accepts, compile can load. The check runs the same column getters the flattening runs
 * (columns.ts), so the two cannot disagree about which value goes where.
 */
import type { AddProblem } from './plausibility.ts';
import { CONFIG_COLUMNS, POINT_ONLY_COLUMNS, RUN_ONLY_COLUMNS, type PointContext, type RunContext, type SourceColumn, type SqlType, type Value } from './columns.ts';
import { INTEGER_MAX, limitRule, LIMIT_RULES } from './store-limits.ts';

function fits(type: SqlType, value: Value): string | null {
  if (value === null) return null;
  // Number.isInteger, isSafeInteger and isFinite are false for anything but a number.
  switch (type) {
    case 'INTEGER':
      // Stryker disable next-line ConditionalExpression: the typeof test only narrows the type for Math.abs (see above).
      return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= INTEGER_MAX ? null : `is ${value}, beyond a 32-bit integer (±${INTEGER_MAX})`;
    case 'BIGINT':
      return Number.isSafeInteger(value) ? null : `is ${value}, not a whole number below 2^53`;
    case 'DOUBLE':
      return Number.isFinite(value) ? null : `is ${value}, not a finite number`;
    case 'BOOLEAN':
      return typeof value === 'boolean' ? null : `is ${value}, not true or false`;
    case 'VARCHAR':
      return typeof value === 'string' ? null : `is ${value}, not text`;
    case 'TIMESTAMP':
    case 'DATE':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? null : `is ${value}, not a date`;
  }
}

/** The columns' values for one row, in column order. */
export function columnValues<C>(columns: ReadonlyArray<SourceColumn<C>>, context: C): Value[] {
  // Stryker disable next-line ArrayDeclaration: sized up front only to save the growing (equivalent).
  const values: Value[] = new Array(columns.length);
  for (let i = 0; i < columns.length; i++) values[i] = columns[i]!.get(context);
  return values;
}

function checkColumns<C>(columns: ReadonlyArray<SourceColumn<C>>, values: readonly Value[], at: string, add: AddProblem): void {
  columns.forEach((column, i) => {
    const problem = fits(column.type, values[i]!);
    if (problem !== null) add(at, limitRule(LIMIT_RULES.columnFit, `the compiled column ${column.name} (${column.type}) ${problem}`), 'a count this large is not a measurement; keep the numbers the harness wrote');
  });
}

/**
 * The values the check read, for the staging to write as they are (computing them was a tenth of
 * ingest, and computing them twice could let the two disagree). The run's own columns are not
 * kept: one of them (attestation) depends on the signature check, which comes after.
 */
export interface CheckedColumns {
  readonly config: readonly Value[];
  /** One per point, POINT_ONLY_COLUMNS in order. */
  readonly points: ReadonlyArray<readonly Value[]>;
}

export function checkColumnFit(context: RunContext, add: AddProblem): CheckedColumns {
  const config = columnValues(CONFIG_COLUMNS, context);
  checkColumns([...CONFIG_COLUMNS, ...RUN_ONLY_COLUMNS], [...config, ...columnValues(RUN_ONLY_COLUMNS, context)], '', add);
  const points = context.result.points.map((point, index) => {
    const values = columnValues(POINT_ONLY_COLUMNS, { ...context, point, index } satisfies PointContext);
    checkColumns(POINT_ONLY_COLUMNS, values, `points[${index}]`, add);
    return values;
  });
  return { config, points };
}
