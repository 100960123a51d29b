/**
 * The SLA filter has one definition run by two engines: slaSql in DuckDB (the page once
 * DuckDB-Wasm has started) and answerSla in plain TypeScript over the points the page embeds
 * (its first answer). Both run here on the same SYNTHETIC rows (nulls, unset limits, ties,
 * several versions, versions that sort equal, rows a ranking never sees) under many limits,
 * and on the release values compile publishes for the SYNTHETIC fixture of tests/store; the
 * answers must be equal, row for row, value for value.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { memoryDuckDb } from '../store/memory-duckdb.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { SITE_FILES } from '../../harness/contract/site-data.ts';
import { versionOrderKey } from '../../harness/store/version-order.ts';
import { answerSla, describeClosest } from '../../site/lib/sla-answer.ts';
import { decodeSlaPoints, encodeSlaPoints, slaPoints } from '../../site/lib/sla-points.ts';
import { releasesSql, SLA_METRICS, slaParameters, slaSql, type SlaColumn } from '../../site/lib/sla-query.ts';
import type { Limits } from '../../site/lib/pareto-sla.ts';
import { writeFixture, writeFixturePrices } from '../store/fixture-results.ts';

type Metrics = Partial<Record<SlaColumn, number | null>>;
interface Release {
  scenario_id: string;
  engine: string;
  engine_version: string;
  load: string;
  output_throughput: number | null;
  official: boolean;
  validity: string;
  metrics: Metrics;
}

const S = 'scenario-a';
/** SYNTHETIC release values: each engine plants one case the two engines could disagree on. */
function syntheticReleases(): Release[] {
  const rows: Release[] = [];
  const add = (engine: string, engine_version: string, load: string, output_throughput: number | null, metrics: Metrics, extra: Partial<Release> = {}) =>
    rows.push({ scenario_id: S, engine, engine_version, load, output_throughput, official: true, validity: 'valid', metrics, ...extra });
  const full = (ttft: number, tpot: number): Metrics => ({ ttft_ms_p50: ttft / 2, ttft_ms_p95: ttft, ttft_ms_p99: ttft * 1.3, tpot_ms_p95: tpot, itl_ms_p99: tpot * 2, e2el_ms_p50: ttft + 100 * tpot });
  // alpha: an older version that is faster everywhere (never ranked); the newest's c=32 did not measure TTFT p99.
  for (const [load, t, ttft, tpot] of [['c=1', 100, 50, 8], ['c=8', 600, 140, 10], ['c=32', 1500, 700, 14]] as const) add('alpha', '1.0.0', load, t * 2, full(ttft / 2, tpot / 2));
  add('alpha', '1.2.0', 'c=1', 100, full(50, 8));
  add('alpha', '1.2.0', 'c=8', 600, full(140, 10));
  add('alpha', '1.2.0', 'c=32', 1500, { ...full(700, 14), ttft_ms_p99: null });
  // gamma: its best point ties alpha's c=8 throughput exactly (ordered by engine then).
  add('gamma', '3.0.0', 'c=1', 90, full(45, 9));
  add('gamma', '3.0.0', 'c=8', 600, full(150, 11));
  // beta: "0.5.0" and "v0.5.0" sort equal (both newest, two rows), "0.5.0rc1" before them; llama.cpp-style b4567 before all.
  add('beta', 'b4567', 'c=8', 9000, full(10, 2));
  add('beta', '0.5.0rc1', 'c=8', 8000, full(10, 2));
  add('beta', '0.5.0', 'c=1', 80, full(60, 9));
  add('beta', '0.5.0', 'c=8', 500, full(200, 12));
  add('beta', 'v0.5.0', 'c=1', 85, full(55, 9.5));
  add('beta', 'v0.5.0', 'c=8', 520, full(210, 12.5));
  // delta: two loads with the same throughput, both meeting loose limits (the first load in text order wins).
  add('delta', '2.0.0', 'c=16', 700, full(300, 12));
  add('delta', '2.0.0', 'c=4', 700, full(120, 9));
  add('delta', '2.0.0', 'c=1', 50, full(40, 7));
  // epsilon: its fastest point meets everything but has no throughput; another measured nothing but throughput.
  add('epsilon', '0.9.0', 'c=1', null, full(30, 5));
  add('epsilon', '0.9.0', 'c=8', 400, full(160, 13));
  add('epsilon', '0.9.0', 'c=32', 1200, {});
  // zeta: its newest version is invalid and a newer one is community: the ranked newest is 1.0.0.
  add('zeta', '1.0.0', 'c=8', 300, full(90, 10));
  add('zeta', '2.0.0', 'c=8', 5000, full(90, 10), { validity: 'invalid' });
  add('zeta', '3.0.0', 'c=8', 6000, full(90, 10), { official: false });
  // Another scenario: faster than all, never in this scenario's answer.
  add('alpha', '9.0.0', 'c=8', 99_999, full(1, 1), { scenario_id: 'scenario-b' });
  add('omega', '1.0.0', 'c=8', 99_999, full(1, 1), { scenario_id: 'scenario-b' });
  return rows;
}

