/**
 * From the store's valid rows to the published tables, in DuckDB:
 * - priced_points (a view: a second copy of every point would double the memory): every point with its cost (price in effect on the run's date), tokens per
 *   GPU-hour, energy per token, and the ids of its scenario and configuration;
 * - releases: per configuration × engine × version, the median of each headline metric over its
 *   official runs (official.ts), the log statistics the significance tests need, and the 95%
 *   interval of each compared metric (and of throughput per GPU) they imply (this is also the history);
 * - community_releases: the same rows for the other runs (community, or an unverified version),
 *   per configuration × engine × version × source: shown apart, never ranked, compared or pooled;
 * - leaderboard: the newest version of each engine per configuration, ranked per metric;
 * - deltas: newest vs previous release per configuration (significance in significance.ts);
 * - pareto: throughput per GPU vs interactivity per scenario, with frontiers;
 * - capacity: per scenario × engine × version × SLA tier, the best measured load point within the tier.
 * Scenarios and configurations (what is comparable) are defined in ids.ts.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { compareReleases, pooledLogVariance, tMultiplier, type SampleSummary } from './significance.ts';
import type { PriceTable } from '../contract/prices.ts';
import type { SlaTiers } from '../contract/sla-tiers.ts';
import { columnOf } from './columns.ts';
import { COMPARED_METRICS, HEADLINE_METRICS } from '../contract/metric-catalog.ts';
import { CONFIG_KEY, SCENARIO_KEY } from './ids.ts';
import type { Delta, NoiseRow } from '../contract/site-data.ts';
import { OFFICIAL_RUN_SQL } from './official.ts';
import { sqlString } from './tables.ts';


export type { Delta };

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
 * changed (ingest marks them): its medians are the one costly aggregate over every point, and a
 * new result touches one version. Anything else that changes it (the SQL that defines it, the
 * prices) is part of its key and rebuilds it whole.
 */
