/**
 * What the charts draw besides the release values, at build time: each release's 95% interval (the
 * compiled `<metric>__lo` / `<metric>__hi` columns, null for a single run), its run count, and the
 * noise band of a metric (noise.json's log-scale standard deviation per engine, hardware and
 * load). Plain functions over the compiled rows, tested on their own; every column is optional, so data compiled before the
 * intervals existed still draws (without bars or bands).
 */
import type { ParetoPoint, Release } from '../../harness/contract/site-data.ts';

/** [low, high], low ≤ high. */
export type Interval = readonly [number, number];

/** One row of noise.json: the noise of a metric for one engine on one hardware at one load, pooled over its releases with repeated runs. */
export interface NoiseRow {
  readonly engine: string;
  readonly hardware: string;
  readonly load: string;
  readonly metric: string;
  /** Standard deviation of log values; null when no release has repeats. */
  readonly log_sd: number | null;
  /** How many releases with repeated runs it was pooled from. */
  readonly releases: number;
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The 95% interval of `column` in a release row; null when the row has none (a single run, or data without intervals). */
export function intervalOf(row: Readonly<Record<string, unknown>> | undefined, column: string): Interval | null {
  if (!row) return null;
  const lo = row[`${column}__lo`];
  const hi = row[`${column}__hi`];
  return finite(lo) && finite(hi) ? [Math.min(lo, hi), Math.max(lo, hi)] : null;
}

/** The run count of a release row; null when unknown. */
export function runsOf(row: Readonly<Record<string, unknown>> | undefined): number | null {
  return row && finite(row.runs) ? row.runs : null;
}

export const releaseKey = (engine: string, version: string, load: string): string => JSON.stringify([engine, version, load]);

/** A Pareto point with what its marks need: its series, runs and intervals on both axes. */
export interface ParetoChartPoint extends ParetoPoint {
  readonly series: string;
  /** null: unknown (no release row for the point). */
  readonly runs: number | null;
  readonly x_interval: Interval | null;
  readonly y_interval: Interval | null;
  /** Measured once: no interval can exist. */
  readonly single: boolean;
}

/**
 * Joins each Pareto point to its release row (engine, version, load): x is interactivity p50, y is
 * output throughput per GPU or, where the GPU count is unknown, output throughput (as compile
 * coalesces them), so y's interval comes from the same column.
 */
export function paretoChartPoints(points: readonly ParetoPoint[], history: readonly Release[] | undefined): ParetoChartPoint[] {
  const rows = new Map((history ?? []).map((r) => [releaseKey(r.engine, r.engine_version, r.load), r as Readonly<Record<string, unknown>>]));
  return points.map((p) => {
    const row = rows.get(releaseKey(p.engine, p.engine_version, p.load));
    const runs = runsOf(row);
    const yColumn = row && finite(row.output_throughput_per_gpu) ? 'output_throughput_per_gpu' : 'output_throughput';
    return { ...p, series: `${p.engine} ${p.engine_version}`, runs, x_interval: intervalOf(row, 'interactivity_tok_s_p50'), y_interval: intervalOf(row, yColumn), single: runs === 1 };
  });
}

/** The noise band around a value: v·exp(±1.96·σ), σ the pooled standard deviation of log values. */
export function noiseBand(value: number, logSd: number): Interval {
  const f = Math.exp(1.96 * logSd);
  return [value / f, value * f];
}

/** The noise row of a metric for an engine on a hardware at a load, with a usable σ; null when it has none (or no noise was given). */
export function noiseOf(noise: readonly NoiseRow[] | undefined, metric: string, engine: string, hardware: string, load: string): (NoiseRow & { readonly log_sd: number }) | null {
  const row = noise?.find((n) => n.metric === metric && n.engine === engine && n.hardware === hardware && n.load === load);
  return row && finite(row.log_sd) && row.log_sd >= 0 ? (row as NoiseRow & { readonly log_sd: number }) : null;
}

/** The band's half-width as text, "±4.0%" on the up side and "−3.9%" down: log bands are not symmetric. */
export function describeNoise(logSd: number): string {
  const f = Math.exp(1.96 * logSd);
  return `−${((1 - 1 / f) * 100).toFixed(1)}% / +${((f - 1) * 100).toFixed(1)}%`;
}

/**
 * Whether a log scale is worth offering for these values: all positive, and spanning at least
 * `factor` (max ÷ min) on some axis.
 */
export function logScaleUseful(axes: ReadonlyArray<readonly number[]>, factor = 3): boolean {
  const all = axes.flat();
  if (all.length === 0 || !all.every((v) => finite(v) && v > 0)) return false;
  return axes.some((values) => values.length > 0 && Math.max(...values) / Math.min(...values) >= factor);
}

/** [min, max] of the values, null when there are none. */
export function extent(values: readonly number[]): Interval | null {
  const v = values.filter(finite);
  return v.length === 0 ? null : [Math.min(...v), Math.max(...v)];
}
