/**
 * The bisection itself, over an ordered release list and a comparator (the paired A/B of two
 * releases, injected: the command runs `ab`'s procedure, a test may hand a stand-in):
 * 1. confirm the change end to end, compare(good, bad): without a faster/slower verdict there is
 *    nothing to bisect, and that is the finding ("not reproducible" under pairing), with its evidence;
 * 2. at each step, the midpoint m of the range [lo, hi] is compared with both ends,
 *    compare(lo, m) and compare(m, hi): the change is in the half whose verdict goes the same way
 *    as the end-to-end one. Both halves: the change is spread over several releases (recorded;
 *    the search follows the half with the larger effect). Neither: the step cannot place it, and
 *    the search stops with the range narrowed so far ("inconclusive");
 * 3. it ends at two adjacent releases: the culprit pair.
 * Comparing m with both ends, not only with one, is what tells "here" from "spread" and from
 * "lost in the noise": one comparison per step would put a change nobody could see in the other half.
 * A budget stops the search before a step that would not fit in it ("budget", the range so far).
 * No I/O: the clock is injected too.
 */
import type { PairedVerdict } from './stats/paired.ts';

/** What bisect reads of one comparison (an ab result's summary); verdict null: it did not complete. */
export interface Comparison {
  readonly verdict: PairedVerdict | null;
  /** B against A: exp(mean ln(B/A)) − 1, in the metric's own direction (+: B's value is higher). */
  readonly effect: number | null;
  readonly interval: readonly [number, number] | null;
}

export type Compare<C extends Comparison> = (a: string, b: string) => Promise<C>;

export type Side = 'ends' | 'good side' | 'bad side';

export interface SearchStep<C extends Comparison> {
  /** 0: the end-to-end confirmation; 1, 2, …: the bisection steps (two comparisons each). */
  readonly step: number;
  readonly side: Side;
  readonly a: string;
  readonly b: string;
  readonly comparison: C;
  readonly wall_s: number;
}

export type SearchOutcome = 'culprit' | 'spread' | 'not reproducible' | 'inconclusive' | 'budget' | 'stopped';

export interface SearchResult<C extends Comparison> {
  readonly outcome: SearchOutcome;
  /** The end-to-end verdict the search followed; null when it was neither faster nor slower. */
  readonly direction: 'faster' | 'slower' | null;
  /** The narrowed range: adjacent releases for culprit and spread, the range so far otherwise. */
  readonly range: readonly [string, string];
  readonly steps: readonly SearchStep<C>[];
  /** The steps where both halves changed the same way, and the half followed. */
  readonly spread: readonly { readonly step: number; readonly followed: Exclude<Side, 'ends'> }[];
  readonly comparisons: number;
  readonly wall_s: number;
}

export interface SearchOptions {
  /** Seconds the whole search may take; null: no limit. */
  readonly budgetS?: number | null;
  /** Milliseconds, monotonic (performance.now by default). */
  readonly now?: () => number;
}

/** The size of an effect whichever its sign: |ln(1 + effect)|, so −33% and +50% weigh the same. */
function magnitude(comparison: Comparison): number {
  return comparison.effect === null ? 0 : Math.abs(Math.log1p(comparison.effect));
}

export async function bisectReleases<C extends Comparison>(releases: readonly string[], compare: Compare<C>, options: SearchOptions = {}): Promise<SearchResult<C>> {
  if (releases.length < 2) throw new RangeError(`bisect: ${releases.length} release(s); a bisection needs at least two`);
  const now = options.now ?? (() => performance.now());
  const started = now();
  const steps: SearchStep<C>[] = [];
  const spread: Array<SearchResult<C>['spread'][number]> = [];
  const run = async (step: number, side: Side, a: number, b: number): Promise<C> => {
    const began = now();
    const comparison = await compare(releases[a]!, releases[b]!);
    steps.push({ step, side, a: releases[a]!, b: releases[b]!, comparison, wall_s: (now() - began) / 1000 });
    return comparison;
  };
  let lo = 0;
  let hi = releases.length - 1;
  const finish = (outcome: SearchOutcome, direction: SearchResult<C>['direction']): SearchResult<C> => ({
    outcome,
    direction,
    range: [releases[lo]!, releases[hi]!],
    steps,
    spread,
    comparisons: steps.length,
    wall_s: (now() - started) / 1000,
  });

  const ends = await run(0, 'ends', lo, hi);
  if (ends.verdict === null) return finish('stopped', null);
  if (ends.verdict !== 'faster' && ends.verdict !== 'slower') return finish('not reproducible', null);
  const direction = ends.verdict;
  for (let step = 1; hi - lo > 1; step++) {
    if (options.budgetS != null) {
      // A step is two comparisons; each costs about what the ones so far cost on average.
      const perComparison = steps.reduce((sum, s) => sum + s.wall_s, 0) / steps.length;
      if ((now() - started) / 1000 + 2 * perComparison > options.budgetS) return finish('budget', direction);
    }
    const mid = Math.floor((lo + hi) / 2);
    const goodSide = await run(step, 'good side', lo, mid);
    if (goodSide.verdict === null) return finish('stopped', direction);
    const badSide = await run(step, 'bad side', mid, hi);
    if (badSide.verdict === null) return finish('stopped', direction);
    const inGood = goodSide.verdict === direction;
    const inBad = badSide.verdict === direction;
    if (inGood && inBad) {
      const followed = magnitude(badSide) > magnitude(goodSide) ? 'bad side' : 'good side';
      spread.push({ step, followed });
      if (followed === 'good side') hi = mid;
      else lo = mid;
    } else if (inGood) hi = mid;
    else if (inBad) lo = mid;
    else return finish('inconclusive', direction);
  }
  return finish(spread.length > 0 ? 'spread' : 'culprit', direction);
}