async function updateReleases(connection: DuckDBConnection, select: string, inputs: string): Promise<void> {
  const key = createHash('sha256').update(`${select}|${inputs}`).digest('hex');
  const cached = (await connection.runAndReadAll(`SELECT value FROM meta WHERE key = 'releases_key'`)).getRowsJS()[0]?.[0];
  const exists = (await connection.runAndReadAll(`SELECT count(*) FROM duckdb_tables() WHERE table_name = 'release_cache' AND NOT temporary`)).getRowsJS()[0]?.[0] === 1n;
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
 * releases and community_releases: the cached medians and log statistics with, per interval
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

/**
 * capacity: per scenario × engine × version × tier, among the release's load points (release
 * medians) whose ttft_ms_p95 and tpot_ms_p95 are within the tier's limits (a null fails), the one
 * with the highest throughput per GPU (output throughput on CPU-only runs, as pareto_base); a
 * row for every release and tier, with the point's fields null when no point meets the tier.
 */
async function deriveCapacity(connection: DuckDBConnection, tiers: SlaTiers): Promise<void> {
  const values = tiers.tiers.map((t, i) => `(${sqlString(t.id)}, ${i}, ${t.limits.ttft_ms_p95}::DOUBLE, ${t.limits.tpot_ms_p95}::DOUBLE)`).join(', ');
  await connection.run(`
    CREATE OR REPLACE TEMP TABLE capacity AS
    WITH tiers(tier, tier_order, ttft_limit, tpot_limit) AS (VALUES ${values}),
    points AS (
      SELECT *, coalesce(output_throughput_per_gpu, output_throughput) AS throughput,
        coalesce(output_throughput_per_gpu__lo, output_throughput__lo) AS throughput_lo,
        coalesce(output_throughput_per_gpu__hi, output_throughput__hi) AS throughput_hi
      FROM releases),
    versions AS (
      SELECT scenario_id, engine, engine_version, engine_version_order, any_value(model) AS model, any_value(precision) AS precision, any_value(hardware) AS hardware,
        any_value(workload) AS workload, any_value(methodology) AS methodology, any_value(gpu_count) AS gpu_count, max(runs) AS most_runs
      FROM releases GROUP BY scenario_id, engine, engine_version, engine_version_order),
    newest AS (SELECT scenario_id, engine, max(engine_version_order) AS engine_version_order FROM versions GROUP BY scenario_id, engine),
    chosen AS (
      SELECT t.tier, p.* FROM points p JOIN tiers t ON p.ttft_ms_p95 <= t.ttft_limit AND p.tpot_ms_p95 <= t.tpot_limit
      WHERE p.throughput IS NOT NULL
      QUALIFY row_number() OVER (PARTITION BY p.scenario_id, p.engine, p.engine_version, t.tier ORDER BY p.throughput DESC, p.ttft_ms_p95, p.config_id) = 1)
    SELECT c.config_id, v.scenario_id, v.model, v.precision, v.hardware, v.workload, v.methodology, v.gpu_count, v.engine, v.engine_version,
      n.engine IS NOT NULL AS latest_version, t.tier, c.config_id IS NOT NULL AS meets, c.load, c.concurrency,
      c.throughput AS throughput_per_gpu, c.throughput_lo AS throughput_per_gpu_lo, c.throughput_hi AS throughput_per_gpu_hi,
      c.ttft_ms_p95, c.tpot_ms_p95, c.cost_per_1m_output_tokens, coalesce(c.runs, v.most_runs)::INTEGER AS runs, c.latest_run_id AS run_id,
      ${tiers.version}::INTEGER AS tiers_version, v.engine_version_order, t.tier_order
    FROM versions v CROSS JOIN tiers t
    LEFT JOIN newest n ON n.scenario_id = v.scenario_id AND n.engine = v.engine AND n.engine_version_order = v.engine_version_order
    LEFT JOIN chosen c ON c.scenario_id = v.scenario_id AND c.engine = v.engine AND c.engine_version = v.engine_version AND c.tier = t.tier`);
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
  const pricedPointsSql = `
    CREATE OR REPLACE TEMP VIEW priced_points AS
    SELECT p.* EXCLUDE (file),
      gp.usd_per_gpu_hour AS gpu_price_usd_per_hour,
      gp.price_source,
      CASE WHEN p.gpu_count > 0 AND p.output_throughput > 0 THEN p.output_throughput * 3600 / p.gpu_count END AS tokens_per_gpu_hour,
      CASE WHEN p.gpu_count > 0 AND p.output_throughput > 0 THEN p.gpu_count * gp.usd_per_gpu_hour / (p.output_throughput * 3600) * 1e6 END AS cost_per_1m_output_tokens,
      CASE WHEN p.output_tokens > 0 THEN p.gpu_energy_j / p.output_tokens END AS energy_per_output_token_j
    FROM valid_points p LEFT JOIN gpu_day_price gp USING (gpu, run_date)`;
  await connection.run(pricedPointsSql);
  const medians = HEADLINE_METRICS.map((m) => `median(${columnOf(m.column)}) AS ${columnOf(m.column)}`).join(',\n      ');
  const logStats = COMPARED_METRICS.map((m) => {
    const c = columnOf(m.column);
    // DuckDB evaluates ln() before an aggregate's FILTER, and ln(0) is an error, not NULL: the
    // logarithm is taken of positive values only, and the aggregates skip the NULLs.
    const logOf = `ln(CASE WHEN ${c} > 0 THEN ${c} END)`;
    return `avg(${logOf}) AS ${columnOf(`${m.column}__meanlog`)}, var_samp(${logOf}) AS ${columnOf(`${m.column}__varlog`)}, (count(${logOf}))::INTEGER AS ${columnOf(`${m.column}__n`)}`;
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
      ${medians},
      ${logStats}
    FROM priced_points
    WHERE status = 'completed' AND engine_version IS NOT NULL`, `${pricedPointsSql}|${JSON.stringify(prices)}`);
  await materializeReleases(connection);
  const ranks = HEADLINE_METRICS.map((m) => `(rank() OVER (PARTITION BY config_id ORDER BY ${columnOf(m.column)} ${m.better === 'higher' ? 'DESC' : 'ASC'} NULLS LAST))::INTEGER AS ${columnOf(`rank_${m.column}`)}`).join(',\n      ');
  await connection.run(`
    CREATE OR REPLACE TEMP TABLE leaderboard AS
    SELECT * EXCLUDE (${COMPARED_METRICS.flatMap((m) => [`${m.column}__meanlog`, `${m.column}__varlog`, `${m.column}__n`].map(columnOf)).join(', ')}),
      (count(*) OVER (PARTITION BY config_id))::INTEGER AS engines,
      ${ranks}
    -- Ranks among the newest versions only: windows run before QUALIFY, so filter in a subquery first.
    FROM (SELECT * FROM releases QUALIFY row_number() OVER (PARTITION BY config_id, engine ORDER BY engine_version_order DESC) = 1)`);
  // Interactivity (x) vs throughput per GPU (y; output throughput on CPU-only runs), per scenario.
  await connection.run(`
    CREATE OR REPLACE TEMP TABLE pareto_base AS
    SELECT r.scenario_id, r.config_id, ${SCENARIO_KEY.map((k) => `r.${columnOf(k)}`).join(', ')}, r.load, r.engine, r.engine_version, r.engine_version_order,
      r.interactivity_tok_s_p50 AS interactivity, coalesce(r.output_throughput_per_gpu, r.output_throughput) AS throughput_per_gpu,
      r.latest_run_id, l.engine_version IS NOT NULL AS latest_version
    FROM releases r LEFT JOIN leaderboard l ON l.config_id = r.config_id AND l.engine = r.engine AND l.engine_version = r.engine_version
    WHERE r.interactivity_tok_s_p50 IS NOT NULL AND coalesce(r.output_throughput_per_gpu, r.output_throughput) IS NOT NULL`);
  await connection.run(`
    CREATE OR REPLACE TEMP TABLE pareto AS
    SELECT a.*,
      NOT EXISTS (SELECT 1 FROM pareto_base b WHERE b.scenario_id = a.scenario_id AND b.engine = a.engine AND b.engine_version = a.engine_version
        AND b.interactivity >= a.interactivity AND b.throughput_per_gpu >= a.throughput_per_gpu
        AND (b.interactivity > a.interactivity OR b.throughput_per_gpu > a.throughput_per_gpu)) AS on_version_frontier,
      a.latest_version AND NOT EXISTS (SELECT 1 FROM pareto_base b WHERE b.scenario_id = a.scenario_id AND b.latest_version
        AND b.interactivity >= a.interactivity AND b.throughput_per_gpu >= a.throughput_per_gpu
        AND (b.interactivity > a.interactivity OR b.throughput_per_gpu > a.throughput_per_gpu)) AS on_overall_frontier
    FROM pareto_base a`);
  if (tiers !== null) await deriveCapacity(connection, tiers);
}

function summary(row: Record<string, unknown>, metric: string): SampleSummary | null {
  const n = Number(row[`${metric}__n`] ?? 0);
  if (n === 0) return null;
  const varLog = row[`${metric}__varlog`];
  return { n, meanLog: row[`${metric}__meanlog`] as number, varLog: n >= 2 && typeof varLog === 'number' ? varLog : null };
}

const noiseColumns = COMPARED_METRICS.flatMap((m) => ['__n', '__varlog', '__meanlog'].map((suffix) => columnOf(`${m.column}${suffix}`)));

/**
 * The noise of each compared metric: the variance of ln(value) pooled over every repeated release
 * (any engine, any configuration; Σ(nᵢ−1)sᵢ² / Σ(nᵢ−1)), its degrees of freedom, and how many
 * releases it pooled; null variance without repeats.
 */
async function pooledNoise(connection: DuckDBConnection): Promise<Map<string, { pooled: { variance: number; df: number } | null; releases: number }>> {
  // Ordered: a float sum depends on its order, and a delta must not depend on how the table was built.
  const all = (await connection.runAndReadAll(`SELECT ${noiseColumns.join(', ')} FROM releases WHERE runs >= 2 ORDER BY config_id, engine, engine_version_order`)).getRowObjectsJS() as Array<Record<string, unknown>>;
  return new Map(
    COMPARED_METRICS.map((m) => {
      const repeated = all.map((row) => summary(row, m.column)).filter((s): s is SampleSummary => s !== null && s.varLog !== null);
      return [m.column, { pooled: pooledLogVariance(repeated), releases: repeated.length }];
    }),
  );
}

/** noise.json: per compared metric, σ of ln(value) pooled over repeated releases (the history chart draws value × exp(±1.96 σ)). */
export async function computeNoise(connection: DuckDBConnection): Promise<NoiseRow[]> {
  const noise = await pooledNoise(connection);
  return COMPARED_METRICS.map((m) => {
    const n = noise.get(m.column)!;
    return { metric: m.column, log_sd: n.pooled === null ? null : Math.sqrt(n.pooled.variance), releases: n.releases };
  });
}

/**
 * Newest vs previous release of each engine on each configuration, for every compared metric.
 * The noise of a metric is pooled over all its repeated releases (any engine, any configuration).
 */
export async function computeDeltas(connection: DuckDBConnection): Promise<Delta[]> {
  const pooled = await pooledNoise(connection);
  const noise = new Map([...pooled].map(([metric, n]) => [metric, n.pooled]));
  // Only what a delta reads: converting every column of every row to JS objects dominated this step.
  const pairColumns = ['config_id', 'scenario_id', 'model', 'precision', 'hardware', 'workload', 'methodology', 'load', 'engine', 'engine_version', 'latest_run_id', ...COMPARED_METRICS.map((m) => m.column)].map(columnOf).concat(noiseColumns);
  const pairs = (
    await connection.runAndReadAll(`
      SELECT ${pairColumns.join(', ')}, k FROM (SELECT *, row_number() OVER (PARTITION BY config_id, engine ORDER BY engine_version_order DESC) AS k FROM releases)
      WHERE k <= 2 ORDER BY config_id, engine, k`)
  ).getRowObjectsJS() as Array<Record<string, unknown>>;
  const deltas: Delta[] = [];
  for (let i = 0; i + 1 < pairs.length; i++) {
    const [next, previous] = [pairs[i]!, pairs[i + 1]!];
    if (next.k !== 1n || previous.k !== 2n || next.config_id !== previous.config_id || next.engine !== previous.engine) continue;
    for (const metric of COMPARED_METRICS) {
      const a = summary(previous, metric.column);
      const b = summary(next, metric.column);
      if (!a || !b) continue;
      const c = compareReleases(a, b, noise.get(metric.column) ?? null);
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
