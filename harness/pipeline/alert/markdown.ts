/**
 * What `servebench alert` writes into one GitHub issue per regression: the title, the labels and
 * the Markdown body (the regress report's own table for that one regression, so the issue and
 * `servebench regress` never disagree), with a hidden marker carrying the regression's key.
 *
 * Engine versions, model, hardware and workload names come from result files that anyone can
 * contribute, so they are untrusted here: they must not inject HTML, break the table, or ping
 * people. `@` and `#<digits>` get a zero-width space (GitHub would otherwise notify the user or
 * cross-reference the issue), `&` `<` `>` become entities, control characters become spaces.
 */
import { regressionsMarkdown } from '../../store/regress.ts';
import { HEADLINE_METRICS } from '../../contract/metric-catalog.ts';
import type { AlertRegression } from './input.ts';
import { significant } from '../../lib/io/markdown.ts';

export const KEY_MARKER = 'servebench-regression-key';
const DATA_MARKER = 'servebench-regression-data';
/** Only the text between these two is servebench's; a maintainer's notes outside them are kept on update. */
export const BEGIN_MARKER = '<!-- servebench:begin (updated by servebench alert; edit outside these markers) -->';
export const END_MARKER = '<!-- servebench:end -->';
export const TITLE_PREFIX = '[regression]';
/** GitHub's limit on an issue title. */
export const MAX_TITLE_LENGTH = 256;
/** GitHub's limit on a label name. */
const MAX_LABEL_LENGTH = 50;
/** Bounds what one untrusted field can add to a title or a body. */
const MAX_FIELD_LENGTH = 200;

export function keyMarker(key: string): string {
  return `<!-- ${KEY_MARKER}: ${key} -->`;
}

/** The regression key a body was filed for, or null when it is not one of ours. */
export function keyOfBody(body: string): string | null {
  return new RegExp(`<!-- ${KEY_MARKER}: ([A-Za-z0-9._-]+) -->`).exec(body)?.[1] ?? null;
}

function plain(text: string): string {
  const cleaned = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return cleaned.length > MAX_FIELD_LENGTH ? `${cleaned.slice(0, MAX_FIELD_LENGTH - 1)}…` : cleaned;
}

const MARKDOWN_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '@': '@&#8203;', '#': '#&#8203;' };

/**
 * Untrusted text for a Markdown body. The entities survive regress.ts's cell escaping (which
 * backslash-escapes Markdown punctuation and does not touch `&`, `#` or `;`).
 */
