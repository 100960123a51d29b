/**
 * What a point contributes to the published statistics (releases, leaderboard, deltas, capacity,
 * Pareto), as opposed to what it measured (the points table keeps every raw value with its flags):
 * - a percentile its sample cannot support (contract/sufficiency.ts) contributes nothing: a p99
 *   of 8 requests is their maximum, so ranking or comparing it would rank noise;
 * - throughput is the steady window's where the point has one (no ramp-up, no drain tail: the
 *   rate the server sustained at its load), else the whole run's, and the release says which;
 * - an overloaded open-loop point (it fell behind its own schedule) is shown, never ranked.
 * docs/metrics.md, "Sample sufficiency" and "Steady window", says why.
 */
import { HEADLINE_METRICS } from '../contract/metric-catalog.ts';
import { MIN_SAMPLES, percentileColumn, sampleCountColumn } from '../contract/sufficiency.ts';
import { columnOf } from './columns.ts';
import { describeValidityColumn, releaseValiditySql, VALID_RELEASE_SQL } from './validity.ts';

/** The headline percentile columns (ttft_ms_p95, …): published only where their sample supports them. */
export const PERCENTILE_HEADLINES = HEADLINE_METRICS.filter((m) => percentileColumn(m.column) !== null).map((m) => m.column);

/** Throughput columns: ranked on the steady window, and only beside releases measured over the same kind of window. */
export const THROUGHPUT_HEADLINES = ['output_throughput', 'request_throughput', 'output_throughput_per_gpu'] as const;

/** SQL: true where the point's sample supports the percentile column. */
export function supportedSql(column: string): string {
  const parsed = percentileColumn(column);
  if (parsed === null) return 'true';
  return `coalesce(${columnOf(sampleCountColumn(column)!)} >= ${MIN_SAMPLES[parsed.stat]}, false)`;
}

/** The view the release statistics read: priced_points with the values above replaced. */
export function publishedPointsSql(): string {
  const percentiles = PERCENTILE_HEADLINES.map((c) => `CASE WHEN ${supportedSql(c)} THEN ${columnOf(c)} END AS ${columnOf(c)}`);
  const steady = [
    'coalesce(steady_output_throughput, output_throughput) AS output_throughput',
    'coalesce(steady_request_throughput, request_throughput) AS request_throughput',
    'CASE WHEN gpu_count > 0 THEN coalesce(steady_output_throughput, output_throughput) / gpu_count END AS output_throughput_per_gpu',
  ];
  return `CREATE OR REPLACE TEMP VIEW published_points AS
    SELECT * REPLACE (${[...percentiles, ...steady].join(', ')}),
      CASE WHEN steady_output_throughput IS NOT NULL THEN 'steady' ELSE 'whole run' END AS throughput_window
    FROM priced_points`;
}

/**
 * The release columns that say what its values rest on: per headline percentile the smallest and
 * largest sample of its runs (`<column>__samples_min`, `__samples_max`; the site shows "n = 8"
 * where the value is null for want of samples), the throughput window of its runs, and whether
 * any of its runs was overloaded.
 */
export function releaseEvidenceSql(): string {
  const samples = PERCENTILE_HEADLINES.flatMap((c) => {
    const n = columnOf(sampleCountColumn(c)!);
    return [`min(${n})::INTEGER AS ${columnOf(`${c}__samples_min`)}`, `max(${n})::INTEGER AS ${columnOf(`${c}__samples_max`)}`];
  });
  return [
    ...samples,
    `CASE WHEN bool_and(throughput_window = 'steady') THEN 'steady' WHEN bool_and(throughput_window = 'whole run') THEN 'whole run' ELSE 'mixed' END AS throughput_window`,
    'coalesce(bool_or(overloaded), false) AS overloaded',
    'min(overload_reason) FILTER (WHERE overloaded) AS overload_reason',
    releaseValiditySql(),
  ].join(',\n      ');
}

/**
 * A leaderboard rank: null for a release that has no publishable value (too few samples) or is not
 * valid (validity.ts: wrong outputs, a cache mismatch, overloaded, nothing to rank), and those never
 * take a place among the others; throughput is ranked only among
 * releases measured over the same window, and a release of mixed windows is not ranked.
 */
export function rankSql(column: string, better: 'higher' | 'lower'): string {
  const c = columnOf(column);
  const throughput = (THROUGHPUT_HEADLINES as readonly string[]).includes(column);
  const unranked = `(${c} IS NULL OR NOT (${VALID_RELEASE_SQL})${throughput ? ` OR throughput_window = 'mixed'` : ''})`;
  const partition = ['config_id', unranked, ...(throughput ? ['throughput_window'] : [])].join(', ');
  return `CASE WHEN NOT ${unranked} THEN (rank() OVER (PARTITION BY ${partition} ORDER BY ${c}${better === 'higher' ? ' DESC' : ''}))::INTEGER END AS ${columnOf(`rank_${column}`)}`;
}

/** Dictionary lines of the columns above (dictionary.ts). */
export function describeEvidenceColumn(name: string): { unit: string | null; description: string } | null {
  // No ^: a greedy (.*) that matches anywhere matches from the first character.
  const samples = /(.*)__samples_(min|max)$/.exec(name);
  if (samples && PERCENTILE_HEADLINES.includes(samples[1]!)) {
    const parsed = percentileColumn(samples[1]!)!;
    return { unit: 'samples', description: `The ${samples[2] === 'min' ? 'smallest' : 'largest'} sample behind ${samples[1]} among the release's runs (${sampleCountColumn(samples[1]!)}); ${parsed.stat} is published only from runs with at least ${MIN_SAMPLES[parsed.stat]} (docs/metrics.md#sample-sufficiency), and the site shows "n = …" where no run had them` };
  }
  const validity = describeValidityColumn(name);
  if (validity !== null) return validity;
  if (name === 'throughput_window') return { unit: null, description: "What the release's throughputs were measured over: steady (every run's steady window, no ramp-up or drain tail), whole run (no run had one: first send to last end) or mixed (never ranked)" };
  return null;
}
