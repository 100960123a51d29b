/** The collect report as Markdown: the job summary of the nightly's collect step. */
import { escapeTableCell } from '../../lib/io/markdown.ts';
import type { CollectReport } from './collect.ts';

const MAX_ROWS = 100;

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const shown = rows.slice(0, MAX_ROWS);
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...shown.map((row) => `| ${row.map(escapeTableCell).join(' | ')} |`),
    ...(rows.length > shown.length ? [`| … ${rows.length - shown.length} more |${' |'.repeat(header.length - 1)}`] : []),
    '',
  ];
}

/** The report as Markdown, for $GITHUB_STEP_SUMMARY. */
export function collectMarkdown(report: CollectReport, requireAll: boolean): string {
  const bad = new Set(report.invalid.map((p) => p.file)).size;
  const lines = [
    '## servebench collect',
    '',
    `${report.found} result file${report.found === 1 ? '' : 's'} under --from (${report.ignored} other file${report.ignored === 1 ? '' : 's'} ignored${report.stray.length > 0 ? `, ${report.stray.length} stray` : ''}): ` +
      `**${report.collected.length} collected**, ${report.already_present.length} already in results/, ${report.duplicates.length} duplicate${report.duplicates.length === 1 ? '' : 's'}, ` +
      `**${bad} invalid**, **${report.conflicts.length} conflict${report.conflicts.length === 1 ? '' : 's'}**.`,
    '',
  ];
  if (report.plan !== null) {
    const accounted = report.plan.jobs - report.missing.length;
    const since = report.plan.since ? ` created since ${report.plan.since}` : '';
    lines.push(`Plan \`${escapeTableCell(report.plan.plan_id)}\`: ${accounted} of ${report.plan.jobs} job${report.plan.jobs === 1 ? '' : 's'} left a result${since}; **${report.missing.length} missing**${report.missing.length > 0 && requireAll ? ' (--require-all: this fails the step)' : ''}.`, '');
  }
  if (report.missing.length > 0) {
    lines.push('### Missing jobs', '', 'Planned, but no result came back: the job never started, or died before `servebench run` could write even a failed result. Nothing was filled in.', '');
    lines.push(...table(['job', 'engine', 'version', 'model', 'GPU type', 'workload'], report.missing.map((m) => [m.name, m.engine, m.version, `${m.model} (tp ${m.tp})`, m.gpu_type, m.workload])));
  }
  const state = report.detect_state;
  if (state !== null && (state.put_back.length > 0 || state.not_put_back.length > 0)) {
    lines.push('### New releases to measure again', '');
    if (state.put_back.length > 0) {
      lines.push(`Put back to pending in \`${escapeTableCell(state.file)}\`: the next \`servebench detect\` reports them as new again, and the next night plans them.`, '');
      lines.push(...table(['engine', 'version', 'why'], state.put_back.map((p) => [p.engine, p.version, p.reason])));
    }
    if (state.not_put_back.length > 0) {
      lines.push('Not put back (their missing jobs are not planned again by themselves):', '');
      lines.push(...table(['engine', 'version', 'why not'], state.not_put_back.map((p) => [p.engine, p.version, p.reason])));
    }
  }
  if (report.invalid.length > 0) {
    lines.push('### Invalid files (not collected)', '');
    lines.push(...table(['file', 'JSON path', 'problem', 'fix'], report.invalid.map((p) => [p.file, p.path || '(file)', p.message, p.fix])));
  }
  if (report.conflicts.length > 0) {
    lines.push('### Conflicts (not collected)', '');
    lines.push(...table(['file', 'problem', 'fix'], report.conflicts.map((p) => [p.file, p.message, p.fix])));
  }
  if (report.stray.length > 0) {
    lines.push('### Stray files (not results, left alone)', '');
    lines.push(...table(['file', 'problem', 'fix'], report.stray.map((p) => [p.file, p.message, p.fix])));
  }
  if (report.collected.length > 0) {
    lines.push('### Collected', '');
    lines.push(...table(['result', 'engine', 'version', 'status'], report.collected.map((c) => [c.path, c.engine, c.version ?? '(none)', c.status])));
  }
  return `${lines.join('\n')}\n`;
}
