/**
 * What `servebench alert` writes into one GitHub issue per engine release and configuration: the
 * title, the labels, the Markdown body (one row per regressed metric and load point, each with its
 * change, 95% interval, p-value, test and the runs behind it; then what recovered, and what a newer
 * release showed), and the comments that say what changed or why the issue was closed. The body
 * carries two hidden markers: the issue's key, and its state (groups.ts), from which the next
 * night continues.
 *
 * Engine versions, model, hardware and workload names come from result files that anyone can
 * contribute, so they are untrusted here: they must not inject HTML, break the table, or ping
 * people. `@` and `#<digits>` get a zero-width space (GitHub would otherwise notify the user or
 * cross-reference the issue), `&` `<` `>` become entities, control characters become spaces.
 */
import { HEADLINE_METRICS } from '../../contract/metric-catalog.ts';
import { escapeTableCell, significant } from '../../lib/io/markdown.ts';
import { cellId, parseState, type GroupState, type Measured, type Change, NOTABLE_CHANGE_POINTS } from './groups.ts';
import { pairedSection } from './paired-markdown.ts';

/** The key of an issue filed per engine release and configuration. */
export const GROUP_MARKER = 'servebench-alert-group';
const STATE_MARKER = 'servebench-alert-state';
/** The key of an issue filed per regression by earlier versions of alert (closed into the grouped issue). */
export const LEGACY_KEY_MARKER = 'servebench-regression-key';
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

/** GitHub's limit on an issue body. */
export const MAX_BODY_LENGTH = 65_536;

export function groupMarker(key: string): string {
  return `<!-- ${GROUP_MARKER}: ${key} -->`;
}

/** The group key a body was filed for, or null when it is not a grouped servebench issue. */
export function groupKeyOfBody(body: string): string | null {
  return new RegExp(`<!-- ${GROUP_MARKER}: ([0-9a-f]{16}) -->`).exec(body)?.[1] ?? null;
}

/** The regression key of an issue an earlier version of alert filed for one regression, or null. */
export function legacyKeyOfBody(body: string): string | null {
  return new RegExp(`<!-- ${LEGACY_KEY_MARKER}: ([A-Za-z0-9._-]+) -->`).exec(body)?.[1] ?? null;
}

/**
 * The state as JSON inside an HTML comment. Names from result files could end the comment or, were
 * a comment ever shown, mention someone or link somewhere, so inside JSON strings `<` `>` `&` `@`
 * `#` `[` `]` `(` `)` and the second `-` of `--` are written as \\u escapes (JSON.parse reads them
 * back as they were).
 */
export function encodeState(state: GroupState): string {
  const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return JSON.stringify(state).replace(/"(?:[^"\\]|\\.)*"/g, (text) => text.replace(/[<>&@#[\]()]/g, escape).replace(/--/g, `-${escape('-')}`));
}

