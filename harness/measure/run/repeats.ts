/**
 * `run --repeats N | auto`: the whole configuration again, each repeat its own run — its own
 * launch of the server, run_id and immutable result — recorded as one group (run.repeat).
 *
 * Why a fresh launch per repeat: the interval compile publishes is over runs that were each a
 * launch of their own (the fleet's repeats are separate jobs), so the repeats that decide when it
 * is narrow enough must sample the same variation. What a launch settles differs between launches
 * (memory placement, KV-cache allocation, CUDA graphs and autotuned kernels, thread placement); a
 * warm process repeated would hide it and converge early (docs/metrics.md#repeats). With
 * --launcher external servebench does not own the server: its repeats reuse the running one.
 */
import { parseNumber, stringOption, type CommandSpec, type RawOptions } from '../../lib/cli/options.ts';
import { parseDurationS } from '../../lib/cli/duration.ts';
import { EXIT, usageError } from '../../lib/errors.ts';
import { MIN_CONVERGED_REPEATS, RunResultSchema, type RunResult } from '../../contract/result.ts';
import { outcomeOf, type RunOutcome } from './runner.ts';
import { describeHalfWidths, halfWidthsOf, repeatLimit, stopReason, type HalfWidths, type RepeatPolicy, type StopReason } from './repeat-verdict.ts';

/** The repeat flags, normalized; null: a single run (--repeats 1, the default), which records no repeat block. */
export function repeatPolicyOf(spec: CommandSpec, raw: RawOptions): RepeatPolicy | null {
  const repeats = stringOption(spec, raw, 'repeats')!;
  const given = (name: string) => raw[name] !== undefined;
  if (repeats !== 'auto') {
    const count = parseNumber('repeats', repeats, { min: 1 }, true);
    for (const flag of ['repeat-target', 'max-repeats', 'max-repeat-time']) {
      if (given(flag)) throw usageError(`--${flag} applies to --repeats auto only; with --repeats ${repeats} every repeat runs`);
    }
    return count === 1 ? null : { mode: 'fixed', count };
  }
  const target = parseNumber('repeat-target', stringOption(spec, raw, 'repeat-target')!, { min: 0, exclusiveMin: true, max: 1 });
  const maxRepeats = parseNumber('max-repeats', stringOption(spec, raw, 'max-repeats')!, { min: MIN_CONVERGED_REPEATS }, true);
  const maxTimeS = parseDurationS('max-repeat-time', stringOption(spec, raw, 'max-repeat-time')!);
  return { mode: 'auto', target, maxRepeats, maxTimeS };
}

export function describePolicy(policy: RepeatPolicy): string {
  return policy.mode === 'fixed'
    ? `${policy.count} repeats, each a fresh launch`
    : `auto: until the 95% CI of each headline metric is within ±${policy.target * 100}%, ${MIN_CONVERGED_REPEATS} to ${policy.maxRepeats} repeats, at most ${policy.maxTimeS} s, each a fresh launch`;
}

/** One repeat as `--json` reports it. */
export interface RepeatVerdict {
  readonly index: number;
  readonly run_id: string;
  readonly path: string;
  readonly status: RunResult['status'];
  readonly stop_reason: StopReason | null;
  readonly half_widths?: readonly HalfWidths[];
}

export interface GroupOutcome {
  readonly group_id: string;
  readonly mode: RepeatPolicy['mode'];
  readonly of: number;
  readonly target?: number;
  /** Why the group ended; null when a repeat's result could not be written (exit 3). */
  readonly stop_reason: StopReason | null;
  readonly repeats: readonly RepeatVerdict[];
  /** The last exit status other than 0 of a repeat (a failed, refused or unwritten result), else 0. */
  readonly exitCode: number;
}

export interface RepeatGroupIo {
  /** Runs one repeat (a launch, the measurement, the teardown) and returns its result, not yet written. */
  readonly runOnce: (index: number) => Promise<RunOutcome>;
  /** Writes and checks one result; its exit status (0: written and valid). */
  readonly deliver: (outcome: RunOutcome) => Promise<number>;
  /** One progress line (stderr). */
  readonly announce: (line: string) => void;
  readonly resultsDir: string;
  /** Seconds, monotonic. */
  readonly nowS?: () => number;
}

/** The group's repeats, one after another, until the policy or a failure ends it. */
export async function runRepeatGroup(policy: RepeatPolicy, io: RepeatGroupIo): Promise<GroupOutcome> {
  const nowS = io.nowS ?? (() => performance.now() / 1000);
  const of = repeatLimit(policy);
  const startedS = nowS();
  const results: RunResult[] = [];
  const verdicts: RepeatVerdict[] = [];
  let groupId: string | null = null;
  let exitCode = 0;
  let stop: StopReason | null = null;
  for (let index = 1; index <= of; index++) {
    io.announce(`repeat ${index}/${of}${policy.mode === 'auto' ? ` (auto, target ±${policy.target * 100}%)` : ''}: launching`);
    const measured = await io.runOnce(index);
    groupId ??= measured.result.run_id;
    results.push(measured.result);
    const widths = policy.mode === 'auto' ? halfWidthsOf(results) : undefined;
    stop = stopReason({ policy, results, elapsedS: nowS() - startedS });
    const repeat = {
      group_id: groupId,
      index,
      of,
      mode: policy.mode,
      stop_reason: stop,
      ...(policy.mode === 'auto' ? { target: policy.target, half_widths: widths } : {}),
    };
    const outcome = outcomeOf(RunResultSchema.parse({ ...measured.result, run: { ...measured.result.run!, repeat } }), io.resultsDir);
    const delivered = await io.deliver(outcome);
    if (delivered !== 0) exitCode = delivered;
    verdicts.push({ index, run_id: outcome.result.run_id, path: outcome.path, status: outcome.result.status, stop_reason: stop, ...(widths ? { half_widths: widths } : {}) });
    io.announce(`repeat ${index}/${of} ${outcome.result.status}${widths ? `; 95% CI half-width (widest point): ${describeHalfWidths(widths)}` : ''}`);
    // A result validate refuses (exit 4: an engine file of one's own, say) is kept and measured all
    // the same, so the group goes on; one that could not be written went to stdout, and so would the next.
    if (stop !== null || delivered === EXIT.outputFailed) break;
  }
  io.announce(stop === null ? `repeats: stopped after ${verdicts.length} of ${of}: the last result could not be written (it went to stdout)` : `repeats: ${verdicts.length} of ${of}, stopped: ${stop}`);
  return { group_id: groupId!, mode: policy.mode, of, ...(policy.mode === 'auto' ? { target: policy.target } : {}), stop_reason: stop, repeats: verdicts, exitCode };
}
