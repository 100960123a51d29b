/**
 * What a point contributes to the published statistics (harness/store/published-values.ts), on
 * hand-made SYNTHETIC point and release rows in a real in-memory DuckDB: a percentile only where
 * its sample supports it (n ≥ ⌈1/(1−p)⌉, docs/metrics.md#sample-sufficiency, taken exactly at each
 * minimum), throughput from the steady window where there is one, what a release's values rest on,
 * and who is ranked. Every expected value is read off those definitions.
 */
import { memoryDuckDb } from './memory-duckdb.ts';
import { describe, expect, it } from 'vitest';
import { describeEvidenceColumn, PERCENTILE_HEADLINES, publishedPointsSql, rankSql, releaseEvidenceSql, supportedSql } from '../../harness/store/published-values.ts';

const db = memoryDuckDb();

type Row = Record<string, unknown>;
const rowsOf = async (query: string) => (await db.connection.runAndReadAll(query)).getRowObjectsJS() as Row[];
const sql = (v: unknown) => (v === null || v === undefined ? 'NULL' : typeof v === 'number' ? `${v}::DOUBLE` : typeof v === 'boolean' ? String(v) : `'${String(v)}'`);

/** A table `name` of `rows`, each column typed by its first value that is not null (DOUBLE for numbers and for a column of nulls). */
async function table(name: string, rows: readonly Row[]): Promise<void> {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const type = (c: string) => {
    const v = rows.map((r) => r[c]).find((x) => x !== null && x !== undefined);
    return typeof v === 'string' ? 'VARCHAR' : typeof v === 'boolean' ? 'BOOLEAN' : 'DOUBLE';
  };
  const values = rows.map((r) => `(${columns.map((c) => `${sql(r[c])}::${type(c)}`).join(', ')})`);
  await db.connection.run(`CREATE OR REPLACE TEMP TABLE ${name} AS SELECT * FROM (VALUES ${values.join(', ')}) t(${columns.map((c) => `"${c}"`).join(', ')})`);
}

/** A priced point: every headline percentile 1 … 8 (in PERCENTILE_HEADLINES order), every count `n`, a whole-run throughput of 100 tok/s and 2 req/s on 2 GPUs. */
function point(changes: Row = {}, n: number | null = 1000): Row {
  const percentiles = Object.fromEntries(PERCENTILE_HEADLINES.map((c, i) => [c, i + 1]));
  const counts = Object.fromEntries(['interactivity_tok_s_n', 'ttft_ms_n', 'tpot_ms_n', 'itl_ms_n', 'e2el_ms_n'].map((c) => [c, n]));
  return { id: 'p', ...percentiles, ...counts, output_throughput: 100, request_throughput: 2, output_throughput_per_gpu: 50, gpu_count: 2, steady_output_throughput: null, steady_request_throughput: null, ...changes };
}

async function published(points: readonly Row[]): Promise<Row[]> {
  await table('priced_points', points);
  await db.connection.run(publishedPointsSql());
  return rowsOf(`SELECT * FROM published_points ORDER BY id`);
}

