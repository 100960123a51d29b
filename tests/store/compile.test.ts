/**
 * The compile step on a SYNTHETIC fixture (tests/store/fixture-results.ts): every derived value
 * is recomputed here from the result files themselves (the ground truth), not from the compiler.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { compile, type CompileReport } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { runCli } from '../cli/run-cli.ts';
import { fixtureRuns, writeFixture, writeFixturePrices } from './fixture-results.ts';
import { syntheticResult, writeResult } from '../../bench/lib/synthetic-results.ts';
import { query } from './duckdb-query.ts';

const root = mkdtempSync(join(tmpdir(), 'servebench-compile-'));
const resultsDir = join(root, 'results');
const outDir = join(root, 'out');
let paths: string[] = [];
let results: RunResult[] = [];
let report: CompileReport;
const prices = () => loadPrices(writeFixturePrices(root));

const geoMean = (values: number[]) => Math.exp(values.reduce((a, v) => a + Math.log(v), 0) / values.length);
const c8 = (r: RunResult) => r.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === 8)!;
const byVersion = (engine: string, version: string) => results.filter((r) => r.run!.engine.name === engine && r.run!.engine.version === version);

beforeAll(async () => {
  paths = writeFixture(resultsDir);
  results = paths.map((p) => JSON.parse(readFileSync(join(resultsDir, p), 'utf8')) as RunResult);
  report = await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-01T00:00:00Z') });
}, 60_000);

/** Deep equality with numbers equal to 1e-9 relative. */
function expectClose(actual: unknown, expected: unknown, where: string): void {
  if (typeof actual === 'number' && typeof expected === 'number') {
    expect(Math.abs(actual - expected), `${where}: ${actual} vs ${expected}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
  } else if (Array.isArray(actual) && Array.isArray(expected)) {
    expect(actual.length, where).toBe(expected.length);
    actual.forEach((item, i) => expectClose(item, expected[i], `${where}[${i}]`));
  } else if (actual !== null && expected !== null && typeof actual === 'object' && typeof expected === 'object') {
    expect(Object.keys(actual).sort(), where).toEqual(Object.keys(expected).sort());
    for (const key of Object.keys(expected)) expectClose((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], `${where}.${key}`);
  } else {
    expect(actual, where).toEqual(expected);
  }
}

describe('compile', () => {
  it('reads every file and writes runs, points and the long metrics table', () => {
    expect(report.problems).toEqual([]);
    expect(report.tables.runs).toBe(8);
    expect(report.tables.points).toBe(16);
    // 16 points × (6 distributions × 6 stats + the scalar metrics that are not null).
    expect(report.tables.metrics).toBeGreaterThan(16 * 36);
  });

  it('ranks the newest version of each engine per configuration', async () => {
    const rows = await query(`SELECT * FROM read_parquet('${outDir}/parquet/latest/leaderboard.parquet') WHERE load = 'c=8' ORDER BY engine`);
    expect(rows.map((r) => [r.engine, r.engine_version])).toEqual([['sglang', '2.1.0'], ['vllm', '1.1.0']]);
    // A release's value is the geometric mean over its runs (docs/metrics.md).
    const expected = { sglang: geoMean(byVersion('sglang', '2.1.0').map((r) => c8(r).metrics.output_throughput!)), vllm: geoMean(byVersion('vllm', '1.1.0').map((r) => c8(r).metrics.output_throughput!)) };
    expect(rows[0]!.output_throughput).toBeCloseTo(expected.sglang, 6);
    expect(rows[1]!.output_throughput).toBeCloseTo(expected.vllm, 6);
    const winner = expected.sglang > expected.vllm ? 'sglang' : 'vllm';
    expect(rows.find((r) => r.rank_output_throughput === 1)!.engine).toBe(winner);
    // Ranks count only the newest versions: 1 and 2 here, at every load point and for every metric.
    const all = await query(`SELECT * FROM read_parquet('${outDir}/parquet/latest/leaderboard.parquet')`);
    for (const row of all) {
      for (const [key, value] of Object.entries(row)) if (key.startsWith('rank_') && value !== null) expect([1, 2], key).toContain(value);
      expect(row.engines).toBe(2);
    }
    expect(rows.find((r) => r.engine === 'vllm')!.runs).toBe(3);
  });

  it('prices each run at the price in effect on its date (longest GPU match), never re-pricing history', async () => {
    const rows = await query(`SELECT run_id, run_date::VARCHAR AS day, output_throughput, gpu_price_usd_per_hour, cost_per_1m_output_tokens, tokens_per_gpu_hour, energy_per_output_token_j, gpu_energy_j, output_tokens FROM read_parquet('${outDir}/parquet/latest/points/*.parquet')`);
    for (const row of rows) {
      const price = String(row.day) < '2026-02-01' ? 2 : 3;
      expect(row.gpu_price_usd_per_hour).toBe(price);
      expect(row.cost_per_1m_output_tokens as number).toBeCloseTo((price / ((row.output_throughput as number) * 3600)) * 1e6, 9);
      expect(row.tokens_per_gpu_hour as number).toBeCloseTo((row.output_throughput as number) * 3600, 6);
      expect(row.energy_per_output_token_j as number).toBeCloseTo((row.gpu_energy_j as number) / Number(row.output_tokens), 9);
    }
  });

  it('computes deltas newest vs previous release, with Welch on repeats; single runs of an engine without repeats of its own: unknown noise', () => {
    const vllm = report.deltas.find((d) => d.engine === 'vllm' && d.load === 'c=8' && d.metric === 'output_throughput')!;
    const old = byVersion('vllm', '1.0.0').map((r) => c8(r).metrics.output_throughput!);
    const next = byVersion('vllm', '1.1.0').map((r) => c8(r).metrics.output_throughput!);
    expect(vllm.change_pct).toBeCloseTo((geoMean(next) / geoMean(old) - 1) * 100, 9);
    expect(vllm.change_pct).toBeGreaterThan(-20);
    expect(vllm.change_pct).toBeLessThan(-10);
    expect([vllm.method, vllm.verdict, vllm.previous_version, vllm.version]).toEqual(['welch', 'worse', '1.0.0', '1.1.0']);
    expect(vllm.ci_low_pct!).toBeLessThan(vllm.change_pct);
    expect(vllm.ci_high_pct!).toBeGreaterThan(vllm.change_pct);
    const ttft = report.deltas.find((d) => d.engine === 'vllm' && d.load === 'c=8' && d.metric === 'ttft_ms_p50')!;
    expect(ttft.verdict).toBe('worse');
    expect(ttft.change_pct).toBeGreaterThan(0);
    // sglang was measured once per release: vllm's repeats never stand in for its noise (tests/store/noise-pools.test.ts).
    const sglang = report.deltas.filter((d) => d.engine === 'sglang');
    expect(sglang.length).toBeGreaterThan(0);
    for (const d of sglang) expect([d.method, d.verdict, d.p_value]).toEqual(['unknown-noise', 'unclear', null]);
    expect(sglang.find((d) => d.metric === 'output_throughput' && d.load === 'c=8')!.verdict).toBe('unclear');
  });

  it('marks the Pareto frontier per engine version and overall', async () => {
    const rows = await query(`SELECT * FROM read_parquet('${outDir}/parquet/latest/pareto.parquet')`);
    const dominated = (a: Record<string, unknown>, pool: Array<Record<string, unknown>>) =>
      pool.some((b) => (b.interactivity as number) >= (a.interactivity as number) && (b.throughput_per_gpu as number) >= (a.throughput_per_gpu as number) && ((b.interactivity as number) > (a.interactivity as number) || (b.throughput_per_gpu as number) > (a.throughput_per_gpu as number)));
    expect(rows).toHaveLength(8);
    for (const row of rows) {
      const sameVersion = rows.filter((b) => b.engine === row.engine && b.engine_version === row.engine_version);
      expect(row.on_version_frontier).toBe(!dominated(row, sameVersion));
      expect(row.on_overall_frontier).toBe(Boolean(row.latest_version) && !dominated(row, rows.filter((b) => b.latest_version)));
    }
    expect(rows.some((r) => r.on_overall_frontier)).toBe(true);
  });

  it('writes Parquet that reads back equal to the source files (DuckDB), and the Arrow file the site reads (apache-arrow)', async () => {
    const rows = await query(`SELECT run_id, point, ttft_ms_p99, output_throughput, engine_version FROM read_parquet('${outDir}/parquet/latest/points/*.parquet')`);
    for (const result of results) {
      result.points.forEach((point, i) => {
        const row = rows.find((r) => r.run_id === result.run_id && r.point === i)!;
        expect(row.ttft_ms_p99).toBe(point.metrics.ttft_ms!.p99);
        expect(row.output_throughput).toBe(point.metrics.output_throughput);
        expect(row.engine_version).toBe(result.run!.engine.version);
      });
    }
    // Each scenario's Arrow file (the fixture has one): every completed point, without run ids.
    const scenarioFiles = readdirSync(join(outDir, 'site', 'points'));
    expect(scenarioFiles).toHaveLength(1);
    const table = tableFromIPC(readFileSync(join(outDir, 'site', 'points', scenarioFiles[0]!)));
    expect(table.schema.fields.map((f) => f.name)).not.toContain('run_id');
    const tuple = (engine: unknown, version: unknown, ttft: unknown, throughput: unknown) => JSON.stringify([engine, version, ttft, throughput]);
    const arrowTuples = table.toArray().map((r) => { const o = r.toJSON() as Record<string, unknown>; return tuple(o.engine, o.engine_version, o.ttft_ms_p99, o.output_throughput); });
    const sourceTuples = results.flatMap((r) => r.points.map((p) => tuple(r.run!.engine.name, r.run!.engine.version, p.metrics.ttft_ms!.p99, p.metrics.output_throughput)));
    expect(arrowTuples.sort()).toEqual(sourceTuples.sort());
    // The compare page's per-release values equal the history table's.
    const releases = tableFromIPC(readFileSync(join(outDir, 'site', 'releases.arrow'))).toArray().map((r) => r.toJSON() as Record<string, unknown>);
    const history = await query(`SELECT config_id, engine, engine_version, output_throughput, ttft_ms_p99 FROM read_parquet('${outDir}/parquet/latest/history.parquet')`);
    expect(releases).toHaveLength(history.length);
    for (const h of history) {
      const r = releases.find((x) => x.config_id === h.config_id && x.engine === h.engine && x.engine_version === h.engine_version)!;
      expect([r.output_throughput, r.ttft_ms_p99]).toEqual([h.output_throughput, h.ttft_ms_p99]);
    }
    const runs = await query(`SELECT file, engine, harness_git_commit FROM read_parquet('${outDir}/parquet/latest/runs/*.parquet') ORDER BY file`);
    expect(runs.map((r) => r.file)).toEqual([...paths].sort());
  });

  it('writes a manifest whose checksums and row counts match, and a dictionary describing every column', async () => {
    const manifest = JSON.parse(readFileSync(join(outDir, 'MANIFEST.json'), 'utf8')) as { files: Array<{ path: string; sha256: string; rows: number | null; bytes: number }>; snapshot: string };
    const { createHash } = await import('node:crypto');
    for (const file of manifest.files) {
      expect(createHash('sha256').update(readFileSync(join(outDir, file.path))).digest('hex'), file.path).toBe(file.sha256);
    }
    // One file per ISO week of runs for the per-run tables (runs on Jan 10-11, Jan 12-15 and Feb 10-15).
    const points = manifest.files.filter((f) => f.path.startsWith('parquet/latest/points/'));
    expect(points.map((f) => f.path).sort()).toEqual(['parquet/latest/points/2026-W02.parquet', 'parquet/latest/points/2026-W03.parquet', 'parquet/latest/points/2026-W07.parquet']);
    expect(points.reduce((sum, f) => sum + f.rows!, 0)).toBe(16);
    expect(manifest.files.some((f) => f.path === `parquet/snapshots/${manifest.snapshot}/runs/2026-W07.parquet`)).toBe(true);
    const dictionary = JSON.parse(readFileSync(join(outDir, 'dictionary.json'), 'utf8')) as { tables: Record<string, Array<{ name: string; description: string }>> };
    expect(Object.keys(dictionary.tables).sort()).toEqual(['ab_comparisons', 'bisections', 'capacity', 'deltas', 'history', 'leaderboard', 'metrics', 'pareto', 'points', 'runs']);
    for (const columns of Object.values(dictionary.tables)) for (const c of columns) expect(c.description.length, c.name).toBeGreaterThan(5);
    // A column means what its own table holds: the runs' run_id is the run itself; the deltas' is the newest release's latest run.
    const described = (table: string, column: string) => dictionary.tables[table]!.find((c) => c.name === column)!.description;
    expect(described('runs', 'run_id')).toMatch(/^The run: /);
    expect(described('points', 'run_id')).toMatch(/^The run: /);
    expect(described('deltas', 'run_id')).toBe('Latest run of the newest release');
    expect(described('deltas', 'value')).toMatch(/geometric mean/);
  });

  it('writes the site data: leaderboard rows with their deltas, scenarios with history and pareto', () => {
    const leaderboard = JSON.parse(readFileSync(join(outDir, 'site', 'leaderboard.json'), 'utf8')) as Array<Record<string, unknown> & { deltas: Record<string, { verdict: string }> }>;
    expect(leaderboard).toHaveLength(4);
    expect(leaderboard.find((r) => r.engine === 'vllm' && r.load === 'c=8')!.deltas.output_throughput!.verdict).toBe('worse');
    const scenarios = JSON.parse(readFileSync(join(outDir, 'site', 'scenarios.json'), 'utf8')) as Array<{ scenario_id: string; loads: string[] }>;
    expect(scenarios).toHaveLength(1);
    expect(scenarios[0]!.loads).toEqual(['c=1', 'c=8']);
    const scenario = JSON.parse(readFileSync(join(outDir, 'site', 'scenarios', `${scenarios[0]!.scenario_id}.json`), 'utf8')) as { history: unknown[]; pareto: unknown[] };
    expect(scenario.history).toHaveLength(8);
    expect(scenario.pareto).toHaveLength(8);
  });

  it('is incremental, keeps dated snapshots immutable, and drops deleted files', async () => {
    const again = await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-01T00:00:00Z') });
    expect(again.ingest.parsed).toBe(0);
    expect(again.snapshot).toBe(report.snapshot);
    expect(again.snapshotWritten).toBe(false);
    const added = writeResult(resultsDir, syntheticResult({ ...fixtureRuns()[7]!, seed: 999, date: new Date(Date.UTC(2026, 1, 20, 3)) }));
    const next = await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-02T00:00:00Z') });
    expect([next.ingest.parsed, next.tables.runs, next.snapshotWritten]).toEqual([1, 9, true]);
    expect(next.snapshot).not.toBe(report.snapshot);
    expect(existsSync(join(outDir, 'parquet', 'snapshots', report.snapshot, 'runs', '2026-W07.parquet'))).toBe(true);
    // Weeks without new runs are linked from the previous snapshot; the new run's week (Feb 20) is written.
    const inode = (snapshot: string, file: string) => statSync(join(outDir, 'parquet', 'snapshots', snapshot, file)).ino;
    for (const week of ['2026-W02', '2026-W03', '2026-W07']) expect(inode(next.snapshot, `points/${week}.parquet`)).toBe(inode(report.snapshot, `points/${week}.parquet`));
    expect(existsSync(join(outDir, 'parquet', 'snapshots', report.snapshot, 'points', '2026-W08.parquet'))).toBe(false);
    expect(existsSync(join(outDir, 'parquet', 'snapshots', next.snapshot, 'points', '2026-W08.parquet'))).toBe(true);
    // An incremental compile publishes what a compile from scratch of the same files does.
    const cold = await compile({ resultsDir, outDir: join(root, 'out-cold'), prices: prices(), now: new Date('2026-03-02T00:00:00Z') });
    expect(cold.snapshot).toBe(next.snapshot);
    // Equal up to float summation order: DuckDB sums in parallel, so the last bits of a mean may differ.
    expectClose(next.deltas, cold.deltas, 'deltas');
    for (const table of ['leaderboard', 'history', 'pareto', 'capacity', 'points/*', 'metrics/*']) {
      const sql = (dir: string) => `SELECT * FROM read_parquet('${dir}/parquet/latest/${table}.parquet') ORDER BY ALL`;
      expectClose(await query(sql(outDir)), await query(sql(join(root, 'out-cold'))), table);
    }
    // The site files reused from the previous compile are the ones a compile from scratch writes.
    for (const folder of ['runs', 'points', 'scenarios', 'releases']) {
      const names = readdirSync(join(outDir, 'site', folder)).sort();
      expect(names, folder).toEqual(readdirSync(join(root, 'out-cold', 'site', folder)).sort());
      for (const name of names) {
        const [a, b] = [join(outDir, 'site', folder, name), join(root, 'out-cold', 'site', folder, name)];
        if (name.endsWith('.arrow')) expect(tableFromIPC(readFileSync(a)).toArray().map((r) => r.toJSON()), name).toEqual(tableFromIPC(readFileSync(b)).toArray().map((r) => r.toJSON()));
        else expectClose(JSON.parse(readFileSync(a, 'utf8')), JSON.parse(readFileSync(b, 'utf8')), name);
      }
    }
    rmSync(join(resultsDir, added));
    const dropped = await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-02T00:00:00Z') });
    expect([dropped.ingest.parsed, dropped.ingest.removed, dropped.tables.runs]).toEqual([0, 1, 8]);
    // Back to the first inputs: the first snapshot stands again (same digest, any day), the site data follows.
    expect(dropped.snapshot).toBe(report.snapshot);
    expect(JSON.parse(readFileSync(join(outDir, 'site', 'meta.json'), 'utf8')).snapshot).toBe(report.snapshot);
    expect(readdirSync(join(outDir, 'parquet', 'snapshots')).filter((n) => !n.includes('.partial'))).toHaveLength(2);
    const unchanged = await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-05T00:00:00Z') });
    expect([unchanged.snapshot, unchanged.snapshotWritten, unchanged.tables.points, Object.keys(unchanged.phases)]).toEqual([report.snapshot, false, 16, ['ingest', 'unchanged']]);
    expect(unchanged.deltas).toEqual(dropped.deltas);
  }, 60_000);

  it('breaks the series at a methodology change: no delta across it', async () => {
    const dir = join(root, 'methodology');
    cpSync(resultsDir, dir, { recursive: true });
    const changed = syntheticResult({ ...fixtureRuns()[3]!, version: '1.2.0', seed: 4321, date: new Date(Date.UTC(2026, 1, 25, 3)) });
    changed.workload.lengths = 'approximate';
    writeResult(dir, changed);
    const out = await compile({ resultsDir: dir, outDir: join(root, 'out-methodology'), prices: prices(), now: new Date('2026-03-01T00:00:00Z') });
    const vllm = out.deltas.filter((d) => d.engine === 'vllm' && d.metric === 'output_throughput');
    expect(vllm.map((d) => [d.previous_version, d.version, d.methodology])).toEqual([
      ['1.0.0', '1.1.0', 's1.m1.exact'],
      ['1.0.0', '1.1.0', 's1.m1.exact'],
    ]);
    const rows = await query(`SELECT DISTINCT engine_version, methodology FROM read_parquet('${root}/out-methodology/parquet/latest/leaderboard.parquet') WHERE engine = 'vllm' ORDER BY 1`);
    expect(rows).toEqual([{ engine_version: '1.1.0', methodology: 's1.m1.exact' }, { engine_version: '1.2.0', methodology: 's1.m1.approximate' }]);
  }, 60_000);

  it('reports a bad file, leaves it out, and exits 1 unless --allow-invalid', async () => {
    const dir = join(root, 'with-bad');
    cpSync(resultsDir, dir, { recursive: true });
    const victim = join(dir, paths[0]!);
    writeFileSync(victim, readFileSync(victim, 'utf8').replace('"completed"', '"done"'));
    const out = join(root, 'out-bad');
    const strict = await runCli(['compile', '--results', dir, '--out', out, '--prices', writeFixturePrices(root)], 120_000);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(paths[0]!);
    expect(strict.stderr).toMatch(/7 valid runs/);
    const lenient = await runCli(['compile', '--results', dir, '--out', out, '--prices', writeFixturePrices(root), '--allow-invalid', '--json'], 120_000);
    expect(lenient.code).toBe(0);
    expect((JSON.parse(lenient.stdout) as { tables: { runs: number } }).tables.runs).toBe(7);
  }, 180_000);
});
