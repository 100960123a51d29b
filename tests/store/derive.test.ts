/**
 * The derived tables (harness/store/derive.ts) on SYNTHETIC results (tests/store/fixture-results.ts
 * and bench/lib/synthetic-results.ts: nothing measured) ingested into a real DuckDB store, derived
 * inside each test (mutation testing ignores code reached only while a suite sets up). Every
 * expected value is recomputed here from the result files: a release's value is the geometric mean
 * over its official runs, its interval exp(mean ± t_{0.975, n−1}·s/√n) of the logs (t from tables),
 * a point's cost the price in effect on its run's date, a delta's ratio that of the geometric means.
 */
import { mkdtempSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPARED_METRICS } from '../../harness/contract/metric-catalog.ts';
import type { PriceTable } from '../../harness/contract/prices.ts';
import type { Point, RunResult } from '../../harness/contract/result.ts';
import type { SlaTiers } from '../../harness/contract/sla-tiers.ts';
import { computeDeltas, deriveTables } from '../../harness/store/derive.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { compareReleases } from '../../harness/contract/significance.ts';
import { ingest, openStore, type Store } from '../../harness/store/store.ts';
import { syntheticResult, writeResult, type SyntheticRun } from '../../bench/lib/synthetic-results.ts';
import { fixtureRuns, writeFixturePrices } from './fixture-results.ts';
import { withRequests } from './request-counts.ts';

type Row = Record<string, unknown>;

/** t_{0.975, df} for df = 1, 2 and 3 (any table of Student's t). */
const T975: Record<number, number> = { 1: 12.706204736174707, 2: 4.302652729911275, 3: 3.182446305284263 };

/**
 * The fleet: the fixture (vllm 1.0.0 and 1.1.0, three runs each, 1.1.0 15% slower; sglang 2.0.0 and
 * 2.1.0, one run each) on synthetic/llama-8b, a 70B scenario on two GPUs where vllm 1.1.0 (four runs)
 * is twice as fast as 1.0.0 (three runs) and has enough requests for a p99 (so the releases' run
 * counts are 1, 3 and 4, each with its own t, and none of 2), and a community run of vllm 1.0.0 at half its speed.
 */
function fleet(): RunResult[] {
  const big = (version: string, speed: number, i: number): SyntheticRun => ({ ...fixtureRuns()[0]!, model: 'synthetic/llama-70b', gpuCount: 2, version, tpotMs: 13 / speed, ttftMs: 80 / speed, date: new Date(Date.UTC(2026, version === '1.0.0' ? 0 : 1, 20 + i, 5)), seed: 600 + 10 * speed + i });
  return [
    ...fixtureRuns().map(syntheticResult),
    ...[0, 1, 2].map((i) => syntheticResult(big('1.0.0', 1, i))),
    // 128 requests a point: its TTFT p99 is published, 1.0.0's (64) is not, so that one is not compared.
    ...[0, 1, 2, 3].map((i) => withRequests(syntheticResult(big('1.1.0', 2, i)), 128)),
    syntheticResult({ ...fixtureRuns()[0]!, tpotMs: 20, ttftMs: 120, source: 'community', date: new Date(Date.UTC(2026, 0, 25, 3)), seed: 900 }),
  ];
}

/** Each release's official points, with the run each belongs to. */
function releasePoints(results: readonly RunResult[], engine: string, version: string, model: string, load: string): Array<{ run: RunResult; point: Point }> {
  return results
    .filter((r) => r.source === 'official' && r.run!.engine.name === engine && r.run!.engine.version === version && r.run!.model.id === model)
    .flatMap((run) => run.points.filter((p) => `c=${p.load.mode === 'closed' ? p.load.concurrency : ''}` === load).map((point) => ({ run, point })));
}

const logsOf = (values: readonly number[]) => values.map(Math.log);
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sampleVariance = (xs: readonly number[]) => xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1);
/** exp(mean ± t·s/√n) of the logs; null for one value. */
function interval(values: readonly number[]): [number, number] | null {
  if (values.length < 2) return null;
  const logs = logsOf(values);
  const half = T975[values.length - 1]! * Math.sqrt(sampleVariance(logs) / values.length);
  return [Math.exp(mean(logs) - half), Math.exp(mean(logs) + half)];
}
const near = (expected: number | null) => (expected === null ? null : expect.closeTo(expected, 9 - Math.max(0, Math.ceil(Math.log10(Math.abs(expected) + 1)))));

