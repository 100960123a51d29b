/**
 * `servebench run`: launch an engine (or use a running endpoint), measure a workload on it, tear
 * it down, and write one immutable result into results/ — also when the run fails.
 */
import { booleanOption, parseCommandArgs, type CommandSpec, type Command } from '../../lib/cli/options.ts';
import { dockerRunArgs } from './docker-launcher.ts';
import { EXIT } from '../../lib/errors.ts';
import { renderConfigFile, renderServeCommand, shellQuote } from '../engines/render.ts';
import { RUN_OPTIONS } from '../../contract/command-options.ts';
import { createProgressReporter } from '../load/progress.ts';
import { describeLoad } from '../load/describe-load.ts';
import { formatSummaryTable } from '../load/summary-table.ts';
import { executeRun, localModelPaths, onFreshPort, withProgram } from './runner.ts';
import { planRun } from './run-plan.ts';
import { deliverResult } from '../load/deliver-result.ts';
import { KILL_WAIT_MS, STOP_GRACE_MS } from './process-launcher.ts';
import { stopLaunchedOnSignal } from './stop-launched.ts';
import { describePolicy, repeatPolicyOf, runRepeatGroup } from './repeats.ts';
import type { RunOutcome } from './runner.ts';
import { describeAccuracyTask } from '../accuracy/run-accuracy.ts';

const spec: CommandSpec = {
  name: 'run',
  summary: 'launch an engine, measure a workload on it, tear it down, and write one result into results/',
  usage: 'servebench run --engine NAME --model ID_OR_PATH --workload NAME [options]',
  // The contract's table: validate reads a recorded `servebench run …` by it too.
  options: RUN_OPTIONS,
  epilog: [
    'With --repeats, each repeat writes its own result as it ends; the group stops at a failed or interrupted repeat, or one whose result',
    'could not be written, and exits with the last status other than 0 of its repeats (a refused result does not stop it).',
    'Exit status: 0 completed; 1 the run failed (launch, health, probe, measure) or the failure rate was too high; 2 bad input;',
    '3 the result could not be written (it went to stdout instead); 4 a run that did not fail wrote a result `servebench validate`',
    'refuses (each broken rule is printed; the file is kept, and results/ does not take it as it stands);',
    '70 internal error (a servebench bug); 129 SIGHUP (the terminal went away), 130 SIGINT, 143 SIGTERM: the server is always',
    `stopped and the result always written. The server gets ${STOP_GRACE_MS / 1000} s from the signal, then SIGKILL (a second signal: SIGKILL`,
    `at once); the result is written within ${(STOP_GRACE_MS + KILL_WAIT_MS) / 1000} s of the signal, inside the 30 s SLURM and Kubernetes allow by default.`,
  ].join('\n'),
};


/**
 * validate's check of one written result (harness/store/check-result.ts): a line per broken rule,
 * none when it passes. The store is downstream of measure, so the CLI hands it in (harness/cli.ts).
 */
export type CheckWritten = (text: string, relativePath: string) => readonly string[];

/**
 * `run` that checks what it wrote with `checkWritten` (null: no check); `dummyShapes`: the embedded
 * engine's dummy shape names, on which a workload's accuracy task is skipped (the engines are not measure's to import).
 */
export function createRunCommand(checkWritten: CheckWritten | null, dummyShapes: readonly string[] = []): Command {
  return { spec, run: (argv) => runWith(argv, checkWritten, dummyShapes) };
}

/** The options, and a run without the check of what it wrote: the CLI runs createRunCommand with validate's check. */
export const runCommand: Command = createRunCommand(null);

