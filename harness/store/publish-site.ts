/**
 * The site's data (<out>/site/): small JSON for the prerendered pages and Arrow IPC for SQL in the
 * browser, each file written through its schema in the compiled-data contract. Built next to the
 * published folder and swapped in whole; the many costly files (a page per linked run, each
 * scenario's history, points and release medians) are rewritten only when their inputs changed.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { DEFAULT_REGRESSION_THRESHOLD_PCT, HEADLINE_METRICS } from '../contract/metric-catalog.ts';
import type { SlaTiers } from '../contract/sla-tiers.ts';
import {
  CapacityRowSchema,
  ChangesFileSchema,
  CommunityReleaseSchema,
  DeltaSchema,
  EngineVersionSchema,
  HeadlineMetricSchema,
  LaneSchema,
  LeaderboardRowSchema,
  NoiseRowSchema,
  BisectionRowSchema,
  RegressionsFileSchema,
  repositoryUrlFromEnv,
  RunDetailSchema,
  ScenarioDetailSchema,
  ScenarioSchema,
  SITE_FILES,
  SiteMetaSchema,
  SlaTiersFileSchema,
  type ChangesFile,
  type Delta,
  type NoiseRow,
} from '../contract/site-data.ts';
import { queryToArrowIpc, splitByScenario, type ArrowColumnType } from './arrow-export.ts';
import { columnOf, CONFIG_COLUMNS, POINT_COLUMNS, PRICED_COLUMNS, type Column } from './columns.ts';
import { releaseNotes } from './known-releases.ts';
import { compileLanes } from './lane.ts';
import { ID_COLUMNS } from './ids.ts';
import { OFFICIAL_RUN_SQL } from './official.ts';
import { filesOfDeltaRuns, findRegressions } from './regress.ts';
import { ALL_RELEASES, sqlString } from './tables.ts';
import { reproduceBlock } from '../contract/reproduce-block.ts';
import { SAMPLED_DISTRIBUTIONS } from '../contract/sufficiency.ts';

// Without run ids: their dictionary would repeat in every scenario's file, and no query needs them.
const ARROW_POINT_COLUMNS: readonly Column[] = [
  ...ID_COLUMNS,
  ...CONFIG_COLUMNS.filter((c) => !['status', 'workload_sha256', 'created_at', 'run_id'].includes(c.name)),
  ...POINT_COLUMNS.filter((c) => ['point', 'load', 'load_mode', 'concurrency', 'rate', 'isl', 'osl', 'completed', 'failed', 'request_throughput', 'output_throughput', 'output_throughput_per_gpu', 'goodput', 'insufficient'].includes(c.name)),
  ...POINT_COLUMNS.filter((c) => /^(ttft_ms|tpot_ms|itl_ms|e2el_ms)_(p50|p90|p95|p99)$|^interactivity_tok_s_p50$|^gpu_peak_memory_mib$/.test(c.name)),
  ...PRICED_COLUMNS.filter((c) => c.name === 'cost_per_1m_output_tokens' || c.name === 'validity'),
];

/** The Arrow type a published column travels as. */
function arrowColumn(c: Pick<Column, 'name' | 'type'>): { name: string; type: ArrowColumnType; sql: string } {
  const type: ArrowColumnType = c.type === 'BIGINT' ? 'DOUBLE' : c.type === 'DATE' || c.type === 'TIMESTAMP' ? 'VARCHAR' : (c.type as ArrowColumnType);
  return { name: c.name, type, sql: `CAST(${columnOf(c.name)} AS ${type})` };
}

