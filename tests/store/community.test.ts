/**
 * Community and unverified-version runs never move the official statistics (issue 23, item 3):
 * the attacks of the hostile review, replayed on SYNTHETIC results. The fleet is
 * tests/store/fixture-results.ts (official runs); the community files next to it are SYNTHETIC
 * too (bench/lib/synthetic-results.ts). Real DuckDB, the real compile and the real CLI.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { loadSlaTiers } from '../../harness/contract/sla-tiers.ts';
import type { CommunityRelease, LeaderboardRow, ScenarioDetail } from '../../harness/contract/site-data.ts';
import { planAlerts } from '../../harness/pipeline/alert/alert.ts';
import { parseRegressionReport } from '../../harness/pipeline/regressions/report.ts';
import { compile } from '../../harness/store/compile.ts';
import { computeDeltas, deriveTables } from '../../harness/store/derive.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { ingest, openStore } from '../../harness/store/store.ts';
import { syntheticResult, writeResult, type SyntheticRun } from '../../bench/lib/synthetic-results.ts';
import { runCli } from '../cli/run-cli.ts';
import { fixtureRuns, writeFixture, writeFixturePrices } from './fixture-results.ts';

const root = mkdtempSync(join(tmpdir(), 'servebench-community-'));
const pricesFile = writeFixturePrices(root);
const NOW = new Date('2026-03-01T00:00:00Z');

const rowsOf = async (connection: DuckDBConnection, sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS();

/** The fleet's newest vllm release (1.1.0, three official runs in February). */
const officialVllm = (planted?: number) => fixtureRuns(planted).find((r) => r.engine === 'vllm' && r.version === '1.1.0')!;

/** Nine copies of vllm 1.1.0 at half its speed (TTFT and TPOT doubled), as the review submitted them. */
function halfSpeedCopies(source: 'community' | 'official', planted?: number): SyntheticRun[] {
  const run = officialVllm(planted);
  return Array.from({ length: 9 }, (_, i) => ({ ...run, source, tpotMs: run.tpotMs * 2, ttftMs: run.ttftMs * 2, seed: 900 + i, date: new Date(Date.UTC(2026, 1, 20, 3, i)) }));
}

/**
 * Every attack at once, all community but one: the copies, a made-up newer version, a run 100×
 * faster than the fleet, a new scenario; and an official run of a version no release list knows.
 */
function attacks(): SyntheticRun[] {
  const run = officialVllm();
  return [
    ...halfSpeedCopies('community'),
    { ...run, source: 'community', version: '9.9.9', seed: 950, date: new Date(Date.UTC(2026, 1, 21, 3)) },
    { ...run, source: 'official', version: '9.9.8', tpotMs: run.tpotMs / 2, seed: 953, date: new Date(Date.UTC(2026, 1, 23, 3)) },
    { ...run, source: 'community', engine: 'lmdeploy', version: '1.0.0', tpotMs: run.tpotMs / 100, ttftMs: run.ttftMs / 100, seed: 951, date: new Date(Date.UTC(2026, 1, 22, 3)) },
    { ...run, source: 'community', workload: 'summarize', seed: 952, date: new Date(Date.UTC(2026, 1, 25, 3)) },
  ];
}

function fleetFolder(name: string, planted?: number, extra: readonly SyntheticRun[] = []): string {
  const dir = join(root, name, 'results');
  writeFixture(dir, planted);
  for (const run of extra) writeResult(dir, syntheticResult(run));
  return dir;
}

async function regress(dir: string, extra: readonly string[] = []): Promise<{ code: number; stdout: string }> {
  const out = await runCli(['regress', '--results', dir, '--out', join(dir, '..', 'out'), '--prices', pricesFile, '--json', ...extra], 120_000);
  expect(out.stderr).toBe('');
  return out;
}

