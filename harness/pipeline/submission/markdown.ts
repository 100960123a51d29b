/**
 * The submission summary as Markdown for a pull-request comment. Everything it quotes from the
 * pull request (paths, names, versions, problem messages) is untrusted: escaped so it renders as
 * the text it is (no links, images, HTML, tables broken open), with @-mentions and #-references
 * defused so a comment never pings anyone or links an issue. The whole stays under GitHub's
 * comment limit: runs that do not fit are named, not shown.
 */
import type { ResultProblem } from '../../store/check-result.ts';
import type { AddedRun, Baseline, BaselineRole, RunComparison, SubmissionSummary } from './pr-summary.ts';
import { significant } from '../../lib/io/markdown.ts';

/** GitHub refuses comments over 65,536 characters; this leaves room for the workflow's footer. */
export const MAX_MARKDOWN_CHARS = 60_000;
const MAX_PROBLEMS = 40;
const ZWSP = '\u200b';

/** Control, zero-width and bidirectional-override characters: they hide or reorder text. */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
/** Every ASCII punctuation character CommonMark lets a backslash escape. */
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

function flatten(value: string, max: number): string {
  const flat = value.replace(INVISIBLE, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Breaks what GitHub links inside text: @user / @org/team mentions, #123 and owner/repo#123 references. */
function defuse(text: string): string {
  return text.replace(/@(?=[A-Za-z0-9_-])/g, `@${ZWSP}`).replace(/#(?=\d)/g, `#${ZWSP}`);
}

/** Untrusted text as inline Markdown (also safe inside a table cell). */
export function escapeMarkdown(value: string, max = 200): string {
  return defuse(flatten(value, max).replace(PUNCTUATION, '\\$&'));
}

/** Untrusted text inside raw HTML (the <summary> of a <details> block, where Markdown is not parsed). */
export function escapeHtml(value: string, max = 200): string {
  // Defused before the entities are written: their own "#" must stay as it is.
  return defuse(flatten(value, max)).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function cell(value: string | number | null): string {
  return value === null ? '—' : typeof value === 'number' ? String(value) : escapeMarkdown(value);
}

function fmt(value: number | null): string {
  return value === null ? '—' : significant(value);
}

function pct(value: number | null): string {
  return value === null ? '' : ` (${value > 0 ? '+' : value < 0 ? '−' : '±'}${Math.abs(value).toFixed(1)}%)`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function problemLine(p: ResultProblem): string {
  return `- ${escapeMarkdown(p.file, 160)}${p.path ? ` · ${escapeMarkdown(p.path, 80)}` : ''}: ${escapeMarkdown(p.message, 300)} (fix: ${escapeMarkdown(p.fix, 200)})`;
}

function verdict(summary: SubmissionSummary): string[] {
  const files = summary.added.length;
  const base = escapeMarkdown(summary.base, 80);
  if (summary.problems.length === 0) {
    if (files === 0) return [`**Verdict:** no result file added or changed against ${base}.`];
    const source = summary.expect_source === null ? '' : `, all ${summary.expect_source}`;
    return [`**Verdict:** ✅ ${plural(files, 'result file')} added, valid (schema, consistency, provenance, path, duplicates${source}); no existing result changed against ${base}.`];
  }
  const bad = new Set(summary.problems.map((p) => p.file)).size;
  const lines = [`**Verdict:** ❌ ${plural(summary.problems.length, 'problem')} in ${plural(bad, 'file')} (against ${base}); nothing is merged until each is fixed:`, ''];
  lines.push(...summary.problems.slice(0, MAX_PROBLEMS).map(problemLine));
  if (summary.problems.length > MAX_PROBLEMS) lines.push(`- … and ${summary.problems.length - MAX_PROBLEMS} more (see the check's log)`);
  return lines;
}

function addedTable(added: readonly AddedRun[]): string[] {
  if (added.length === 0) return [];
  const lines = [
    `#### Added (${added.length})`,
    '',
    '| file | engine | version | model | precision | hardware | workload | points | source | status |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const a of added) {
    const status = a.valid ? (a.status ?? '—') : 'invalid';
    lines.push(`| ${cell(a.file)} | ${cell(a.engine)} | ${cell(a.version)} | ${cell(a.model)} | ${cell(a.precision)} | ${cell(a.hardware)} | ${cell(a.workload)} | ${cell(a.points)} | ${cell(a.source)} | ${cell(status)} |`);
  }
  const notes: string[] = [];
  for (const a of added) {
    if (a.failure !== null) notes.push(`- ${escapeMarkdown(a.file, 160)}: failed during ${escapeMarkdown(a.failure, 300)}`);
    if (a.harness_commit !== null && a.harness_commit_known === false) {
      notes.push(`- ${escapeMarkdown(a.file, 160)}: measured with servebench commit ${escapeMarkdown(a.harness_commit.slice(0, 12))}, which is not in this repository's history (a fork or an unpublished commit); a result is reproducible from a published commit`);
    }
    if (a.harness_dirty === true) notes.push(`- ${escapeMarkdown(a.file, 160)}: measured from a servebench checkout with uncommitted changes`);
  }
  return notes.length > 0 ? [...lines, '', ...notes] : lines;
}

const ROLE: Record<BaselineRole, string> = { 'previous-release': 'previous release', 'newest-official': 'newest official' };

function baselineHeading(b: Baseline): string {
  const what = b.roles.map((r) => ROLE[r]);
  if (!b.roles.includes('newest-official')) what.push(b.official ? 'official' : 'community');
  const runs = `${plural(b.runs, 'run')}${b.includes_this_run ? ', this one included' : ''}`;
  return `${escapeMarkdown(`${b.engine} ${b.version}`, 80)} (${what.join(', ')}; ${runs})`;
}

function runBlock(c: RunComparison, summary: SubmissionSummary): string[] {
  const title = `${c.engine} ${c.version ?? '(no version)'} · ${c.model} · ${c.precision} · ${c.hardware} · ${c.workload}`;
  const lines = ['<details>', `<summary>${escapeHtml(title, 300)}</summary>`, '', `File: ${escapeMarkdown(c.file, 200)}`, ''];
  if (c.note !== null) return [...lines, `Not compared: ${escapeMarkdown(c.note, 300)}.`, '', '</details>', ''];
  // One column per release this run meets on any of its load points.
  const columns = new Map<string, Baseline>();
  for (const p of c.points) for (const b of p.baselines) if (!columns.has(`${b.engine}\u0000${b.version}`)) columns.set(`${b.engine}\u0000${b.version}`, b);
  if (columns.size === 0) return [...lines, 'No other release on these configurations yet: this run is the first.', '', '</details>', ''];
  const keys = [...columns.keys()];
  lines.push(
    `| load | metric | this run | ${[...columns.values()].map(baselineHeading).join(' | ')} |`,
    `| --- | --- | --- | ${keys.map(() => '---').join(' | ')} |`,
  );
  for (const p of c.points) {
    const byKey = new Map(p.baselines.map((b) => [`${b.engine}\u0000${b.version}`, b]));
    for (const m of summary.metrics) {
      const value = p.values[m.column] ?? null;
      if (value === null) continue;
      const cells = keys.map((k) => {
        const b = byKey.get(k);
        return b === undefined ? '—' : `${fmt(b.values[m.column] ?? null)}${pct(b.change_pct[m.column] ?? null)}`;
      });
      lines.push(`| ${escapeMarkdown(p.load, 60)} | ${escapeMarkdown(`${m.label} (${m.unit})`, 80)} | ${fmt(value)} | ${cells.join(' | ')} |`);
    }
  }
  return [...lines, '', '</details>', ''];
}

export function summaryMarkdown(summary: SubmissionSummary, maxChars = MAX_MARKDOWN_CHARS): string {
  const head = ['### servebench: what this pull request adds to results/', '', ...verdict(summary), '', ...addedTable(summary.added), ''];
  const compared = summary.comparisons;
  if (compared.length === 0) return `${head.join('\n')}\n`;
  head.push(
    '#### How it compares',
    '',
    'Each load point of each added run against the official releases on the same configuration (model × precision × hardware × workload spec × methodology × load): the same engine\'s previous release, and the newest official release of every engine. Release values are the geometric means over their official runs, as the leaderboard shows them; in brackets, this run relative to that release (higher is better for throughput and interactivity, lower for latency, cost, memory and energy). One run is one sample: see the noise bands in docs/metrics.md before calling a difference real. Community runs (and runs of an engine version not in the release list) are shown on the site apart, with a badge, behind its community filter: they never change an official release value, rank, delta or regression.',
    '',
  );
  let text = `${head.join('\n')}\n`;
  let shown = 0;
  for (const c of compared) {
    const block = `${runBlock(c, summary).join('\n')}\n`;
    // Room for the closing note.
    if (text.length + block.length > maxChars - 300) break;
    text += block;
    shown += 1;
  }
  if (shown < compared.length) {
    text += `\n${compared.length - shown} more run${compared.length - shown === 1 ? '' : 's'} not shown here (the comment would be too long): \`servebench summarize --json\` has every number.\n`;
  }
  return text.length > maxChars ? `${text.slice(0, maxChars - 2)}…\n` : text;
}
