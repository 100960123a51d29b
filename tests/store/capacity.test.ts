/**
 * Capacity at SLA tiers, release intervals, the noise file and the per-scenario release files, on
 * the SYNTHETIC fixture (tests/store/fixture-results.ts) plus a second SYNTHETIC scenario on two
 * GPUs. Every expected value is recomputed here from the result files, not from the compiler.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMPARED_METRICS } from '../../harness/contract/metric-catalog.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import type { SlaTiers } from '../../harness/contract/sla-tiers.ts';
import { SITE_FILES, type CapacityRow, type NoiseRow } from '../../harness/contract/site-data.ts';
import { hardwareLabel } from '../../harness/contract/result-path.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { syntheticResult, writeResult, type SyntheticRun } from '../../bench/lib/synthetic-results.ts';
import { fixtureRuns, writeFixture, writeFixturePrices } from './fixture-results.ts';
import { query } from './duckdb-query.ts';

const root = mkdtempSync(join(tmpdir(), 'servebench-capacity-'));
const resultsDir = join(root, 'results');
const outDir = join(root, 'out');
const site = (file: string) => join(outDir, 'site', file);
const readJson = <T>(file: string): T => JSON.parse(readFileSync(site(file), 'utf8')) as T;
const prices = () => loadPrices(writeFixturePrices(root));

/** Test tiers around the fixture's numbers (TTFT p95 ≈ 80 ms at c=1 and 97 ms at c=8 for vllm 1.0.0; TPOT p95 ≈ 13.2 and 14.6 ms). */
const TIERS: SlaTiers = {
  version: 7,
  tiers: [
    { id: 'loose', label: 'Loose', description: 'Every point meets it.', limits: { ttft_ms_p95: 1e6, tpot_ms_p95: 1e6 }, sources: { ttft_ms_p95: 'test https://example.invalid/a', tpot_ms_p95: 'test https://example.invalid/b' } },
    { id: 'tpot-bound', label: 'TPOT bound', description: 'Only TPOT binds.', limits: { ttft_ms_p95: 1e6, tpot_ms_p95: 14 }, sources: { ttft_ms_p95: 'test https://example.invalid/a', tpot_ms_p95: 'test https://example.invalid/b' } },
    { id: 'ttft-bound', label: 'TTFT bound', description: 'Only TTFT binds.', limits: { ttft_ms_p95: 90, tpot_ms_p95: 1e6 }, sources: { ttft_ms_p95: 'test https://example.invalid/a', tpot_ms_p95: 'test https://example.invalid/b' } },
    { id: 'none', label: 'None', description: 'No point meets it.', limits: { ttft_ms_p95: 1, tpot_ms_p95: 1 }, sources: { ttft_ms_p95: 'test https://example.invalid/a', tpot_ms_p95: 'test https://example.invalid/b' } },
  ],
};

/** A second scenario: a 70B model on two GPUs, one release with two runs at three loads. */
const big = (i: number): SyntheticRun => ({ ...fixtureRuns()[0]!, model: 'synthetic/llama-70b', gpuCount: 2, concurrencies: [1, 8, 32], engine: 'vllm', version: '1.1.0', date: new Date(Date.UTC(2026, 1, 10 + i, 5)), seed: 500 + i });

/** t_{0.975, df}: df = 1 and 2 (tables). */
const T975: Record<number, number> = { 1: 12.706204736174707, 2: 4.302652729911275 };

let results: RunResult[] = [];

