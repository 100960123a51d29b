/**
 * The validity rule (harness/store/validity.ts) on SYNTHETIC point rows in a real DuckDB: each
 * status from the columns it reads, the precedence when several apply, null inputs read as "not
 * checked", and the fidelity verdicts read from valid_runs only where compile has them.
 */
import { memoryDuckDb } from '../store/memory-duckdb.ts';
import { describe, expect, it } from 'vitest';
import { exclusionSummary } from '../../harness/contract/validity.ts';
import { describeValidityColumn, fidelityInputs, fidelityStateDigest, releaseValiditySql, validityColumnsSql } from '../../harness/store/validity.ts';

interface PointRow {
  file: string;
  cache_verdict?: string | null;
  cache_observed?: number | null;
  cache_theoretical?: number | null;
  overloaded?: boolean | null;
  overload_reason?: string | null;
  completed?: number | null;
  /** Every headline distribution's sample count (null: none recorded). */
  n?: number | null;
  /** One distribution's count instead of n. */
  counts?: Partial<Record<(typeof COUNT_COLUMNS)[number], number | null>>;
}

const COUNT_COLUMNS = ['ttft_ms_n', 'tpot_ms_n', 'itl_ms_n', 'e2el_ms_n', 'interactivity_tok_s_n'] as const;

const sql = (v: unknown) => (v === null || v === undefined ? 'NULL' : typeof v === 'string' ? `'${v}'` : String(v));
const db = memoryDuckDb();

/** `runs`: the runs' fidelity verdicts; null: compile has no fidelity columns; a string: the SELECT that stands for valid_runs. */
async function judge(points: readonly PointRow[], runs: ReadonlyArray<{ file: string; fidelity_verdict?: string | null; cache_equality?: string | null }> | null | string): Promise<Array<{ file: string; validity: string; validity_reason: string | null }>> {
  const values = points.map((p) => `(${[p.file, p.cache_verdict, p.cache_observed, p.cache_theoretical, p.overloaded, p.overload_reason, p.completed === undefined ? 64 : p.completed, ...COUNT_COLUMNS.map((c) => (p.counts !== undefined && c in p.counts ? p.counts[c] : p.n === undefined ? 64 : p.n))].map(sql).join(', ')})`);
  // The points table's own types (columns.ts), so an all-null column is not read as another type.
  await db.connection.run(`CREATE OR REPLACE TEMP TABLE valid_points (file VARCHAR, cache_verdict VARCHAR, cache_observed DOUBLE, cache_theoretical DOUBLE, overloaded BOOLEAN, overload_reason VARCHAR, completed INTEGER, ttft_ms_n BIGINT, tpot_ms_n BIGINT, itl_ms_n BIGINT, e2el_ms_n BIGINT, interactivity_tok_s_n BIGINT)`);
  await db.connection.run(`INSERT INTO valid_points VALUES ${values.join(', ')}`);
  if (runs === null) await db.connection.run(`CREATE OR REPLACE TEMP VIEW valid_runs AS SELECT 'x' AS file`);
  else if (typeof runs === 'string') await db.connection.run(`CREATE OR REPLACE TEMP VIEW valid_runs AS ${runs}`);
  else await db.connection.run(`CREATE OR REPLACE TEMP VIEW valid_runs AS SELECT file::VARCHAR AS file, fidelity_verdict::VARCHAR AS fidelity_verdict, cache_equality::VARCHAR AS cache_equality FROM (VALUES ${runs.map((r) => `(${[r.file, r.fidelity_verdict, r.cache_equality].map(sql).join(', ')})`).join(', ')}) t(file, fidelity_verdict, cache_equality)`);
  const fidelity = await fidelityInputs(db.connection);
  return (await db.connection.runAndReadAll(`SELECT p.file, ${validityColumnsSql(fidelity)} FROM valid_points p ${fidelity.join} ORDER BY p.file`)).getRowObjectsJS() as Array<{ file: string; validity: string; validity_reason: string | null }>;
}


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

