/** The gate's report as text for a terminal and as Markdown for the issue the workflow opens. */
import { escapeTableCell, significant } from '../../harness/lib/io/markdown.ts';
import type { GateReport } from './sessions.ts';

const pct = (v: number | null) => (v === null ? 'n/a' : `${v > 0 ? '+' : ''}${v.toFixed(1)}%`);
const ci = (c: readonly [number, number] | null) => (c === null ? 'n/a' : `${pct((c[0] - 1) * 100)} … ${pct((c[1] - 1) * 100)}`);
const values = (v: readonly number[]) => v.map((x) => significant(x)).join(', ');
/** The machine speed the baseline was scaled by: "×1.25" (the candidate's machine a quarter slower). */
const speed = (factor: number | null) => (factor === null ? 'as measured' : `×${factor.toFixed(3)}`);

export function gateMarkdown(report: GateReport): string {
  const lines = [
    `Self-benchmark session \`${report.candidate}\`: ${report.regressions} figure(s) regressed (Welch's t on log values, p < 0.05, and at least ${report.thresholdPct}% worse). Times and rates are compared after scaling the baseline by the machines' reference speeds (bench:machine; "×1.25": this session's machine a quarter slower).`,
    '',
    '| figure | machine | verdict | change | 95% CI | p | machine speed | baseline (session) | this session |',
    '| --- | --- | --- | ---: | --- | ---: | ---: | --- | --- |',
  ];
  for (const c of report.comparisons) {
    const p = c.pValue === null ? 'n/a' : c.pValue < 1e-4 ? '<0.0001' : c.pValue.toFixed(4);
    lines.push(`| ${escapeTableCell(`${c.figure} (${c.unit}, ${c.better} is better)`)} | ${escapeTableCell(c.machine)} | **${c.verdict}** | ${pct(c.changePct)} | ${ci(c.ci)} | ${p} | ${speed(c.machineFactor)} | ${values(c.baseline)} (${c.baselineSession ?? 'none'}) | ${values(c.candidate)} |`);
  }
  return `${lines.join('\n')}\n`;
}

export function gateText(report: GateReport): string {
  const rows = report.comparisons.map((c) => `${c.verdict.padEnd(15)} ${pct(c.changePct).padStart(8)}  ${c.figure} [${values(c.candidate)} vs ${values(c.baseline)}${c.machineFactor === null ? '' : `, machine ${speed(c.machineFactor)}`}]`);
  return `${rows.join('\n')}\n${report.regressions} regressed of ${report.comparisons.length} figures (session ${report.candidate}, threshold ${report.thresholdPct}%)\n`;
}
