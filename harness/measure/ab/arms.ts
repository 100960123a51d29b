/**
 * The two arms of an A/B: each is the `servebench run` that ab's run flags name, with the arm's
 * release as --engine-version, planned by run's own code (harness/measure/run/run-plan.ts) and
 * recorded as that run command line, so every arm's result reads as the run it was. One arm run is
 * a fresh launch on a free port, its warmup and the one load point, then teardown (executeRun).
 */
import { parseCommandArgs, stringOption, type RawOptions } from '../../lib/cli/options.ts';
import { usageError } from '../../lib/errors.ts';
import type { RunResult } from '../../contract/result.ts';
import { runCommand } from '../run/command.ts';
import { planRun } from '../run/run-plan.ts';
import { executeRun, onFreshPort, type RunPlan } from '../run/runner.ts';
import { describeLoad } from '../load/describe-load.ts';
import { ARM_RUN_OPTIONS } from './ab-options.ts';
import { pointMetricValue } from '../../contract/point-metric.ts';

/** The `servebench run` arguments of the arm at `version`: ab's run flags as given, in run's table order. */
export function armRunArgv(raw: RawOptions, version: string): string[] {
  const argv: string[] = [];
  for (const option of ARM_RUN_OPTIONS) {
    const value = raw[option.name];
    if (value === undefined || value === false) continue;
    if (value === true) argv.push(`--${option.name}`);
    else for (const item of Array.isArray(value) ? value : [value]) argv.push(`--${option.name}`, item);
  }
  return [...argv, '--engine-version', version];
}

/**
 * The arm's run plan. Refused here, before anything is launched: a launcher ab cannot start two
 * releases with, and a load of more than one point (the comparison is of one point's value).
 */
export async function planArm(raw: RawOptions, version: string, dummyShapes: readonly string[]): Promise<RunPlan> {
  const argv = armRunArgv(raw, version);
  const runRaw = parseCommandArgs(runCommand.spec, argv);
  if (stringOption(runCommand.spec, runRaw, 'launcher') === 'external') throw usageError('--launcher external: ab launches each arm at its own release; give --launcher process or docker');
  const plan = await planRun(runCommand.spec, runRaw, argv, dummyShapes);
  if (plan.load.loads.length !== 1) {
    throw usageError(`--concurrency: the load is ${plan.load.loads.length} points (${plan.load.loads.map(describeLoad).join('; ')}); ab compares one: give --concurrency N (or --rate R) for the point to compare`);
  }
  return plan;
}

/** One arm run: its full result, and the metric's value or why it has none. */
export interface ArmRun {
  readonly result: RunResult;
  /** The metric at the run's one point; null when the run has none (`problem` says why). */
  readonly value: number | null;
  readonly problem: string | null;
  readonly interrupted: boolean;
}

/** A fresh launch of `plan` on a port of its own, measured and torn down; never throws for a failed run. */
export async function runArm(plan: RunPlan, metric: string, signal: AbortSignal): Promise<ArmRun> {
  const { result } = await executeRun(await onFreshPort(plan), signal);
  const failed = (problem: string, interrupted = false): ArmRun => ({ result, value: null, problem, interrupted });
  if (signal.aborted || result.status === 'interrupted') return failed('interrupted', true);
  if (result.run?.failure) return failed(`the run failed during ${result.run.failure.phase}: ${result.run.failure.message}`);
  if (result.outcome.exceeded_max_failure_rate) return failed('more requests failed than --max-failure-rate allows');
  const point = result.points[0];
  if (point === undefined) return failed('the run measured no point');
  const read = pointMetricValue(point, metric);
  if ('problem' in read) return failed(read.problem);
  if (!(read.value > 0 && Number.isFinite(read.value))) return failed(`${metric} is ${read.value}; a ratio needs a value > 0`);
  return { result, value: read.value, problem: null, interrupted: false };
}
