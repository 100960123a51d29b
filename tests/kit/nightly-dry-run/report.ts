/**
 * The dry run's report, written where it ran: report.json (the whole DryRunReport) and the same
 * report in Markdown appended to DRY-RUN.md, which the command also prints. It states what ran and
 * how each step exited against what the workflow allows it; whether the nights found what the story
 * planted is tests/pipeline/nightly-dry-run.pipeline.test.ts's to say.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPORT_FILE } from './checkout.ts';
import type { DryRunReport } from './types.ts';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function formatReport(report: DryRunReport): string {
  const status = report.ok ? 'OK: every step exited as the workflow allows' : 'FAILED';
  const rows = report.steps.map((s) => [String(s.night), s.step, String(s.code), s.expected.join(' or '), s.wall_s.toFixed(1), Object.entries(s.counts).map(([k, v]) => `${k} ${v}`).join(', ')]);
  return [
    `## servebench nightly dry run: ${status}, in ${report.wall_s.toFixed(1)} s`,
    '',
    report.kept ? `Kept in ${report.dir} (${REPORT_FILE}, logs/, night-N/).` : 'The temp folder was removed.',
    ...(report.interrupted ? ['', `Interrupted by ${report.interrupted}.`] : []),
    ...(report.error ? ['', `Stopped: ${report.error}`] : []),
    '',
    '| night | step | exit | allowed | wall s | counts |',
    '| ---: | --- | ---: | --- | ---: | --- |',
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
    '',
    `GitHub: ${report.github.issues.length} issue(s) (${report.github.issues.map((i) => `#${i.number} ${i.state} ${cell(i.title)}`).join('; ') || 'none'}); webhook: ${report.github.webhook_posts} post(s); ${report.github.requests} requests to the fakes.`,
    '',
  ].join('\n');
}

/** report.json and the Markdown report at the end of DRY-RUN.md, in the dry run's folder. */
export function writeReport(report: DryRunReport): void {
  writeFileSync(join(report.dir, REPORT_FILE), `${JSON.stringify(report, null, 2)}\n`);
  appendFileSync(join(report.dir, 'DRY-RUN.md'), `\n${formatReport(report)}`);
}
