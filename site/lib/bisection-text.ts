/**
 * What a bisection says, in the words the pages use (scenario page, history chart mark): the range
 * the change was narrowed to with its llama.cpp tags, the size of the change with its 95% interval,
 * and how it was found. One definition, so the chart's mark and the list under it read alike.
 */
import type { BisectionRow } from '../../harness/contract/site-data.ts';
import { formatPercent } from './format.ts';

/** "3.19.0 (llama.cpp b6500)", or the version alone for an engine without tags. */
export function releaseName(version: string, tag: string | null): string {
  return tag === null ? version : `${version} (llama.cpp ${tag})`;
}

/** The effect with its interval: "−62.0% [−65.1%, −58.2%]". */
export function effectText(effect: number | null, lo: number | null, hi: number | null): string {
  if (effect === null) return 'no estimate';
  const interval = lo !== null && hi !== null ? ` [${formatPercent(lo * 100)}, ${formatPercent(hi * 100)}]` : '';
  return `${formatPercent(effect * 100)}${interval}`;
}

const OUTCOME: Readonly<Record<BisectionRow['outcome'], string>> = {
  culprit: 'changed between',
  spread: 'changed over several releases, the larger part between',
  'not reproducible': 'not reproducible under pairing between',
  inconclusive: 'not placed; narrowed to',
  budget: 'budget spent; narrowed to',
  failed: 'a run failed; narrowed to',
  interrupted: 'interrupted; narrowed to',
};

/** The one line: "TTFT p50 changed between 3.19.0 (llama.cpp b6500) and 3.19.1 (llama.cpp b6510): −62.0% [−65.1%, −58.2%]". */
export function bisectionHeadline(row: BisectionRow, metricLabel: string): string {
  const [good, bad] = row.outcome === 'not reproducible' ? [releaseName(row.good, row.good_tag), releaseName(row.bad, row.bad_tag)] : [releaseName(row.range_good, row.range_good_tag), releaseName(row.range_bad, row.range_bad_tag)];
  return `${metricLabel} ${OUTCOME[row.outcome]} ${good} and ${bad}: ${effectText(row.effect, row.effect_lo, row.effect_hi)}`;
}

/** How it was found: "bisected on 2026-12-04 at c=1: 7 paired A/Bs, 3 builds, 94 min". */
export function bisectionMethod(row: BisectionRow): string {
  const builds = row.builds_made + row.builds_cached > 0 ? `, ${row.builds_made} build${row.builds_made === 1 ? '' : 's'} made` : '';
  return `bisected on ${row.started_at.slice(0, 10)}${row.load === null ? '' : ` at ${row.load}`} over ${row.releases} releases: ${row.comparisons} paired A/B${row.comparisons === 1 ? '' : 's'}${builds}, ${Math.round(row.wall_s / 60)} min`;
}