const root = mkdtempSync(join(tmpdir(), 'sb-derive-'));
const results = fleet();
let store: Store;
let prices: PriceTable;
const rowsOf = async (sql: string) => (await store.connection.runAndReadAll(sql)).getRowObjectsJS() as Row[];

beforeAll(async () => {
  for (const r of results) writeResult(join(root, 'results'), r);
  prices = loadPrices(writeFixturePrices(root));
  store = await openStore(join(root, 'store.duckdb'));
  await ingest(store, join(root, 'results'));
}, 60_000);
afterAll(() => store?.close());

describe('releases: per configuration, engine and version, over the official runs', () => {
  it('the geometric mean, log statistics and 95% interval of each compared metric, the runs, dates and latest run', async () => {
    await deriveTables(store.connection, prices, null);
    const rows = await rowsOf(`SELECT * FROM releases ORDER BY model, engine, engine_version, load`);
    const releases = [...new Set(rows.map((r) => `${r.model}|${r.engine}|${r.engine_version}|${r.load}`))];
    expect(releases).toEqual([
      'synthetic/llama-70b|vllm|1.0.0|c=1', 'synthetic/llama-70b|vllm|1.0.0|c=8', 'synthetic/llama-70b|vllm|1.1.0|c=1', 'synthetic/llama-70b|vllm|1.1.0|c=8',
      'synthetic/llama-8b|sglang|2.0.0|c=1', 'synthetic/llama-8b|sglang|2.0.0|c=8', 'synthetic/llama-8b|sglang|2.1.0|c=1', 'synthetic/llama-8b|sglang|2.1.0|c=8',
      'synthetic/llama-8b|vllm|1.0.0|c=1', 'synthetic/llama-8b|vllm|1.0.0|c=8', 'synthetic/llama-8b|vllm|1.1.0|c=1', 'synthetic/llama-8b|vllm|1.1.0|c=8',
    ]);
    for (const row of rows) {
      const where = `${row.model} ${row.engine} ${row.engine_version} ${row.load}`;
      const points = releasePoints(results, row.engine as string, row.engine_version as string, row.model as string, row.load as string);
      const runs = points.map((p) => p.run).sort((a, b) => a.created_at.localeCompare(b.created_at));
      const gpus = row.model === 'synthetic/llama-70b' ? 2 : 1;
      expect([row.runs, row.official, row.gpu_count, row.isl, row.osl], where).toEqual([runs.length, true, gpus, 512, 128]);
      expect([row.first_run_date, row.last_run_date].map((d) => (d as Date).toISOString().slice(0, 10)), where).toEqual([runs[0]!.created_at.slice(0, 10), runs.at(-1)!.created_at.slice(0, 10)]);
      expect(row.latest_run_id, where).toBe(runs.at(-1)!.run_id);
      const throughput = points.map((p) => p.point.metrics.output_throughput!);
      const ttft = points.map((p) => p.point.metrics.ttft_ms!.p50);
      expect(row.output_throughput, where).toEqual(near(Math.exp(mean(logsOf(throughput)))));
      expect(row.output_throughput_per_gpu, where).toEqual(near(Math.exp(mean(logsOf(throughput))) / gpus));
      expect(row.ttft_ms_p50, where).toEqual(near(Math.exp(mean(logsOf(ttft)))));
      expect([row.output_throughput__n, row.output_throughput__meanlog, row.output_throughput__varlog], where).toEqual([throughput.length, near(mean(logsOf(throughput))), throughput.length < 2 ? null : near(sampleVariance(logsOf(throughput)))]);
      expect([row.ttft_ms_p50__n, row.ttft_ms_p50__meanlog], where).toEqual([ttft.length, near(mean(logsOf(ttft)))]);
      const [lo, hi] = interval(throughput) ?? [null, null];
      expect([row.output_throughput__lo, row.output_throughput__hi], where).toEqual([near(lo), near(hi)]);
      expect([row.output_throughput_per_gpu__lo, row.output_throughput_per_gpu__hi], where).toEqual([near(lo === null ? null : lo / gpus), near(hi === null ? null : hi / gpus)]);
      const [tlo, thi] = interval(ttft) ?? [null, null];
      expect([row.ttft_ms_p50__lo, row.ttft_ms_p50__hi], where).toEqual([near(tlo), near(thi)]);
    }
    // Without SLA tiers there is no capacity table.
    expect(await rowsOf(`SELECT table_name FROM duckdb_tables() WHERE table_name = 'capacity'`)).toEqual([]);
  });

  it('keeps other runs apart: a community run is a community_releases row and moves no official release', async () => {
    await deriveTables(store.connection, prices, null);
    const community = await rowsOf(`SELECT model, engine, engine_version, load, runs, official, source FROM community_releases ORDER BY load`);
    expect(community).toEqual(['c=1', 'c=8'].map((load) => ({ model: 'synthetic/llama-8b', engine: 'vllm', engine_version: '1.0.0', load, runs: 1, official: false, source: 'community' })));
    const official = await rowsOf(`SELECT runs FROM releases WHERE engine = 'vllm' AND engine_version = '1.0.0' AND model = 'synthetic/llama-8b'`);
    expect(official.map((r) => r.runs)).toEqual([3, 3]);
  });
});