describe('validity: the reason of each status, in words', () => {
  it('says what failed, and what it does not know where a column is null', async () => {
    const rows = await judge(
      [
        { file: 'a-fidelity' },
        { file: 'b-equality' },
        { file: 'c-cache-unknown', cache_verdict: 'cache_mismatch', cache_observed: null, cache_theoretical: null },
        { file: 'd-overloaded-unsaid', overloaded: true, overload_reason: null },
        { file: 'e-none-completed', completed: null, n: null },
      ],
      [{ file: 'a-fidelity', fidelity_verdict: 'fail', cache_equality: 'identical' }, { file: 'b-equality', fidelity_verdict: null, cache_equality: 'differs' }],
    );
    expect(rows.map((r) => [r.validity, r.validity_reason])).toEqual([
      ['invalid_output', 'outputs differ from the reference engine version (output-fidelity probe failed)'],
      ['invalid_output', 'greedy outputs differ with the prefix cache on and off'],
      ['cache_mismatch', 'the server reused an unknown share of the prompt tokens where a perfect prefix cache reuses more'],
      ['overloaded', 'fell behind its schedule'],
      ['insufficient_samples', 'too few samples for any headline percentile (0 completed requests; a median needs 2)'],
    ]);
  });

  it('keeps a point valid on any one headline percentile its sample supports, whichever distribution it is', async () => {
    const one = (c: (typeof COUNT_COLUMNS)[number], n: number) => ({ n: 1, completed: 1, counts: { [c]: n } });
    const rows = await judge(
      [
        { file: 'a-ttft', ...one('ttft_ms_n', 2) },
        { file: 'b-tpot', ...one('tpot_ms_n', 2) },
        { file: 'c-e2el', ...one('e2el_ms_n', 2) },
        { file: 'd-interactivity', ...one('interactivity_tok_s_n', 2) },
        // ITL's headline percentile is p99: 99 per-token gaps support nothing, 100 do.
        { file: 'e-itl-99', ...one('itl_ms_n', 99) },
        { file: 'f-itl-100', ...one('itl_ms_n', 100) },
      ],
      null,
    );
    expect(rows.map((r) => [r.file, r.validity])).toEqual([['a-ttft', 'valid'], ['b-tpot', 'valid'], ['c-e2el', 'valid'], ['d-interactivity', 'valid'], ['e-itl-99', 'insufficient_samples'], ['f-itl-100', 'valid']]);
  });

  it('reads the one fidelity column compile has when it lacks the other', async () => {
    const onlyVerdicts = `SELECT * FROM (VALUES ('a', 'fail'), ('b', 'pass')) t(file, fidelity_verdict)`;
    expect((await judge([{ file: 'a' }, { file: 'b' }], onlyVerdicts)).map((r) => r.validity)).toEqual(['invalid_output', 'valid']);
    const fidelity = await fidelityInputs(db.connection);
    expect([fidelity.verdict, fidelity.equality]).toEqual(['validity_run.fidelity_verdict', 'NULL']);
    const onlyEquality = `SELECT * FROM (VALUES ('a', 'identical'), ('b', 'differs')) t(file, cache_equality)`;
    expect((await judge([{ file: 'a' }, { file: 'b' }], onlyEquality)).map((r) => r.validity)).toEqual(['valid', 'invalid_output']);
  });
});