export function neutralizeMarkdown(text: string): string {
  // One pass: a second one would find the "#" of the entities the first one wrote.
  return plain(text).replace(/[&<>@]|#(?=\d)/g, (c) => MARKDOWN_ENTITIES[c]!);
}

/** Untrusted text outside a table cell: neutralized, and Markdown punctuation escaped as regress.ts does in cells. */
export function escapeInline(text: string): string {
  return neutralizeMarkdown(text).replace(/[\\`*_[\]|~]/g, (c) => `\\${c}`);
}

/** Untrusted text for an issue title (plain text: entities would show, so a literal zero-width space). */
export function neutralizeTitle(text: string): string {
  return plain(text).replace(/@(?=\S)/g, '@\u200b').replace(/#(?=\d)/g, '#\u200b');
}

/** A link target from the regress JSON: http(s) or a relative path, else nothing (no javascript: and the like). */
export function safeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  const trimmed = url.trim();
  const absolute = /^https?:\/\//i.test(trimmed);
  if (!absolute && (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith('//'))) return null;
  // Characters that would end a Markdown link target or an HTML attribute.
  return trimmed.replace(/[\s()<>"'`\\]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

const METRICS = new Map(HEADLINE_METRICS.map((m) => [m.column, m]));

function metricLabel(metric: string): string {
  return METRICS.get(metric)?.label ?? metric;
}

/** "Output throughput" → "output throughput", but "TTFT p50" stays. */
function lowerFirst(label: string): string {
  return /^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label;
}

export function formatChange(pct: number): string {
  const text = `${Math.abs(pct).toFixed(1)}%`;
  return pct < 0 ? `\u2212${text}` : `+${text}`;
}

/** "c=64" → "concurrency 64", "rate=2 max=64" → "rate 2 req/s (max 64)". */
export function describeLoad(load: string): string {
  const closed = /^c=(\d+)$/.exec(load);
  if (closed) return `concurrency ${closed[1]}`;
  const open = /^rate=([\d.]+|inf)(?: max=(\d+))?$/.exec(load);
  if (open) return `rate ${open[1]} req/s${open[2] ? ` (max ${open[2]})` : ''}`;
  return load;
}

export interface IssueTexts {
  readonly title: string;
  readonly body: string;
  readonly labels: readonly string[];
}

export type DisplayName = (engine: string) => string;

export const BASE_LABELS = ['regression', 'servebench'] as const;

export function engineLabel(engine: string): string {
  const name = engine.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'unknown';
  return `engine:${name}`.slice(0, MAX_LABEL_LENGTH);
}

export function issueTitle(r: AlertRegression, displayName: DisplayName): string {
  const head = `${TITLE_PREFIX} ${neutralizeTitle(displayName(r.engine))} ${neutralizeTitle(r.version)} vs ${neutralizeTitle(r.previous_version)}: ${lowerFirst(metricLabel(r.metric))} ${formatChange(r.change_pct)} on `;
  const tail = ` / ${neutralizeTitle(r.hardware)} / ${neutralizeTitle(r.workload)} @ ${neutralizeTitle(describeLoad(r.load))}`;
  const model = neutralizeTitle(r.model);
  const room = MAX_TITLE_LENGTH - head.length - tail.length;
  // The model name is what grows long (org/name-with-every-suffix); shorten it first.
  const title = model.length <= room ? `${head}${model}${tail}` : room >= 8 ? `${head}${model.slice(0, room - 1)}…${tail}` : `${head}${model}${tail}`;
  return title.length <= MAX_TITLE_LENGTH ? title : `${title.slice(0, MAX_TITLE_LENGTH - 1)}…`;
}

/** The numbers an update compares, kept in the body so the comment can say what changed. */
export interface RegressionData {
  readonly previous_value: number;
  readonly value: number;
  readonly change_pct: number;
  readonly ci_low_pct: number | null;
  readonly ci_high_pct: number | null;
  readonly p_value: number | null;
  readonly previous_runs: number;
  readonly runs: number;
}

function dataOf(r: AlertRegression): RegressionData {
  return { previous_value: r.previous_value, value: r.value, change_pct: r.change_pct, ci_low_pct: r.ci_low_pct, ci_high_pct: r.ci_high_pct, p_value: r.p_value, previous_runs: r.previous_runs, runs: r.runs };
}

/** The data an earlier run stored in a body, or null (not ours, or edited beyond reading). */
export function dataOfBody(body: string): RegressionData | null {
  const match = new RegExp(`<!-- ${DATA_MARKER}: (\\{[^<>]*\\}) -->`).exec(body);
  if (!match) return null;
  try {
    const parsed = JSON.parse(match[1]!) as Record<string, unknown>;
    const num = (k: string) => (typeof parsed[k] === 'number' ? (parsed[k] as number) : null);
    const [previous_value, value, change_pct, previous_runs, runs] = ['previous_value', 'value', 'change_pct', 'previous_runs', 'runs'].map(num);
    if (previous_value === null || value === null || change_pct === null || previous_runs === null || runs === null) return null;
    return { previous_value, value, change_pct, ci_low_pct: num('ci_low_pct'), ci_high_pct: num('ci_high_pct'), p_value: num('p_value'), previous_runs, runs };
  } catch {
    return null;
  }
}

/** The part of the body servebench owns (between the markers), for comparing and replacing. */
export function generatedSection(body: string): string | null {
  const normalized = body.replace(/\r\n/g, '\n');
  const begin = normalized.indexOf(BEGIN_MARKER);
  const end = normalized.indexOf(END_MARKER, begin + 1);
  return begin < 0 || end < 0 ? null : normalized.slice(begin, end + END_MARKER.length);
}

function sectionFor(r: AlertRegression, displayName: DisplayName): string {
  const metric = METRICS.get(r.metric);
  const previousUrl = safeUrl(r.previous_url) ?? '#';
  const newUrl = safeUrl(r.url) ?? '#';
  // regress.ts renders the table from the same fields; its cell escaping runs over our neutralized text.
  const shown: AlertRegression = {
    ...r,
    engine: neutralizeMarkdown(displayName(r.engine)),
    version: neutralizeMarkdown(r.version),
    previous_version: neutralizeMarkdown(r.previous_version),
    model: neutralizeMarkdown(r.model),
    precision: neutralizeMarkdown(r.precision),
    hardware: neutralizeMarkdown(r.hardware),
    workload: neutralizeMarkdown(r.workload),
    load: neutralizeMarkdown(r.load),
  };
  const table = regressionsMarkdown([shown], (_file, runId) => (runId === r.run_id ? newUrl : previousUrl))
    // The report's own key comment lists every key of a report; here the marker above says it once.
    .replace(/\n?<!-- servebench regression keys: [^>]*-->\n*$/, '\n');
  const direction = metric ? `, ${metric.better} is better` : '';
  const unit = metric ? ` (${metric.unit}${direction})` : '';
  return [
    BEGIN_MARKER,
    `<!-- ${DATA_MARKER}: ${JSON.stringify(dataOf(r))} -->`,
    `**${escapeInline(displayName(r.engine))} ${escapeInline(r.version)}** vs ${escapeInline(r.previous_version)}: **${metricLabel(r.metric)}**${unit} **${formatChange(r.change_pct)}** on ${[r.model, r.hardware, r.workload].map(escapeInline).join(' · ')} at ${escapeInline(describeLoad(r.load))}.`,
    '',
    table.trimEnd(),
    '',
    `Significance: ${r.method === 'welch' ? "Welch's t-test on log values over repeated runs" : r.method === 'noise-band' ? 'the noise band pooled from repeated configurations' : 'unknown noise'} (see docs/metrics.md). Filed by \`servebench alert\` from \`servebench regress\`; this text is updated when the numbers change, and no second issue is opened for this regression (key \`${r.key}\`). Closing the issue stops the updates.`,
    END_MARKER,
  ].join('\n');
}

export function issueTexts(r: AlertRegression, displayName: DisplayName): IssueTexts {
  return {
    title: issueTitle(r, displayName),
    body: `${keyMarker(r.key)}\n${sectionFor(r, displayName)}\n`,
    labels: [...BASE_LABELS, engineLabel(r.engine)],
  };
}

/** The existing body with servebench's section replaced (the maintainer's text around it kept). */
export function replaceSection(existing: string, fresh: string): string {
  const normalized = existing.replace(/\r\n/g, '\n');
  const old = generatedSection(normalized);
  const section = generatedSection(fresh)!;
  if (old === null) return fresh;
  const updated = normalized.replace(old, () => section);
  return keyOfBody(updated) === null ? `${fresh.split('\n')[0]}\n${updated}` : updated;
}


/** One line per number that moved, for the comment on an updated issue. */
export function describeChanges(before: RegressionData | null, r: AlertRegression): string[] {
  if (before === null) return ['the report was rewritten from the latest `servebench regress` output (the earlier numbers could not be read from the issue)'];
  const unit = METRICS.get(r.metric)?.unit ?? '';
  const after = dataOf(r);
  const lines: string[] = [];
  if (significant(before.change_pct) !== significant(after.change_pct) || formatChange(before.change_pct) !== formatChange(after.change_pct)) lines.push(`change ${formatChange(before.change_pct)} → ${formatChange(after.change_pct)}`);
  if (significant(before.value) !== significant(after.value)) lines.push(`new release ${significant(before.value)} → ${significant(after.value)} ${unit}`.trimEnd());
  if (significant(before.previous_value) !== significant(after.previous_value)) lines.push(`previous release ${significant(before.previous_value)} → ${significant(after.previous_value)} ${unit}`.trimEnd());
  if (before.runs !== after.runs || before.previous_runs !== after.previous_runs) lines.push(`runs ${before.previous_runs}/${before.runs} → ${after.previous_runs}/${after.runs}`);
  const p = (v: number | null) => (v === null ? 'n/a' : v < 1e-4 ? '<0.0001' : v.toFixed(4));
  if (p(before.p_value) !== p(after.p_value)) lines.push(`p ${p(before.p_value)} → ${p(after.p_value)}`);
  return lines.length > 0 ? lines : ['the report text changed; the numbers did not'];
}