/** Per release (configuration × engine × version) values: the compare page's and the SLA filter's SQL reads these, never recomputes them. */
const ARROW_RELEASE_COLUMNS: ReadonlyArray<Pick<Column, 'name' | 'type'>> = [
  { name: 'config_id', type: 'VARCHAR' as const },
  { name: 'scenario_id', type: 'VARCHAR' as const },
  { name: 'engine_version_order', type: 'VARCHAR' as const },
  ...CONFIG_COLUMNS.filter((c) => ['model', 'precision', 'hardware', 'workload', 'engine', 'engine_version'].includes(c.name)),
  ...POINT_COLUMNS.filter((c) => ['load', 'concurrency', 'rate'].includes(c.name)),
  { name: 'runs', type: 'INTEGER' as const },
  // Official and other releases travel together: the compare page shows both (the other behind its
  // filter), and every query that ranks (the SLA filter) keeps `official` rows only.
  ...CONFIG_COLUMNS.filter((c) => ['source', 'engine_version_known'].includes(c.name)),
  { name: 'official', type: 'BOOLEAN' as const },
  // Every query that ranks keeps valid rows only (store/validity.ts); compare shows an invalid
  // release greyed with its reason and computes no change against it.
  { name: 'validity', type: 'VARCHAR' as const },
  { name: 'validity_reason', type: 'VARCHAR' as const },
  ...HEADLINE_METRICS.map((m) => ({ name: m.column, type: 'DOUBLE' as const })),
];

/**
 * The site's files that are many and costly to write (a page per linked run, the history, the
 * points and the release medians of each scenario) are rewritten only when what they were made from changed: each is published with a
 * digest of its inputs, kept in the store. Their folders move from the previous site into the new
 * one (a rename, not thousands of links); what is stale is overwritten, what is gone is deleted.
 */
class SiteFiles {
  static readonly FOLDERS = ['runs', 'points', 'scenarios', 'releases'] as const;
  private readonly next = new Map<string, string>();
  private readonly connection: DuckDBConnection;
  private readonly dir: string;
  private previous = new Map<string, string>();

  constructor(connection: DuckDBConnection, dir: string) {
    this.connection = connection;
    this.dir = dir;
  }

  /** Takes the previous site's folders over into `dir`. */
  async adopt(previousDir: string): Promise<void> {
    await this.connection.run('CREATE TABLE IF NOT EXISTS published (path VARCHAR PRIMARY KEY, digest VARCHAR)');
    const rows = (await this.connection.runAndReadAll('SELECT path, digest FROM published')).getRowsJS() as Array<[string, string]>;
    this.previous = new Map(rows);
    for (const folder of SiteFiles.FOLDERS) {
      if (existsSync(join(previousDir, folder))) renameSync(join(previousDir, folder), join(this.dir, folder));
      else mkdirSync(join(this.dir, folder), { recursive: true });
    }
  }

  /** Puts the adopted folders back into the previous site (a compile that failed half way). */
  restore(previousDir: string): void {
    for (const folder of SiteFiles.FOLDERS) {
      if (existsSync(join(this.dir, folder)) && existsSync(previousDir) && !existsSync(join(previousDir, folder))) renameSync(join(this.dir, folder), join(previousDir, folder));
    }
  }

  /** True when the file is there with an unchanged digest; false when it must be written. */
  reuse(path: string, digest: string): boolean {
    this.next.set(path, digest);
    return this.previous.get(path) === digest && existsSync(join(this.dir, path));
  }

  /** Deletes what no longer belongs, and records the digests of what does. */
  async save(): Promise<void> {
    for (const folder of SiteFiles.FOLDERS) {
      for (const name of readdirSync(join(this.dir, folder))) if (!this.next.has(`${folder}/${name}`)) rmSync(join(this.dir, folder, name), { force: true });
    }
    await this.connection.run('BEGIN TRANSACTION');
    await this.connection.run('DELETE FROM published');
    const appender = await this.connection.createAppender('published');
    for (const [path, digest] of this.next) (appender.appendVarchar(path), appender.appendVarchar(digest), appender.endRow());
    appender.closeSync();
    await this.connection.run('COMMIT');
  }
}

/** What the site data needs besides the derived tables. */
export interface SiteInputs {
  /** The tiers the capacity table was computed at (published as sla-tiers.json). */
  readonly tiers: SlaTiers;
  /** The snapshot published before this one; null: none (changes.json then covers the last 7 days). */
  readonly previousSnapshot: PreviousSnapshot | null;
  /** The compile's day (YYYY-MM-DD): `until` of changes.json when there are no runs. */
  readonly today: string;
  /** noise.json's rows: the pools the deltas were tested against (derive.ts noiseRows). */
  readonly noise: readonly NoiseRow[];
}