describe('priced points', () => {
  it('cost the price in effect on the run’s date for the longest matching GPU name, per GPU-hour of output', async () => {
    await deriveTables(store.connection, prices, null);
    const rows = await rowsOf(`SELECT engine, engine_version, model, run_date, gpu_count, output_throughput, output_tokens, gpu_energy_j, gpu_price_usd_per_hour, price_source, tokens_per_gpu_hour, cost_per_1m_output_tokens, energy_per_output_token_j FROM priced_points ORDER BY run_date, model, load`);
    expect(rows).toHaveLength(2 * results.length);
    for (const r of rows) {
      const february = (r.run_date as Date).getUTCMonth() === 1;
      const price = february ? 3 : 2;
      const perHour = (r.output_throughput as number) * 3600;
      expect([r.gpu_price_usd_per_hour, r.price_source]).toEqual([price, february ? 'test, from 2026-02-01: https://example.invalid/b' : 'test, from 2026-01-01: https://example.invalid/a']);
      expect(r.tokens_per_gpu_hour).toEqual(near(perHour / (r.gpu_count as number)));
      expect(r.cost_per_1m_output_tokens).toEqual(near(((r.gpu_count as number) * price) / perHour * 1e6));
      expect(r.energy_per_output_token_j).toEqual(near((r.gpu_energy_j as number) / Number(r.output_tokens)));
    }
  });
});

describe('the leaderboard', () => {
  it('takes each engine’s newest version per configuration, counts the engines, ranks them, and drops the log statistics', async () => {
    await deriveTables(store.connection, prices, null);
    const rows = await rowsOf(`SELECT * FROM leaderboard ORDER BY model, load, engine`);
    expect(rows.map((r) => [r.model, r.load, r.engine, r.engine_version, r.engines, r.rank_output_throughput, r.rank_ttft_ms_p50])).toEqual([
      ['synthetic/llama-70b', 'c=1', 'vllm', '1.1.0', 1, 1, 1],
      ['synthetic/llama-70b', 'c=8', 'vllm', '1.1.0', 1, 1, 1],
      // sglang 2.1.0 (TPOT 9 ms) outruns vllm 1.1.0 (11.8 ms), and its TTFT (60 ms) is the shorter.
      ['synthetic/llama-8b', 'c=1', 'sglang', '2.1.0', 2, 1, 1],
      ['synthetic/llama-8b', 'c=1', 'vllm', '1.1.0', 2, 2, 2],
      ['synthetic/llama-8b', 'c=8', 'sglang', '2.1.0', 2, 1, 1],
      ['synthetic/llama-8b', 'c=8', 'vllm', '1.1.0', 2, 2, 2],
    ]);
    expect(Object.keys(rows[0]!).filter((c) => /__(meanlog|varlog|n)$/.test(c))).toEqual([]);
    expect(Object.keys(rows[0]!)).toEqual(expect.arrayContaining(['output_throughput__lo', 'ttft_ms_p95__samples_max', 'validity']));
  });

  it('comes with the Pareto table and, given SLA tiers, a capacity row per release and tier', async () => {
    const tiers: SlaTiers = { version: 4, tiers: [{ id: 'any', label: 'Any', description: 'SYNTHETIC', limits: { ttft_ms_p95: 1e9, tpot_ms_p95: 1e9 }, sources: { ttft_ms_p95: 'test https://example.invalid/a', tpot_ms_p95: 'test https://example.invalid/b' } }] };
    await deriveTables(store.connection, prices, tiers);
    const [capacity] = await rowsOf(`SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE meets)::INTEGER AS meets, min(tiers_version)::INTEGER AS version FROM capacity`);
    expect(capacity).toEqual({ n: 6, meets: 6, version: 4 });
    const [pareto] = await rowsOf(`SELECT count(*)::INTEGER AS n FROM pareto`);
    expect(pareto!.n).toBe(12);
  });
});

