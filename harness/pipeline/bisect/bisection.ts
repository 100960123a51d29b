/**
 * The output of `servebench bisect`: one self-describing JSON with the release list, every
 * comparison the search made (its verdict, effect and interval, and the file holding its whole A/B
 * result with every arm's run), the outcome and, for two adjacent releases, the culprit with its
 * llama.cpp tags and the links to read what changed. Its schema, validation and compile come with the
 * bisection result kind in results/; until then these types are its definition. Also its summary.
 */
import type { ComparisonHeader } from '../../measure/ab/ab-result.ts';
import type { StepComparison } from './ab-comparator.ts';
import { compareLink, type BisectRelease } from './releases.ts';
import type { SearchResult } from './search.ts';

export const BISECTION_SCHEMA_VERSION = 1;

/** The search's outcomes, with 'stopped' told apart: a comparison's run failed, or a signal stopped it. */
export type BisectionOutcome = Exclude<SearchResult<StepComparison>['outcome'], 'stopped'> | 'failed' | 'interrupted';

export interface Culprit {
  readonly good: string;
  readonly bad: string;
  /** The llama.cpp tags the two releases bundle; null for other engines. */
  readonly llamacpp_tags: readonly [string, string] | null;
  readonly links: { readonly good: BisectRelease['links']; readonly bad: BisectRelease['links']; readonly compare: string | null };
}

export interface BisectionStep extends StepComparison {
  readonly step: number;
  readonly side: SearchResult<StepComparison>['steps'][number]['side'];
  readonly a: string;
  readonly b: string;
  readonly wall_s: number;
}

export interface Bisection extends ComparisonHeader {
  readonly kind: 'bisection';
  readonly schema_version: typeof BISECTION_SCHEMA_VERSION;
  readonly good: string;
  readonly bad: string;
  readonly releases: readonly BisectRelease[];
  /** How --good and --bad were mapped to releases, releases left out as the same build. */
  readonly notes: readonly string[];
  readonly steps: readonly BisectionStep[];
  readonly outcome: BisectionOutcome;
  /** The end-to-end verdict followed; null when there was none to follow. */
  readonly direction: 'faster' | 'slower' | null;
  /** The range narrowed to (for culprit and spread: the culprit's two releases). */
  readonly range: Culprit;
  readonly culprit: Culprit | null;
  readonly spread: SearchResult<StepComparison>['spread'];
  readonly comparisons: number;
  /** llama.cpp: releases built for this bisection, and those the build cache already had. */
  readonly builds: { readonly built: readonly string[]; readonly cached: readonly string[] };
  readonly budget_s: number | null;
  readonly wall_s: number;
}

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
