/**
 * pareto: per scenario, each release's load points as interactivity p50 (x, tokens/s per user)
 * against throughput per GPU (y; output throughput on CPU-only runs), and which are on a frontier:
 * on its version's frontier when no other point of that version dominates it, on the overall one
 * when no point of any engine's newest version does.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { columnOf } from './columns.ts';
import { SCENARIO_KEY } from './ids.ts';
import { VALID_RELEASE_SQL } from './validity.ts';

/**
 * SQL: `b` dominates `a` when it is at least as good on both axes and strictly better on one.
 * Strict, so two points with the same x and y are both on the frontier (neither dominates: weak
 * dominance would drop both), and a point beaten on one axis but tied on the other is off it.
 */
export function dominatesSql(b: string, a: string): string {
  return `(${b}.interactivity >= ${a}.interactivity AND ${b}.throughput_per_gpu >= ${a}.throughput_per_gpu
        AND (${b}.interactivity > ${a}.interactivity OR ${b}.throughput_per_gpu > ${a}.throughput_per_gpu))`;
}

/** Builds pareto_base and pareto from the valid releases (validity.ts) and the leaderboard (temp tables on the connection). */
export async function derivePareto(connection: DuckDBConnection): Promise<void> {
  await connection.run(`
    CREATE OR REPLACE TEMP TABLE pareto_base AS
    SELECT r.scenario_id, r.config_id, ${SCENARIO_KEY.map((k) => `r.${columnOf(k)}`).join(', ')}, r.load, r.engine, r.engine_version, r.engine_version_order,
      r.interactivity_tok_s_p50 AS interactivity, coalesce(r.output_throughput_per_gpu, r.output_throughput) AS throughput_per_gpu,
      r.latest_run_id, l.engine_version IS NOT NULL AS latest_version
    FROM releases r LEFT JOIN leaderboard l ON l.config_id = r.config_id AND l.engine = r.engine AND l.engine_version = r.engine_version
    WHERE r.${VALID_RELEASE_SQL} AND r.interactivity_tok_s_p50 IS NOT NULL AND coalesce(r.output_throughput_per_gpu, r.output_throughput) IS NOT NULL`);
  await connection.run(`
    CREATE OR REPLACE TEMP TABLE pareto AS
    SELECT a.*,
      NOT EXISTS (SELECT 1 FROM pareto_base b WHERE b.scenario_id = a.scenario_id AND b.engine = a.engine AND b.engine_version = a.engine_version
        AND ${dominatesSql('b', 'a')}) AS on_version_frontier,
      a.latest_version AND NOT EXISTS (SELECT 1 FROM pareto_base b WHERE b.scenario_id = a.scenario_id AND b.latest_version
        AND ${dominatesSql('b', 'a')}) AS on_overall_frontier
    FROM pareto_base a`);
}
