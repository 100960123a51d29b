/**
 * The recorded command line and the result say the same thing. The run page shows the result's
 * fields (engine, launcher, workload, source) and its Reproduce block runs the command line: a file
 * whose page says "vllm" while its command runs `--engine llamacpp` (a relabelled run) would have
 * a reader reproduce something other than what was ranked. Only what the command fixes one to one
 * is compared: --engine-version names a build or image that the server's own version then names
 * (node-llama-cpp 3.21.1 runs llama.cpp v0.4.0), and --model a file or a dummy shape that the run
 * records under its served name.
 */
import type { RecordedCommand } from '../lib/cli/recorded-argv.ts';
import type { OptionSpec } from '../lib/cli/options.ts';
import type { RunResult } from '../contract/result.ts';
import type { AddProblem } from './plausibility.ts';

const RULE = '[command-agrees]';

/** The value the command's parser ends with: the last of a repeated flag, else the table's default. */
export function optionValue(command: RecordedCommand, table: readonly OptionSpec[], name: string): string | null {
  let value: string | null = null;
  for (const option of command.options) if (option.spec.name === name) value = option.value;
  return value ?? table.find((spec) => spec.name === name)?.default ?? null;
}

/** `table`: the option table the command was read with (its defaults are what the run took). */
export function checkCommandAgreement(result: RunResult, command: RecordedCommand, table: readonly OptionSpec[], add: AddProblem): void {
  const run = result.run;
  if (!run) return;
  const value = (name: string) => optionValue(command, table, name);
  const pairs: Array<[flag: string, fromCommand: string | null, path: string, fromResult: string | null]> = [
    ['--engine', value('engine'), 'run.engine.name', run.engine.name],
    ['--launcher', value('launcher'), 'run.engine.launcher', run.engine.launcher],
    ['--source', value('source'), 'source', result.source ?? 'community'],
  ];
  // A scenario named as in workloads/ (not a path to a spec file) is the result's workload.name.
  const workload = value('workload');
  // Stryker disable next-line ConditionalExpression: a null workload would match as the text "null", and its pair is then skipped below as a flag not given.
  if (workload !== null && /^[a-z0-9][a-z0-9-]*$/.test(workload)) pairs.push(['--workload', workload, 'workload.name', result.workload.name]);
  for (const [flag, fromCommand, path, fromResult] of pairs) {
    if (fromCommand === null) {
      // Stryker disable next-line ConditionalExpression: --engine is the only one here without a default in the run table (a workload is added only when given).
      if (flag === '--engine') add('harness.command', `${RULE} the command line names no --engine; the result says ${JSON.stringify(fromResult)}`, 'keep the command line servebench recorded');
      continue;
    }
    if (fromCommand !== fromResult) {
      add(path, `${RULE} the result says ${JSON.stringify(fromResult)} but its command line ran ${flag} ${JSON.stringify(fromCommand)}: its Reproduce block would run something other than what it shows`, 'keep the fields and the command line servebench recorded together (a result is not edited)');
    }
  }
}
