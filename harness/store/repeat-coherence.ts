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
const FIXED_REASONS: ReadonlySet<string> = new Set(['completed', 'failed', 'interrupted']);

function checkBlock(result: RunResult, add: AddProblem): void {
  const repeat = result.run?.repeat;
  if (!repeat) return;
  const at = (field: string) => `run.repeat.${field}`;
  const fix = 'keep what servebench wrote: a repeat is recorded as it was run';
  if (repeat.index > repeat.of) add(at('index'), `${RULE} repeat ${repeat.index} of at most ${repeat.of}`, fix);
  // The group is named by its first repeat: the first carries its own run_id, a later one an earlier run's.
  if (repeat.index === 1 && repeat.group_id !== result.run_id) add(at('group_id'), `${RULE} the first repeat names the group ${repeat.group_id}, not its own run_id ${result.run_id}`, fix);
  if (repeat.index > 1 && repeat.group_id >= result.run_id) add(at('group_id'), `${RULE} repeat ${repeat.index} names the group ${repeat.group_id}, which is not an earlier run than its own ${result.run_id}`, fix);
  const reason = repeat.stop_reason;
  // The group ends at the last repeat it may run, and only there without a reason of its own.
  if (reason === null && repeat.index >= repeat.of) add(at('stop_reason'), `${RULE} repeat ${repeat.index} of ${repeat.of} ended the group but gives no stop_reason`, fix);
  if (result.outcome.interrupted !== (reason === 'interrupted')) {
    add(at('stop_reason'), `${RULE} stop_reason is ${JSON.stringify(reason)} but the run was ${result.outcome.interrupted ? '' : 'not '}interrupted`, fix);
  } else if (!result.outcome.interrupted && (result.status === 'failed' || result.outcome.exceeded_max_failure_rate) !== (reason === 'failed')) {
    add(at('stop_reason'), `${RULE} stop_reason is ${JSON.stringify(reason)} but the run ${result.status === 'failed' ? 'failed' : result.outcome.exceeded_max_failure_rate ? 'exceeded its max failure rate' : 'did not fail'}: a failed repeat, and only one, ends its group as failed`, fix);
  }
  if (repeat.mode === 'fixed') {
    if (reason !== null && !FIXED_REASONS.has(reason)) add(at('stop_reason'), `${RULE} --repeats N ends completed, failed or interrupted, not ${reason}`, fix);
    if (reason === 'completed' && repeat.index !== repeat.of) add(at('stop_reason'), `${RULE} completed at repeat ${repeat.index} of ${repeat.of}: a fixed group completes at its last repeat`, fix);
    if (repeat.target !== undefined || repeat.half_widths !== undefined) add(at('mode'), `${RULE} a fixed group records no target or half_widths (they are --repeats auto's)`, fix);
    return;
  }
  if (reason === 'completed') add(at('stop_reason'), `${RULE} --repeats auto does not end "completed": it ends converged, max-repeats, max-time, failed or interrupted`, fix);
  if (reason === 'max-repeats' && repeat.index !== repeat.of) add(at('stop_reason'), `${RULE} max-repeats at repeat ${repeat.index} of ${repeat.of}`, fix);
  if (repeat.target === undefined || repeat.half_widths === undefined) {
    add(at('mode'), `${RULE} --repeats auto records its target and the half_widths it judged`, fix);
    return;
  }
  if (repeat.half_widths.length !== result.points.length) add(at('half_widths'), `${RULE} ${repeat.half_widths.length} entries for ${result.points.length} points`, fix);
  if (reason === 'converged') {
    const widths = repeat.half_widths.flatMap((w) => REPEAT_METRICS.map((m) => w[m])).filter((w): w is number => w !== null);
    if (repeat.index < MIN_CONVERGED_REPEATS) add(at('stop_reason'), `${RULE} converged after ${repeat.index} repeats; --repeats auto judges convergence from ${MIN_CONVERGED_REPEATS} on`, fix);
    if (widths.length === 0) add(at('half_widths'), `${RULE} converged with no interval at all`, fix);
    const widest = Math.max(...widths);
    if (widest > repeat.target) add(at('half_widths'), `${RULE} converged, but a half-width of ${widest} exceeds the target ${repeat.target}`, fix);
  }
}

/** What the recorded --repeats asked for agrees with the block: a single run records none. */
function checkCommand(result: RunResult, command: RecordedCommand, table: readonly OptionSpec[], add: AddProblem): void {
  const repeat = result.run?.repeat;
  const asked = optionValue(command, table, 'repeats') ?? '1';
  const fix = 'keep the fields and the command line servebench recorded together (a result is not edited)';
  if (asked === '1' || asked === null) {
    if (repeat) add('run.repeat', `${RULE} a repeat block, but the command line ran a single run (no --repeats)`, fix);
    return;
  }
  if (!repeat) {
    add('harness.command', `${RULE} the command line ran --repeats ${asked}, but the result records no repeat block`, fix);
    return;
  }
  const mode = asked === 'auto' ? 'auto' : 'fixed';
  const of = asked === 'auto' ? optionValue(command, table, 'max-repeats') : asked;
  if (repeat.mode !== mode || String(repeat.of) !== of) add('run.repeat', `${RULE} the result says ${repeat.mode} of ${repeat.of} but its command line ran --repeats ${asked}${asked === 'auto' ? ` with --max-repeats ${of}` : ''}`, fix);
  if (mode === 'auto' && repeat.target !== undefined && String(repeat.target) !== String(Number(optionValue(command, table, 'repeat-target')))) {
    add('run.repeat.target', `${RULE} target ${repeat.target} but the command line ran --repeat-target ${optionValue(command, table, 'repeat-target')}`, fix);
  }
}

/** `command`: the recorded command line as read (null when it could not be read: [recorded-command] says why). */
export function checkRepeat(result: RunResult, command: RecordedCommand | null, table: readonly OptionSpec[], add: AddProblem): void {
  checkBlock(result, add);
  if (command !== null) checkCommand(result, command, table, add);
}
