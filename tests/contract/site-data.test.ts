/**
 * The compiled data's contract against real compile output: the SYNTHETIC fixture of tests/store is
 * compiled, and every file the site reads parses with its schema in harness/contract/site-data.ts
 * (strict where the shape is fixed), so the pages' types describe what is really there.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HEADLINE_METRICS } from '../../harness/contract/metric-catalog.ts';
import { COMPARED_METRICS } from '../../harness/contract/metric-catalog.ts';
import { loadSlaTiers } from '../../harness/contract/sla-tiers.ts';
import {
  CapacityRowSchema,
  ChangesFileSchema,
  CommunityReleaseSchema,
  DeltaSchema,
  EngineVersionSchema,
  HeadlineMetricSchema,
  LeaderboardRowSchema,
  NoiseRowSchema,
  RegressionsFileSchema,
  RunDetailSchema,
  ScenarioDetailSchema,
  ScenarioSchema,
  SITE_FILES,
  SiteMetaSchema,
  SlaTiersFileSchema,
} from '../../harness/contract/site-data.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { syntheticResult, writeResult } from '../../bench/lib/synthetic-results.ts';
import { fixtureRuns, writeFixture, writeFixturePrices } from '../store/fixture-results.ts';

const root = mkdtempSync(join(tmpdir(), 'servebench-site-data-'));
const site = join(root, 'out', 'site');
const read = (file: string): unknown => JSON.parse(readFileSync(join(site, file), 'utf8'));
const scenarios = () => z.array(ScenarioSchema).parse(read(SITE_FILES.scenarios));

beforeAll(async () => {
  writeFixture(join(root, 'results'));
  // One community repeat of the official vllm 1.0.0 (SYNTHETIC): its own row, never ranked.
  writeResult(join(root, 'results'), syntheticResult({ ...fixtureRuns()[0]!, source: 'community', seed: 4242 }));
  await compile({ resultsDir: join(root, 'results'), outDir: join(root, 'out'), prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-03-01T00:00:00Z') });
}, 60_000);

describe('the compiled site data parses with its contract', () => {
  it('every top-level file', () => {
    // Every valid run; the home page counts the official ones (the community repeat is not).
    expect(SiteMetaSchema.parse(read(SITE_FILES.meta))).toMatchObject({ runs: 9, official_runs: 8 });
    expect(z.array(ScenarioSchema).parse(read(SITE_FILES.scenarios))).toHaveLength(1);
    const leaderboard = z.array(LeaderboardRowSchema).parse(read(SITE_FILES.leaderboard));
    expect(leaderboard.length).toBeGreaterThan(0);
    // The metric columns ride along on every row.
    for (const row of leaderboard) for (const m of HEADLINE_METRICS) expect(row).toHaveProperty(m.column);
    expect(z.array(DeltaSchema).parse(read(SITE_FILES.deltas)).length).toBeGreaterThan(0);
    expect(z.array(HeadlineMetricSchema).parse(read(SITE_FILES.metrics))).toEqual(HEADLINE_METRICS);
    expect(z.array(EngineVersionSchema).parse(read(SITE_FILES.versions))).toHaveLength(4);
    // The fixture plants a 15% slowdown of vllm 1.1.0: the regressions the page shows, from compile.
    const regressions = RegressionsFileSchema.parse(read(SITE_FILES.regressions));
    expect(regressions.regressions.some((r) => r.engine === 'vllm' && r.version === '1.1.0')).toBe(true);
    expect(existsSync(join(site, SITE_FILES.releasesArrow))).toBe(true);
    // Every metric the regression test compares carries its interval on the leaderboard rows.
    for (const row of leaderboard) for (const m of COMPARED_METRICS) expect(row).toHaveProperty(`${m.column}__lo`);
  });

  it('each release row says what its values rest on: the samples behind each headline percentile, the throughput window, overload', () => {
    const leaderboard = z.array(LeaderboardRowSchema).parse(read(SITE_FILES.leaderboard));
    for (const row of leaderboard) {
      // The fixture's 64 requests a point: TTFT p95 has its 20, TTFT p99 lacks its 100 (null, "n = 64" on the page).
      expect([row.ttft_ms_p95__samples_max, row.ttft_ms_p99__samples_max, row.ttft_ms_p99, row.rank_ttft_ms_p99]).toEqual([64, 64, null, null]);
      expect(row.ttft_ms_p95).toEqual(expect.any(Number));
      expect([row.throughput_window, row.overloaded]).toEqual(['whole run', false]);
    }
    const capacity = z.array(CapacityRowSchema).parse(read(SITE_FILES.capacity));
    for (const row of capacity) expect([row.unjudged_loads, row.unjudged_samples_max]).toEqual([0, null]);
  });

  it('capacity at the SLA tiers, the tier file, the noise and what changed', () => {
    const tiers = SlaTiersFileSchema.parse(read(SITE_FILES.slaTiers));
    // compile's default: the repository's tier file.
    expect(tiers).toEqual(loadSlaTiers());
    const capacity = z.array(CapacityRowSchema).parse(read(SITE_FILES.capacity));
    // 4 releases of the one scenario × every tier.
    expect(capacity).toHaveLength(4 * tiers.tiers.length);
    for (const row of capacity) expect(row.tiers_version).toBe(tiers.version);
    // One pool per engine × hardware × load, each with every compared metric.
    const noise = z.array(NoiseRowSchema).parse(read(SITE_FILES.noise));
    const pool = (n: { engine: string; hardware: string; load: string }) => JSON.stringify([n.engine, n.hardware, n.load]);
    expect(new Set(noise.map(pool)).size).toBe(4); // vllm and sglang at c=1 and c=8
    for (const p of new Set(noise.map(pool))) expect(noise.filter((n) => pool(n) === p).map((n) => n.metric)).toEqual(COMPARED_METRICS.map((m) => m.column));
    expect(ChangesFileSchema.parse(read(SITE_FILES.changes)).basis).toBe('last-7-days');
    for (const row of scenarios()) expect(existsSync(join(site, SITE_FILES.releasesOf(row.scenario_id)))).toBe(true);
  });

  it('community rows stand apart: their own file, flags on the scenario and the history, none on the leaderboard', () => {
    const community = z.array(CommunityReleaseSchema).parse(read(SITE_FILES.community));
    expect(community.map((r) => [r.engine, r.engine_version, r.load, r.runs, r.source, r.engine_version_known, r.official])).toEqual([
      ['vllm', '1.0.0', 'c=1', 1, 'community', true, false],
      ['vllm', '1.0.0', 'c=8', 1, 'community', true, false],
    ]);
    // The leaderboard's schema admits official rows only; the official vllm 1.0.0 keeps its 3 runs.
    const leaderboard = z.array(LeaderboardRowSchema).parse(read(SITE_FILES.leaderboard));
    expect(leaderboard.every((r) => r.official && r.source === 'official')).toBe(true);
    expect(LeaderboardRowSchema.safeParse({ ...leaderboard[0], source: 'community', official: false }).success).toBe(false);
    const [scenario] = scenarios();
    expect([scenario!.official, scenario!.community_releases, scenario!.releases]).toEqual([true, 2, 8]);
    const history = ScenarioDetailSchema.parse(read(SITE_FILES.scenario(scenario!.scenario_id))).history;
    expect(history.filter((h) => !h.official).map((h) => h.latest_run_id)).toEqual(community.map((r) => r.latest_run_id));
    expect(history.filter((h) => h.official && h.engine === 'vllm' && h.engine_version === '1.0.0').map((h) => h.runs)).toEqual([3, 3]);
    // Its run has a page (the community rows link to it), which says where it came from.
    expect(RunDetailSchema.parse(read(SITE_FILES.run(community[0]!.latest_run_id))).run).toMatchObject({ source: 'community', engine_version_known: true });
  });

  it('every scenario and run file', () => {
    const scenarios = readdirSync(join(site, 'scenarios'));
    const runs = readdirSync(join(site, 'runs'));
    expect(scenarios.length).toBe(1);
    expect(runs.length).toBeGreaterThan(0);
    for (const file of scenarios) expect(ScenarioDetailSchema.parse(read(`scenarios/${file}`)).history.length).toBeGreaterThan(0);
    for (const file of runs) expect(RunDetailSchema.parse(read(`runs/${file}`)).run.run_id).toBe(file.replace(/\.json$/, ''));
  });
});