/** A release's value: the geometric mean over its runs (docs/metrics.md). */
const geoMean = (values: number[]) => Math.exp(values.reduce((a, v) => a + Math.log(v), 0) / values.length);
function logInterval(values: number[]): [number, number] | null {
  const logs = values.map(Math.log);
  const n = logs.length;
  if (n < 2) return null;
  const mean = logs.reduce((a, b) => a + b, 0) / n;
  const variance = logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  const half = T975[n - 1]! * Math.sqrt(variance / n);
  return [Math.exp(mean - half), Math.exp(mean + half)];
}
const close = (actual: unknown, expected: number | null, where: string) => {
  if (expected === null) return expect(actual, where).toBeNull();
  expect(typeof actual, where).toBe('number');
  expect(Math.abs((actual as number) - expected), `${where}: ${String(actual)} vs ${expected}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
};

/** A release's load point, from the result files: its runs' values at that point. */
interface HandPoint {
  model: string;
  engine: string;
  version: string;
  load: string;
  gpus: number;
  runs: Array<{ runId: string; createdAt: string; ttft95: number; tpot95: number; throughput: number; perGpu: number }>;
}
function handPoints(): HandPoint[] {
  const byKey = new Map<string, HandPoint>();
  for (const r of results) {
    const gpus = r.run!.hardware!.gpus.length;
    for (const p of r.points) {
      const load = p.load.mode === 'closed' ? `c=${p.load.concurrency}` : '?';
      const key = [r.run!.model.id, r.run!.engine.name, r.run!.engine.version, load].join('|');
      const point = byKey.get(key) ?? { model: r.run!.model.id, engine: r.run!.engine.name, version: r.run!.engine.version!, load, gpus, runs: [] };
      point.runs.push({ runId: r.run_id, createdAt: r.created_at, ttft95: p.metrics.ttft_ms!.p95, tpot95: p.metrics.tpot_ms!.p95, throughput: p.metrics.output_throughput!, perGpu: p.metrics.output_throughput! / gpus });
      byKey.set(key, point);
    }
  }
  return [...byKey.values()];
}

beforeAll(async () => {
  const paths = [...writeFixture(resultsDir), writeResult(resultsDir, syntheticResult(big(0))), writeResult(resultsDir, syntheticResult(big(1)))];
  results = paths.map((p) => JSON.parse(readFileSync(join(resultsDir, p), 'utf8')) as RunResult);
  const report = await compile({ resultsDir, outDir, prices: prices(), slaTiers: TIERS, now: new Date('2026-03-01T00:00:00Z') });
  expect(report.problems).toEqual([]);
}, 60_000);

describe('capacity at SLA tiers', () => {
  it('picks, per release and tier, the measured load point with the most throughput per GPU among those meeting both limits', () => {
    const rows = readJson<CapacityRow[]>(SITE_FILES.capacity);
    const points = handPoints();
    const releases = [...new Set(points.map((p) => `${p.model}|${p.engine}|${p.version}`))];
    // A row for every release × tier, met or not.
    expect(rows).toHaveLength(releases.length * TIERS.tiers.length);
    for (const release of releases) {
      const candidates = points.filter((p) => `${p.model}|${p.engine}|${p.version}` === release);
      for (const tier of TIERS.tiers) {
        const where = `${release} @ ${tier.id}`;
        const row = rows.find((r) => `${r.model}|${r.engine}|${r.engine_version}` === release && r.tier === tier.id)!;
        expect(row, where).toBeDefined();
        const meeting = candidates.filter((p) => geoMean(p.runs.map((r) => r.ttft95)) <= tier.limits.ttft_ms_p95 && geoMean(p.runs.map((r) => r.tpot95)) <= tier.limits.tpot_ms_p95);
        const best = meeting.sort((a, b) => geoMean(b.runs.map((r) => r.perGpu)) - geoMean(a.runs.map((r) => r.perGpu)))[0];
        expect(row.tiers_version, where).toBe(7);
        if (!best) {
          expect([row.meets, row.config_id, row.load, row.concurrency, row.throughput_per_gpu, row.throughput_per_gpu_lo, row.throughput_per_gpu_hi, row.ttft_ms_p95, row.tpot_ms_p95, row.cost_per_1m_output_tokens, row.run_id], where).toEqual([false, null, null, null, null, null, null, null, null, null, null]);
          expect(row.runs, where).toBe(Math.max(...candidates.map((p) => p.runs.length)));
          continue;
        }
        expect([row.meets, row.load, row.concurrency, row.runs], where).toEqual([true, best.load, Number(best.load.slice(2)), best.runs.length]);
        close(row.throughput_per_gpu, geoMean(best.runs.map((r) => r.perGpu)), `${where} throughput_per_gpu`);
        close(row.ttft_ms_p95, geoMean(best.runs.map((r) => r.ttft95)), `${where} ttft_ms_p95`);
        close(row.tpot_ms_p95, geoMean(best.runs.map((r) => r.tpot95)), `${where} tpot_ms_p95`);
        const interval = logInterval(best.runs.map((r) => r.perGpu));
        close(row.throughput_per_gpu_lo, interval?.[0] ?? null, `${where} lo`);
        close(row.throughput_per_gpu_hi, interval?.[1] ?? null, `${where} hi`);
        expect(row.run_id, where).toBe([...best.runs].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0]!.runId);
        expect(row.cost_per_1m_output_tokens, where).toBeGreaterThan(0);
      }
    }
  });

  it('can fail: a point meeting TTFT but not TPOT is not chosen, and a tier no point meets has no capacity', () => {
    const rows = readJson<CapacityRow[]>(SITE_FILES.capacity);
    const vllm = (tier: string) => rows.find((r) => r.model === 'synthetic/llama-8b' && r.engine === 'vllm' && r.engine_version === '1.0.0' && r.tier === tier)!;
    // c=8 has the most throughput and meets TTFT (1e6) but its TPOT p95 (≈14.6 ms) is over 14: c=1 it is.
    const c8 = handPoints().find((p) => p.model === 'synthetic/llama-8b' && p.version === '1.0.0' && p.load === 'c=8')!;
    expect(geoMean(c8.runs.map((r) => r.tpot95))).toBeGreaterThan(14);
    expect([vllm('loose').load, vllm('tpot-bound').load, vllm('ttft-bound').load]).toEqual(['c=8', 'c=1', 'c=1']);
    expect(vllm('tpot-bound').throughput_per_gpu!).toBeLessThan(vllm('loose').throughput_per_gpu!);
    // vllm 1.1.0 is planted 15% slower: no point meets the TPOT bound.
    expect(rows.find((r) => r.model === 'synthetic/llama-8b' && r.engine_version === '1.1.0' && r.tier === 'tpot-bound')!.meets).toBe(false);
    for (const row of rows.filter((r) => r.tier === 'none')) expect([row.meets, row.throughput_per_gpu, row.load]).toEqual([false, null, null]);
  });

  it('marks the newest version per scenario and engine, divides by the GPUs, and links every chosen run to its page', () => {
    const rows = readJson<CapacityRow[]>(SITE_FILES.capacity);
    const latest = new Set(rows.filter((r) => r.latest_version).map((r) => `${r.model}|${r.engine}|${r.engine_version}`));
    expect([...latest].sort()).toEqual(['synthetic/llama-70b|vllm|1.1.0', 'synthetic/llama-8b|sglang|2.1.0', 'synthetic/llama-8b|vllm|1.1.0']);
    const big70 = rows.find((r) => r.model === 'synthetic/llama-70b' && r.tier === 'loose')!;
    expect([big70.gpu_count, big70.load]).toEqual([2, 'c=32']);
    const runIds = new Set(readdirSync(join(outDir, 'site', 'runs')).map((f) => f.replace(/\.json$/, '')));
    for (const row of rows) if (row.run_id !== null) expect(runIds.has(row.run_id), row.run_id).toBe(true);
  });

  it('publishes the same rows as the capacity Parquet table, and the tier file as read', async () => {
    const parquet = await query(`SELECT * FROM read_parquet('${outDir}/parquet/latest/capacity.parquet')`);
    const json = readJson<CapacityRow[]>(SITE_FILES.capacity);
    expect(parquet).toHaveLength(json.length);
    expect(Object.keys(parquet[0]!)).toEqual(Object.keys(json[0]!));
    expect(readJson(SITE_FILES.slaTiers)).toEqual(TIERS);
  });
});

describe('release intervals and the noise band', () => {
  it('gives each release the t-interval of its log values: equal to the hand computation with 3 runs, null with 1', () => {
    const scenarios = readJson<Array<{ scenario_id: string; model: string }>>(SITE_FILES.scenarios);
    const id = scenarios.find((s) => s.model === 'synthetic/llama-8b')!.scenario_id;
    const history = readJson<{ history: Array<Record<string, unknown>> }>(SITE_FILES.scenario(id)).history;
    const point = handPoints().find((p) => p.model === 'synthetic/llama-8b' && p.version === '1.0.0' && p.load === 'c=8')!;
    expect(point.runs).toHaveLength(3);
    const row = history.find((r) => r.engine === 'vllm' && r.engine_version === '1.0.0' && r.load === 'c=8')!;
    const expected = logInterval(point.runs.map((r) => r.throughput))!;
    close(row.output_throughput__lo, expected[0], 'output_throughput__lo');
    close(row.output_throughput__hi, expected[1], 'output_throughput__hi');
    // One thing: the value is the geometric mean of the same runs, the interval's centre on the log scale.
    close(row.output_throughput, geoMean(point.runs.map((r) => r.throughput)), 'output_throughput');
    close((row.output_throughput__lo as number) * (row.output_throughput__hi as number), (row.output_throughput as number) ** 2, 'lo·hi = value²');
    const ttft = logInterval(point.runs.map((r) => r.ttft95))!;
    expect(row.ttft_ms_p50__lo as number).toBeLessThan(row.ttft_ms_p50__hi as number);
    expect(ttft[0]).toBeLessThan(ttft[1]);
    // Throughput per GPU on one GPU: the same interval.
    close(row.output_throughput_per_gpu__lo, expected[0], 'output_throughput_per_gpu__lo');
    const single = history.find((r) => r.engine === 'sglang' && r.engine_version === '2.0.0' && r.load === 'c=8')!;
    for (const m of [...COMPARED_METRICS.map((c) => c.column), 'output_throughput_per_gpu']) {
      expect(single[`${m}__lo`], m).toBeNull();
      expect(single[`${m}__hi`], m).toBeNull();
      expect(row[`${m}__lo`], m).not.toBeUndefined();
    }
  });

  it('divides the throughput interval by the GPUs (two runs: t with 1 degree of freedom)', () => {
    const point = handPoints().find((p) => p.model === 'synthetic/llama-70b' && p.load === 'c=8')!;
    const scenarios = readJson<Array<{ scenario_id: string; model: string }>>(SITE_FILES.scenarios);
    const id = scenarios.find((s) => s.model === 'synthetic/llama-70b')!.scenario_id;
    const row = readJson<{ history: Array<Record<string, unknown>> }>(SITE_FILES.scenario(id)).history.find((r) => r.load === 'c=8')!;
    const perGpu = logInterval(point.runs.map((r) => r.perGpu))!;
    close(row.output_throughput_per_gpu__lo, perGpu[0], 'lo');
    close(row.output_throughput_per_gpu__hi, perGpu[1], 'hi');
    close(row.output_throughput__lo, perGpu[0] * 2, 'output_throughput__lo');
  });

  it('carries the intervals into the leaderboard and the Parquet history', async () => {
    const leaderboard = readJson<Array<Record<string, unknown>>>(SITE_FILES.leaderboard);
    const vllm = leaderboard.find((r) => r.model === 'synthetic/llama-8b' && r.engine === 'vllm' && r.load === 'c=8')!;
    const point = handPoints().find((p) => p.model === 'synthetic/llama-8b' && p.version === '1.1.0' && p.load === 'c=8')!;
    close(vllm.output_throughput__lo, logInterval(point.runs.map((r) => r.throughput))![0], 'leaderboard lo');
    const parquet = await query(`SELECT output_throughput__lo, output_throughput__hi FROM read_parquet('${outDir}/parquet/latest/history.parquet') WHERE engine = 'vllm' AND engine_version = '1.1.0' AND load = 'c=8' AND model = 'synthetic/llama-8b'`);
    close(parquet[0]!.output_throughput__lo, vllm.output_throughput__lo as number, 'history lo');
    const dictionary = JSON.parse(readFileSync(join(outDir, 'dictionary.json'), 'utf8')) as { tables: Record<string, Array<{ name: string; description: string }>> };
    expect(dictionary.tables.history!.find((c) => c.name === 'output_throughput__lo')!.description).toMatch(/95% interval/);
    expect(dictionary.tables.capacity!.map((c) => c.name)).toEqual(Object.keys(readJson<CapacityRow[]>(SITE_FILES.capacity)[0]!));
  });

  it('pools the noise of each compared metric per engine × hardware × load, over that pool’s repeated releases', () => {
    const noise = readJson<NoiseRow[]>(SITE_FILES.noise);
    const hardware = (model: string) => hardwareLabel(results.find((r) => r.run!.model.id === model)!);
    const pools = new Map<string, HandPoint[]>();
    for (const p of handPoints()) {
      const key = JSON.stringify([p.engine, hardware(p.model), p.load]);
      pools.set(key, [...(pools.get(key) ?? []), p]);
    }
    // vllm and sglang at c=1 and c=8 on the 8B's hardware, vllm at c=1, c=8 and c=32 on the 70B's two GPUs.
    expect(pools.size).toBe(7);
    expect(noise).toHaveLength(7 * COMPARED_METRICS.length);
    for (const [key, points] of pools) {
      const [engine, hw, load] = JSON.parse(key) as [string, string, string];
      const rows = noise.filter((n) => n.engine === engine && n.hardware === hw && n.load === load);
      expect(rows.map((n) => n.metric), key).toEqual(COMPARED_METRICS.map((m) => m.column));
      let sum = 0;
      let df = 0;
      const repeated = points.filter((p) => p.runs.length >= 2);
      for (const p of repeated) {
        const logs = p.runs.map((r) => Math.log(r.throughput));
        const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
        sum += logs.reduce((a, b) => a + (b - mean) ** 2, 0);
        df += logs.length - 1;
      }
      const row = rows.find((n) => n.metric === 'output_throughput')!;
      expect(row.releases, key).toBe(repeated.length);
      if (df === 0) expect(row.log_sd, key).toBeNull();
      else close(row.log_sd, Math.sqrt(sum / df), `${key} log_sd`);
    }
    // sglang was measured once per release: no band of its own, and never vllm's.
    expect(noise.filter((n) => n.engine === 'sglang').every((n) => n.log_sd === null && n.releases === 0)).toBe(true);
  });
});

describe('per-scenario release files', () => {
  const rowsOf = (path: string) => tableFromIPC(readFileSync(path)).toArray().map((r) => r.toJSON() as Record<string, unknown>);

  it('hold exactly the scenario’s rows of releases.arrow, with the same columns (ttft_ms_p95 among them)', () => {
    const all = rowsOf(site(SITE_FILES.releasesArrow));
    const files = readdirSync(join(outDir, 'site', 'releases'));
    expect(files).toHaveLength(2);
    expect(Object.keys(all[0]!)).toContain('ttft_ms_p95');
    for (const file of files) {
      const id = file.replace(/\.arrow$/, '');
      const rows = rowsOf(site(SITE_FILES.releasesOf(id)));
      expect(Object.keys(rows[0]!)).toEqual(Object.keys(all[0]!));
      expect(rows).toEqual(all.filter((r) => r.scenario_id === id));
    }
  });

  it('are rewritten only for the scenarios whose runs changed', async () => {
    const scenarios = readJson<Array<{ scenario_id: string; model: string }>>(SITE_FILES.scenarios);
    const [small, large] = ['synthetic/llama-8b', 'synthetic/llama-70b'].map((m) => scenarios.find((s) => s.model === m)!.scenario_id);
    const before = { small: rowsOf(site(SITE_FILES.releasesOf(small!))).length, largeMtime: statSync(site(SITE_FILES.releasesOf(large!))).mtimeMs };
    writeResult(resultsDir, syntheticResult({ ...fixtureRuns()[0]!, version: '1.2.0', seed: 4242, date: new Date(Date.UTC(2026, 1, 20, 3)) }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await compile({ resultsDir, outDir, prices: prices(), slaTiers: TIERS, now: new Date('2026-03-02T00:00:00Z') });
    expect(rowsOf(site(SITE_FILES.releasesOf(small!))).length).toBe(before.small + 2);
    expect(statSync(site(SITE_FILES.releasesOf(large!))).mtimeMs).toBe(before.largeMtime);
    const all = rowsOf(site(SITE_FILES.releasesArrow));
    expect(rowsOf(site(SITE_FILES.releasesOf(small!)))).toEqual(all.filter((r) => r.scenario_id === small));
  }, 60_000);
});