describe('deltas: newest against previous release of each engine on each configuration', () => {
  it('one per compared metric, with the ratio of the geometric means, the test of the two sides and its verdict', async () => {
    await deriveTables(store.connection, prices, null);
    const deltas = await computeDeltas(store.connection);
    // sglang: one run a side (no noise pool: unclear); vllm 8B: 15% slower (worse); vllm 70B: twice as fast (better).
    const pairs = [
      ['synthetic/llama-70b', 'vllm', '1.0.0', '1.1.0', 'better'],
      ['synthetic/llama-8b', 'sglang', '2.0.0', '2.1.0', 'unclear'],
      ['synthetic/llama-8b', 'vllm', '1.0.0', '1.1.0', 'worse'],
    ] as const;
    // 64 requests a point: the p99s are not published (sufficiency), so not compared; 70B 1.1.0's TTFT p99 has no counterpart.
    const COMPARED = COMPARED_METRICS.map((m) => m.column).filter((c) => !c.endsWith('_p99'));
    expect(COMPARED).toHaveLength(COMPARED_METRICS.length - 2);
    expect(deltas).toHaveLength(pairs.length * 2 * COMPARED.length);
    for (const [model, engine, previousVersion, version, verdict] of pairs) {
      for (const load of ['c=1', 'c=8']) {
        const previous = releasePoints(results, engine, previousVersion, model, load);
        const next = releasePoints(results, engine, version, model, load);
        const of = deltas.filter((d) => d.model === model && d.engine === engine && d.load === load);
        expect(of.map((d) => d.metric), `${model} ${engine} ${load}`).toEqual(COMPARED);
        for (const metric of ['output_throughput', 'ttft_ms_p50'] as const) {
          const value = (p: { point: Point }) => (metric === 'output_throughput' ? p.point.metrics.output_throughput! : p.point.metrics.ttft_ms!.p50);
          const summary = (side: typeof previous) => ({ n: side.length, meanLog: mean(logsOf(side.map(value))), varLog: side.length < 2 ? null : sampleVariance(logsOf(side.map(value))) });
          const c = compareReleases(summary(previous), summary(next), null);
          const delta = of.find((d) => d.metric === metric)!;
          const latest = (side: typeof previous) => side.map((p) => p.run).sort((a, b) => a.created_at.localeCompare(b.created_at)).at(-1)!.run_id;
          expect(delta, `${model} ${engine} ${load} ${metric}`).toEqual({
            config_id: expect.any(String), scenario_id: expect.any(String), model, precision: 'bfloat16', hardware: model === 'synthetic/llama-70b' ? '2x-Synthetic H100' : '1x-Synthetic H100', workload: 'chat', methodology: expect.any(String), load, engine, metric,
            better: metric === 'output_throughput' ? 'higher' : 'lower', previous_version: previousVersion, version,
            previous_value: near(Math.exp(summary(previous).meanLog)), value: near(Math.exp(summary(next).meanLog)),
            change_pct: near((c.ratio - 1) * 100), ci_low_pct: c.ci === null ? null : near((c.ci[0] - 1) * 100), ci_high_pct: c.ci === null ? null : near((c.ci[1] - 1) * 100),
            p_value: c.pValue === null ? null : near(c.pValue), method: c.method, significant: c.significant, verdict,
            previous_runs: previous.length, runs: next.length, previous_run_id: latest(previous), run_id: latest(next),
          });
        }
      }
    }
  });
});

