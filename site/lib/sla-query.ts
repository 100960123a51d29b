/**
 * The SLA-throughput frontier as SQL over the compiled release values (releases.arrow; geometric
 * means over runs): for each engine's newest version in a scenario, the highest output throughput
 * among the measured load points whose values meet every limit. Measured points only: nothing is interpolated.
 * Limits are bound parameters on an allow-listed set of metrics.
 */
export { SLA_METRICS, type SlaColumn } from '../../harness/contract/metric-catalog.ts';
import { SLA_METRICS, type SlaColumn } from '../../harness/contract/metric-catalog.ts';

export interface SlaRow {
  readonly engine: string;
  readonly engine_version: string;
  /** null: no measured load point meets every limit. */
  readonly throughput: number | null;
  readonly load: string | null;
}

/**
 * The SLA filter's table: the official release values as compile computed them
 * (data/site/releases.arrow, one row per configuration × engine × version), never recomputed
 * here. Made once per page. The file holds community and unverified rows too, and invalid ones
 * (docs/metrics.md#validity): a ranking never sees them.
 */
export function releasesSql(): string {
  return `CREATE TABLE IF NOT EXISTS sla_releases AS
    SELECT scenario_id, engine, engine_version, engine_version_order, load, output_throughput AS throughput, ${SLA_METRICS.map((m) => m.column).join(', ')}
    FROM releases WHERE official AND validity = 'valid'`;
}

/**
 * SQL over sla_releases with one `?` for the scenario id, then two per metric of SLA_METRICS: the
 * limit, and whether it is unset. An unset limit passes every point, even one that did not
 * measure the metric; a set limit fails a point that did not measure it. Every tie is broken
 * (equal throughputs: the first load in text order; then engine, then version), so the answer
 * is one and sla-answer.ts can compute the same in the page.
 */
export function slaSql(): string {
  const meets = SLA_METRICS.map((m) => `(${m.column} <= ?::DOUBLE OR ?::BOOLEAN)`).join(' AND ');
  return `
    WITH newest AS (SELECT * FROM sla_releases WHERE scenario_id = ?::VARCHAR QUALIFY dense_rank() OVER (PARTITION BY engine ORDER BY engine_version_order DESC) = 1),
    best AS (SELECT * FROM newest WHERE ${meets} AND throughput IS NOT NULL QUALIFY row_number() OVER (PARTITION BY engine, engine_version ORDER BY throughput DESC, load) = 1)
    SELECT n.engine, n.engine_version, b.throughput, b.load
    FROM (SELECT DISTINCT engine, engine_version FROM newest) n LEFT JOIN best b USING (engine, engine_version)
    ORDER BY b.throughput DESC NULLS LAST, n.engine, n.engine_version`;
}

/** The parameters for slaSql, in order. */
export function slaParameters(scenarioId: string, limits: Partial<Record<SlaColumn, number>>): Array<string | number | boolean> {
  return [scenarioId, ...SLA_METRICS.flatMap((m) => [limits[m.column] ?? 0, limits[m.column] === undefined])];
}
