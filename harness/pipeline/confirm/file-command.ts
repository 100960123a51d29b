/**
 * `servebench file-confirmations FILE… [--results DIR] [--json]`: files the evidence of what
 * `servebench confirm` judged (each A/B and bisection its confirmations name) into
 * results/comparisons/, as `servebench file-comparison` files them: checked, all or nothing, never
 * overwriting. The nightly runs it after confirm, so the paired verdicts an alert rests on (and
 * the ones that did not confirm) are published with their raw blocks, not kept only in a CI
 * artifact that expires.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { booleanOption, parseCommandLine, stringOption, type Command, type CommandSpec } from '../../lib/cli/options.ts';
import { usageError } from '../../lib/errors.ts';
import { fileComparisons } from '../../store/file-comparisons.ts';
import { FILING_JSON_OPTION, reportFiling } from '../../store/file-comparison-command.ts';
import { RESULTS_OPTION } from '../../store/store-options.ts';
import { readConfirmations, type Confirmations } from './confirmations.ts';

const spec: CommandSpec = {
  name: 'file-confirmations',
  summary: 'file the A/Bs and bisections a `servebench confirm` output names into results/comparisons/, checked',
  usage: 'servebench file-confirmations FILE… [--results DIR] [--json]',
  options: [RESULTS_OPTION, FILING_JSON_OPTION],
  epilog: [
    'FILE: what `servebench confirm --out` wrote (its A/Bs and bisections lie in FILE less .json plus .confirm/, where it names them).',
    'Each bisection is filed with its A/Bs; each A/B that is no bisection\'s step is filed alone. Everything is checked as validate checks',
    'results/comparisons/ (docs/validation.md#comparisons) before a byte is written; a file already filed with the same content is left alone.',
    'Exit status: 0 filed (or nothing to file), 1 problems (nothing written), 2 bad usage.',
  ].join('\n'),
};

/**
 * The files a confirmations output names, as absolute paths: its bisections, then the A/Bs not
 * already a step of one of them (the confirm A/B is a bisection's first step: filed once, with it).
 */
export function confirmationEvidence(file: string, confirmations: Confirmations): string[] {
  const folder = dirname(resolve(file));
  const bisections = new Set<string>();
  const abs = new Set<string>();
  for (const confirmation of confirmations.confirmations) {
    if (confirmation.bisection !== null) bisections.add(resolve(folder, confirmation.bisection.file));
    if (confirmation.paired !== null) abs.add(resolve(folder, confirmation.paired.file));
  }
  const steps = new Set<string>();
  for (const bisection of bisections) {
    // A missing or broken bisection is named as it is: filing it reports the problem and writes nothing.
    if (!existsSync(bisection)) continue;
    let parsed: { steps?: Array<{ ab_file?: unknown }> };
    try {
      parsed = JSON.parse(readFileSync(bisection, 'utf8')) as typeof parsed;
    } catch {
      continue;
    }
    for (const step of parsed.steps ?? []) if (typeof step.ab_file === 'string') steps.add(resolve(dirname(bisection), step.ab_file));
  }
  return [...bisections, ...[...abs].filter((ab) => !steps.has(ab))];
}

export const fileConfirmationsCommand: Command = {
  spec,
  async run(argv) {
    const { options, positionals } = parseCommandLine(spec, argv);
    if (positionals.length === 0) throw usageError('file-confirmations: give the confirmations file(s) to file the evidence of (what `servebench confirm --out` wrote)');
    const resultsDir = resolve(stringOption(spec, options, 'results')!);
    const paths: string[] = [];
    for (const file of positionals) paths.push(...confirmationEvidence(file, readConfirmations(file)));
    return reportFiling(await fileComparisons([...new Set(paths)], resultsDir), resultsDir, booleanOption(options, 'json'));
  },
};