describe('the digest of every run’s fidelity verdicts (the release cache’s key)', () => {
  const runs = async (rows: ReadonlyArray<[string, string | null, string | null]>) => {
    await db.connection.run(`CREATE OR REPLACE TEMP VIEW valid_runs AS SELECT file::VARCHAR AS file, v::VARCHAR AS fidelity_verdict, e::VARCHAR AS cache_equality FROM (VALUES ${rows.map((r) => `(${r.map(sql).join(', ')})`).join(', ')}) t(file, v, e)`);
    return fidelityStateDigest(db.connection, await fidelityInputs(db.connection));
  };

  it('is the same for the same verdicts, whatever order the runs are read in, and changes with any verdict', async () => {
    const base = await runs([['a', 'pass', 'identical'], ['b', null, null]]);
    expect(base).toMatch(/^[0-9a-f]{32}$/);
    expect(await runs([['b', null, null], ['a', 'pass', 'identical']])).toBe(base);
    const changed = [
      await runs([['a', 'fail', 'identical'], ['b', null, null]]),
      await runs([['a', 'pass', 'differs'], ['b', null, null]]),
      await runs([['a', 'pass', 'identical'], ['b', 'pass', null]]),
      await runs([['a', 'pass', 'identical'], ['b', null, null], ['c', null, 'identical']]),
    ];
    expect(new Set([base, ...changed]).size).toBe(5);
  });

  it('is unchanged by runs that have no verdict (ingest marks their own version to rebuild; the whole cache is not)', async () => {
    const base = await runs([['a', 'pass', 'identical'], ['b', null, null]]);
    expect(await runs([['a', 'pass', 'identical'], ['b', null, null], ['c', null, null]])).toBe(base);
    expect(await runs([['a', 'pass', 'identical']])).toBe(base);
    // No verdict anywhere is one state, whatever the runs.
    expect(await runs([['b', null, null]])).toBe(await runs([['c', null, null], ['d', null, null]]));
  });

  it('is "none" where compile has no verdicts (no fidelity columns)', async () => {
    await db.connection.run(`CREATE OR REPLACE TEMP VIEW valid_runs AS SELECT 'a' AS file`);
    expect(await fidelityStateDigest(db.connection, await fidelityInputs(db.connection))).toBe('none');
  });
});

describe('a release’s validity', () => {
  it('is its points’ first status by precedence, with that point’s reason and how many points were not valid', async () => {
    const points: Array<[string, string, string | null]> = [
      ['r1', 'valid', null], ['r1', 'insufficient_samples', 'few'], ['r1', 'overloaded', 'behind'], ['r1', 'insufficient_samples', 'few again'],
      ['r2', 'valid', null], ['r2', 'valid', null],
      ['r3', 'overloaded', 'behind'], ['r3', 'cache_mismatch', 'no reuse'], ['r3', 'invalid_output', 'wrong'],
    ];
    const rows = (await db.connection.runAndReadAll(`SELECT release, ${releaseValiditySql()} FROM (VALUES ${points.map((p) => `(${p.map(sql).join(', ')})`).join(', ')}) t(release, validity, validity_reason) GROUP BY release ORDER BY release`)).getRowObjectsJS();
    expect(rows).toEqual([
      { release: 'r1', validity: 'overloaded', validity_reason: 'behind', invalid_points: 3 },
      { release: 'r2', validity: 'valid', validity_reason: null, invalid_points: 0 },
      { release: 'r3', validity: 'invalid_output', validity_reason: 'wrong', invalid_points: 3 },
    ]);
  });

  it('has a dictionary line for each of its columns, and none for another column', () => {
    expect(describeValidityColumn('validity')).toEqual({ unit: null, description: expect.stringContaining('(invalid_output > cache_mismatch > overloaded > insufficient_samples > valid)') });
    expect(describeValidityColumn('validity')!.description).toMatch(/^The first status, by precedence .*never ranked, compared, pooled or used as a baseline/);
    expect(describeValidityColumn('validity_reason')).toEqual({ unit: null, description: 'Why validity is not valid, in words; null when valid' });
    expect(describeValidityColumn('invalid_points')).toEqual({ unit: 'points', description: "The release's points (one per run) whose validity is not valid" });
    expect(describeValidityColumn('overloaded')).toBeNull();
  });
});

describe('exclusionSummary: what a page says about the points it leaves out', () => {
  it('counts them by status in precedence order, and says nothing when none is excluded', () => {
    expect(exclusionSummary(['valid', 'overloaded', 'insufficient_samples', 'insufficient_samples', 'valid'])).toBe('3 points excluded: 1 overloaded, 2 insufficient samples');
    expect(exclusionSummary(['invalid_output'], 'release')).toBe('1 release excluded: 1 invalid output');
    expect(exclusionSummary(['valid'])).toBeNull();
  });
});
