/**
 * The bisection's output object from the search's result, the release list and what the run knew
 * of itself: one composition for every command that bisects (`servebench confirm` does, after a
 * confirmed regression; `servebench bisect` builds the same object).
 */
import type { ComparisonHeader } from '../../measure/ab/ab-result.ts';
import type { SearchResult } from '../../lib/bisect-search.ts';
import type { StepComparison } from './ab-comparator.ts';
import { BISECTION_SCHEMA_VERSION, outcomeOf, rangeOf, type Bisection } from './bisection.ts';
import type { ReleaseList } from './releases.ts';

export interface BisectionContext extends Omit<ComparisonHeader, 'finished_at'> {
  readonly list: ReleaseList;
  readonly builds: Bisection['builds'];
  readonly budgetS: number | null;
}

export function assembleBisection(search: SearchResult<StepComparison>, context: BisectionContext): Bisection {
  const { list, builds, budgetS, ...header } = context;
  const outcome = outcomeOf(search);
  const range = rangeOf(list.releases, search.range[0], search.range[1]);
  return {
    kind: 'bisection',
    schema_version: BISECTION_SCHEMA_VERSION,
    ...header,
    finished_at: new Date().toISOString(),
    good: list.releases[0]!.version,
    bad: list.releases.at(-1)!.version,
    releases: list.releases,
    notes: list.notes,
    steps: search.steps.map(({ comparison, ...step }) => ({ ...step, ...comparison })),
    outcome,
    direction: search.direction,
    range,
    culprit: outcome === 'culprit' || outcome === 'spread' ? range : null,
    spread: search.spread,
    comparisons: search.comparisons,
    builds,
    budget_s: budgetS,
    wall_s: Math.round(search.wall_s * 10) / 10,
  };
}
