/**
 * From the store's valid rows to the published tables, in DuckDB:
 * - priced_points (a view: a second copy of every point would double the memory): every point with its cost (price in effect on the run's date), tokens per
 *   GPU-hour, energy per token, and the ids of its scenario and configuration;
 * - releases: per configuration × engine × version, the geometric mean of each headline metric over
 *   its official runs (official.ts), the log statistics the significance tests need, and the 95%
 *   confidence interval of that geometric mean for each compared metric (and throughput per GPU):
 *   value, interval and test are made of the same logs (this is also the history);
 * - community_releases: the same rows for the other runs (community, or an unverified version),
 *   per configuration × engine × version × source: shown apart, never ranked, compared or pooled;
 * - leaderboard: the newest version of each engine per configuration, ranked per metric;
 * - deltas: newest vs previous release per configuration (significance in significance.ts);
 * - pareto (pareto.ts): throughput per GPU vs interactivity per scenario, with frontiers;
 * - capacity (capacity.ts): per scenario × engine × version × SLA tier, the best measured load point within the tier.
 * The noise of the single-run test and the history's bands is pooled in noise.ts.
 * Scenarios and configurations (what is comparable) are defined in ids.ts.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { compareReleases } from '../contract/significance.ts';
import { tMultiplier } from '../lib/stats/log-interval.ts';
import { LOG_STAT_COLUMNS, noiseOf, noisePools, releaseSummary, type NoisePool } from './noise.ts';
import type { PriceTable } from '../contract/prices.ts';
import type { SlaTiers } from '../contract/sla-tiers.ts';
import { columnOf } from './columns.ts';
import { COMPARED_METRICS, HEADLINE_METRICS } from '../contract/metric-catalog.ts';
import { CONFIG_KEY } from './ids.ts';
import type { Delta } from '../contract/site-data.ts';
import { OFFICIAL_RUN_SQL } from './official.ts';
import { deriveCapacity } from './capacity.ts';
import { derivePareto } from './pareto.ts';
import { publishedPointsSql, rankSql, releaseEvidenceSql } from './published-values.ts';
import { fidelityInputs, fidelityStateDigest, VALID_RELEASE_SQL, validityColumnsSql } from './validity.ts';


export type { Delta };
/** noise.json is written from here by publish-site.ts. */
export { computeNoise, noisePools, noiseRows } from './noise.ts';

const keyList = (key: readonly string[]) => key.map(columnOf).join(', ');

async function loadPriceTable(connection: DuckDBConnection, prices: PriceTable): Promise<void> {
  await connection.run('CREATE OR REPLACE TEMP TABLE prices (gpu VARCHAR, usd_per_gpu_hour DOUBLE, provider VARCHAR, source VARCHAR, effective_from DATE)');
  const appender = await connection.createAppender('prices');
  for (const p of prices.prices) {
    appender.appendVarchar(p.gpu);
    appender.appendDouble(p.usd_per_gpu_hour);
    appender.appendVarchar(p.provider);
    appender.appendVarchar(p.source);
    appender.appendVarchar(p.effective_from);
    appender.endRow();
  }
  appender.closeSync();
}

/**
 * The releases table lives in the store and is rebuilt only for the engine versions whose runs
 * changed (ingest marks them): its aggregates are the one costly step over every point, and a
 * new result touches one version. Anything else that changes it (the SQL that defines it, the
 * prices) is part of its key and rebuilds it whole.
 */
async function updateReleases(connection: DuckDBConnection, select: string, inputs: string): Promise<void> {
  const key = createHash('sha256').update(`${select}|${inputs}`).digest('hex');
  const cached = (await connection.runAndReadAll(`SELECT value FROM meta WHERE key = 'releases_key'`)).getRowsJS()[0]?.[0];
  const exists = (await connection.runAndReadAll(`SELECT count(*) FROM duckdb_tables() WHERE table_name = 'release_cache' AND NOT temporary`)).getRowsJS()[0]![0] === 1n;
  await connection.run('BEGIN TRANSACTION');
  try {
    if (cached !== key || !exists) {
      await connection.run(`CREATE OR REPLACE TABLE release_cache AS ${select} GROUP BY ALL`);
    } else {
      const dirty = `(engine, engine_version) IN (SELECT engine, engine_version FROM dirty_versions)`;
      await connection.run(`DELETE FROM release_cache WHERE ${dirty}`);
      await connection.run(`INSERT INTO release_cache BY NAME ${select} AND ${dirty} GROUP BY ALL`);
    }
    await connection.run('DELETE FROM dirty_versions');
    await connection.run(`INSERT OR REPLACE INTO meta VALUES ('releases_key', '${key}')`);
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK');
    throw error;
  }
}