describe('community results and official statistics', () => {
  it('nine half-speed community copies of an official release: regress reports no regression and alert files nothing', async () => {
    // No planted slowdown: the fleet alone has nothing to report.
    const community = await regress(fleetFolder('copies', 1, halfSpeedCopies('community', 1)));
    const report = parseRegressionReport(community.stdout, 'regress');
    expect([community.code, report.regressions]).toEqual([0, []]);
    // The comparisons are the fleet's: vllm 1.1.0 over its own 3 runs, none of the copies.
    expect(report.comparisons!.filter((c) => c.engine === 'vllm').every((c) => c.runs === 3 && c.verdict !== 'worse')).toBe(true);
    expect(planAlerts(report, [], { reopen: false, displayName: (engine) => engine })).toEqual([]);

    // Ground truth that the attack is real: the same nine runs made by the project's own pipeline are a regression, and alert files it.
    const official = await regress(fleetFolder('copies-official', 1, halfSpeedCopies('official', 1)));
    const real = parseRegressionReport(official.stdout, 'regress');
    expect(official.code).toBe(1);
    const drops = real.regressions.filter((r) => r.engine === 'vllm' && r.version === '1.1.0' && r.metric === 'output_throughput').map((r) => r.change_pct);
    // Nine of twelve runs at half speed: a change of the geometric mean of 0.5^(9/12) − 1 = −40.5% (the noise, σ 0.02 on logs, moves it by about a point).
    expect(drops).toHaveLength(2);
    for (const drop of drops) expect(Math.abs(drop - (0.5 ** 0.75 - 1) * 100)).toBeLessThan(2);
    expect(planAlerts(real, [], { reopen: false, displayName: (engine) => engine }).map((a) => a.kind)).toEqual(['create']);
  }, 240_000);

  it('regress --base: a community file added since the base brings no official comparison into the report', async () => {
    // The fleet with its planted vllm 1.1.0 regression, committed; then a community repeat of vllm 1.1.0 arrives.
    const dir = fleetFolder('base', undefined);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: join(dir, '..'), env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    git('init', '-q', '-b', 'main');
    git('add', 'results');
    git('commit', '-q', '-m', 'the fleet');
    writeResult(dir, syntheticResult({ ...officialVllm(), source: 'community', seed: 990, date: new Date(Date.UTC(2026, 1, 28, 3)) }));
    const scoped = await regress(dir, ['--base', 'main']);
    expect([scoped.code, JSON.parse(scoped.stdout).compared]).toEqual([0, 0]);
    // The official regression is still there for --latest.
    expect((await regress(dir)).code).toBe(1);
  }, 240_000);

  it('official outputs are byte-identical with and without community files; the community rows stand apart', async () => {
    const prices = loadPrices(pricesFile);
    const alone = join(root, 'alone-out');
    const crowded = join(root, 'crowded-out');
    await compile({ resultsDir: fleetFolder('alone'), outDir: alone, prices, now: NOW });
    const crowdedResults = fleetFolder('crowded', undefined, attacks());
    // And a failed community run, dated after everything official.
    const failed = syntheticResult({ ...officialVllm(), source: 'community', seed: 960, date: new Date(Date.UTC(2026, 1, 26, 3)) });
    writeResult(crowdedResults, { ...failed, status: 'failed', points: [], run: { ...failed.run!, failure: { phase: 'launch', message: 'community launch failure', log_tail: [] } } });
    await compile({ resultsDir: crowdedResults, outDir: crowded, prices, now: NOW });

    const text = (out: string, file: string) => readFileSync(join(out, 'site', file), 'utf8');
    for (const file of ['leaderboard.json', 'deltas.json', 'regressions.json', 'capacity.json', 'noise.json', 'versions.json', 'changes.json']) {
      expect(text(crowded, file), file).toBe(text(alone, file));
    }
    const meta = (out: string) => JSON.parse(text(out, 'meta.json')) as { runs: number; official_runs: number };
    expect([meta(crowded).official_runs, meta(crowded).runs]).toEqual([meta(alone).official_runs, meta(alone).runs + attacks().length + 1]);
    // The planted official regression is still found, by the official runs alone.
    expect(JSON.parse(text(crowded, 'regressions.json')).regressions.length).toBeGreaterThan(0);
    // Scenario rows: the official ones unchanged but for their count of community rows; the community-only scenario is marked.
    const scenarios = (out: string) => JSON.parse(text(out, 'scenarios.json')) as Array<Record<string, unknown>>;
    const officialScenarios = scenarios(crowded).filter((s) => s.official === true);
    expect(officialScenarios.map(({ community_releases: _, ...rest }) => rest)).toEqual(scenarios(alone).map(({ community_releases: _, ...rest }) => rest));
    expect(officialScenarios.map((s) => s.community_releases)).toEqual([2 * 4]);
    expect(scenarios(crowded).filter((s) => s.official === false).map((s) => [s.workload, s.engines, s.releases, s.loads, s.community_releases])).toEqual([['summarize', [], 0, [], 2]]);
    // The scenario page: Pareto and the official history unchanged.
    const detail = (out: string) => JSON.parse(text(out, `scenarios/${String(officialScenarios[0]!.scenario_id)}.json`)) as ScenarioDetail;
    expect(detail(crowded).pareto).toEqual(detail(alone).pareto);
    expect(detail(crowded).history.filter((h) => h.official)).toEqual(detail(alone).history);
    // The published Parquet tables that rank or compare: the same bytes.
    const sha = (out: string, table: string) => (JSON.parse(readFileSync(join(out, 'MANIFEST.json'), 'utf8')) as { files: Array<{ path: string; sha256: string }> }).files.find((f) => f.path === `parquet/latest/${table}.parquet`)!.sha256;
    for (const table of ['leaderboard', 'deltas', 'pareto', 'capacity']) expect(sha(crowded, table), table).toBe(sha(alone, table));

    // Where the community went: its own rows, never ranked.
    const leaderboard = JSON.parse(text(crowded, 'leaderboard.json')) as LeaderboardRow[];
    expect(leaderboard.some((r) => r.engine === 'lmdeploy')).toBe(false);
    expect([...new Set(leaderboard.filter((r) => r.engine === 'vllm').map((r) => r.engine_version))]).toEqual(['1.1.0']);
    const community = JSON.parse(text(crowded, 'community.json')) as CommunityRelease[];
    const rowsOfVersion = (engine: string, version: string) => community.filter((r) => r.engine === engine && r.engine_version === version && r.workload === 'chat');
    expect(rowsOfVersion('vllm', '1.1.0').map((r) => [r.load, r.runs, r.source, r.official])).toEqual([['c=1', 9, 'community', false], ['c=8', 9, 'community', false]]);
    expect(rowsOfVersion('vllm', '9.9.9').map((r) => r.runs)).toEqual([1, 1]);
    expect(rowsOfVersion('vllm', '9.9.8').map((r) => [r.source, r.engine_version_known, r.official])).toEqual([['official', false, false], ['official', false, false]]);
    // 100× the fleet's throughput: visible on its own row, ranked nowhere.
    const fast = rowsOfVersion('lmdeploy', '1.0.0');
    expect(fast.map((r) => r.load)).toEqual(['c=1', 'c=8']);
    expect(Number(fast[1]!.output_throughput)).toBeGreaterThan(50 * Math.max(...leaderboard.map((r) => Number(r.output_throughput))));
    expect(JSON.parse(text(crowded, 'changes.json')).failed_runs).toEqual([]);
  }, 240_000);

  it('an official run of an unverified version (engine_version_known false) is treated as community', async () => {
    const dir = fleetFolder('unverified', 1);
    const run = officialVllm(1);
    for (let i = 0; i < 3; i++) writeResult(dir, syntheticResult({ ...run, version: '9.9.9', tpotMs: run.tpotMs * 2, ttftMs: run.ttftMs * 2, seed: 970 + i, date: new Date(Date.UTC(2026, 1, 27, 3, i)) }));
    const store = await openStore(':memory:');
    try {
      await ingest(store, dir);
      // No release list knows 9.9.9 (fleet/releases.json, nor the tests' synthetic list): the store marks it so.
      expect(await rowsOf(store.connection, `SELECT DISTINCT engine_version, engine_version_known FROM runs WHERE engine = 'vllm' ORDER BY engine_version`)).toEqual([
        { engine_version: '1.0.0', engine_version_known: true },
        { engine_version: '1.1.0', engine_version_known: true },
        { engine_version: '9.9.9', engine_version_known: false },
      ]);
      await deriveTables(store.connection, loadPrices(pricesFile), loadSlaTiers());
      const deltas = await computeDeltas(store.connection);
      expect(deltas.length).toBeGreaterThan(0);
      expect(deltas.filter((d) => d.version === '9.9.9' || d.previous_version === '9.9.9')).toEqual([]);
      expect(deltas.filter((d) => d.verdict === 'worse')).toEqual([]);
      expect(await rowsOf(store.connection, `SELECT DISTINCT engine_version FROM leaderboard WHERE engine = 'vllm'`)).toEqual([{ engine_version: '1.1.0' }]);
      for (const table of ['pareto', 'capacity']) expect(await rowsOf(store.connection, `SELECT count(*)::INTEGER AS n FROM ${table} WHERE engine_version = '9.9.9'`), table).toEqual([{ n: 0 }]);
      expect(await rowsOf(store.connection, `SELECT load, runs, source, engine_version_known, official FROM community_releases ORDER BY load`)).toEqual([
        { load: 'c=1', runs: 3, source: 'official', engine_version_known: false, official: false },
        { load: 'c=8', runs: 3, source: 'official', engine_version_known: false, official: false },
      ]);
    } finally {
      store.close();
    }
  }, 120_000);
});
