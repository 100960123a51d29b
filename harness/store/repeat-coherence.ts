/**
 * `[repeat]`: a result written by `run --repeats` (run.repeat) says a coherent thing about its
 * group, and its recorded command line asked for that group. Each repeat is checked alone (its
 * siblings are other files): what one file can show is checked, nothing that needs the others.
 * docs/validation.md#plausibility-rules lists the rule; docs/metrics.md#repeats, the group.
 */
import { MIN_CONVERGED_REPEATS, REPEAT_METRICS, type RunResult } from '../contract/result.ts';
import type { OptionSpec } from '../lib/cli/options.ts';
import type { RecordedCommand } from '../lib/cli/recorded-argv.ts';
import { optionValue } from './command-agreement.ts';
import type { AddProblem } from './plausibility.ts';

const RULE = '[repeat]';
const KEEP = 'keep what servebench wrote: a repeat is recorded as it was run';
const TOGETHER = 'keep the fields and the command line servebench recorded together (a result is not edited)';

/** Every [repeat] problem goes through here: one rule, one way to report it. */
function reporter(add: AddProblem) {
  return (path: string, message: string, fix = KEEP) => add(path, `${RULE} ${message}`, fix);
}
const FIXED_REASONS: ReadonlySet<string> = new Set(['completed', 'failed', 'interrupted']);

function checkBlock(result: RunResult, add: AddProblem): void {
  const repeat = result.run?.repeat;
  if (!repeat) return;
  const at = (field: string) => `run.repeat.${field}`;
  const report = reporter(add);
  if (repeat.index > repeat.of) report(at('index'), `repeat ${repeat.index} of at most ${repeat.of}`);
  // The group is named by its first repeat: the first carries its own run_id, a later one an earlier run's.
  if (repeat.index === 1 && repeat.group_id !== result.run_id) report(at('group_id'), `the first repeat names the group ${repeat.group_id}, not its own run_id ${result.run_id}`);
  if (repeat.index > 1 && repeat.group_id >= result.run_id) report(at('group_id'), `repeat ${repeat.index} names the group ${repeat.group_id}, which is not an earlier run than its own ${result.run_id}`);
  const reason = repeat.stop_reason;
  // The group ends at the last repeat it may run, and only there without a reason of its own.
  if (reason === null && repeat.index >= repeat.of) report(at('stop_reason'), `repeat ${repeat.index} of ${repeat.of} ended the group but gives no stop_reason`);
  if (result.outcome.interrupted !== (reason === 'interrupted')) {
    report(at('stop_reason'), `stop_reason is ${JSON.stringify(reason)} but the run was ${result.outcome.interrupted ? '' : 'not '}interrupted`);
  } else if (!result.outcome.interrupted && (result.status === 'failed' || result.outcome.exceeded_max_failure_rate) !== (reason === 'failed')) {
    report(at('stop_reason'), `stop_reason is ${JSON.stringify(reason)} but the run ${result.status === 'failed' ? 'failed' : result.outcome.exceeded_max_failure_rate ? 'exceeded its max failure rate' : 'did not fail'}: a failed repeat, and only one, ends its group as failed`);
  }
  if (repeat.mode === 'fixed') {
    if (reason !== null && !FIXED_REASONS.has(reason)) report(at('stop_reason'), `--repeats N ends completed, failed or interrupted, not ${reason}`);
    if (reason === 'completed' && repeat.index !== repeat.of) report(at('stop_reason'), `completed at repeat ${repeat.index} of ${repeat.of}: a fixed group completes at its last repeat`);
    if (repeat.target !== undefined || repeat.half_widths !== undefined) report(at('mode'), `a fixed group records no target or half_widths (they are --repeats auto's)`);
    return;
  }
  if (reason === 'completed') report(at('stop_reason'), `--repeats auto does not end "completed": it ends converged, max-repeats, max-time, failed or interrupted`);
  if (reason === 'max-repeats' && repeat.index !== repeat.of) report(at('stop_reason'), `max-repeats at repeat ${repeat.index} of ${repeat.of}`);
  if (repeat.target === undefined || repeat.half_widths === undefined) {
    report(at('mode'), `--repeats auto records its target and the half_widths it judged`);
    return;
  }
  if (repeat.half_widths.length !== result.points.length) report(at('half_widths'), `${repeat.half_widths.length} entries for ${result.points.length} points`);
  if (reason === 'converged') {
    const widths = repeat.half_widths.flatMap((w) => REPEAT_METRICS.map((m) => w[m])).filter((w): w is number => w !== null);
    if (repeat.index < MIN_CONVERGED_REPEATS) report(at('stop_reason'), `converged after ${repeat.index} repeats; --repeats auto judges convergence from ${MIN_CONVERGED_REPEATS} on`);
    if (widths.length === 0) report(at('half_widths'), `converged with no interval at all`);
    const widest = Math.max(...widths);
    if (widest > repeat.target) report(at('half_widths'), `converged, but a half-width of ${widest} exceeds the target ${repeat.target}`);
  }
}

/** What the recorded --repeats asked for agrees with the block: a single run records none. */
function checkCommand(result: RunResult, command: RecordedCommand, table: readonly OptionSpec[], add: AddProblem): void {
  const repeat = result.run?.repeat;
  const asked = optionValue(command, table, 'repeats') ?? '1';
  const report = reporter(add);
  const fix = TOGETHER;
  if (asked === '1') {
    if (repeat) report('run.repeat', `a repeat block, but the command line ran a single run (no --repeats)`, fix);
    return;
  }
  if (!repeat) {
    report('harness.command', `the command line ran --repeats ${asked}, but the result records no repeat block`, fix);
    return;
  }
  const mode = asked === 'auto' ? 'auto' : 'fixed';
  const of = asked === 'auto' ? optionValue(command, table, 'max-repeats') : asked;
  if (repeat.mode !== mode || String(repeat.of) !== of) report('run.repeat', `the result says ${repeat.mode} of ${repeat.of} but its command line ran --repeats ${asked}${asked === 'auto' ? ` with --max-repeats ${of}` : ''}`, fix);
  if (mode === 'auto' && repeat.target !== undefined && String(repeat.target) !== String(Number(optionValue(command, table, 'repeat-target')))) {
    report('run.repeat.target', `target ${repeat.target} but the command line ran --repeat-target ${optionValue(command, table, 'repeat-target')}`, fix);
  }
}

/** `command`: the recorded command line as read (null when it could not be read: [recorded-command] says why). */
export function checkRepeat(result: RunResult, command: RecordedCommand | null, table: readonly OptionSpec[], add: AddProblem): void {
  checkBlock(result, add);
  if (command !== null) checkCommand(result, command, table, add);
}