/**
 * The metrics whose release rows carry a 95% interval (`<metric>__lo`, `<metric>__hi`): the
 * compared ones (their log statistics are in the release rows) and throughput per GPU, whose
 * interval is output throughput's divided by gpu_count (the same as from its own log statistics:
 * per point it is output throughput / gpu_count, and gpu_count is part of the configuration).
 */
export const INTERVAL_METRICS: readonly string[] = [...COMPARED_METRICS.map((m) => m.column), 'output_throughput_per_gpu'];

/**
 * releases and community_releases: the cached release values and log statistics with, per interval
 * metric, the 95% interval the regression test works with, exp(meanlog ± t_{0.975, n−1} ·
 * sqrt(varlog / n)); null for n < 2. The cache groups official and other runs apart, so the two
 * tables split it by its `official` column: every statistic below reads releases only.
 */
async function materializeReleases(connection: DuckDBConnection): Promise<void> {
  const nColumns = COMPARED_METRICS.map((m) => columnOf(`${m.column}__n`));
  // Only the run counts that occur get a t (each is a root search); the others stay null.
  const counts = new Set((await connection.runAndReadAll(`SELECT DISTINCT unnest([${nColumns.join(', ')}])::INTEGER FROM release_cache`)).getRowsJS().map(([n]) => Number(n)));
  // Element n of the list is t for n runs (DuckDB lists are 1-based; n = 1 has none).
  const t = Array.from({ length: Math.max(1, ...counts) }, (_, i) => {
    const value = counts.has(i + 1) ? tMultiplier(i + 1) : null;
    // Stryker disable next-line ConditionalExpression: String(null) is 'null', which SQL reads as NULL all the same; 'NULL' says it
    return value === null ? 'NULL' : String(value);
  });
  await connection.run(`CREATE OR REPLACE TEMP MACRO release_interval_end(meanlog, varlog, n, side) AS
    CASE WHEN n >= 2 AND varlog IS NOT NULL THEN exp(meanlog + side * ([${t.join(', ')}]::DOUBLE[])[n] * sqrt(varlog / n)) END`);
  const ends = COMPARED_METRICS.flatMap((m) => {
    const [meanlog, varlog, n] = ['__meanlog', '__varlog', '__n'].map((suffix) => columnOf(`${m.column}${suffix}`));
    return [
      `release_interval_end(${meanlog}, ${varlog}, ${n}, -1) AS ${columnOf(`${m.column}__lo`)}`,
      `release_interval_end(${meanlog}, ${varlog}, ${n}, 1) AS ${columnOf(`${m.column}__hi`)}`,
    ];
  });
  const perGpu = (side: 'lo' | 'hi') => `CASE WHEN gpu_count > 0 THEN release_interval_end(output_throughput__meanlog, output_throughput__varlog, output_throughput__n, ${side === 'lo' ? -1 : 1}) / gpu_count END AS output_throughput_per_gpu__${side}`;
  const withIntervals = `SELECT *, ${ends.join(', ')}, ${perGpu('lo')}, ${perGpu('hi')} FROM release_cache`;
  await connection.run(`CREATE OR REPLACE TEMP TABLE releases AS ${withIntervals} WHERE official`);
  await connection.run(`CREATE OR REPLACE TEMP TABLE community_releases AS ${withIntervals} WHERE NOT official`);
}

