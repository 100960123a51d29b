/**
 * The SLA filter's answer in plain TypeScript over the points the page embeds (sla-points.ts):
 * the same rows, in the same order, as slaSql over releasesSql's table (tests/site/sla-answer.test.ts
 * runs both on the same rows). The first answer comes from here at once; DuckDB-Wasm answers
 * once it has started. What "meets" means is failures() (pareto-sla.ts), the one the chart's
 * marks use.
 *
 * Where no point of an engine meets the limits, the answer says how close it came: the point
 * whose worst ratio value ÷ limit over the set limits is smallest (an unmeasured value under a
 * set limit counts as infinitely far), with each limit it fails.
 */
import { formatNumber } from './format.ts';
import { failures, type Failure, type Limits } from './pareto-sla.ts';
import type { SlaRow } from './sla-query.ts';
import type { SlaPoint } from './sla-points.ts';

export interface Closest {
  readonly load: string;
  /** The limits the point fails (at least one). */
  readonly failures: readonly Failure[];
  /** The largest value ÷ limit over the set limits; Infinity when one of them was not measured. */
  readonly worst: number;
}

/** One row of the answer: slaSql's columns, and how close the engine came when no point meets the limits. */
export interface SlaAnswer extends SlaRow {
  /** null when a point meets the limits, or when no point was judged against any set limit. */
  readonly closest: Closest | null;
}

/** Binary string order, as DuckDB compares VARCHARs (not the locale's). */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const ratioOf = (f: Failure): number => (f.value === null ? Infinity : f.value / f.limit);

/** The worst value ÷ limit of a point over the set limits (≤ 1: it meets them all). */
function worstRatio(point: SlaPoint, limits: Limits): number {
  let worst = -Infinity;
  for (const [column, limit] of Object.entries(limits) as Array<[keyof Limits, number]>) {
    const value = point[column];
    worst = Math.max(worst, value === null || !Number.isFinite(value) ? Infinity : value / limit);
  }
  return worst;
}

/**
 * For each engine's newest version(s) in the points, the highest throughput among the points
 * that meet every set limit (ties: the first load in text order); ordered by that throughput,
 * highest first, engines with none last, then by engine and version.
 */
export function answerSla(points: readonly SlaPoint[], limits: Limits): SlaAnswer[] {
  const newest = new Map<string, number>();
  for (const p of points) newest.set(p.engine, Math.max(newest.get(p.engine) ?? -Infinity, p.version_rank));
  const releases = new Map<string, SlaPoint[]>();
  for (const p of points) {
    if (p.version_rank !== newest.get(p.engine)) continue;
    const key = JSON.stringify([p.engine, p.engine_version]);
    (releases.get(key) ?? releases.set(key, []).get(key)!).push(p);
  }
  const rows: SlaAnswer[] = [...releases.values()].map((release) => {
    const { engine, engine_version } = release[0]!;
    let best: SlaPoint | null = null;
    for (const p of release) {
      if (p.throughput === null || failures(p, limits).length > 0) continue;
      if (best === null || p.throughput > best.throughput! || (p.throughput === best.throughput && byText(p.load, best.load) < 0)) best = p;
    }
    if (best !== null) return { engine, engine_version, throughput: best.throughput, load: best.load, closest: null };
    return { engine, engine_version, throughput: null, load: null, closest: closestPoint(release, limits) };
  });
  return rows.sort((a, b) => (a.throughput === null ? (b.throughput === null ? 0 : 1) : b.throughput === null ? -1 : b.throughput - a.throughput) || byText(a.engine, b.engine) || byText(a.engine_version, b.engine_version));
}

/** The point of a release nearest to meeting the limits (ties: higher throughput, then the first load); null when no limit is set or every point meets them. */
function closestPoint(release: readonly SlaPoint[], limits: Limits): Closest | null {
  let closest: { point: SlaPoint; worst: number; failed: Failure[] } | null = null;
  for (const point of release) {
    const failed = failures(point, limits);
    if (failed.length === 0) continue;
    const worst = worstRatio(point, limits);
    const better =
      closest === null ||
      worst < closest.worst ||
      (worst === closest.worst && ((point.throughput ?? -Infinity) > (closest.point.throughput ?? -Infinity) || ((point.throughput ?? -Infinity) === (closest.point.throughput ?? -Infinity) && byText(point.load, closest.point.load) < 0)));
    if (better) closest = { point, worst, failed };
  }
  return closest === null ? null : { load: closest.point.load, failures: closest.failed, worst: closest.worst };
}

/** "+24%", "+0.4%", "+<0.1%": how far a value is above its limit. */
function overBy(f: Failure): string {
  const pct = (ratioOf(f) - 1) * 100;
  if (pct >= 10) return `+${pct.toFixed(0)}%`;
  if (pct >= 0.1) return `+${pct.toFixed(1)}%`;
  return '+<0.1%';
}

/** "closest: c=8, TTFT p95 1,240 ms vs 1,000 ms limit (+24%); ITL p99 not measured" */
export function describeClosest(closest: Closest): string {
  const each = closest.failures.map((f) => (f.value === null ? `${f.label} not measured` : `${f.label} ${formatNumber(f.value)} ${f.unit} vs ${formatNumber(f.limit)} ${f.unit} limit (${overBy(f)})`));
  return `closest: ${closest.load}, ${each.join('; ')}`;
}
