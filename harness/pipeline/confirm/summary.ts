/** What `servebench confirm` prints (and writes as Markdown for a CI step summary): each regression's verdict, grouped by what was compared. */
import { escapeTableCell } from '../../lib/io/markdown.ts';
import type { Confirmation, Confirmations } from './confirmations.ts';

const percent = (value: number | null): string => (value === null ? '–' : `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(1)}%`);
const regressed = (pct: number): string => `${pct >= 0 ? '+' : '−'}${Math.abs(pct).toFixed(1)}%`;

/** "−30.0% [−31.0%, −29.1%]", or "–" without an A/B verdict. */
export function pairedEffect(c: Pick<Confirmation, 'paired'>): string {
  const p = c.paired;
  if (p === null || p.effect === null) return '–';
  return p.interval === null ? percent(p.effect) : `${percent(p.effect)} [${percent(p.interval[0])}, ${percent(p.interval[1])}]`;
}

/** "culprit 1.1.0 → 1.2.0 (llama.cpp b5500 → b5510)", or the outcome and the range so far. */
export function bisectionLine(c: Pick<Confirmation, 'bisection'>): string | null {
  const b = c.bisection;
  if (b === null) return null;
  const tags = b.range.llamacpp_tags === null ? '' : ` (llama.cpp ${b.range.llamacpp_tags[0]} → ${b.range.llamacpp_tags[1]})`;
  const what = b.culprit !== null ? `${b.outcome} ${b.range.good} → ${b.range.bad}${tags}` : `${b.outcome}, narrowed to ${b.range.good} → ${b.range.bad}${tags}`;
  return `${what} on ${b.metric}, ${b.comparisons} comparisons in ${(b.wall_s / 60).toFixed(1)} min`;
}

function groups(confirmations: readonly Confirmation[]): Map<string, Confirmation[]> {
  const byPair = new Map<string, Confirmation[]>();
  for (const c of confirmations) {
    const title = `${c.engine} ${c.previous_version} → ${c.version} · ${c.model} · ${c.hardware} · ${c.workload} · ${c.load}`;
    byPair.set(title, [...(byPair.get(title) ?? []), c]);
  }
  return byPair;
}

function headline(file: Confirmations): string {
  const confirmed = file.confirmations.filter((c) => c.status === 'confirmed').length;
  const notExamined = file.confirmations.filter((c) => c.reason === 'not examined').length;
  const budget = file.budget_s === null ? '' : ` (budget ${(file.budget_s / 60).toFixed(0)} min)`;
  return `${file.confirmations.length} regression${file.confirmations.length === 1 ? '' : 's'} from ${file.regressions_file}: ${confirmed} confirmed, ${file.confirmations.length - confirmed} not confirmed${notExamined > 0 ? ` (${notExamined} not examined)` : ''}; ${file.ab_runs} A/B${file.ab_runs === 1 ? '' : 's'} and ${file.bisections} bisection${file.bisections === 1 ? '' : 's'} in ${(file.wall_s / 60).toFixed(1)} min${budget}.`;
}

export function formatConfirmSummary(file: Confirmations): string {
  const lines = [headline(file), ''];
  for (const [title, rows] of groups(file.confirmations)) {
    lines.push(title);
    for (const c of rows) {
      const status = c.status === 'confirmed' ? 'confirmed' : `not confirmed (${c.reason})`;
      lines.push(`  ${status.padEnd(32)} ${c.metric.padEnd(20)} regress ${regressed(c.change_pct).padStart(7)}  paired ${pairedEffect(c)}`);
      if (c.paired === null) lines.push(`    ${c.detail}`);
    }
    const bisected = rows.find((c) => c.bisection !== null);
    if (bisected) lines.push(`  bisected: ${bisectionLine(bisected)}${bisected.bisection!.range.links.compare ? `: ${bisected.bisection!.range.links.compare}` : ''}`);
    lines.push('');
  }
  if (file.status !== 'completed') lines.push(`Stopped: ${file.status}; what was measured is written.`);
  return `${lines.join('\n')}\n`;
}

export function confirmMarkdown(file: Confirmations): string {
  const lines = ['### Paired confirmation of the regressions (`servebench confirm`)', '', headline(file), ''];
  if (file.confirmations.length === 0) return `${lines.join('\n')}\n`;
  lines.push('| configuration | metric | regress | paired A/B (95% interval) | status | bisection |', '| --- | --- | ---: | --- | --- | --- |');
  for (const [title, rows] of groups(file.confirmations)) {
    for (const c of rows) {
      const status = c.status === 'confirmed' ? '**confirmed**' : `not confirmed: ${c.reason}`;
      // The status is servebench's own words (bold kept); names and details come from result files.
      lines.push(`| ${escapeTableCell(title)} | ${escapeTableCell(c.metric)} | ${regressed(c.change_pct)} | ${pairedEffect(c)} | ${status} | ${escapeTableCell(bisectionLine(c) ?? (c.paired === null ? c.detail : '–'))} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
