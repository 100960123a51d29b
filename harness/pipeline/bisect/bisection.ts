/**
 * The output of `servebench bisect`: one self-describing JSON with the release list, every
 * comparison the search made (its verdict, effect and interval, and the file holding its whole A/B
 * result with every arm's run), the outcome and, for two adjacent releases, the culprit with its
 * llama.cpp tags and the links to read what changed. Its one definition is the bisection result
 * kind's schema (harness/contract/comparison.ts); this module makes its parts, and its summary.
 */
import type { Bisection, BisectionOutcome, BisectRelease, Culprit } from '../../contract/comparison.ts';
import type { StepComparison } from './ab-comparator.ts';
import { compareLink } from './releases.ts';
import type { SearchResult } from '../../lib/bisect-search.ts';

export { BISECTION_SCHEMA_VERSION, type Bisection, type BisectionOutcome, type BisectionStep, type Culprit } from '../../contract/comparison.ts';

export function rangeOf(releases: readonly BisectRelease[], good: string, bad: string): Culprit {
  const find = (version: string) => releases.find((release) => release.version === version)!;
  const [a, b] = [find(good), find(bad)];
  return { good, bad, llamacpp_tags: a.tag !== null && b.tag !== null ? [a.tag, b.tag] : null, links: { good: a.links, bad: b.links, compare: compareLink(a, b) } };
}

export function outcomeOf(search: SearchResult<StepComparison>): BisectionOutcome {
  if (search.outcome !== 'stopped') return search.outcome;
  return search.steps.at(-1)?.comparison.status === 'interrupted' ? 'interrupted' : 'failed';
}

const percent = (value: number | null): string => (value === null ? '–' : `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(1)}%`);
const interval = (range: readonly [number, number] | null): string => (range === null ? '–' : `[${percent(range[0])}, ${percent(range[1])}]`);
const named = (release: BisectRelease): string => (release.tag === null ? release.version : `${release.version} (llama.cpp ${release.tag})`);

const OUTCOME_LINES: Readonly<Record<BisectionOutcome, string>> = {
  culprit: 'the change happened between two adjacent releases',
  spread: 'the change is spread over several releases: at some step both halves changed the same way, and the larger part was followed to',
  'not reproducible': 'the end-to-end A/B did not find the change under pairing: nothing to bisect',
  inconclusive: 'a step found the change in neither half; the range narrowed so far is',
  budget: 'the budget ran out before the next step; the range narrowed so far is',
  failed: 'a comparison\'s run failed; the range narrowed so far is',
  interrupted: 'stopped by a signal; the range narrowed so far is',
};

export function formatBisectionSummary(bisection: Bisection): string {
  const lines = [
    `Bisection of ${bisection.engine} on ${bisection.metric} (${bisection.better} is better), ${bisection.workload}: ${bisection.releases.length} releases from ${bisection.good} to ${bisection.bad}.`,
    ...bisection.notes.map((note) => `  note: ${note}`),
    '',
    ...bisection.steps.map((s) => `  step ${s.step} ${s.side.padEnd(9)} ${s.a} → ${s.b}: ${s.verdict ?? s.stopped ?? 'no verdict'} ${percent(s.effect)} ${interval(s.interval)} (${s.wall_s.toFixed(0)} s; ${s.ab_file})`),
    '',
  ];
  const r = bisection.range;
  const release = (version: string) => bisection.releases.find((x) => x.version === version)!;
  // The comparison of exactly the range's two releases, when the search made it: the change's own size.
  const own = bisection.steps.findLast((s) => s.a === r.good && s.b === r.bad && s.verdict !== null);
  const measured = own === undefined ? '' : `: ${own.verdict} ${percent(own.effect)} ${interval(own.interval)}`;
  lines.push(`Outcome: ${bisection.outcome}: ${OUTCOME_LINES[bisection.outcome]} ${named(release(r.good))} → ${named(release(r.bad))}${measured}.`);
  if (r.links.compare !== null) lines.push(`  what changed: ${r.links.compare}`);
  for (const link of [r.links.bad.upstream, r.links.bad.package]) if (link !== null) lines.push(`  release notes: ${link}`);
  const built = bisection.builds.built.length + bisection.builds.cached.length > 0 ? `; builds: ${bisection.builds.built.length} made, ${bisection.builds.cached.length} from the cache` : '';
  lines.push(`${bisection.comparisons} comparisons in ${(bisection.wall_s / 60).toFixed(1)} min${built}.`);
  return `${lines.join('\n')}\n`;
}
