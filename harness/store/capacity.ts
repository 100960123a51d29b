/**
 * capacity: what a release can serve within each SLA tier (fleet/sla-tiers.yaml), from its
 * measured load points only (never interpolated between them).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SlaTiers } from '../contract/sla-tiers.ts';
import { sqlString } from './tables.ts';
import { VALID_RELEASE_SQL } from './validity.ts';

/**
 * capacity: per scenario × engine × version × tier, among the release's load points (release
 * values: geometric means over runs) whose ttft_ms_p95 and tpot_ms_p95 are within the tier's limits (a null fails), the one
 * with the highest throughput per GPU (output throughput on CPU-only runs, as pareto_base); a
 * row for every release and tier, with the point's fields null when no point meets the tier. A load
 * point whose p95 has too few samples to be published (contract/sufficiency.ts) cannot meet a tier;
 * the row counts such points (unjudged_loads) so the page says the tier was not judged there.
 * Valid releases only (validity.ts): an invalid one is no capacity at all, not a tier it misses.
 */
/** A release's load point whose TTFT or TPOT p95 is missing for want of samples, not because it was not measured. */
const UNJUDGED = '(ttft_ms_p95 IS NULL AND ttft_ms_p95__samples_max IS NOT NULL) OR (tpot_ms_p95 IS NULL AND tpot_ms_p95__samples_max IS NOT NULL)';

export async function deriveCapacity(connection: DuckDBConnection, tiers: SlaTiers): Promise<void> {
  const values = tiers.tiers.map((t, i) => `(${sqlString(t.id)}, ${i}, ${t.limits.ttft_ms_p95}::DOUBLE, ${t.limits.tpot_ms_p95}::DOUBLE)`).join(', ');
  await connection.run(`
    CREATE OR REPLACE TEMP TABLE capacity AS
    WITH tiers(tier, tier_order, ttft_limit, tpot_limit) AS (VALUES ${values}),
    points AS (
      SELECT *, coalesce(output_throughput_per_gpu, output_throughput) AS throughput,
        coalesce(output_throughput_per_gpu__lo, output_throughput__lo) AS throughput_lo,
        coalesce(output_throughput_per_gpu__hi, output_throughput__hi) AS throughput_hi
      FROM releases WHERE ${VALID_RELEASE_SQL}),
    versions AS (
      SELECT scenario_id, engine, engine_version, engine_version_order, any_value(model) AS model, any_value(precision) AS precision, any_value(hardware) AS hardware,
        any_value(workload) AS workload, any_value(methodology) AS methodology, any_value(gpu_count) AS gpu_count, max(runs) AS most_runs,
        -- Load points a tier cannot judge: a limited p95 has no value for want of samples (published-values.ts).
        count(*) FILTER (WHERE ${UNJUDGED})::INTEGER AS unjudged_loads,
        max(least(coalesce(ttft_ms_p95__samples_max, tpot_ms_p95__samples_max), coalesce(tpot_ms_p95__samples_max, ttft_ms_p95__samples_max))) FILTER (WHERE ${UNJUDGED})::INTEGER AS unjudged_samples_max
      FROM releases WHERE ${VALID_RELEASE_SQL} GROUP BY scenario_id, engine, engine_version, engine_version_order),
    newest AS (SELECT scenario_id, engine, max(engine_version_order) AS engine_version_order FROM versions GROUP BY scenario_id, engine),
    chosen AS (
      SELECT t.tier, p.* FROM points p JOIN tiers t ON p.ttft_ms_p95 <= t.ttft_limit AND p.tpot_ms_p95 <= t.tpot_limit
      WHERE p.throughput IS NOT NULL
      QUALIFY row_number() OVER (PARTITION BY p.scenario_id, p.engine, p.engine_version, t.tier ORDER BY p.throughput DESC, p.ttft_ms_p95, p.config_id) = 1)
    SELECT c.config_id, v.scenario_id, v.model, v.precision, v.hardware, v.workload, v.methodology, v.gpu_count, v.engine, v.engine_version,
      n.engine IS NOT NULL AS latest_version, t.tier, c.config_id IS NOT NULL AS meets, c.load, c.concurrency,
      c.throughput AS throughput_per_gpu, c.throughput_lo AS throughput_per_gpu_lo, c.throughput_hi AS throughput_per_gpu_hi,
      c.ttft_ms_p95, c.tpot_ms_p95, c.cost_per_1m_output_tokens, coalesce(c.runs, v.most_runs)::INTEGER AS runs, c.latest_run_id AS run_id,
      v.unjudged_loads, v.unjudged_samples_max,
      ${tiers.version}::INTEGER AS tiers_version, v.engine_version_order, t.tier_order
    FROM versions v CROSS JOIN tiers t
    LEFT JOIN newest n ON n.scenario_id = v.scenario_id AND n.engine = v.engine AND n.engine_version_order = v.engine_version_order
    LEFT JOIN chosen c ON c.scenario_id = v.scenario_id AND c.engine = v.engine AND c.engine_version = v.engine_version AND c.tier = t.tier`);
}

