/** `servebench file-comparison FILE… [--results DIR] [--json]`: the command over file-comparisons.ts. */
import { join, resolve } from 'node:path';
import { booleanOption, parseCommandLine, stringOption, type Command, type CommandSpec, type OptionSpec } from '../lib/cli/options.ts';
import { EXIT, usageError } from '../lib/errors.ts';
import { fileComparisons, type FilingOutcome } from './file-comparisons.ts';
import { formatProblemLine } from './problem-output.ts';
import { RESULTS_OPTION } from './store-options.ts';

/** --json of the commands that file comparisons (this one, and the pipeline's file-confirmations): what reportFiling prints. */
export const FILING_JSON_OPTION: OptionSpec = { name: 'json', help: 'Machine-readable output: {filed: [{from, path, sha256, already}], problems}.' };

const spec: CommandSpec = {
  name: 'file-comparison',
  summary: 'file an A/B or a bisection (and its A/Bs) into results/comparisons/, checked, at the path its content dictates',
  usage: 'servebench file-comparison FILE… [--results DIR] [--json]',
  options: [RESULTS_OPTION, FILING_JSON_OPTION],
  epilog: [
    'FILE: what `servebench ab --out` or `servebench bisect --out` wrote; a bisection brings the A/Bs its steps name (FILE less .json plus .ab/).',
    'Each is checked as validate checks results/comparisons/ (docs/validation.md#comparisons) before anything is written; a file already',
    'filed with the same content is left alone. Exit status: 0 filed, 1 problems (nothing written), 2 bad usage.',
  ].join('\n'),
};

/** What file-comparison (and the pipeline's file-confirmations) print: JSON, or a line per file and per problem on stderr. */
export function reportFiling(outcome: FilingOutcome, resultsDir: string, json: boolean): number {
  if (json) process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
  else {
    for (const problem of outcome.problems) process.stderr.write(`${formatProblemLine(problem)}\n`);
    if (outcome.problems.length === 0) for (const f of outcome.filed) process.stderr.write(`${f.already ? 'already filed' : 'filed'}: ${join(resultsDir, f.path)}\n`);
    else process.stderr.write(`${outcome.problems.length} problem${outcome.problems.length === 1 ? '' : 's'}: nothing filed\n`);
  }
  return outcome.problems.length > 0 ? EXIT.thresholdExceeded : EXIT.ok;
}

export const fileComparisonCommand: Command = {
  spec,
  async run(argv) {
    const { options, positionals } = parseCommandLine(spec, argv);
    if (positionals.length === 0) throw usageError('file-comparison: give the A/B or bisection file(s) to file (what `servebench ab --out` or `servebench bisect --out` wrote)');
    const resultsDir = resolve(stringOption(spec, options, 'results')!);
    return reportFiling(await fileComparisons(positionals, resultsDir), resultsDir, booleanOption(options, 'json'));
  },
};
