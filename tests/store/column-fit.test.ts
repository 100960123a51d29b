/**
 * Every value validate accepts fits the SQL column compile loads it into (column-fit.ts): a
 * value past a column's type is one [column-fit] problem naming the column, its type, the value
 * and the limit, at the run ("") or at its point. The schema already refuses most wrong types in a
 * file; the rule is checked here on its own, on SYNTHETIC results (claim-fixtures.ts) edited past
 * each type.
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { checkColumnFit } from '../../harness/store/column-fit.ts';
import { CONFIG_COLUMNS, POINT_ONLY_COLUMNS } from '../../harness/store/columns.ts';
import { synthetic } from './claim-fixtures.ts';

const FIX = 'a count this large is not a measurement; keep the numbers the harness wrote';

/** checkColumnFit's problems for `result`, as "path: message"; every one with the rule's fix. */
function columnProblems(result: RunResult): string[] {
  const problems: string[] = [];
  checkColumnFit({ result, run: result.run!, relativePath: 'f.json', sha256: 'ab'.repeat(32) }, (path, message, fix) => {
    expect(fix).toBe(FIX);
    problems.push(`${path}: ${message}`);
  });
  return problems;
}

function edited(edit: (result: RunResult) => void): RunResult {
  const result = synthetic();
  edit(result);
  return result;
}

/** Values set where no schema stands in the way: the rule's own input. */
const set = (object: object, key: string, value: unknown) => void ((object as Record<string, unknown>)[key] = value);

describe('column-fit', () => {
  it('accepts the synthetic run, its nulls included (null fits any column)', () => {
    const result = synthetic();
    expect(result.run!.engine.image).toBeNull();
    expect(columnProblems(result)).toEqual([]);
  });

  it('returns the values it checked, in column order, for the staging to write as they are', () => {
    const result = synthetic();
    const context = { result, run: result.run!, relativePath: 'f.json', sha256: 'ab'.repeat(32) };
    const checked = checkColumnFit(context, () => undefined);
    expect(checked.config).toEqual(CONFIG_COLUMNS.map((c) => c.get(context)));
    expect(checked.config[CONFIG_COLUMNS.findIndex((c) => c.name === 'engine')]).toBe(result.run!.engine.name);
    expect(checked.points).toHaveLength(result.points.length);
    checked.points.forEach((values, index) => expect(values).toEqual(POINT_ONLY_COLUMNS.map((c) => c.get({ ...context, point: result.points[index]!, index }))));
  });

  it.each([
    ['INTEGER: one past 2^31 − 1', (r: RunResult) => (r.run!.host.cpus = 2 ** 31), 'host_cpus (INTEGER) is 2147483648, beyond a 32-bit integer (±2147483647)'],
    ['INTEGER: one below −(2^31 − 1)', (r: RunResult) => (r.run!.host.cpus = -(2 ** 31)), 'host_cpus (INTEGER) is -2147483648, beyond a 32-bit integer (±2147483647)'],
    ['INTEGER: not whole', (r: RunResult) => (r.run!.host.cpus = 1.5), 'host_cpus (INTEGER) is 1.5, beyond a 32-bit integer (±2147483647)'],
    ['INTEGER: text', (r: RunResult) => set(r.run!.host, 'cpus', '4'), 'host_cpus (INTEGER) is 4, beyond a 32-bit integer (±2147483647)'],
    ['BIGINT: 2^53', (r: RunResult) => (r.run!.host.memory_bytes = 2 ** 53), 'host_memory_bytes (BIGINT) is 9007199254740992, not a whole number below 2^53'],
    ['BIGINT: text', (r: RunResult) => set(r.run!.host, 'memory_bytes', '1'), 'host_memory_bytes (BIGINT) is 1, not a whole number below 2^53'],
    ['DOUBLE: infinite', (r: RunResult) => (r.outcome.failure_rate = Infinity), 'failure_rate (DOUBLE) is Infinity, not a finite number'],
    ['DOUBLE: NaN', (r: RunResult) => (r.outcome.failure_rate = NaN), 'failure_rate (DOUBLE) is NaN, not a finite number'],
    ['DOUBLE: text', (r: RunResult) => set(r.outcome, 'failure_rate', '0'), 'failure_rate (DOUBLE) is 0, not a finite number'],
    ['BOOLEAN', (r: RunResult) => set(r.harness, 'git_dirty', 'yes'), 'harness_git_dirty (BOOLEAN) is yes, not true or false'],
    ['VARCHAR', (r: RunResult) => set(r.run!.model, 'revision', 5), 'model_revision (VARCHAR) is 5, not text'],
    ['TIMESTAMP', (r: RunResult) => (r.finished_at = 'yesterday'), 'finished_at (TIMESTAMP) is yesterday, not a date'],
    ['TIMESTAMP: a number', (r: RunResult) => set(r, 'finished_at', 1), 'finished_at (TIMESTAMP) is 1, not a date'],
  ])('refuses a value past its column at the run: %s', (_what, edit, message) => {
    expect(columnProblems(edited(edit))).toEqual([`: [column-fit] the compiled column ${message}`]);
  });

  it('takes each bound exactly: ±(2^31 − 1) and 2^53 − 1 fit', () => {
    for (const cpus of [2 ** 31 - 1, -(2 ** 31 - 1)]) expect(columnProblems(edited((r) => (r.run!.host.cpus = cpus))), String(cpus)).toEqual([]);
    expect(columnProblems(edited((r) => (r.run!.host.memory_bytes = 2 ** 53 - 1)))).toEqual([]);
  });

  it('a date column: the start time feeds the TIMESTAMP and, its first 10 characters, the DATE column', () => {
    expect(columnProblems(edited((r) => (r.created_at = 'yesterday, 10:00')))).toEqual([
      ': [column-fit] the compiled column created_at (TIMESTAMP) is yesterday, 10:00, not a date',
      ': [column-fit] the compiled column run_date (DATE) is yesterday,, not a date',
    ]);
  });

  it("names a point's column at its point", () => {
    expect(columnProblems(edited((r) => (r.points[1]!.started_at = 'soon')))).toEqual(['points[1]: [column-fit] the compiled column started_at (TIMESTAMP) is soon, not a date']);
  });
});
