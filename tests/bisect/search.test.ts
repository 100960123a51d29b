/**
 * The bisection's branch logic (harness/lib/bisect-search.ts) with a STAND-IN comparator for
 * `ab`: a synthetic release history whose speed changes at planted releases, and a comparator that
 * answers the verdict a paired A/B would reach on it (the whole effect beyond ±3%: faster/slower;
 * within ±1%: no change; between: inconclusive). The real comparator on the real sim is
 * bisect-sim.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { bisectReleases, type Comparison } from '../../harness/lib/bisect-search.ts';

const RELEASES = ['1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0', '1.6.0', '1.7.0', '1.8.0'];

/** Synthetic: a release's speed is the product of the factors planted at or before it. */
function standInAb(planted: Record<string, number>, calls: string[] = []): (a: string, b: string) => Promise<Comparison> {
  const speed = (version: string) => RELEASES.slice(0, RELEASES.indexOf(version) + 1).reduce((product, v) => product * (planted[v] ?? 1), 1);
  return async (a, b) => {
    calls.push(`${a}→${b}`);
    const effect = speed(b) / speed(a) - 1;
    const verdict = effect > 0.03 ? 'faster' : effect < -0.03 ? 'slower' : Math.abs(effect) <= 0.01 ? 'no change' : 'inconclusive';
    return { verdict, effect, interval: [effect - 0.01, effect + 0.01] };
  };
}

/** A clock that advances `stepMs` at every read: each comparison takes one step. */
function tickingClock(stepMs: number): () => number {
  let t = 0;
  return () => (t += stepMs);
}

describe('bisectReleases', () => {
  it('narrows one planted change to its two adjacent releases, comparing each midpoint with both ends', async () => {
    const calls: string[] = [];
    const result = await bisectReleases(RELEASES, standInAb({ '1.6.0': 1 / 1.5 }, calls));
    expect(result).toMatchObject({ outcome: 'culprit', direction: 'slower', range: ['1.5.0', '1.6.0'], spread: [] });
    expect(calls).toEqual(['1.0.0→1.8.0', '1.0.0→1.4.0', '1.4.0→1.8.0', '1.4.0→1.6.0', '1.6.0→1.8.0', '1.4.0→1.5.0', '1.5.0→1.6.0']);
    expect(result.comparisons).toBe(7);
    expect(result.steps.map((s) => [s.step, s.side])).toEqual([[0, 'ends'], [1, 'good side'], [1, 'bad side'], [2, 'good side'], [2, 'bad side'], [3, 'good side'], [3, 'bad side']]);
    expect(result.steps.at(-1)!.comparison).toMatchObject({ verdict: 'slower' });
    expect(result.steps.at(-1)!.comparison.effect).toBeCloseTo(1 / 1.5 - 1, 12);
  });

  it('finds an improvement (faster) at the first and at the last release pair', async () => {
    expect((await bisectReleases(RELEASES, standInAb({ '1.1.0': 2 }))).range).toEqual(['1.0.0', '1.1.0']);
    expect((await bisectReleases(RELEASES, standInAb({ '1.8.0': 2 }))).range).toEqual(['1.7.0', '1.8.0']);
    expect((await bisectReleases(['1.0.0', '1.1.0'], standInAb({ '1.1.0': 2 })))).toMatchObject({ outcome: 'culprit', direction: 'faster', comparisons: 1 });
  });

  it('no change end to end: "not reproducible", after the one comparison that says so', async () => {
    const calls: string[] = [];
    const result = await bisectReleases(RELEASES, standInAb({}, calls));
    expect(result).toMatchObject({ outcome: 'not reproducible', direction: null, range: ['1.0.0', '1.8.0'], comparisons: 1 });
    expect(calls).toEqual(['1.0.0→1.8.0']);
    // An end-to-end change that pairing cannot tell from noise is not reproducible either.
    expect((await bisectReleases(RELEASES, standInAb({ '1.3.0': 1.02 }))).outcome).toBe('not reproducible');
  });

  it('a change in both halves: "spread", recorded at its step, following the larger part to its culprit', async () => {
    // 1.2.0 slower by 10%, 1.6.0 slower by 33%: both halves of step 1 are slower; the larger is 1.4.0→1.8.0.
    const result = await bisectReleases(RELEASES, standInAb({ '1.2.0': 1 / 1.1, '1.6.0': 1 / 1.5 }));
    expect(result).toMatchObject({ outcome: 'spread', direction: 'slower', range: ['1.5.0', '1.6.0'], spread: [{ step: 1, followed: 'bad side' }] });
    // The smaller on the bad side: the good side is followed.
    const other = await bisectReleases(RELEASES, standInAb({ '1.2.0': 1 / 1.5, '1.6.0': 1 / 1.1 }));
    expect(other).toMatchObject({ outcome: 'spread', range: ['1.1.0', '1.2.0'], spread: [{ step: 1, followed: 'good side' }] });
  });

  it('a step that finds the change in neither half: "inconclusive", with the range narrowed so far', async () => {
    // Two 1.4% steps in each half add up to 5.5% end to end; no half reaches the 3% a verdict needs.
    const result = await bisectReleases(RELEASES, standInAb({ '1.2.0': 0.986, '1.4.0': 0.986, '1.6.0': 0.986, '1.8.0': 0.986 }));
    expect(result).toMatchObject({ outcome: 'inconclusive', direction: 'slower', range: ['1.0.0', '1.8.0'], comparisons: 3 });
    expect(result.steps.slice(1).map((s) => s.comparison.verdict)).toEqual(['inconclusive', 'inconclusive']);
  });

  it('a comparison without a verdict (a failed run) stops the search where it is', async () => {
    const compare = standInAb({ '1.6.0': 0.5 });
    const result = await bisectReleases(RELEASES, async (a, b) => (b === '1.4.0' ? { verdict: null, effect: null, interval: null } : compare(a, b)));
    expect(result).toMatchObject({ outcome: 'stopped', range: ['1.0.0', '1.8.0'], comparisons: 2 });
  });

  it('the budget: no step starts that would end past it, judged by the comparisons so far', async () => {
    // Every clock read is 5 s later: each comparison takes 5 s, and a step is judged to need 10.
    // After step 1, 40 s have passed (the start, three comparisons, the budget checks): step 2 would end at 50.
    const compare = standInAb({ '1.6.0': 0.5 });
    expect((await bisectReleases(RELEASES, compare, { now: tickingClock(5_000), budgetS: 50 })).comparisons).toBe(5);
    const cut = await bisectReleases(RELEASES, compare, { now: tickingClock(5_000), budgetS: 45 });
    expect(cut).toMatchObject({ outcome: 'budget', direction: 'slower', range: ['1.4.0', '1.8.0'], comparisons: 3 });
    expect(cut.steps.map((s) => s.wall_s)).toEqual([5, 5, 5]);
    expect((await bisectReleases(RELEASES, compare, { now: tickingClock(5_000), budgetS: null })).outcome).toBe('culprit');
  });

  it('refuses fewer than two releases', async () => {
    await expect(bisectReleases(['1.0.0'], standInAb({}))).rejects.toThrow(/at least two/);
  });
});
