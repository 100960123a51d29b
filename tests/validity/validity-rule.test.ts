/**
 * The validity rule (harness/store/validity.ts) on SYNTHETIC point rows in a real DuckDB: each
 * status from the columns it reads, the precedence when several apply, null inputs read as "not
 * checked", and the fidelity verdicts read from valid_runs only where compile has them.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exclusionSummary } from '../../harness/contract/validity.ts';
import { fidelityInputs, validityColumnsSql } from '../../harness/store/validity.ts';

interface PointRow {
  file: string;
  cache_verdict?: string | null;
  cache_observed?: number | null;
  cache_theoretical?: number | null;
  overloaded?: boolean | null;
  overload_reason?: string | null;
  completed?: number;
  /** Every headline distribution's sample count (null: none recorded). */
  n?: number | null;
}

const sql = (v: unknown) => (v === null || v === undefined ? 'NULL' : typeof v === 'string' ? `'${v}'` : String(v));
let instance: DuckDBInstance;
let connection: DuckDBConnection;

async function judge(points: readonly PointRow[], runs: ReadonlyArray<{ file: string; fidelity_verdict?: string | null; cache_equality?: string | null }> | null): Promise<Array<{ file: string; validity: string; validity_reason: string | null }>> {
  const values = points.map((p) => `(${[p.file, p.cache_verdict, p.cache_observed, p.cache_theoretical, p.overloaded, p.overload_reason, p.completed ?? 64, ...Array(5).fill(p.n === undefined ? 64 : p.n)].map(sql).join(', ')})`);
  // The points table's own types (columns.ts), so an all-null column is not read as another type.
  await connection.run(`CREATE OR REPLACE TEMP TABLE valid_points (file VARCHAR, cache_verdict VARCHAR, cache_observed DOUBLE, cache_theoretical DOUBLE, overloaded BOOLEAN, overload_reason VARCHAR, completed INTEGER, ttft_ms_n BIGINT, tpot_ms_n BIGINT, itl_ms_n BIGINT, e2el_ms_n BIGINT, interactivity_tok_s_n BIGINT)`);
  await connection.run(`INSERT INTO valid_points VALUES ${values.join(', ')}`);
  if (runs === null) await connection.run(`CREATE OR REPLACE TEMP VIEW valid_runs AS SELECT 'x' AS file`);
  else await connection.run(`CREATE OR REPLACE TEMP VIEW valid_runs AS SELECT file::VARCHAR AS file, fidelity_verdict::VARCHAR AS fidelity_verdict, cache_equality::VARCHAR AS cache_equality FROM (VALUES ${runs.map((r) => `(${[r.file, r.fidelity_verdict, r.cache_equality].map(sql).join(', ')})`).join(', ')}) t(file, fidelity_verdict, cache_equality)`);
  const fidelity = await fidelityInputs(connection);
  return (await connection.runAndReadAll(`SELECT p.file, ${validityColumnsSql(fidelity)} FROM valid_points p ${fidelity.join} ORDER BY p.file`)).getRowObjectsJS() as Array<{ file: string; validity: string; validity_reason: string | null }>;
}

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

describe('validity: one status per point, the first that applies', () => {
  it('gives each status from the column it reads, with its reason', async () => {
    const rows = await judge(
      [
        { file: 'a-valid' },
        { file: 'b-fidelity' },
        { file: 'c-equality' },
        { file: 'd-cache', cache_verdict: 'cache_mismatch', cache_observed: 0.12, cache_theoretical: 0.98 },
        { file: 'e-overloaded', overloaded: true, overload_reason: 'requests completed at 50.0% of the scheduled 8 requests/s' },
        { file: 'f-tiny', completed: 1, n: 1 },
      ],
      [{ file: 'a-valid', fidelity_verdict: 'pass', cache_equality: 'identical' }, { file: 'b-fidelity', fidelity_verdict: 'fail' }, { file: 'c-equality', fidelity_verdict: 'pass', cache_equality: 'differs' }],
    );
    expect(rows).toEqual([
      { file: 'a-valid', validity: 'valid', validity_reason: null },
      { file: 'b-fidelity', validity: 'invalid_output', validity_reason: expect.stringContaining('output-fidelity probe failed') },
      { file: 'c-equality', validity: 'invalid_output', validity_reason: expect.stringContaining('cache on and off') },
      { file: 'd-cache', validity: 'cache_mismatch', validity_reason: 'the server reused 12% of the prompt tokens where a perfect prefix cache reuses 98%' },
      { file: 'e-overloaded', validity: 'overloaded', validity_reason: expect.stringContaining('50.0%') },
      { file: 'f-tiny', validity: 'insufficient_samples', validity_reason: expect.stringContaining('1 completed requests; a median needs 2') },
    ]);
  });

  it('follows the precedence invalid_output > cache_mismatch > overloaded > insufficient_samples', async () => {
    const all = { cache_verdict: 'cache_mismatch', cache_observed: 0, cache_theoretical: 0.5, overloaded: true, completed: 1, n: 1 };
    const rows = await judge(
      [
        { file: 'a', ...all },
        { file: 'b', ...all },
        { file: 'c', ...all, cache_verdict: 'consistent' },
        { file: 'd', ...all, cache_verdict: null, overloaded: false },
      ],
      [{ file: 'a', fidelity_verdict: 'fail' }],
    );
    expect(rows.map((r) => r.validity)).toEqual(['invalid_output', 'cache_mismatch', 'overloaded', 'insufficient_samples']);
  });

  it('reads a missing verdict as not checked: no probe, no audit, no overload judgement, no sample count of one distribution', async () => {
    const rows = await judge([{ file: 'a', overloaded: null, cache_verdict: null }, { file: 'b', cache_verdict: 'consistent', overloaded: false }], [{ file: 'a', fidelity_verdict: null, cache_equality: null }]);
    expect(rows.map((r) => r.validity)).toEqual(['valid', 'valid']);
    // Without compile's fidelity columns at all (results before the probe), the same.
    expect((await judge([{ file: 'a' }], null)).map((r) => r.validity)).toEqual(['valid']);
  });

  it('keeps a point valid while one headline percentile is supported: p50 needs 2 samples, and none at all is insufficient', async () => {
    const rows = await judge([{ file: 'a', completed: 2, n: 2 }, { file: 'b', completed: 0, n: null }], null);
    expect(rows.map((r) => r.validity)).toEqual(['valid', 'insufficient_samples']);
  });
});

describe('exclusionSummary: what a page says about the points it leaves out', () => {
  it('counts them by status in precedence order, and says nothing when none is excluded', () => {
    expect(exclusionSummary(['valid', 'overloaded', 'insufficient_samples', 'insufficient_samples', 'valid'])).toBe('3 points excluded: 1 overloaded, 2 insufficient samples');
    expect(exclusionSummary(['invalid_output'], 'release')).toBe('1 release excluded: 1 invalid output');
    expect(exclusionSummary(['valid'])).toBeNull();
  });
});