/** Builds priced_points, releases, community_releases, leaderboard, pareto and (given the SLA tiers) capacity as temp tables on the connection. */
export async function deriveTables(connection: DuckDBConnection, prices: PriceTable, tiers: SlaTiers | null = null): Promise<void> {
  await loadPriceTable(connection, prices);
  await connection.run(`
    CREATE OR REPLACE TEMP TABLE gpu_day_price AS
    SELECT g.gpu, g.run_date, p.usd_per_gpu_hour, p.provider || ', from ' || strftime(p.effective_from, '%Y-%m-%d') || ': ' || p.source AS price_source
    FROM (SELECT DISTINCT gpu, run_date FROM valid_points WHERE gpu IS NOT NULL) g
    JOIN prices p ON contains(lower(g.gpu), lower(p.gpu)) AND p.effective_from <= g.run_date
    QUALIFY row_number() OVER (PARTITION BY g.gpu, g.run_date ORDER BY length(p.gpu) DESC, p.effective_from DESC) = 1`);
  // Each point's validity (validity.ts) rides on it from here: the site shows it, the statistics read it.
  const fidelity = await fidelityInputs(connection);
  const pricedPointsSql = `
    CREATE OR REPLACE TEMP VIEW priced_points AS
    SELECT p.* EXCLUDE (file),
      gp.usd_per_gpu_hour AS gpu_price_usd_per_hour,
      gp.price_source,
      CASE WHEN p.gpu_count > 0 AND p.output_throughput > 0 THEN p.output_throughput * 3600 / p.gpu_count END AS tokens_per_gpu_hour,
      CASE WHEN p.gpu_count > 0 AND p.output_throughput > 0 THEN p.gpu_count * gp.usd_per_gpu_hour / (p.output_throughput * 3600) * 1e6 END AS cost_per_1m_output_tokens,
      CASE WHEN p.output_tokens > 0 THEN p.gpu_energy_j / p.output_tokens END AS energy_per_output_token_j,
      ${validityColumnsSql(fidelity)}
    FROM valid_points p LEFT JOIN gpu_day_price gp USING (gpu, run_date) ${fidelity.join}`;
  await connection.run(pricedPointsSql);
  // The statistics read what a point may contribute (published-values.ts), never its raw percentiles.
  await connection.run(publishedPointsSql());
  // One set of values per metric for the release value, its interval and the tests: the logs of
  // the positive values. DuckDB evaluates ln() before an aggregate's FILTER, and ln(0) is an error,
  // not NULL: the logarithm is taken of positive values only, and the aggregates skip the NULLs.
  const logOf = (c: string) => `ln(CASE WHEN ${c} > 0 THEN ${c} END)`;
  const values = HEADLINE_METRICS.map((m) => `exp(avg(${logOf(columnOf(m.column))})) AS ${columnOf(m.column)}`).join(',\n      ');
  const logStats = COMPARED_METRICS.map((m) => {
    const log = logOf(columnOf(m.column));
    return `avg(${log}) AS ${columnOf(`${m.column}__meanlog`)}, var_samp(${log}) AS ${columnOf(`${m.column}__varlog`)}, (count(${log}))::INTEGER AS ${columnOf(`${m.column}__n`)}`;
  }).join(',\n      ');
  await updateReleases(connection, `
    SELECT config_id, scenario_id, ${keyList(CONFIG_KEY)}, engine, engine_version, engine_version_order,
      count(*)::INTEGER AS runs,
      min(run_date) AS first_run_date,
      max(run_date) AS last_run_date,
      arg_max(run_id, created_at) AS latest_run_id,
      -- Grouped on (not aggregated over): official and other runs of one version never share a row.
      source, engine_version_known, ${OFFICIAL_RUN_SQL} AS official,
      median(isl) AS isl,
      median(osl) AS osl,
      ${values},
      ${logStats},
      ${releaseEvidenceSql()}
    FROM published_points
    WHERE status = 'completed' AND engine_version IS NOT NULL`, `${pricedPointsSql}|${publishedPointsSql()}|${JSON.stringify(prices)}|${await fidelityStateDigest(connection, fidelity)}`);
  await materializeReleases(connection);
  const ranks = HEADLINE_METRICS.map((m) => rankSql(m.column, m.better)).join(',\n      ');
  await connection.run(`
    CREATE OR REPLACE TEMP TABLE leaderboard AS
    SELECT * EXCLUDE (${COMPARED_METRICS.flatMap((m) => [`${m.column}__meanlog`, `${m.column}__varlog`, `${m.column}__n`].map(columnOf)).join(', ')}),
      (count(*) OVER (PARTITION BY config_id))::INTEGER AS engines,
      ${ranks}
    -- Ranks among the newest versions only: windows run before QUALIFY, so filter in a subquery first.
    FROM (SELECT * FROM releases QUALIFY row_number() OVER (PARTITION BY config_id, engine ORDER BY engine_version_order DESC) = 1)`);
  await derivePareto(connection);
  if (tiers !== null) await deriveCapacity(connection, tiers);
}