describe('the release cache: rebuilt whole when what defines it changes, else only for the versions whose runs changed', () => {
  const cacheRoot = mkdtempSync(join(tmpdir(), 'sb-derive-cache-'));
  let cache: Store;
  const rows = async (sql: string) => (await cache.connection.runAndReadAll(sql)).getRowObjectsJS() as Row[];
  const throughputOf = async (engine: string, version: string) => (await rows(`SELECT output_throughput FROM releases WHERE engine = '${engine}' AND engine_version = '${version}' AND load = 'c=1'`)).map((r) => r.output_throughput as number);
  beforeAll(async () => {
    for (const r of fixtureRuns().map(syntheticResult)) writeResult(join(cacheRoot, 'results'), r);
    cache = await openStore(join(cacheRoot, 'store.duckdb'));
    await ingest(cache, join(cacheRoot, 'results'));
  }, 60_000);
  afterAll(() => cache?.close());

  it('keeps unchanged versions’ rows, rebuilds the version of a re-read file, and everything when the prices change', async () => {
    const prices = loadPrices(writeFixturePrices(cacheRoot));
    await deriveTables(cache.connection, prices, null);
    const [sglang] = await throughputOf('sglang', '2.0.0');
    const [vllm] = await throughputOf('vllm', '1.1.0');
    const count = (await rows(`SELECT count(*)::INTEGER AS n FROM releases`))[0]!.n;
    // The stored points change under versions no ingest marked: their cached rows stand.
    await cache.connection.run(`UPDATE points SET output_throughput = output_throughput * 10`);
    await deriveTables(cache.connection, prices, null);
    expect([...(await throughputOf('sglang', '2.0.0')), ...(await throughputOf('vllm', '1.1.0'))]).toEqual([sglang, vllm]);
    // One vllm 1.1.0 file read again (touched: the same runs, so the same fidelity digest): that
    // version is rebuilt, once (no duplicate rows), from its two changed points and the re-read one.
    const file = (await rows(`SELECT file FROM runs WHERE engine = 'vllm' AND engine_version = '1.1.0' ORDER BY file LIMIT 1`))[0]!.file as string;
    utimesSync(join(cacheRoot, 'results', file), new Date(), new Date(Date.now() + 60_000));
    await ingest(cache, join(cacheRoot, 'results'));
    await deriveTables(cache.connection, prices, null);
    expect(await throughputOf('vllm', '1.1.0')).toEqual([near(vllm! * 10 ** (2 / 3))]);
    expect((await rows(`SELECT count(*)::INTEGER AS n FROM releases`))[0]!.n).toBe(count);
    expect(await throughputOf('sglang', '2.0.0')).toEqual([sglang]);
    // Other prices: rebuilt whole, so every changed point shows.
    await deriveTables(cache.connection, { ...prices, prices: prices.prices.map((p) => ({ ...p, usd_per_gpu_hour: p.usd_per_gpu_hour * 2 })) }, null);
    expect(await throughputOf('sglang', '2.0.0')).toEqual([near(sglang! * 10)]);
  });

  it('leaves the cache as it was when its update fails, and the store usable', async () => {
    const prices = loadPrices(writeFixturePrices(cacheRoot));
    await deriveTables(cache.connection, prices, null);
    const before = await rows(`SELECT engine, engine_version, load, runs, output_throughput FROM release_cache ORDER BY ALL`);
    // The list of changed versions gone: the incremental update fails inside its transaction.
    await cache.connection.run(`ALTER TABLE dirty_versions RENAME TO dirty_versions_away`);
    await expect(deriveTables(cache.connection, prices, null)).rejects.toThrow(/dirty_versions/);
    await cache.connection.run(`ALTER TABLE dirty_versions_away RENAME TO dirty_versions`);
    expect(await rows(`SELECT engine, engine_version, load, runs, output_throughput FROM release_cache ORDER BY ALL`)).toEqual(before);
    await deriveTables(cache.connection, prices, null);
    expect(await rows(`SELECT engine, engine_version, load, runs, output_throughput FROM release_cache ORDER BY ALL`)).toEqual(before);
  });

  it('rebuilds a cache table that is gone though its key is stored', async () => {
    const prices = loadPrices(writeFixturePrices(cacheRoot));
    await deriveTables(cache.connection, prices, null);
    const before = await rows(`SELECT engine, engine_version, load, runs FROM releases ORDER BY ALL`);
    await cache.connection.run(`DROP TABLE release_cache`);
    await deriveTables(cache.connection, prices, null);
    expect(await rows(`SELECT engine, engine_version, load, runs FROM releases ORDER BY ALL`)).toEqual(before);
  });
});