async function runWith(argv: readonly string[], checkWritten: CheckWritten | null, dummyShapes: readonly string[]): Promise<number> {
  const raw = parseCommandArgs(spec, argv);
  const plan = await planRun(spec, raw, argv, dummyShapes);
  const { engine, launcher, params, load, docker, gpus, endpoint } = plan;
  const repeats = repeatPolicyOf(spec, raw);
  if (booleanOption(raw, 'dry-run')) {
    const lines = [
      `engine:   ${engine.display_name} (${engine.name}), launcher ${launcher}`,
      launcher === 'process'
        ? `command:  ${shellQuote(withProgram(renderServeCommand(engine, params, undefined, gpus.length > 0), plan.program))}`
        : launcher === 'docker'
          ? `command:  docker ${shellQuote(dockerRunArgs({ image: docker!.image, argv: withProgram(renderServeCommand(engine, params, undefined, gpus.length > 0), plan.program), port: docker!.port, gpus, gpuVendor: docker!.gpuVendor, name: 'servebench-RUN_ID', logFile: '', hfCache: docker!.hfCache, hostPaths: localModelPaths(params) }))}`
          : `endpoint: ${endpoint}`,
      ...(engine.config_file ? [`config:   ${JSON.stringify(renderConfigFile(engine, params))} (written as YAML to the <engine-config.yaml> above)`] : []),
      `health:   GET ${engine.health.path} → ${engine.health.status} within ${engine.health.timeout_s} s`,
      `workload: ${load.workload.name} (${load.workload.api}), ${load.loads.map(describeLoad).join('; ')}`,
      `results:  ${plan.resultsDir}/<date>/${engine.name}/…`,
      ...(repeats ? [`repeats:  ${describePolicy(repeats)}`] : []),
      ...(load.workload.accuracy ? [`accuracy: ${describeAccuracyTask(load.workload.accuracy, load.workload.api)}, after the load points`] : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return EXIT.ok;
  }

  const stop = stopLaunchedOnSignal('stopping the run and the server');
  const progress = createProgressReporter(process.stderr, load.loads.length, { count: load.numPrompts, durationS: load.durationS, warmup: load.workload.requests.warmup });
  const json = booleanOption(raw, 'json');
  // A repeat is launched as a fresh run would be: on a free port of its own unless --port names one.
  const freshPort = launcher !== 'external' && raw['port'] === undefined;
  const runOnce = async (repeat = 1) =>
    executeRun(
      repeat > 1 && freshPort ? await onFreshPort(plan) : plan,
      stop.signal,
      booleanOption(raw, 'no-progress') ? undefined : (i, state) => progress.update(i, load.loads[i]!, state),
      () => progress.finishPoint(),
    );
  /** Writes one result and checks what was written; the exit status it earns. `stdout`: what it prints there (a result that cannot be written goes there whatever it says). */
  const deliver = async ({ result, text, relativePath, path }: RunOutcome, stdout: 'json' | 'summary' | 'nothing'): Promise<number> => {
    const delivered = await deliverResult({ text, path, json: stdout === 'json', summary: () => (stdout === 'summary' ? formatSummaryTable(result.points) : '') });
    // The text as written, through the code `validate` runs: a run never exits 0 with a result
    // that validate, and so results/, would refuse.
    const problems = checkWritten?.(text, relativePath) ?? [];
    for (const line of problems) process.stderr.write(`servebench: ${line}\n`);
    if (problems.length > 0) {
      const where = delivered.written ? `kept in ${path}` : 'on stdout';
      process.stderr.write(`servebench: \`servebench validate\` refuses this result (${problems.length} problem${problems.length === 1 ? '' : 's'}, above): it is ${where}, but results/ does not take it as it stands\n`);
    }
    if (result.run?.failure) process.stderr.write(`servebench: the run failed during ${result.run.failure.phase}: ${result.run.failure.message}\n`);
    // First where the result is, then that the run failed (its result may well be refused too), then the refusal.
    if (delivered.exitCode !== null) return delivered.exitCode;
    if (result.run?.failure) return stop.exitCode() ?? EXIT.thresholdExceeded;
    if (problems.length > 0) return stop.exitCode() ?? EXIT.resultRefused;
    if (result.outcome.interrupted) return stop.exitCode() ?? EXIT.interrupted;
    return result.outcome.exceeded_max_failure_rate ? EXIT.thresholdExceeded : EXIT.ok;
  };
  try {
    if (repeats === null) return await deliver(await runOnce(), json ? 'json' : 'summary');
    // Each repeat's file is written as it ends (nothing waits on the group); with --json, stdout
    // gets the group's verdicts at the end instead of each result.
    const group = await runRepeatGroup(repeats, {
      runOnce,
      deliver: (outcome) => deliver(outcome, json ? 'nothing' : 'summary'),
      announce: (line) => process.stderr.write(`servebench: ${line}\n`),
      resultsDir: plan.resultsDir,
    });
    const { exitCode, ...verdict } = group;
    if (json) process.stdout.write(`${JSON.stringify(verdict, null, 2)}\n`);
    return exitCode;
  } finally {
    stop.dispose();
  }
}