/** A snapshot's folder (its Parquet tables) and the day it was generated. */
export interface PreviousSnapshot {
  readonly dir: string;
  readonly day: string;
}

const MAX_FAILED_RUNS = 100;
/** Scenarios whose Arrow files are built together (each batch's rows are held in memory at once). */
const ARROW_EXPORT_SCENARIOS = 8;

/** changes.json: new releases since the previous snapshot (or in the last 7 days), their significant changes, the failed runs: official ones only. */
async function whatChanged(connection: DuckDBConnection, deltas: readonly Delta[], inputs: SiteInputs): Promise<ChangesFile> {
  const newest = (await connection.runAndReadAll(`SELECT max(run_date)::VARCHAR FROM valid_runs WHERE ${OFFICIAL_RUN_SQL}`)).getRowsJS()[0]?.[0];
  const until = typeof newest === 'string' ? newest : inputs.today;
  const previous = inputs.previousSnapshot;
  const basis = previous === null ? 'last-7-days' : 'previous-snapshot';
  const since = previous?.day ?? new Date(Date.parse(`${until}T00:00:00Z`) - 7 * 86_400_000).toISOString().slice(0, 10);
  const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJson() as Array<Record<string, unknown>>;
  // Against a previous snapshot, new is what it did not have (several compiles a day, or results
  // that arrive dated earlier, still count once); without one, what was first run in the last 7 days.
  const parquet = (table: string) => sqlString(join(previous?.dir ?? '', table));
  const had = (table: string) => previous !== null && existsSync(join(previous.dir, table.replace('/*.parquet', '')));
  const releaseKey = `engine || chr(0) || engine_version`;
  const newRelease = previous === null ? `min(first_run_date) > DATE '${since}'` : had('history.parquet') ? `${releaseKey} NOT IN (SELECT ${releaseKey} FROM read_parquet(${parquet('history.parquet')}) WHERE official)` : 'true';
  const newRun = previous === null ? `run_date > DATE '${since}'` : had('runs/*.parquet') && readdirSync(join(previous.dir, 'runs')).length > 0 ? `run_id NOT IN (SELECT run_id FROM read_parquet(${parquet('runs/*.parquet')}))` : 'true';
  const newReleases = await rows(`
    SELECT engine, engine_version, min(first_run_date)::VARCHAR AS first_run_date, count(DISTINCT scenario_id)::INTEGER AS scenarios
    FROM releases GROUP BY engine, engine_version, engine_version_order
    HAVING ${newRelease}
    ORDER BY first_run_date DESC, engine, engine_version_order DESC`);
  const fresh = new Set(newReleases.map((r) => `${String(r.engine)}\u0000${String(r.engine_version)}`));
  const changes = deltas
    .filter((d) => d.verdict !== 'unclear' && (fresh.size === 0 || fresh.has(`${d.engine}\u0000${d.version}`)))
    .sort((a, b) => Math.abs(b.change_pct) - Math.abs(a.change_pct) || a.config_id.localeCompare(b.config_id) || a.engine.localeCompare(b.engine) || a.metric.localeCompare(b.metric));
  const failedRuns = await rows(`
    SELECT run_id, engine, engine_version, model, precision, hardware, workload, strftime(created_at, '%Y-%m-%dT%H:%M:%SZ') AS created_at, failure_phase, failure_message, file
    FROM valid_runs WHERE status <> 'completed' AND ${OFFICIAL_RUN_SQL} AND ${newRun}
    ORDER BY valid_runs.created_at DESC, run_id LIMIT ${MAX_FAILED_RUNS}`);
  return ChangesFileSchema.parse({ basis, since, until, new_releases: newReleases, changes, failed_runs: failedRuns });
}

