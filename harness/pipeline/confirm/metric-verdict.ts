/**
 * One regression's paired verdict from an A/B's runs. The A/B is designed on one metric (its blocks
 * sized by that metric's A/A noise), but every arm run measured every metric of its load point; a
 * regression of another metric at the same point is judged on the same blocks by the same test:
 * the paired t per pass (comparePaired), the two passes' agreement (confirmVerdict), and the
 * effect with its interval over every block. So a release that slowed decoding is confirmed on
 * throughput and TPOT by one A/B rather than one per metric, at the cost that the blocks were sized
 * for the design metric (a noisier metric may come out inconclusive: said, not hidden).
 */
import { pointMetricValue } from '../../contract/point-metric.ts';
import type { AbBlock, AbResult } from '../../measure/ab/ab-result.ts';
import { comparePaired, confirmVerdict, type Better, type PairedBlock, type PairedComparison } from '../../lib/stats/paired.ts';
import type { PairedSummary } from './confirmations.ts';

export type MetricVerdict = Omit<PairedSummary, 'file'>;

/** The A/B's own verdict, for the regression of the metric it was designed on. */
function ownVerdict(ab: AbResult): MetricVerdict {
  return {
    ab_metric: ab.metric,
    derived: false,
    verdict: ab.verdict,
    effect: ab.effect,
    interval: ab.interval,
    passes: ab.passes.map((pass) => ({ name: pass.name, verdict: pass.comparison?.verdict ?? null, effect: pass.comparison?.effect ?? null, interval: pass.comparison?.interval ?? null })),
  };
}

function valuesOf(blocks: readonly AbBlock[], metric: string): PairedBlock[] | string {
  const values: PairedBlock[] = [];
  for (const block of blocks) {
    const [a, b] = [block.a, block.b].map((run) => (run.points[0] === undefined ? { problem: 'an arm run has no point' } : pointMetricValue(run.points[0], metric)));
    if ('problem' in a!) return a.problem;
    if ('problem' in b!) return b.problem;
    if (!(a!.value > 0 && b!.value > 0)) return `${metric} is not > 0 in block ${block.index + 1}: a ratio needs values > 0`;
    values.push({ a: a!.value, b: b!.value });
  }
  return values;
}

/**
 * The verdict of `metric` (better: its direction) on a completed A/B's blocks; a string says why
 * there is none (the A/B did not complete, or a block has no value of the metric).
 */
export function metricVerdict(ab: AbResult, metric: string, better: Better): MetricVerdict | string {
  if (ab.status !== 'completed') return `the A/B ${ab.status} before a verdict`;
  if (metric === ab.metric) return ownVerdict(ab);
  const options = { better, alpha: ab.alpha, margin: ab.margin };
  const comparisons: PairedComparison[] = [];
  const all: PairedBlock[] = [];
  for (const pass of ab.passes) {
    const values = valuesOf(pass.blocks, metric);
    if (typeof values === 'string') return values;
    comparisons.push(comparePaired(values, options));
    all.push(...values);
  }
  // As the procedure decides: both passes must agree (one pass with --no-confirm, which confirm never passes).
  const verdict = comparisons.length === 2 ? confirmVerdict(comparisons[0]!, comparisons[1]!) : comparisons[0]!.verdict;
  const overall = comparePaired(all, options);
  const passes = comparisons.map((c, i) => ({ name: ab.passes[i]!.name, verdict: c.verdict, effect: c.effect, interval: c.interval }));
  return { ab_metric: ab.metric, derived: true, verdict, effect: overall.effect, interval: overall.interval, passes };
}
