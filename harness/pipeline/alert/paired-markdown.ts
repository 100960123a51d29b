/**
 * The part of an issue body that gives the paired confirmation of its rows (paired-notes.ts): each
 * confirmed cell's verdict with its 95% interval, then the range a bisection narrowed the change
 * to, "changed between X and Y", with the llama.cpp tags and the links to read what changed.
 * Versions and links come from files anyone can contribute: escaped and checked as the rest of
 * the body is (markdown.ts).
 */
import { HEADLINE_METRICS } from '../../contract/metric-catalog.ts';
import type { GroupState } from './groups.ts';
import { describeLoad, escapeInline, formatChange, safeUrl } from './markdown.ts';
import type { PairedNote } from './paired-notes.ts';

const LABELS = new Map(HEADLINE_METRICS.map((m) => [m.column, m.label]));
const label = (metric: string) => escapeInline(LABELS.get(metric) ?? metric);
const pct = (value: number) => formatChange(value * 100);

function verdictLine(note: PairedNote): string {
  const interval = note.interval === null ? '' : ` (95% interval ${pct(note.interval[0])} … ${pct(note.interval[1])})`;
  const effect = note.effect === null ? '' : `, ${pct(note.effect)}${interval}`;
  const derived = note.ab_metric === note.metric ? '' : `, on the runs of the ${label(note.ab_metric)} A/B`;
  return `- ${label(note.metric)} at ${escapeInline(describeLoad(note.load))}: **${note.verdict}**${effect}${derived}`;
}

function bisectionLine(b: NonNullable<PairedNote['bisection']>): string {
  const tags = b.llamacpp_tags === null ? '' : ` (llama.cpp ${escapeInline(b.llamacpp_tags[0])} → ${escapeInline(b.llamacpp_tags[1])})`;
  const range = `${escapeInline(b.good)} and ${escapeInline(b.bad)}${tags}`;
  const head =
    b.outcome === 'culprit'
      ? `**Changed between ${range}**`
      : b.outcome === 'spread'
        ? `**Changed over several releases**, the larger part between ${range}`
        : `**Bisection ${escapeInline(b.outcome)}**: narrowed to between ${range}`;
  const links = [[safeUrl(b.compare), 'what changed'], [safeUrl(b.release_notes), 'release notes']].filter(([url]) => url !== null).map(([url, text]) => `[${text}](${url})`);
  return `${head}: bisected on ${label(b.metric)} in ${b.comparisons} paired comparisons${links.length > 0 ? `; ${links.join(' · ')}` : ''}.`;
}

/** The section, or nothing when the issue holds no confirmation (filed by alert without --confirmations). */
export function pairedSection(state: GroupState): string[] {
  const notes = state.paired ?? [];
  if (notes.length === 0) return [];
  const bisections = new Map(notes.flatMap((note) => (note.bisection === null ? [] : [[JSON.stringify(note.bisection), note.bisection] as const])));
  return [
    '',
    `**Confirmed by a paired A/B on one host** (\`servebench confirm\`: ${escapeInline(state.previous_version)} against ${escapeInline(state.version)} in interleaved blocks of fresh launches, and again on fresh blocks; both passes agree):`,
    '',
    ...notes.map(verdictLine),
    ...[...bisections.values()].flatMap((b) => ['', bisectionLine(b)]),
  ];
}
