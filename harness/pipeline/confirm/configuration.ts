/**
 * A regression's configuration, as the A/B's arms run it: the `servebench run` command line that
 * measured the new release (its result file records it, harness.command), with the load narrowed
 * to the regression's one point. Taking the recorded command, not the report's names, is what makes
 * the A/B measure what regress compared: the same engine spec, model, workload, tokenizer, engine
 * flags and launcher; only the release differs between the arms (ab sets --engine-version).
 */
import { parseLoadLabel } from '../../contract/load-label.ts';
import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { parseCommandArgs, type RawOptions } from '../../lib/cli/options.ts';
import { ServebenchError } from '../../lib/errors.ts';
import { REDACTED } from '../../contract/credentials.ts';
import { ARM_RUN_OPTIONS } from '../../measure/ab/ab-options.ts';
import { runCommand } from '../../measure/run/command.ts';
import type { AlertRegression } from '../regressions/report.ts';

/** The run flags that choose the load: replaced by the regression's one point. */
const LOAD_FLAGS = ['concurrency', 'rate'] as const;

/**
 * regress's load label ("c=4", "rate=2 max=64"; harness/store/columns.ts writes it) as the run
 * flags of that one point (an open load's cap comes from its workload, as run takes no flag for
 * it); null for a load ab cannot replay (a trace).
 */
export function loadFlags(label: string): RawOptions | null {
  return parseLoadLabel(label);
}

export type ArmOptions = { readonly raw: RawOptions; readonly runFile: string } | { readonly problem: string };

/** The run options both arms take for `regression`, or why they cannot be rebuilt (named for the output). */
export function armOptionsOf(regression: Pick<AlertRegression, 'file' | 'load' | 'engine'>, resultsDir: string, gpu: string | null): ArmOptions {
  if (regression.file === null) return { problem: 'regress named no result file for the new release\'s run: its configuration is unknown' };
  const path = resolve(resultsDir, regression.file);
  const inside = relative(resolve(resultsDir), path);
  // A name from a report is untrusted: it may only point into the results folder.
  if (inside.startsWith('..') || isAbsolute(inside)) return { problem: `the run file ${regression.file} lies outside --results ${resultsDir}` };
  let command: unknown;
  try {
    command = (JSON.parse(readFileSync(path, 'utf8')) as { harness?: { command?: unknown } }).harness?.command;
  } catch (error) {
    return { problem: `cannot read the run file ${regression.file} under ${resultsDir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give --results the folder regress read` };
  }
  if (!Array.isArray(command) || command[0] !== 'servebench' || command[1] !== 'run' || !command.every((word) => typeof word === 'string')) {
    return { problem: `${regression.file} was not made by \`servebench run\` (its harness.command is ${JSON.stringify(command)?.slice(0, 80)}): nothing to replay` };
  }
  let run: RawOptions;
  try {
    run = parseCommandArgs(runCommand.spec, command.slice(2) as string[]);
  } catch (error) {
    if (!(error instanceof ServebenchError)) throw error;
    return { problem: `the recorded command of ${regression.file} does not parse: ${error.message}` };
  }
  const point = loadFlags(regression.load);
  if (point === null) return { problem: `load "${regression.load}" is not a closed or open load point that an A/B can replay` };
  const raw: RawOptions = {};
  for (const option of ARM_RUN_OPTIONS) {
    if (run[option.name] === undefined || (LOAD_FLAGS as readonly string[]).includes(option.name)) continue;
    const value = run[option.name]!;
    if ((Array.isArray(value) ? value : [value]).includes(REDACTED)) return { problem: `the recorded command of ${regression.file} has a redacted --${option.name}: the A/B cannot be given it` };
    raw[option.name] = value;
  }
  if (raw['launcher'] === 'external') return { problem: `${regression.file} measured an external endpoint (--launcher external): an A/B launches each release itself` };
  // This runner's own GPU set, not the one the regressed run's runner owned.
  if (gpu !== null) raw['gpu'] = gpu;
  return { raw: { ...raw, ...point }, runFile: regression.file };
}