/** A deterministic PRNG (mulberry32): the same limit sets every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Limit sets: none; each metric at each of its values (a limit equal to a value meets it) and between them; then random combinations. */
function limitSets(rows: readonly Release[]): Limits[] {
  const sets: Limits[] = [{}];
  const values = new Map(SLA_METRICS.map((m) => [m.column, [...new Set(rows.map((r) => r.metrics[m.column]).filter((v): v is number => typeof v === 'number'))].sort((a, b) => a - b)]));
  for (const [column, vs] of values) vs.forEach((v, i) => sets.push({ [column]: v }, { [column]: i + 1 < vs.length ? (v + vs[i + 1]!) / 2 : v * 2 }, { [column]: v * 0.999 }));
  const next = random(42);
  for (let i = 0; i < 300; i++) {
    const limits: Limits = {};
    for (const [column, vs] of values) if (next() < 0.4) limits[column] = next() < 0.5 ? vs[Math.floor(next() * vs.length)]! : vs[0]! + next() * (vs.at(-1)! * 1.2 - vs[0]!);
    sets.push(limits);
  }
  return sets;
}

describe('the SLA answer in the page equals the SQL', () => {
  const db = memoryDuckDb();

  /** slaSql's rows for one scenario and limits, over the `releases` table now loaded. */
  const sqlAnswer = async (scenario: string, limits: Limits) => {
    const statement = await db.connection.prepare(slaSql());
    slaParameters(scenario, limits).forEach((value, i) => (typeof value === 'string' ? statement.bindVarchar(i + 1, value) : typeof value === 'boolean' ? statement.bindBoolean(i + 1, value) : statement.bindDouble(i + 1, value)));
    return (await statement.runAndReadAll()).getRowObjectsJS().map((r) => ({ engine: r.engine, engine_version: r.engine_version, throughput: r.throughput, load: r.load }));
  };
  const jsAnswer = (points: ReturnType<typeof slaPoints>, limits: Limits) => answerSla(points, limits).map(({ engine, engine_version, throughput, load }) => ({ engine, engine_version, throughput, load }));


  it('on SYNTHETIC rows with nulls, ties, equal-sorting versions and rows never ranked, under every limit set', async () => {
    const rows = syntheticReleases();
    // The columns releasesSql reads, with engine_version_order as compile computes it (a VARCHAR sort key).
    await db.connection.run(`CREATE OR REPLACE TABLE releases (scenario_id VARCHAR, engine VARCHAR, engine_version VARCHAR, engine_version_order VARCHAR, load VARCHAR, output_throughput DOUBLE, official BOOLEAN, validity VARCHAR, ${SLA_METRICS.map((m) => `${m.column} DOUBLE`).join(', ')})`);
    const appender = await db.connection.createAppender('releases');
    for (const r of rows) {
      for (const text of [r.scenario_id, r.engine, r.engine_version, versionOrderKey(r.engine_version)!, r.load]) appender.appendVarchar(text);
      if (r.output_throughput === null) appender.appendNull();
      else appender.appendDouble(r.output_throughput);
      appender.appendBoolean(r.official);
      appender.appendVarchar(r.validity);
      for (const m of SLA_METRICS) {
        const v = r.metrics[m.column];
        if (v === undefined || v === null) appender.appendNull();
        else appender.appendDouble(v);
      }
      appender.endRow();
    }
    appender.closeSync();
    await db.connection.run('DROP TABLE IF EXISTS sla_releases');
    await db.connection.run(releasesSql());

    // The page embeds its own scenario's history (as JSON, as the page does): metric columns flat, as compile writes them.
    const history = rows.filter((r) => r.scenario_id === S).map(({ metrics, ...r }) => ({ ...r, engine_version_order: versionOrderKey(r.engine_version), ...metrics }));
    const points = decodeSlaPoints(encodeSlaPoints(slaPoints(history)));

    // Unset limits: every newest version ranked by its best point; the planted ties broken one way.
    const none = await sqlAnswer(S, {});
    expect(none).toEqual([
      { engine: 'delta', engine_version: '2.0.0', throughput: 700, load: 'c=16' },
      { engine: 'alpha', engine_version: '1.2.0', throughput: 1500, load: 'c=32' },
      { engine: 'epsilon', engine_version: '0.9.0', throughput: 1200, load: 'c=32' },
      { engine: 'gamma', engine_version: '3.0.0', throughput: 600, load: 'c=8' },
      { engine: 'beta', engine_version: 'v0.5.0', throughput: 520, load: 'c=8' },
      { engine: 'beta', engine_version: '0.5.0', throughput: 500, load: 'c=8' },
      { engine: 'zeta', engine_version: '1.0.0', throughput: 300, load: 'c=8' },
    ].sort((a, b) => b.throughput - a.throughput || (a.engine < b.engine ? -1 : 1)));
    expect(jsAnswer(points, {})).toEqual(none);

    const sets = limitSets(rows);
    const distinct = new Set<string>();
    let empty = 0;
    for (const limits of sets) {
      const sql = await sqlAnswer(S, limits);
      expect(jsAnswer(points, limits), JSON.stringify(limits)).toEqual(sql);
      distinct.add(JSON.stringify(sql));
      empty += sql.filter((r) => r.throughput === null).length;
    }
    // The limit sets exercised many different answers, engines meeting none among them.
    expect(sets.length).toBeGreaterThan(300);
    expect(distinct.size).toBeGreaterThan(15);
    expect(empty).toBeGreaterThan(100);
    // A set TTFT p99 limit fails alpha's c=32 (not measured) however loose; epsilon's throughput-less c=1 never counts.
    expect((await sqlAnswer(S, { ttft_ms_p99: 1e9 })).find((r) => r.engine === 'alpha')).toEqual({ engine: 'alpha', engine_version: '1.2.0', throughput: 600, load: 'c=8' });
    expect((await sqlAnswer(S, { ttft_ms_p95: 31 })).find((r) => r.engine === 'epsilon')).toEqual({ engine: 'epsilon', engine_version: '0.9.0', throughput: null, load: null });
  });

  it('on the release values compile publishes: the page history the page embeds, the Arrow file DuckDB-Wasm reads', async () => {
    const root = mkdtempSync(join(tmpdir(), 'servebench-sla-answer-'));
    writeFixture(join(root, 'results'));
    await compile({ resultsDir: join(root, 'results'), outDir: join(root, 'out'), prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-03-01T00:00:00Z') });
    const table = tableFromIPC(readFileSync(join(root, 'out', 'site', SITE_FILES.releasesArrow)));
    writeFileSync(join(root, 'releases.ndjson'), table.toArray().map((row) => JSON.stringify(row.toJSON())).join('\n'));
    await db.connection.run(`CREATE OR REPLACE TABLE releases AS SELECT * FROM read_json('${join(root, 'releases.ndjson')}', format = 'newline_delimited')`);
    await db.connection.run('DROP TABLE IF EXISTS sla_releases');
    await db.connection.run(releasesSql());
    const scenario = String((await db.connection.runAndReadAll('SELECT any_value(scenario_id) FROM releases')).getRowsJS()[0]![0]);
    const detail = JSON.parse(readFileSync(join(root, 'out', 'site', SITE_FILES.scenario(scenario)), 'utf8')) as { history: Array<Record<string, unknown>> };
    const points = decodeSlaPoints(encodeSlaPoints(slaPoints(detail.history)));
    // Both versions of both engines, two loads each: the embedded rows are the SQL's table, row for row.
    expect(points.length).toBe(Number((await db.connection.runAndReadAll(`SELECT count(*) FROM sla_releases WHERE scenario_id = '${scenario}'`)).getRowsJS()[0]![0]));
    expect(points.length).toBe(8);
    const ttft = points.map((p) => p.ttft_ms_p95!).sort((a, b) => a - b);
    const tpot = points.map((p) => p.tpot_ms_p95!).sort((a, b) => a - b);
    let met = 0;
    for (const limits of [{}, ...ttft.flatMap((t) => [{ ttft_ms_p95: t }, ...tpot.map((u) => ({ ttft_ms_p95: t, tpot_ms_p95: u * 1.0001 }))]), { ttft_ms_p50: 1 }] as Limits[]) {
      const sql = await sqlAnswer(scenario, limits);
      expect(jsAnswer(points, limits), JSON.stringify(limits)).toEqual(sql);
      met += sql.filter((r) => r.throughput !== null).length;
    }
    expect(met).toBeGreaterThan(0);
  }, 120_000);
});

describe('how close an engine came', () => {
  const point = (load: string, throughput: number, ttft: number | null, tpot: number | null) => ({ engine: 'e', engine_version: '1', version_rank: 0, load, throughput, ttft_ms_p50: null, ttft_ms_p95: ttft, ttft_ms_p99: null, tpot_ms_p95: tpot, itl_ms_p99: null, e2el_ms_p50: null });

  it('names the point with the smallest worst ratio value ÷ limit, and by how much it misses each limit', () => {
    const points = [point('c=1', 100, 1500, 4), point('c=8', 400, 1240, 9), point('c=32', 900, 3000, 20)];
    const [row] = answerSla(points, { ttft_ms_p95: 1000 });
    expect(row!.throughput).toBeNull();
    expect(describeClosest(row!.closest!)).toBe('closest: c=8, TTFT p95 1,240 ms vs 1,000 ms limit (+24%)');
    // Two limits: c=8 misses TPOT by 80% (worst 1.8), c=1 misses TTFT by 50% (worst 1.5, TPOT met): c=1 is closer.
    const [both] = answerSla(points, { ttft_ms_p95: 1000, tpot_ms_p95: 5 });
    expect(describeClosest(both!.closest!)).toBe('closest: c=1, TTFT p95 1,500 ms vs 1,000 ms limit (+50%)');
    expect(both!.closest!.worst).toBeCloseTo(1.5, 12);
    // Both missed: each limit the closest point fails, by how much (c=1: 1.5 and 1.33; c=8: 1.24 and 3).
    const [tight] = answerSla(points, { ttft_ms_p95: 1000, tpot_ms_p95: 3 });
    expect(describeClosest(tight!.closest!)).toBe('closest: c=1, TTFT p95 1,500 ms vs 1,000 ms limit (+50%); TPOT p95 4 ms vs 3 ms limit (+33%)');
    // Barely over, and a limit the points never measured.
    expect(describeClosest(answerSla(points, { ttft_ms_p95: 1239.9 })[0]!.closest!)).toBe('closest: c=8, TTFT p95 1,240 ms vs 1,240 ms limit (+<0.1%)');
    expect(describeClosest(answerSla(points, { ttft_ms_p95: 1200 })[0]!.closest!)).toBe('closest: c=8, TTFT p95 1,240 ms vs 1,200 ms limit (+3.3%)');
    expect(describeClosest(answerSla([point('c=1', 100, null, 4)], { ttft_ms_p95: 1000 })[0]!.closest!)).toBe('closest: c=1, TTFT p95 not measured');
    // Meeting the limits: no closeness to report.
    expect(answerSla(points, { ttft_ms_p95: 1240 })[0]!.closest).toBeNull();
  });

  it('embeds safely: no value can end the script element', () => {
    const json = encodeSlaPoints([{ ...point('</script><b>', 1, 2, 3), engine: '<!--' }]);
    expect(json).not.toContain('<');
    expect(decodeSlaPoints(json)[0]).toMatchObject({ engine: '<!--', load: '</script><b>' });
  });
});