/**
 * Newest vs previous release of each engine on each configuration, for every compared metric.
 * A side measured once is tested against the noise of its engine on its hardware at its load (noise.ts).
 * Valid releases only (validity.ts): an invalid release is never a side, so the next release is
 * compared with the newest valid one before it.
 */
export async function computeDeltas(connection: DuckDBConnection, pools?: ReadonlyMap<string, NoisePool>): Promise<Delta[]> {
  pools ??= await noisePools(connection);
  // Only what a delta reads: converting every column of every row to JS objects dominated this step.
  const pairColumns = ['config_id', 'scenario_id', 'model', 'precision', 'hardware', 'workload', 'methodology', 'load', 'engine', 'engine_version', 'latest_run_id', ...COMPARED_METRICS.map((m) => m.column)].map(columnOf).concat(LOG_STAT_COLUMNS);
  const pairs = (
    await connection.runAndReadAll(`
      SELECT ${pairColumns.join(', ')}, k FROM (SELECT *, row_number() OVER (PARTITION BY config_id, engine ORDER BY engine_version_order DESC) AS k FROM releases WHERE ${VALID_RELEASE_SQL})
      WHERE k <= 2 ORDER BY config_id, engine, k`)
  ).getRowObjectsJS() as Array<Record<string, unknown>>;
  const deltas: Delta[] = [];
  for (let i = 0; i + 1 < pairs.length; i++) {
    const [next, previous] = [pairs[i]!, pairs[i + 1]!];
    // Rows come ordered by configuration, engine and k: a k = 2 row follows its own partition's k = 1.
    if (previous.k !== 2n) continue;
    for (const metric of COMPARED_METRICS) {
      const a = releaseSummary(previous, metric.column);
      const b = releaseSummary(next, metric.column);
      if (!a || !b) continue;
      const c = compareReleases(a, b, noiseOf(pools, next.engine, next.hardware, next.load, metric.column));
      // Stryker disable next-line EqualityOperator: a ratio of exactly 1 is a difference of 0, never significant, so its verdict is unclear either way
      const improved = metric.better === 'higher' ? c.ratio > 1 : c.ratio < 1;
      deltas.push({
        config_id: next.config_id as string,
        scenario_id: next.scenario_id as string,
        model: next.model as string,
        precision: next.precision as string,
        hardware: next.hardware as string,
        workload: next.workload as string,
        methodology: next.methodology as string,
        load: next.load as string,
        engine: next.engine as string,
        metric: metric.column,
        better: metric.better,
        previous_version: previous.engine_version as string,
        version: next.engine_version as string,
        previous_value: previous[metric.column] as number,
        value: next[metric.column] as number,
        change_pct: (c.ratio - 1) * 100,
        ci_low_pct: c.ci ? (c.ci[0] - 1) * 100 : null,
        ci_high_pct: c.ci ? (c.ci[1] - 1) * 100 : null,
        p_value: c.pValue,
        method: c.method,
        significant: c.significant,
        verdict: !c.significant ? 'unclear' : improved ? 'better' : 'worse',
        previous_runs: a.n,
        runs: b.n,
        previous_run_id: previous.latest_run_id as string,
        run_id: next.latest_run_id as string,
      });
    }
  }
  return deltas;
}
