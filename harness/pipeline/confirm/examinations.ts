/**
 * What confirm measures: one paired A/B per engine release pair, configuration and load point (an
 * "examination"), whatever number of metrics regress found worse there. Every arm run measures
 * every metric of its point, so the regressions of one point share the A/B's runs
 * (metric-verdict.ts); the A/B is designed on the one metric the catalog lists first among them
 * (throughputs before latencies: a point's least noisy values, by which its blocks are sized).
 * A regression of a metric the A/B cannot compare is kept apart, with the reason.
 */
import { AB_METRICS } from '../../contract/point-metric.ts';
import { groupKey, scenarioIdentity, scenarioOf } from '../regressions/keys.ts';
import type { AlertRegression } from '../regressions/report.ts';

export interface Examination {
  readonly engine: string;
  readonly previous_version: string;
  readonly version: string;
  readonly load: string;
  /** The metric the A/B is designed on: one of the regressions' metrics. */
  readonly metric: string;
  /** The regressions it judges, the design metric's first, then in the report's order. */
  readonly regressions: readonly AlertRegression[];
  /** The issue alert files them under (the same for every regression of the examination). */
  readonly groupKey: string;
}

export interface ExaminationPlan {
  readonly examinations: readonly Examination[];
  /** Regressions of a metric ab does not compare, with the reason. */
  readonly unmeasurable: ReadonlyArray<{ readonly regression: AlertRegression; readonly reason: string }>;
}

const RANK = new Map(AB_METRICS.map((metric, i) => [metric.column, i]));

export function planExaminations(regressions: readonly AlertRegression[]): ExaminationPlan {
  const groups = new Map<string, AlertRegression[]>();
  const unmeasurable: Array<ExaminationPlan['unmeasurable'][number]> = [];
  for (const regression of regressions) {
    if (!RANK.has(regression.metric)) {
      unmeasurable.push({ regression, reason: `an A/B compares ${AB_METRICS.map((m) => m.column).join(', ')}; not ${regression.metric}` });
      continue;
    }
    const id = [regression.engine, regression.previous_version, regression.version, scenarioIdentity(regression), regression.load].join('\u0000');
    groups.set(id, [...(groups.get(id) ?? []), regression]);
  }
  const examinations = [...groups.values()].map((rows): Examination => {
    const ordered = [...rows].sort((a, b) => RANK.get(a.metric)! - RANK.get(b.metric)!);
    const design = ordered[0]!;
    return {
      engine: design.engine,
      previous_version: design.previous_version,
      version: design.version,
      load: design.load,
      metric: design.metric,
      regressions: [design, ...rows.filter((r) => r !== design)],
      groupKey: groupKey(design.engine, design.version, scenarioOf(design)),
    };
  });
  return { examinations, unmeasurable };
}

/**
 * Why the next examination must not start, or null when it may: its A/B would end past the budget,
 * judged by the A/Bs so far (the first always starts: nothing says yet what an A/B costs here).
 */
export function overBudget(elapsedS: number, abWallsS: readonly number[], budgetS: number | null): string | null {
  if (budgetS === null || abWallsS.length === 0) return null;
  const estimate = abWallsS.reduce((a, b) => a + b, 0) / abWallsS.length;
  if (elapsedS + estimate <= budgetS) return null;
  return `the budget (${(budgetS / 60).toFixed(0)} min) would run out before its A/B ended (${(elapsedS / 60).toFixed(1)} min spent, an A/B takes about ${(estimate / 60).toFixed(1)} min here)`;
}