/** The site's data: small JSON for prerendered pages, Arrow IPC for SQL in the browser. */
/** Each bisection with its steps (their A/Bs' rows, in the order the search made them). */
async function bisectionRows(jsonRows: (sql: string) => Promise<unknown[]>): Promise<unknown[]> {
  const bisections = (await jsonRows('SELECT * EXCLUDE (sha256, model_arg) REPLACE (CAST(started_at AS VARCHAR) AS started_at) FROM bisections ORDER BY started_at, file')) as Array<Record<string, unknown>>;
  const steps = (await jsonRows('SELECT bisection, a_version AS a, b_version AS b, verdict, effect, effect_lo, effect_hi, unpaired_blocks, file FROM ab_comparisons WHERE bisection IS NOT NULL ORDER BY started_at, file')) as Array<Record<string, unknown>>;
  return bisections.map((row) => ({ ...row, steps: steps.filter((step) => step.bisection === row.file).map(({ bisection: _b, ...step }) => step) }));
}

export async function writeSiteData(connection: DuckDBConnection, siteDir: string, deltas: readonly Delta[], meta: Record<string, unknown>, context: string, inputs: SiteInputs): Promise<void> {
  // Built next to the published folder and swapped in whole.
  const next = `${siteDir}.next`;
  rmSync(next, { recursive: true, force: true });
  mkdirSync(next, { recursive: true });
  const files = new SiteFiles(connection, next);
  await files.adopt(siteDir);
  // A file that does not fit its schema stops the compile: the adopted folders go back, and the published site stays whole.
  try {
    const digest = (text: string) => createHash('sha256').update(`${context}|${text}`).digest('hex').slice(0, 16);
    // Every file goes through its schema in the contract: the site reads exactly what it declares.
    const json = <T>(file: string, schema: z.ZodType<T>, value: unknown) => writeFileSync(join(next, file), `${JSON.stringify(schema.parse(value))}\n`);
    const jsonRows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJson();
    const deltaKey = (d: Pick<Delta, 'config_id' | 'engine'>) => `${d.config_id}|${d.engine}`;
    const deltasByRow = new Map<string, Record<string, Delta>>();
    for (const d of deltas) deltasByRow.set(deltaKey(d), { ...deltasByRow.get(deltaKey(d)), [d.metric]: d });
    const leaderboard = (await jsonRows(`SELECT * EXCLUDE (engine_version_order) FROM leaderboard ORDER BY model, precision, hardware, workload, concurrency NULLS LAST, rate NULLS LAST, load, config_id, rank_output_throughput, engine`)) as Array<Record<string, unknown>>;
    json(SITE_FILES.leaderboard, z.array(LeaderboardRowSchema), leaderboard.map((row) => ({ ...row, deltas: deltasByRow.get(`${String(row.config_id)}|${String(row.engine)}`) ?? {} })));
    json(SITE_FILES.deltas, z.array(DeltaSchema), deltas);
    json(SITE_FILES.regressions, RegressionsFileSchema, { threshold_pct: DEFAULT_REGRESSION_THRESHOLD_PCT, regressions: findRegressions(deltas, DEFAULT_REGRESSION_THRESHOLD_PCT, await filesOfDeltaRuns(connection, deltas)) });
    json(SITE_FILES.metrics, z.array(HeadlineMetricSchema), HEADLINE_METRICS);
    json(SITE_FILES.versions, z.array(EngineVersionSchema), await jsonRows(`SELECT engine, engine_version, count(DISTINCT config_id)::INTEGER AS configurations, max(last_run_date)::VARCHAR AS last_run_date FROM releases GROUP BY engine, engine_version, engine_version_order ORDER BY engine, engine_version_order DESC`));
    json(SITE_FILES.slaTiers, SlaTiersFileSchema, inputs.tiers);
    json(SITE_FILES.capacity, z.array(CapacityRowSchema), await jsonRows('SELECT * EXCLUDE (engine_version_order, tier_order) FROM capacity ORDER BY scenario_id, engine, engine_version_order, tier_order'));
    json(SITE_FILES.noise, z.array(NoiseRowSchema), inputs.noise);
    json(SITE_FILES.bisections, z.array(BisectionRowSchema), await bisectionRows(jsonRows));
    json(SITE_FILES.lanes, z.array(LaneSchema), await compileLanes(connection));
    json(SITE_FILES.community, z.array(CommunityReleaseSchema), await jsonRows(`SELECT * EXCLUDE (engine_version_order) FROM community_releases ORDER BY model, precision, hardware, workload, concurrency NULLS LAST, rate NULLS LAST, load, config_id, engine, engine_version_order DESC, source`));
    const changes = await whatChanged(connection, deltas, inputs);
    json(SITE_FILES.changes, ChangesFileSchema, changes);
    await writeRunPages(connection, next, deltas, files, digest, changes.failed_runs.map((f) => f.run_id));
    // What a scenario row says (loads, engines, releases, last run) comes from its official releases
    // only, so community files cannot change which configuration the home page opens on; a
    // scenario that only community runs measured is listed with official false and no loads.
    const scenarios = (await jsonRows(`
      WITH loads AS (SELECT DISTINCT scenario_id, load, concurrency, rate FROM releases),
      community AS (SELECT scenario_id, count(*)::INTEGER AS community_releases, max(last_run_date) AS last_run_date FROM community_releases GROUP BY scenario_id),
      every AS (SELECT scenario_id, model, precision, hardware, gpu, gpu_count, workload, methodology FROM ${ALL_RELEASES})
      SELECT scenario_id, any_value(model) AS model, any_value(precision) AS precision, any_value(hardware) AS hardware, any_value(gpu) AS gpu, any_value(gpu_count) AS gpu_count,
        any_value(workload) AS workload, any_value(methodology) AS methodology,
        coalesce((SELECT list(l.load ORDER BY l.concurrency NULLS LAST, l.rate NULLS LAST, l.load) FROM loads l WHERE l.scenario_id = e.scenario_id), []) AS loads,
        coalesce((SELECT list(DISTINCT r.engine ORDER BY r.engine) FROM releases r WHERE r.scenario_id = e.scenario_id), []) AS engines,
        (SELECT count(*) FROM releases r WHERE r.scenario_id = e.scenario_id)::INTEGER AS releases,
        coalesce((SELECT max(r.last_run_date) FROM releases r WHERE r.scenario_id = e.scenario_id), (SELECT c.last_run_date FROM community c WHERE c.scenario_id = e.scenario_id))::VARCHAR AS last_run_date,
        scenario_id IN (SELECT scenario_id FROM releases) AS official,
        coalesce((SELECT c.community_releases FROM community c WHERE c.scenario_id = e.scenario_id), 0) AS community_releases
      FROM every e GROUP BY scenario_id ORDER BY model, precision, hardware, workload, scenario_id`)) as Array<Record<string, unknown>>;
    json(SITE_FILES.scenarios, z.array(ScenarioSchema), scenarios);
    // A scenario's page data and points depend on its runs only: rewritten when those changed.
    const scenarioInputs = (await connection.runAndReadAll(`
      SELECT p.scenario_id, md5(string_agg(r.file || ':' || r.file_sha256, ',' ORDER BY r.file))
      FROM (SELECT DISTINCT scenario_id, file FROM valid_points WHERE status = 'completed') p JOIN valid_runs r USING (file) GROUP BY p.scenario_id`)).getRowsJS() as Array<[string, string]>;
    const stale = scenarioInputs.filter(([id, runs]) => ![SITE_FILES.pointsArrow(id), SITE_FILES.scenario(id), SITE_FILES.releasesOf(id)].map((path) => files.reuse(path, digest(runs))).every(Boolean)).map(([id]) => id);
    await connection.run('CREATE OR REPLACE TEMP TABLE stale_scenarios (scenario_id VARCHAR)');
    const appender = await connection.createAppender('stale_scenarios');
    for (const id of stale) (appender.appendVarchar(id), appender.endRow());
    appender.closeSync();
    const staleOnly = 'scenario_id IN (SELECT scenario_id FROM stale_scenarios)';
    const byScenario = <T extends Record<string, unknown>>(rows: T[]) => {
      const groups = new Map<string, T[]>();
      for (const row of rows) {
        const id = String(row.scenario_id);
        delete row.scenario_id;
        const group = groups.get(id);
      if (group) group.push(row);
      else groups.set(id, [row]);
      }
      return groups;
    };
    // Each release with its published day and release notes from the release lists (the history chart's axis and links).
    const historyRows = (await jsonRows(`SELECT * FROM ${ALL_RELEASES} WHERE ${staleOnly} ORDER BY scenario_id, engine, engine_version_order, load, source, engine_version_known`)) as Array<Record<string, unknown>>;
    const history = byScenario(historyRows.map((row) => ({ ...row, ...releaseNotes(String(row.engine), String(row.engine_version)) })));
    const pareto = byScenario((await jsonRows(`SELECT scenario_id, engine, engine_version, load, interactivity, throughput_per_gpu, latest_version, on_version_frontier, on_overall_frontier, latest_run_id FROM pareto WHERE ${staleOnly} ORDER BY scenario_id, engine, engine_version_order, interactivity`)) as Array<Record<string, unknown>>);
    const staleSet = new Set(stale);
    for (const scenario of scenarios) {
      const id = String(scenario.scenario_id);
      if (staleSet.has(id)) json(SITE_FILES.scenario(id), ScenarioDetailSchema, { scenario, history: history.get(id) ?? [], pareto: pareto.get(id) ?? [] });
    }
    writeFileSync(join(next, SITE_FILES.releasesArrow), await queryToArrowIpc(connection, { from: ALL_RELEASES, orderBy: 'config_id, engine, engine_version_order, source, engine_version_known', columns: ARROW_RELEASE_COLUMNS.map(arrowColumn) }));
    // A batch of stale scenarios at a time: a cold compile of 100,000 files built every
    // scenario's points in memory at once, the compile's peak.
    await connection.run('CREATE OR REPLACE TEMP TABLE export_scenarios (scenario_id VARCHAR)');
    const inBatch = 'scenario_id IN (SELECT scenario_id FROM export_scenarios)';
    for (let start = 0; start < stale.length; start += ARROW_EXPORT_SCENARIOS) {
      await connection.run('DELETE FROM export_scenarios');
      const batch = await connection.createAppender('export_scenarios');
      for (const id of stale.slice(start, start + ARROW_EXPORT_SCENARIOS)) (batch.appendVarchar(id), batch.endRow());
      batch.closeSync();
      // Each scenario's rows of releases.arrow on their own (same columns, same order within the
      // scenario): the SLA filter of a scenario page loads a few KB, not every release of the fleet.
      const releases = await queryToArrowIpc(connection, { from: `(SELECT * FROM ${ALL_RELEASES} WHERE ${inBatch})`, orderBy: 'scenario_id, config_id, engine, engine_version_order, source, engine_version_known', columns: ARROW_RELEASE_COLUMNS.map(arrowColumn) });
      for (const [id, bytes] of splitByScenario(releases, [])) writeFileSync(join(next, SITE_FILES.releasesOf(id)), bytes);
      // Each scenario's points on their own, so a scenario page's SQL loads only what it queries.
      const points = await queryToArrowIpc(connection, {
        from: `(SELECT * FROM priced_points WHERE status = 'completed' AND ${inBatch})`,
        orderBy: 'scenario_id, created_at, run_id, point',
        columns: ARROW_POINT_COLUMNS.map(arrowColumn),
      });
      for (const [id, bytes] of splitByScenario(points, [])) writeFileSync(join(next, SITE_FILES.pointsArrow(id)), bytes);
    }
    const officialRuns = Number((await connection.runAndReadAll(`SELECT count(*) FROM valid_runs WHERE ${OFFICIAL_RUN_SQL}`)).getRowsJS()[0]![0]);
    json(SITE_FILES.meta, SiteMetaSchema, { ...meta, official_runs: officialRuns });
  } catch (error) {
    files.restore(siteDir);
    throw error;
  }
  await files.save();
  rmSync(siteDir, { recursive: true, force: true });
  renameSync(next, siteDir);
}

