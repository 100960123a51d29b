/**
 * bench:gate: is servebench slower than it was? Compares the newest bench session (npm run bench)
 * with earlier ones figure by figure (bench/gate/compare.ts) and exits 1 when any figure regressed
 * beyond its noise and the threshold; 0 otherwise (also when nothing could be compared yet).
 *
 * Usage: npm run bench:gate [-- --sessions bench/sessions] [--candidate <session>] [--threshold 10]
 *        [--json] [--markdown <file> (the report as Markdown, for an issue)]
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_REGRESSION_THRESHOLD_PCT } from '../harness/contract/metric-catalog.ts';
import { gateMarkdown, gateText } from './gate/report.ts';
import { gate } from './gate/sessions.ts';

export const DEFAULT_SESSIONS_DIR = fileURLToPath(new URL('./sessions', import.meta.url));

const HELP = `Usage: npm run bench:gate [-- options]
Compares the newest self-benchmark session with earlier ones; exit 1 when a figure regressed.
  --sessions DIR     session folders (default bench/sessions)
  --candidate NAME   the session to judge (default: the newest)
  --threshold PCT    smallest change called a regression (default ${DEFAULT_REGRESSION_THRESHOLD_PCT})
  --markdown FILE    also write the report as Markdown
  --json             the report as JSON on stdout
  --help             this text`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { sessions: { type: 'string', default: DEFAULT_SESSIONS_DIR }, candidate: { type: 'string' }, threshold: { type: 'string', default: String(DEFAULT_REGRESSION_THRESHOLD_PCT) }, markdown: { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } } });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const threshold = Number(values.threshold);
  if (!(threshold > 0)) {
    process.stderr.write(`bench:gate: --threshold ${values.threshold}: give a percentage above 0\n`);
    process.exit(2);
  }
  try {
    const report = gate(values.sessions!, threshold, values.candidate);
    if (values.markdown) writeFileSync(values.markdown, gateMarkdown(report));
    process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : gateText(report));
    process.exit(report.regressions > 0 ? 1 : 0);
  } catch (error) {
    process.stderr.write(`bench:gate: ${(error as Error).message}\n`);
    process.exit(2);
  }
}