/** The state a body holds, or null (not ours, or edited beyond reading). */
export function stateOfBody(body: string): GroupState | null {
  const match = new RegExp(`<!-- ${STATE_MARKER}: (\\{[^<>]*\\}) -->`).exec(body);
  if (!match) return null;
  try {
    return parseState(JSON.parse(match[1]!));
  } catch {
    return null;
  }
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

export type DisplayName = (engine: string) => string;

export const BASE_LABELS = ['regression', 'servebench'] as const;

export function engineLabel(engine: string): string {
  const name = engine.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'unknown';
  return `engine:${name}`.slice(0, MAX_LABEL_LENGTH);
}

function metricWithUnit(metric: string): string {
  const m = METRICS.get(metric);
  return m ? `${m.label} (${m.unit}, ${m.better} is better)` : metric;
}

function formatP(p: number | null): string {
  return p === null ? 'n/a' : p < 1e-4 ? '<0.0001' : p.toFixed(4);
}

function formatCi(m: Pick<Measured, 'ci_low_pct' | 'ci_high_pct'>): string {
  return m.ci_low_pct === null || m.ci_high_pct === null ? 'n/a' : `${formatChange(m.ci_low_pct)} … ${formatChange(m.ci_high_pct)}`;
}

const TESTS: Record<Measured['method'], string> = { welch: 'Welch t-test', 'noise-band': 'noise band', 'unknown-noise': 'unknown noise' };

function formatTest(m: Measured): string {
  return `${TESTS[m.method]}, n=${m.previous_runs}/${m.runs}`;
}

/** A table cell of untrusted text. */
function cell(text: string): string {
  return escapeTableCell(neutralizeMarkdown(text));
}

/** The scenario's names, escaped for running text. */
function where(state: GroupState): string {
  const s = state.scenario;
  return [s.model, s.precision, s.hardware, s.workload].map(escapeInline).join(' · ');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** "3 metrics at 2 load points" */
function extent(cells: ReadonlyArray<{ metric: string; load: string }>): string {
  return `${plural(new Set(cells.map((c) => c.metric)).size, 'metric')} at ${plural(new Set(cells.map((c) => c.load)).size, 'load point')}`;
}

function worst<T extends { change_pct: number }>(cells: readonly T[]): T | undefined {
  return [...cells].sort((a, b) => Math.abs(b.change_pct) - Math.abs(a.change_pct))[0];
}

/** One cell named in running text: "TTFT p99 at concurrency 64". */
function cellName(c: { metric: string; load: string }): string {
  return `${metricLabel(c.metric)} at ${escapeInline(describeLoad(c.load))}`;
}

function numbers(m: Measured): string {
  return `${formatChange(m.change_pct)} (95% CI ${formatCi(m)}, p ${formatP(m.p_value)}, ${formatTest(m)})`;
}

export function groupTitle(state: GroupState, displayName: DisplayName): string {
  const head = `${TITLE_PREFIX} ${neutralizeTitle(displayName(state.engine))} ${neutralizeTitle(state.version)} vs ${neutralizeTitle(state.previous_version)} on `;
  const top = worst(state.cells);
  const summary =
    top === undefined
      ? 'recovered'
      : state.cells.length === 1
        ? `${lowerFirst(metricLabel(top.metric))} ${formatChange(top.change_pct)} @ ${neutralizeTitle(describeLoad(top.load))}`
        : `${extent(state.cells)}, worst ${lowerFirst(metricLabel(top.metric))} ${formatChange(top.change_pct)} @ ${neutralizeTitle(describeLoad(top.load))}`;
  const tail = ` / ${[state.scenario.precision, state.scenario.hardware, state.scenario.workload].map(neutralizeTitle).join(' / ')}: ${summary}`;
  const model = neutralizeTitle(state.scenario.model);
  const room = MAX_TITLE_LENGTH - head.length - tail.length;
  // The model name is what grows long (org/name-with-every-suffix); shorten it first.
  const title = model.length <= room ? `${head}${model}${tail}` : room >= 8 ? `${head}${model.slice(0, room - 1)}…${tail}` : `${head}${model}${tail}`;
  return title.length <= MAX_TITLE_LENGTH ? title : `${title.slice(0, MAX_TITLE_LENGTH - 1)}…`;
}

export function groupLabels(engine: string): string[] {
  return [...BASE_LABELS, engineLabel(engine)];
}

interface RenderOptions {
  /** Links per row (else one list of the runs below the tables, for a body near GitHub's limit). */
  readonly rowLinks: boolean;
  /** At most this many rows per table (the rest counted). */
  readonly maxRows: number;
}

function runLinks(state: GroupState, m: Measured): string {
  const link = (id: string) => safeUrl(state.runs[id]) ?? `#${encodeURIComponent(id)}`;
  return `[previous](${link(m.previous_run_id)}) · [new](${link(m.run_id)})`;
}

function limited(rows: string[], max: number, what: string): string[] {
  return rows.length <= max ? rows : [...rows.slice(0, max), `\n…and ${rows.length - max} more ${what}, left out to stay within GitHub's size limit.`];
}

function activeTable(state: GroupState, options: RenderOptions): string[] {
  const previous = new Set(state.cells.map((c) => c.previous_version));
  const version = (v: string) => (previous.size > 1 ? ` (${cell(v)})` : '');
  const header = ['| load | metric | previous | new | change | 95% CI | p | test | since |' + (options.rowLinks ? ' runs |' : ''), '| --- | --- | ---: | ---: | ---: | --- | --- | --- | --- |' + (options.rowLinks ? ' --- |' : '')];
  const rows = state.cells.map(
    (c) =>
      `| ${cell(describeLoad(c.load))} | ${cell(metricWithUnit(c.metric))} | ${significant(c.previous_value)}${version(c.previous_version)} | ${significant(c.value)} | **${formatChange(c.change_pct)}** | ${formatCi(c)} | ${formatP(c.p_value)} | ${formatTest(c)} | ${cell(c.since)} |` +
      (options.rowLinks ? ` ${runLinks(state, c)} |` : ''),
  );
  return [...header, ...limited(rows, options.maxRows, 'regressed rows')];
}

function recoveredTable(state: GroupState, options: RenderOptions): string[] {
  if (state.recovered.length === 0) return [];
  const rows = state.recovered.map((r) => {
    const now = r.now;
    const values = now === null ? ['not in the report', 'n/a', 'n/a', 'n/a'] : [formatChange(now.change_pct), formatCi(now), formatP(now.p_value), formatTest(now)];
    return `| ${cell(describeLoad(r.load))} | ${cell(metricWithUnit(r.metric))} | ${formatChange(r.was.change_pct)} | ${cell(r.night)} | ${values.join(' | ')} |` + (options.rowLinks ? ` ${now === null ? runLinks(state, r.was) : runLinks(state, now)} |` : '');
  });
  return [
    '',
    `**Recovered** (regressed here earlier; \`servebench regress\` no longer reports them: not significant, or less than ${state.threshold_pct}% worse):`,
    '',
    '| load | metric | was | recovered on | now | 95% CI | p | test |' + (options.rowLinks ? ' runs |' : ''),
    '| --- | --- | ---: | --- | ---: | --- | --- | --- |' + (options.rowLinks ? ' --- |' : ''),
    ...limited(rows, options.maxRows, 'recovered rows'),
  ];
}

function newerTable(state: GroupState, options: RenderOptions): string[] {
  const newer = state.newer;
  if (newer === null) return [];
  const baseline = new Map(state.cells.map((c) => [cellId(c), c]));
  const fixed = newer.cells.filter((c) => c.fixed).length;
  const rows = newer.cells.map((n) => {
    const before = baseline.get(cellId(n));
    const regressed = before === undefined ? 'n/a' : significant(before.value);
    const base = before === undefined ? 'n/a' : significant(before.previous_value);
    return `| ${cell(describeLoad(n.load))} | ${cell(metricWithUnit(n.metric))} | ${base} | ${regressed} | ${significant(n.now.value)} | ${formatChange(signedVsBaseline(n))} | ${n.fixed ? 'yes' : 'no'} | ${numbers(n.now)} |` + (options.rowLinks ? ` ${runLinks(state, n.now)} |` : '');
  });
  const v = escapeInline(newer.version);
  return [
    '',
    `**Newer release ${v}** (night of ${escapeInline(newer.night)}): ${fixed} of ${newer.cells.length} back within ${state.threshold_pct}% of ${escapeInline(state.previous_version)}.`,
    '',
    `| load | metric | ${cell(state.previous_version)} | ${cell(state.version)} | ${cell(newer.version)} | vs ${cell(state.previous_version)} | fixed | ${cell(newer.version)} vs its previous release |` + (options.rowLinks ? ' runs |' : ''),
    '| --- | --- | ---: | ---: | ---: | ---: | --- | --- |' + (options.rowLinks ? ' --- |' : ''),
    ...limited(rows, options.maxRows, 'rows'),
  ];
}

function runList(state: GroupState, options: RenderOptions): string[] {
  if (options.rowLinks) return [];
  const ids = Object.keys(state.runs);
  return ['', `Runs: ${ids.map((id) => `[${cell(id)}](${safeUrl(state.runs[id]) ?? `#${encodeURIComponent(id)}`})`).join(' · ')}`];
}

export function closedLine(state: GroupState): string | null {
  const c = state.closed;
  if (c === null) return null;
  return c.reason === 'fixed-in-newer'
    ? `**Fixed in ${escapeInline(c.version)}** (night of ${escapeInline(c.night)}): every regressed row is back within ${state.threshold_pct}% of ${escapeInline(state.previous_version)}; closed by \`servebench alert\`.`
    : `**No longer a regression** (night of ${escapeInline(c.night)}): \`servebench regress\` compared ${escapeInline(state.version)} with ${escapeInline(state.previous_version)} again and reports none of these rows; closed by \`servebench alert\`.`;
}

function renderSection(state: GroupState, displayName: DisplayName, options: RenderOptions): string {
  const s = state.scenario;
  const methodology = s.methodology ? ` (methodology ${escapeInline(s.methodology)})` : '';
  const status = state.cells.length === 0 ? 'no row regresses any more' : `**${plural(state.cells.length, 'regression')}: ${extent(state.cells)}**`;
  const closed = closedLine(state);
  return [
    BEGIN_MARKER,
    `<!-- ${STATE_MARKER}: ${encodeState(state)} -->`,
    `**${escapeInline(displayName(state.engine))} ${escapeInline(state.version)}** vs ${escapeInline(state.previous_version)} on **${where(state)}**${methodology}: ${status}, as of the night of ${escapeInline(state.night)}.`,
    ...(closed === null ? [] : ['', closed]),
    '',
    ...(state.cells.length > 0 ? activeTable(state, options) : []),
    ...pairedSection(state),
    ...recoveredTable(state, options),
    ...newerTable(state, options),
    ...runList(state, options),
    '',
    `A row is a regression when ${escapeInline(state.version)} is worse than the release before it by at least ${state.threshold_pct}% and the change is significant: Welch's t-test on log values over repeated runs, else the noise band pooled from repeated configurations (docs/metrics.md); "since" is the night it was first reported. Filed by \`servebench alert\` from \`servebench regress\`: one issue per engine release and configuration, all its load points (key \`${state.key}\`). Each night that measures this configuration updates this text, with a comment when a row newly regresses, recovers or moves by ${NOTABLE_CHANGE_POINTS} point or more; the issue is closed when the rows recover or a newer release is back within ${state.threshold_pct}%. Closing it by hand stops the updates.`,
    END_MARKER,
  ].join('\n');
}

/** The servebench-owned part of a body for a state: links per row, unless that would pass GitHub's limit. */
export function groupSection(state: GroupState, displayName: DisplayName): string {
  const room = MAX_BODY_LENGTH - 200; // the key marker, and a little for a maintainer's note
  let options: RenderOptions = { rowLinks: true, maxRows: Number.MAX_SAFE_INTEGER };
  let text = renderSection(state, displayName, options);
  if (text.length <= room) return text;
  options = { rowLinks: false, maxRows: Math.max(state.cells.length, state.recovered.length, state.newer?.cells.length ?? 0) };
  text = renderSection(state, displayName, options);
  while (text.length > room && options.maxRows > 1) {
    options = { ...options, maxRows: Math.floor(options.maxRows * 0.8) };
    text = renderSection(state, displayName, options);
  }
  return text;
}

export function groupBody(state: GroupState, displayName: DisplayName): string {
  return `${groupMarker(state.key)}\n${groupSection(state, displayName)}\n`;
}

/** The part of the body servebench owns (between the markers), for comparing and replacing. */
export function generatedSection(body: string): string | null {
  const normalized = body.replace(/\r\n/g, '\n');
  const begin = normalized.indexOf(BEGIN_MARKER);
  const end = normalized.indexOf(END_MARKER, begin + 1);
  return begin < 0 || end < 0 ? null : normalized.slice(begin, end + END_MARKER.length);
}

/** The existing body with servebench's section replaced (the maintainer's text around it kept). */
export function replaceSection(existing: string, fresh: string): string {
  const normalized = existing.replace(/\r\n/g, '\n');
  const old = generatedSection(normalized);
  const section = generatedSection(fresh)!;
  if (old === null) return fresh;
  const updated = normalized.replace(old, () => section);
  return groupKeyOfBody(updated) === null ? `${fresh.split('\n')[0]}\n${updated}` : updated;
}

function changeLine(change: Change, state: GroupState): string {
  switch (change.kind) {
    case 'new':
      return `newly regressed: ${cellName(change.cell)}: ${numbers(change.cell)}`;
    case 'again':
      return `regressed again: ${cellName(change.cell)}: ${numbers(change.cell)}`;
    case 'recovered':
      return change.cell.now === null
        ? `recovered: ${cellName(change.cell)}: no longer reported by \`servebench regress\` (was ${formatChange(change.cell.was.change_pct)})`
        : `recovered: ${cellName(change.cell)}: now ${numbers(change.cell.now)}, was ${formatChange(change.cell.was.change_pct)}`;
    case 'moved':
      return `${cellName(change.cell)}: ${formatChange(change.before.change_pct)} → ${numbers(change.cell)}`;
    case 'newer': {
      const n = change.newer;
      const still = n.cells.filter((c) => !c.fixed);
      const back = n.cells.filter((c) => c.fixed);
      return `${escapeInline(n.version)} was measured on this configuration (night of ${escapeInline(n.night)}): ${still.length > 0 ? `still worse than ${escapeInline(state.previous_version)} by ${state.threshold_pct}% or more on ${still.map((c) => `${cellName(c)} (${formatChange(signedVsBaseline(c))})`).join(', ')}` : ''}${still.length > 0 && back.length > 0 ? '; ' : ''}${back.length > 0 ? `back within ${state.threshold_pct}% on ${back.map((c) => `${cellName(c)} (${formatChange(signedVsBaseline(c))})`).join(', ')}` : ''}`;
    }
    case 'unreadable':
      return 'the report was rewritten from the latest `servebench regress` output (the earlier state could not be read from the issue)';
  }
}

/** vs_baseline_pct is "worse" (positive = worse); shown as the plain change of the value. */
function signedVsBaseline(c: { metric: string; vs_baseline_pct: number }): number {
  return METRICS.get(c.metric)?.better === 'higher' ? -c.vs_baseline_pct : c.vs_baseline_pct;
}

/** The comment on an updated issue: what changed since the state it held. */
export function updateComment(changes: readonly Change[], state: GroupState): string {
  // The night of the newest numbers the comment reports (a newer release's own, when it is about one).
  const night = [state.night, ...changes.flatMap((c) => (c.kind === 'newer' ? [c.newer.night] : []))].sort().at(-1)!;
  return [`Night of ${escapeInline(night)}, from \`servebench regress\`:`, ...changes.map((c) => `- ${changeLine(c, state)}`)].join('\n');
}

export function reopenComment(changes: readonly Change[], state: GroupState, byFlag: boolean): string {
  const why = byFlag ? 'Reopened by `servebench alert --reopen`: `servebench regress` still reports this regression.' : `Reopened by \`servebench alert\`: ${escapeInline(state.version)} regresses again on this configuration (night of ${escapeInline(state.night)}).`;
  return [why, ...(changes.length > 0 ? ['', ...changes.map((c) => `- ${changeLine(c, state)}`)] : [])].join('\n');
}

/** The comment that closes an issue: which release or night fixed it, with the numbers. */
export function closeComment(state: GroupState, changes: readonly Change[]): string {
  const c = state.closed!;
  if (c.reason === 'fixed-in-newer') {
    const n = state.newer!;
    const baseline = new Map(state.cells.map((x) => [cellId(x), x]));
    return [
      `Fixed in ${escapeInline(n.version)} (night of ${escapeInline(n.night)}): on this configuration every row that regressed in ${escapeInline(state.version)} is back within ${state.threshold_pct}% of ${escapeInline(state.previous_version)}.`,
      '',
      `| load | metric | ${cell(state.previous_version)} | ${cell(state.version)} | ${cell(n.version)} | vs ${cell(state.previous_version)} | ${cell(n.version)} vs its previous release |`,
      '| --- | --- | ---: | ---: | ---: | ---: | --- |',
      ...n.cells.map((x) => {
        const b = baseline.get(cellId(x));
        return `| ${cell(describeLoad(x.load))} | ${cell(metricLabel(x.metric))} | ${b ? significant(b.previous_value) : 'n/a'} | ${b ? significant(b.value) : 'n/a'} | ${significant(x.now.value)} | ${formatChange(signedVsBaseline(x))} | ${numbers(x.now)} |`;
      }),
      '',
      'Closed by `servebench alert`; it reopens this issue if the regression comes back in this release.',
    ].join('\n');
  }
  const recovered = changes.filter((x): x is Extract<Change, { kind: 'recovered' }> => x.kind === 'recovered').map((x) => x.cell);
  return [
    `No longer a regression (night of ${escapeInline(c.night)}): \`servebench regress\` compared ${escapeInline(state.version)} with ${escapeInline(state.previous_version)} on this configuration again and reports none of the rows of this issue (not significant, or less than ${state.threshold_pct}% worse).`,
    '',
    '| load | metric | was | now | 95% CI | p | test |',
    '| --- | --- | ---: | ---: | --- | --- | --- |',
    ...recovered.map((r) => `| ${cell(describeLoad(r.load))} | ${cell(metricLabel(r.metric))} | ${formatChange(r.was.change_pct)} | ${r.now === null ? 'not in the report' : formatChange(r.now.change_pct)} | ${r.now === null ? 'n/a' : formatCi(r.now)} | ${r.now === null ? 'n/a' : formatP(r.now.p_value)} | ${r.now === null ? 'n/a' : formatTest(r.now)} |`),
    '',
    'Closed by `servebench alert`; it reopens this issue if the regression comes back in this release.',
  ].join('\n');
}

/** The comment that closes an issue an earlier alert filed for one regression. */
export function legacyComment(group: GroupState, issueNumber: number | null): string {
  const there = issueNumber === null ? 'the grouped issue' : `#${issueNumber}`;
  return `\`servebench alert\` now files one issue per engine release and configuration, with every metric and load point that regressed: this regression is tracked in ${there} (${escapeInline(group.engine)} ${escapeInline(group.version)} on ${where(group)}). Closing this one.`;
}
