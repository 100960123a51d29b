/**
 * The run-to-run noise of each compared metric, for the single-run test (significance.ts) and the
 * history chart's band: the variance of ln(value) pooled over the repeated releases that share an
 * engine, a hardware and a load point (Σ(nᵢ−1)sᵢ² / Σ(nᵢ−1)), with its degrees of freedom.
 *
 * Why that key (docs/metrics.md, "Noise pool"): the noise is the engine's and the machine's (the
 * committed CPU lane's official releases: σ of ln(output throughput) 0.083 for the embedded engine,
 * 0.131 for llama.cpp on the same host), so a noisy lane must never widen a quiet one's band; and
 * queueing amplifies it with the load (llama.cpp's TTFT p50: σ 0.271 at c=2 and 0.090 at c=4 over
 * 32 degrees of freedom each, an F of 9.1), so a band made of every load is too wide at one and too
 * narrow at another.
 * Versions, models and workloads of that engine on that hardware and load are pooled, so a new
 * release measured once has a band from its predecessors' repeats.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { COMPARED_METRICS } from '../contract/metric-catalog.ts';
import type { NoiseRow } from '../contract/site-data.ts';
import { columnOf } from './columns.ts';
import { pooledLogVariance } from '../contract/significance.ts';
import type { SampleSummary } from '../lib/stats/log-interval.ts';
import { VALID_RELEASE_SQL } from './validity.ts';

/** What a noise pool is: the release columns whose values it shares. */
export const NOISE_KEY = ['engine', 'hardware', 'load'] as const;

export interface NoisePool {
  readonly engine: string;
  readonly hardware: string;
  readonly load: string;
  /** Per compared metric: the pooled log variance (null without repeats) and how many repeated releases it pooled. */
  readonly metrics: ReadonlyMap<string, { readonly pooled: { variance: number; df: number } | null; readonly releases: number }>;
}

/** A release row's log statistics of one metric; null when no run measured it. */
export function releaseSummary(row: Record<string, unknown>, metric: string): SampleSummary | null {
  const n = Number(row[`${metric}__n`] ?? 0);
  if (n === 0) return null;
  const varLog = row[`${metric}__varlog`];
  return { n, meanLog: row[`${metric}__meanlog`] as number, varLog: n >= 2 && typeof varLog === 'number' ? varLog : null };
}

export const LOG_STAT_COLUMNS = COMPARED_METRICS.flatMap((m) => ['__n', '__varlog', '__meanlog'].map((suffix) => columnOf(`${m.column}${suffix}`)));

const poolId = (engine: unknown, hardware: unknown, load: unknown) => JSON.stringify([engine, hardware, load]);

/** Every pool that has an official release, keyed by poolKey(engine, hardware, load). */
export async function noisePools(connection: DuckDBConnection): Promise<Map<string, NoisePool>> {
  // Ordered: a float sum depends on its order, and a delta must not depend on how the table was built.
  // Valid releases only: a corrupted or overloaded release's spread is not the engine's noise.
  const rows = (
    await connection.runAndReadAll(`SELECT ${NOISE_KEY.map(columnOf).join(', ')}, ${LOG_STAT_COLUMNS.join(', ')} FROM releases WHERE ${VALID_RELEASE_SQL} ORDER BY ${NOISE_KEY.map(columnOf).join(', ')}, config_id, engine_version_order`)
  ).getRowObjectsJS() as Array<Record<string, unknown>>;
  const groups = new Map<string, Array<Record<string, unknown>>>();
  for (const row of rows) {
    const id = poolId(row.engine, row.hardware, row.load);
    const group = groups.get(id);
    if (group) group.push(row);
    else groups.set(id, [row]);
  }
  return new Map(
    [...groups].map(([id, members]) => {
      const metrics = new Map(
        COMPARED_METRICS.map((m) => {
          const repeated = members.map((row) => releaseSummary(row, m.column)).filter((s): s is SampleSummary => s !== null && s.varLog !== null);
          return [m.column, { pooled: pooledLogVariance(repeated), releases: repeated.length }] as const;
        }),
      );
      const first = members[0]!;
      return [id, { engine: first.engine as string, hardware: first.hardware as string, load: first.load as string, metrics }];
    }),
  );
}

/** The pooled log variance of a metric for an engine on a hardware at a load; null when its pool has no repeats. */
export function noiseOf(pools: ReadonlyMap<string, NoisePool>, engine: unknown, hardware: unknown, load: unknown, metric: string): { variance: number; df: number } | null {
  return pools.get(poolId(engine, hardware, load))?.metrics.get(metric)?.pooled ?? null;
}

/** noise.json: per pool and compared metric, σ of ln(value) (the history chart draws value × exp(±1.96 σ) around each engine's line). */
export async function computeNoise(connection: DuckDBConnection): Promise<NoiseRow[]> {
  return noiseRows(await noisePools(connection));
}

/** noise.json's rows from pools already read (compile reads them once, for the deltas and for this). */
export function noiseRows(pools: ReadonlyMap<string, NoisePool>): NoiseRow[] {
  return [...pools.values()].flatMap((pool) =>
    COMPARED_METRICS.map((m) => {
      const n = pool.metrics.get(m.column)!;
      return { engine: pool.engine, hardware: pool.hardware, load: pool.load, metric: m.column, log_sd: n.pooled === null ? null : Math.sqrt(n.pooled.variance), releases: n.releases };
    }),
  );
}