describe('a point’s published percentiles', () => {
  it('lists the headline percentiles', () => {
    expect(PERCENTILE_HEADLINES).toEqual(['interactivity_tok_s_p50', 'ttft_ms_p50', 'ttft_ms_p95', 'ttft_ms_p99', 'tpot_ms_p50', 'tpot_ms_p95', 'itl_ms_p99', 'e2el_ms_p50']);
  });

  it('keeps each percentile whose sample reaches its minimum and drops the rest (no count: none)', async () => {
    const rows = await published([
      point({ id: 'a-1' }, 1),
      point({ id: 'b-2' }, 2),
      point({ id: 'c-19' }, 19),
      point({ id: 'd-20' }, 20),
      point({ id: 'e-99' }, 99),
      point({ id: 'f-100' }, 100),
      point({ id: 'g-none' }, null),
    ]);
    const kept = (r: Row) => PERCENTILE_HEADLINES.filter((c) => r[c] !== null);
    expect(rows.map((r) => [r.id, kept(r)])).toEqual([
      ['a-1', []],
      ['b-2', ['interactivity_tok_s_p50', 'ttft_ms_p50', 'tpot_ms_p50', 'e2el_ms_p50']],
      ['c-19', ['interactivity_tok_s_p50', 'ttft_ms_p50', 'tpot_ms_p50', 'e2el_ms_p50']],
      ['d-20', ['interactivity_tok_s_p50', 'ttft_ms_p50', 'ttft_ms_p95', 'tpot_ms_p50', 'tpot_ms_p95', 'e2el_ms_p50']],
      ['e-99', ['interactivity_tok_s_p50', 'ttft_ms_p50', 'ttft_ms_p95', 'tpot_ms_p50', 'tpot_ms_p95', 'e2el_ms_p50']],
      ['f-100', PERCENTILE_HEADLINES],
      ['g-none', []],
    ]);
    // A kept value is the point's own, untouched.
    expect(PERCENTILE_HEADLINES.map((c) => rows[5]![c])).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('reads each percentile’s own distribution’s count', async () => {
    const [row] = await published([point({ id: 'a', ttft_ms_n: 100, tpot_ms_n: 1, itl_ms_n: 1, e2el_ms_n: 1, interactivity_tok_s_n: 1 })]);
    expect(PERCENTILE_HEADLINES.filter((c) => row![c] !== null)).toEqual(['ttft_ms_p50', 'ttft_ms_p95', 'ttft_ms_p99']);
  });

  it('is SQL that supports any non-percentile column', () => {
    expect(supportedSql('output_throughput')).toBe('true');
    expect(supportedSql('ttft_ms_p95')).toBe('coalesce("ttft_ms_n" >= 20, false)');
  });
});

describe('a point’s published throughput', () => {
  it('is the steady window’s where it has one, else the whole run’s; per GPU only with GPUs', async () => {
    const rows = await published([
      point({ id: 'a-steady', steady_output_throughput: 120, steady_request_throughput: 3 }),
      point({ id: 'b-whole' }),
      point({ id: 'c-cpu', gpu_count: 0, output_throughput_per_gpu: null }),
    ]);
    expect(rows.map((r) => [r.id, r.output_throughput, r.request_throughput, r.output_throughput_per_gpu, r.throughput_window])).toEqual([
      ['a-steady', 120, 3, 60, 'steady'],
      ['b-whole', 100, 2, 50, 'whole run'],
      ['c-cpu', 100, 2, null, 'whole run'],
    ]);
  });
});

describe('what a release’s values rest on', () => {
  const evidence = async (points: readonly Row[]) => {
    await table('points', points);
    return rowsOf(`SELECT release, ${releaseEvidenceSql()} FROM points GROUP BY release ORDER BY release`);
  };
  const run = (release: string, changes: Row = {}): Row => {
    const counts = Object.fromEntries(['interactivity_tok_s_n', 'ttft_ms_n', 'tpot_ms_n', 'itl_ms_n', 'e2el_ms_n'].map((c) => [c, 50]));
    return { release, ...counts, throughput_window: 'whole run', overloaded: false, overload_reason: null, validity: 'valid', validity_reason: null, ...changes };
  };

  it('gives the smallest and largest sample behind each percentile, the window, overload and validity of its runs', async () => {
    const rows = await evidence([
      run('a', { ttft_ms_n: 8, throughput_window: 'steady' }), run('a', { ttft_ms_n: 64, throughput_window: 'steady' }),
      run('b'), run('b', { overloaded: null }),
      run('c', { throughput_window: 'steady', overloaded: true, overload_reason: 'behind at 80%', validity: 'overloaded', validity_reason: 'behind at 80%' }), run('c', { overloaded: true, overload_reason: 'behind at 50%', validity: 'overloaded', validity_reason: 'behind at 50%' }), run('c', { overload_reason: 'not overloaded' }),
    ]);
    expect(rows.map((r) => [r.release, r.ttft_ms_p95__samples_min, r.ttft_ms_p95__samples_max, r.tpot_ms_p50__samples_min, r.itl_ms_p99__samples_max, r.throughput_window, r.overloaded, r.overload_reason, r.validity, r.invalid_points])).toEqual([
      ['a', 8, 64, 50, 50, 'steady', false, null, 'valid', 0],
      ['b', 50, 50, 50, 50, 'whole run', false, null, 'valid', 0],
      ['c', 50, 50, 50, 50, 'mixed', true, 'behind at 50%', 'overloaded', 2],
    ]);
    const columns = Object.keys(rows[0]!);
    expect(PERCENTILE_HEADLINES.every((c) => columns.includes(`${c}__samples_min`) && columns.includes(`${c}__samples_max`))).toBe(true);
  });
});

describe('a leaderboard rank', () => {
  const ranked = async (rows: readonly Row[], column: string, better: 'higher' | 'lower') => {
    await table('board', rows.map((r) => ({ config_id: 'c', validity: 'valid', throughput_window: 'whole run', ...r })));
    return (await rowsOf(`SELECT id, ${rankSql(column, better)} FROM board ORDER BY id`)).map((r) => [r.id, r[`rank_${column}`]]);
  };

  it('ranks lower-is-better ascending and higher-is-better descending, ties sharing a place, per configuration', async () => {
    const rows = [{ id: 'a', ttft_ms_p50: 30, request_throughput: 1 }, { id: 'b', ttft_ms_p50: 10, request_throughput: 3 }, { id: 'c', ttft_ms_p50: 10, request_throughput: 2 }, { id: 'd', ttft_ms_p50: 50, request_throughput: 9, config_id: 'other' }];
    expect(await ranked(rows, 'ttft_ms_p50', 'lower')).toEqual([['a', 3], ['b', 1], ['c', 1], ['d', 1]]);
    expect(await ranked(rows, 'request_throughput', 'higher')).toEqual([['a', 3], ['b', 1], ['c', 2], ['d', 1]]);
  });

  it('gives no rank, and takes no place, to a release without a value or not valid', async () => {
    const rows = [{ id: 'a', ttft_ms_p50: 30 }, { id: 'b', ttft_ms_p50: null }, { id: 'c', ttft_ms_p50: 5, validity: 'overloaded' }, { id: 'd', ttft_ms_p50: 40 }];
    expect(await ranked(rows, 'ttft_ms_p50', 'lower')).toEqual([['a', 1], ['b', null], ['c', null], ['d', 2]]);
  });

  it('ranks throughput only among releases measured over the same window, never a mixed one', async () => {
    const rows = [
      { id: 'a', output_throughput: 100, throughput_window: 'steady' },
      { id: 'b', output_throughput: 200, throughput_window: 'steady' },
      { id: 'c', output_throughput: 150, throughput_window: 'whole run' },
      { id: 'd', output_throughput: 300, throughput_window: 'mixed' },
      { id: 'e', output_throughput: 90, throughput_window: 'whole run' },
    ];
    expect(await ranked(rows, 'output_throughput', 'higher')).toEqual([['a', 2], ['b', 1], ['c', 1], ['d', null], ['e', 2]]);
    // Any other metric of a mixed release is ranked: the window is throughput's alone.
    expect(await ranked(rows.map((r) => ({ ...r, ttft_ms_p50: r.output_throughput })), 'ttft_ms_p50', 'lower')).toEqual([['a', 2], ['b', 4], ['c', 3], ['d', 5], ['e', 1]]);
  });
});

describe('the dictionary lines of the evidence columns', () => {
  it('say which sample each count column is, and what the window is', () => {
    expect(describeEvidenceColumn('ttft_ms_p95__samples_min')).toEqual({ unit: 'samples', description: expect.stringMatching(/^The smallest sample behind ttft_ms_p95 among the release's runs \(ttft_ms_n\); p95 is published only from runs with at least 20 \(docs\/metrics\.md#sample-sufficiency\)/) });
    expect(describeEvidenceColumn('itl_ms_p99__samples_max')!.description).toMatch(/^The largest sample behind itl_ms_p99 among the release's runs \(itl_ms_n\); p99 is published only from runs with at least 100 /);
    expect(describeEvidenceColumn('throughput_window')).toEqual({ unit: null, description: expect.stringMatching(/^What the release's throughputs were measured over: steady .* or mixed \(never ranked\)$/) });
    expect(describeEvidenceColumn('invalid_points')).toEqual({ unit: 'points', description: expect.stringContaining('whose validity is not valid') });
  });

  it('have no line for a column that is not theirs (a percentile that is no headline, a count of another suffix)', () => {
    for (const name of ['itl_ms_p50__samples_min', 'ttft_ms_p95__samples_mean', 'ttft_ms_p95__samples_min_of_runs', 'ttft_ms_p95', 'overloaded']) expect(describeEvidenceColumn(name), name).toBeNull();
  });
});
