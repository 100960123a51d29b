/**
 * Is a compare-page change real or noise? The test is the store's own (harness/contract/significance.ts,
 * docs/metrics.md "Delta"): Welch's t-test on the log values of the two releases' runs, p < 0.05,
 * with the 95% interval of the ratio. It needs each release's log summary of the metric (runs with a
 * value, mean and variance of ln value), which compile publishes on the scenario histories, not in
 * releases.arrow: the page publishes them (compare-stats.json) for the releases that can be tested.
 * A side with fewer than 2 runs has no spread of its own: its change is not tested here (the
 * regression check would use the engine's pooled noise, whose degrees of freedom are not published).
 */
import { compareReleases, SIGNIFICANCE_LEVEL, type Comparison } from '../../harness/contract/significance.ts';
import type { HeadlineMetric } from '../../harness/contract/metric-catalog.ts';
import { changePct, COMPARE_METRICS, invalidSides, type CompareRow, type CompareSide } from './compare-query.ts';
import type { DeltaFacts } from './format.ts';

export { SIGNIFICANCE_LEVEL };

/** One release's runs of one metric on the log scale: [runs with a value, mean ln, sample variance of ln]. */
export type LogStats = readonly [n: number, meanLog: number, varLog: number];

/** Release key (releaseKey) → metric column → its log summary; only releases and metrics with 2 runs or more. */
export type ReleaseLogStats = Readonly<Record<string, Readonly<Record<string, LogStats>>>>;

/** A release as releases.arrow names it: configuration, engine, version, source, and whether the version is known (null counts as known). */
export function releaseKey(configId: string, side: CompareSide): string {
  return JSON.stringify([configId, side.engine, side.version, side.source, side.known !== false]);
}

/** The compare metrics' log summaries of compiled history rows (scenario JSON: `<metric>__n`, `__meanlog`, `__varlog`). */
export function logStatsOf(rows: Iterable<Readonly<Record<string, unknown>>>): Record<string, Record<string, LogStats>> {
  const out: Record<string, Record<string, LogStats>> = {};
  for (const row of rows) {
    const metrics: Record<string, LogStats> = {};
    for (const { column } of COMPARE_METRICS) {
      const [n, meanLog, varLog] = [row[`${column}__n`], row[`${column}__meanlog`], row[`${column}__varlog`]];
      if (typeof n === 'number' && n >= 2 && typeof meanLog === 'number' && typeof varLog === 'number') metrics[column] = [n, meanLog, varLog];
    }
    if (Object.keys(metrics).length === 0) continue;
    const side: CompareSide = { engine: String(row.engine), version: String(row.engine_version), source: String(row.source), known: row.engine_version_known === false ? false : true };
    out[releaseKey(String(row.config_id), side)] = metrics;
  }
  return out;
}

/** better / worse: significant at 95% in the metric's better direction; unclear: tested, not significant; untested: a side has fewer than 2 runs. */
export type ChangeVerdict = 'better' | 'worse' | 'unclear' | 'untested';

export interface TestedChange {
  readonly verdict: ChangeVerdict;
  /** What describeDelta shows (its title: both values, the test, p and interval). */
  readonly facts: DeltaFacts;
}

type Metric = Pick<HeadlineMetric, 'column' | 'better'>;

/**
 * B's change against A on one metric of a compared row, tested; null where changePct has none (a
 * value missing, or a side not valid: an invalid release is never better or worse).
 */
export function testChange(row: CompareRow, metric: Metric, sides: { a: CompareSide; b: CompareSide }, stats: ReleaseLogStats, names = { a: `${sides.a.engine} ${sides.a.version}`, b: `${sides.b.engine} ${sides.b.version}` }): TestedChange | null {
  const change = changePct(row, metric.column);
  if (change === null) return null;
  const configId = String(row.config_id);
  const [a, b] = [stats[releaseKey(configId, sides.a)]?.[metric.column], stats[releaseKey(configId, sides.b)]?.[metric.column]];
  const tested: Comparison | null = a && b ? compareReleases({ n: a[0], meanLog: a[1], varLog: a[2] }, { n: b[0], meanLog: b[1], varLog: b[2] }, null) : null;
  const improved = metric.better === 'higher' ? change > 0 : change < 0;
  const verdict: ChangeVerdict = tested === null ? 'untested' : !tested.significant ? 'unclear' : improved ? 'better' : 'worse';
  return {
    verdict,
    facts: {
      change_pct: change,
      verdict: verdict === 'untested' ? 'unclear' : verdict,
      method: tested?.method ?? 'unknown-noise',
      p_value: tested?.pValue ?? null,
      ci_low_pct: tested?.ci ? (tested.ci[0] - 1) * 100 : null,
      ci_high_pct: tested?.ci ? (tested.ci[1] - 1) * 100 : null,
      previous_runs: a?.[0] ?? 1,
      runs: b?.[0] ?? 1,
      previous_version: names.a,
      version: names.b,
      previous_value: row[`a_${metric.column}`] as number,
      value: row[`b_${metric.column}`] as number,
    },
  };
}

export interface MetricSummary {
  readonly column: string;
  readonly better: number;
  readonly worse: number;
  readonly unclear: number;
  readonly untested: number;
  /** Valid rows where either side has no value (a percentile its sample cannot support, a metric not measured). */
  readonly missing: number;
}

export interface CompareSummary {
  /** Configurations both releases measured. */
  readonly configurations: number;
  /** Of those, the ones with a side that is not valid: no change computed. */
  readonly excluded: number;
  readonly metrics: readonly MetricSummary[];
}

/** What the table says, counted: per compare metric, how many configurations changed for the better, the worse, or not significantly. */
export function summarizeChanges(rows: readonly CompareRow[], sides: { a: CompareSide; b: CompareSide }, stats: ReleaseLogStats): CompareSummary {
  const excluded = rows.filter((row) => invalidSides(row).length > 0).length;
  const metrics = COMPARE_METRICS.map((metric) => {
    const counts = { column: metric.column, better: 0, worse: 0, unclear: 0, untested: 0, missing: 0 };
    for (const row of rows) {
      if (invalidSides(row).length > 0) continue;
      const tested = testChange(row, metric, sides, stats);
      if (tested === null) counts.missing += 1;
      else counts[tested.verdict] += 1;
    }
    return counts;
  });
  return { configurations: rows.length, excluded, metrics };
}