/** Per-run detail for every run a page links to (leaderboard, deltas, Pareto, capacity, community releases, failed runs of changes.json): provenance and points. */
async function writeRunPages(connection: DuckDBConnection, siteDir: string, deltas: readonly Delta[], files: SiteFiles, digest: (text: string) => string, alsoLinked: readonly string[]): Promise<void> {
  await connection.run(`CREATE OR REPLACE TEMP TABLE linked_runs AS
    SELECT latest_run_id AS run_id FROM ${ALL_RELEASES} UNION SELECT latest_run_id FROM pareto UNION SELECT run_id FROM capacity WHERE run_id IS NOT NULL`);
  const appender = await connection.createAppender('linked_runs');
  for (const d of deltas) for (const id of [d.run_id, d.previous_run_id]) (appender.appendVarchar(id), appender.endRow());
  for (const id of alsoLinked) (appender.appendVarchar(id), appender.endRow());
  appender.closeSync();
  const linked = (await connection.runAndReadAll('SELECT DISTINCT run_id, file_sha256 FROM valid_runs WHERE run_id IN (SELECT run_id FROM linked_runs)')).getRowsJS() as Array<[string, string]>;
  await connection.run('CREATE OR REPLACE TEMP TABLE stale_runs (run_id VARCHAR)');
  const stale = await connection.createAppender('stale_runs');
  // The reproduce command names the repository to clone: a page made for another one is stale.
  const repository = repositoryUrlFromEnv(process.env);
  for (const [id, sha] of linked) if (!files.reuse(`runs/${id}.json`, digest(`${sha}|${repository ?? ''}`))) (stale.appendVarchar(id), stale.endRow());
  stale.closeSync();
  const runs = (await connection.runAndReadAll(`SELECT * FROM valid_runs WHERE run_id IN (SELECT run_id FROM stale_runs) ORDER BY run_id`)).getRowObjectsJson() as Array<Record<string, unknown>>;
  const points = (await connection.runAndReadAll(`
    SELECT run_id, point, load, requests_sent, completed, failed, isl, osl, duration_s, request_throughput, output_throughput, output_throughput_per_gpu,
      ttft_ms_p50, ttft_ms_p99, tpot_ms_p50, tpot_ms_p95, itl_ms_p99, e2el_ms_p50, e2el_ms_p99, interactivity_tok_s_p50, gpu_peak_memory_mib, gpu_mean_power_w,
      cost_per_1m_output_tokens, price_source, client_saturated,
      -- The page shows a percentile its sample cannot support as "n = …" (site/lib/format.ts samplesOf), and throughput over the steady window beside the whole run's.
      ${SAMPLED_DISTRIBUTIONS.map((d) => `${d}_n::INTEGER AS ${d}_n`).join(', ')}, insufficient, sample_counts,
      steady_output_throughput, steady_request_throughput, steady_start_s, steady_end_s, steady_reason, overloaded, overload_reason,
      -- Greyed with its reason where not valid (store/validity.ts).
      validity, validity_reason
    FROM priced_points WHERE run_id IN (SELECT run_id FROM stale_runs) ORDER BY run_id, point`)).getRowObjectsJson() as Array<Record<string, unknown>>;
  const byRun = new Map<string, Array<Record<string, unknown>>>();
  for (const p of points) {
    const list = byRun.get(String(p.run_id));
    if (list) list.push(p);
    else byRun.set(String(p.run_id), [p]);
  }
  for (const run of runs) {
    // Rendered only from the command as servebench's own option table read it at ingest (runs.reproduce_line; validate refused any other); null: no block.
    const reproduce_command = typeof run.reproduce_line === 'string' ? reproduceBlock(run.reproduce_line, (run.harness_git_commit as string | null) ?? null, repository) : null;
    writeFileSync(join(siteDir, SITE_FILES.run(String(run.run_id))), `${JSON.stringify(RunDetailSchema.parse({ run: { ...run, reproduce_command }, points: byRun.get(String(run.run_id)) ?? [] }))}\n`);
  }
}

