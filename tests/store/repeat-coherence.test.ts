/**
 * validate's [repeat] rule (harness/store/repeat-coherence.ts) called on its own, every problem
 * read whole (path, message and fix), on SYNTHETIC results (bench/lib/synthetic-results.ts: valid
 * files that measured nothing) with a repeat block and command-line flags set by hand. Each case
 * is one edit of a coherent repeat; the expected problems are what docs/validation.md's rule says
 * of it, and a coherent repeat has none. tests/run/repeat-verdict.test.ts runs the rule through
 * the whole validator.
 */
import { describe, expect, it } from 'vitest';
import { RESULT_COMMAND_OPTIONS } from '../../harness/contract/command-options.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { readRecordedArgv, type RecordedCommand } from '../../harness/lib/cli/recorded-argv.ts';
import type { OptionSpec } from '../../harness/lib/cli/options.ts';
import { checkRepeat } from '../../harness/store/repeat-coherence.ts';
import { syntheticResult, type SyntheticRun } from '../../bench/lib/synthetic-results.ts';

type Repeat = NonNullable<NonNullable<RunResult['run']>['repeat']>;

const RUN: SyntheticRun = { engine: 'vllm', version: '0.11.0', model: 'synthetic/model', gpu: 'Synthetic H100', gpuCount: 1, workload: 'chat', date: new Date(Date.UTC(2026, 10, 2, 3)), concurrencies: [1, 8], tpotMs: 20, ttftMs: 100, noise: 0, seed: 1 };
/** The group's first repeat, and a later one (an hour on: its run_id sorts after the group's). */
const FIRST = syntheticResult({ ...RUN, seed: 1 });
const LATER = syntheticResult({ ...RUN, seed: 2, date: new Date(RUN.date.getTime() + 3_600_000) });
const GROUP = FIRST.run_id;

const KEEP = 'keep what servebench wrote: a repeat is recorded as it was run';
const TOGETHER = 'keep the fields and the command line servebench recorded together (a result is not edited)';

/** Two points' half-widths, the widest 0.05: exactly the target, which converges (at most, not below). */
const WIDTHS = [
  { output_throughput: 0.01, ttft_ms_p50: 0.02, tpot_ms_p50: null },
  { output_throughput: 0.03, ttft_ms_p50: 0.05, tpot_ms_p50: 0.04 },
];
const AUTO3: Repeat = { group_id: GROUP, index: 3, of: 10, mode: 'auto', stop_reason: 'converged', target: 0.05, half_widths: WIDTHS };
const FIXED2: Repeat = { group_id: GROUP, index: 2, of: 2, mode: 'fixed', stop_reason: 'completed' };
const AUTO_FLAGS = ['--repeats', 'auto'];
const FIXED_FLAGS = ['--repeats', '2'];

/** The problems of `result` with `repeat` as its block and `flags` added to its command line, each as "path | message | fix". */
function problems(result: RunResult, repeat: Repeat | undefined, flags: readonly string[], table: readonly OptionSpec[] = RESULT_COMMAND_OPTIONS.run): string[] {
  const edited: RunResult = structuredClone({ ...result, harness: { ...result.harness, command: [...result.harness.command, ...flags] }, run: { ...result.run!, repeat } });
  const read = readRecordedArgv(edited.harness.command, 'run', table);
  if (!read.ok) throw new Error(`the test's command line does not read: ${read.problem.message}`);
  return commandProblems(edited, read.parsed, table);
}

function commandProblems(result: RunResult, command: RecordedCommand | null, table: readonly OptionSpec[]): string[] {
  const found: string[] = [];
  checkRepeat(result, command, table, (path, message, fix) => found.push(`${path} | ${message} | ${fix}`));
  return found;
}

const failed = (r: RunResult): RunResult => ({ ...r, status: 'failed' });
const overFailureRate = (r: RunResult): RunResult => ({ ...r, outcome: { ...r.outcome, exceeded_max_failure_rate: true } });
const interrupted = (r: RunResult): RunResult => ({ ...r, status: 'interrupted', outcome: { ...r.outcome, interrupted: true } });

describe('[repeat]: a coherent repeat has no problem', () => {
  const cases: Array<[string, RunResult, Repeat | undefined, string[]]> = [
    ['a single run', LATER, undefined, []],
    ['a single run with --repeats 1', LATER, undefined, ['--repeats', '1']],
    ['the first of two, going on', FIRST, { group_id: GROUP, index: 1, of: 2, mode: 'fixed', stop_reason: null }, FIXED_FLAGS],
    ['the last of two, completed', LATER, FIXED2, FIXED_FLAGS],
    ['a failed repeat ending its group', failed(FIRST), { ...FIXED2, index: 1, stop_reason: 'failed' }, FIXED_FLAGS],
    ['a repeat over its failure rate ending its group as failed', overFailureRate(FIRST), { ...FIXED2, index: 1, stop_reason: 'failed' }, FIXED_FLAGS],
    ['an interrupted repeat', interrupted(FIRST), { ...FIXED2, index: 1, stop_reason: 'interrupted' }, FIXED_FLAGS],
    ['an interrupted repeat that also failed (interrupted wins)', failed(interrupted(FIRST)), { ...FIXED2, index: 1, stop_reason: 'interrupted' }, FIXED_FLAGS],
    ['auto converged at the third repeat, the widest half-width exactly the target', LATER, AUTO3, AUTO_FLAGS],
    ['auto going on', LATER, { ...AUTO3, index: 2, stop_reason: null }, AUTO_FLAGS],
    ['auto at max-repeats on its last', LATER, { ...AUTO3, of: 3, stop_reason: 'max-repeats' }, [...AUTO_FLAGS, '--max-repeats', '3']],
    ['auto with its own target', LATER, { ...AUTO3, target: 0.1, half_widths: WIDTHS }, [...AUTO_FLAGS, '--repeat-target', '0.10']],
  ];
  it.each(cases)('%s', (_what, result, repeat, flags) => {
    expect(problems(result, repeat, flags)).toEqual([]);
  });

  it('reads a command table without --repeats (no default to take) as a single run', () => {
    const withoutRepeats = RESULT_COMMAND_OPTIONS.run.filter((spec) => spec.name !== 'repeats');
    expect(commandProblems(LATER, { command: 'run', options: [] }, withoutRepeats)).toEqual([]);
  });

  it('has nothing to judge in a result without a run block', () => {
    expect(commandProblems({ ...LATER, run: undefined }, { command: 'run', options: [] }, RESULT_COMMAND_OPTIONS.run)).toEqual([]);
  });

  it('judges the block alone when the command line could not be read', () => {
    expect(commandProblems({ ...LATER, run: { ...LATER.run!, repeat: AUTO3 } }, null, RESULT_COMMAND_OPTIONS.run)).toEqual([]);
  });
});

describe('[repeat]: each incoherence is reported at its field, with what it contradicts and the fix', () => {
  const at = (field: string, message: string, fix = KEEP) => `run.repeat${field === '' ? '' : `.${field}`} | [repeat] ${message} | ${fix}`;
  const cases: Array<[string, RunResult, Repeat | undefined, string[], string[]]> = [
    ['an index past of', LATER, { ...FIXED2, index: 3 }, FIXED_FLAGS, [at('index', 'repeat 3 of at most 2'), at('stop_reason', 'completed at repeat 3 of 2: a fixed group completes at its last repeat')]],
    ['a first repeat naming another group', FIRST, { group_id: LATER.run_id, index: 1, of: 2, mode: 'fixed', stop_reason: null }, FIXED_FLAGS, [at('group_id', `the first repeat names the group ${LATER.run_id}, not its own run_id ${FIRST.run_id}`)]],
    ['a later repeat naming itself', LATER, { ...FIXED2, group_id: LATER.run_id }, FIXED_FLAGS, [at('group_id', `repeat 2 names the group ${LATER.run_id}, which is not an earlier run than its own ${LATER.run_id}`)]],
    ['a later repeat naming a later run', FIRST, { ...FIXED2, group_id: LATER.run_id }, FIXED_FLAGS, [at('group_id', `repeat 2 names the group ${LATER.run_id}, which is not an earlier run than its own ${FIRST.run_id}`)]],
    ['the last repeat without a reason', LATER, { ...FIXED2, stop_reason: null }, FIXED_FLAGS, [at('stop_reason', 'repeat 2 of 2 ended the group but gives no stop_reason')]],
    ['an interrupted run not saying so', interrupted(FIRST), { ...FIXED2, index: 1, stop_reason: null }, FIXED_FLAGS, [at('stop_reason', 'stop_reason is null but the run was interrupted')]],
    ['interrupted, but the run was not', FIRST, { ...FIXED2, index: 1, stop_reason: 'interrupted' }, FIXED_FLAGS, [at('stop_reason', 'stop_reason is "interrupted" but the run was not interrupted')]],
    ['a failed run going on', failed(FIRST), { ...FIXED2, index: 1, stop_reason: null }, FIXED_FLAGS, [at('stop_reason', 'stop_reason is null but the run failed: a failed repeat, and only one, ends its group as failed')]],
    ['a run over its failure rate completing', overFailureRate(LATER), FIXED2, FIXED_FLAGS, [at('stop_reason', 'stop_reason is "completed" but the run exceeded its max failure rate: a failed repeat, and only one, ends its group as failed')]],
    ['failed, but the run did not', FIRST, { ...FIXED2, index: 1, stop_reason: 'failed' }, FIXED_FLAGS, [at('stop_reason', 'stop_reason is "failed" but the run did not fail: a failed repeat, and only one, ends its group as failed')]],
    ['a fixed group converging', LATER, { ...FIXED2, stop_reason: 'converged' }, FIXED_FLAGS, [at('stop_reason', '--repeats N ends completed, failed or interrupted, not converged')]],
    ['a fixed group completing early', LATER, { ...FIXED2, of: 3 }, ['--repeats', '3'], [at('stop_reason', 'completed at repeat 2 of 3: a fixed group completes at its last repeat')]],
    // Not --repeat-target's default either: the target is judged against the command line in auto mode only.
    ['a fixed group with a target', LATER, { ...FIXED2, target: 0.1 }, FIXED_FLAGS, [at('mode', "a fixed group records no target or half_widths (they are --repeats auto's)")]],
    ['a fixed group with half-widths', LATER, { ...FIXED2, half_widths: WIDTHS }, FIXED_FLAGS, [at('mode', "a fixed group records no target or half_widths (they are --repeats auto's)")]],
    ['auto completing', LATER, { ...AUTO3, stop_reason: 'completed' }, AUTO_FLAGS, [at('stop_reason', '--repeats auto does not end "completed": it ends converged, max-repeats, max-time, failed or interrupted')]],
    ['auto at max-repeats early', LATER, { ...AUTO3, stop_reason: 'max-repeats' }, AUTO_FLAGS, [at('stop_reason', 'max-repeats at repeat 3 of 10')]],
    ['auto without its target', LATER, { ...AUTO3, target: undefined }, AUTO_FLAGS, [at('mode', '--repeats auto records its target and the half_widths it judged')]],
    ['auto without its half-widths', LATER, { ...AUTO3, half_widths: undefined }, AUTO_FLAGS, [at('mode', '--repeats auto records its target and the half_widths it judged')]],
    ['a half-width entry short', LATER, { ...AUTO3, half_widths: [WIDTHS[1]!] }, AUTO_FLAGS, [at('half_widths', '1 entries for 2 points')]],
    ['converged at the second repeat', LATER, { ...AUTO3, index: 2 }, AUTO_FLAGS, [at('stop_reason', 'converged after 2 repeats; --repeats auto judges convergence from 3 on')]],
    ['converged with no interval', LATER, { ...AUTO3, half_widths: WIDTHS.map(() => ({ output_throughput: null, ttft_ms_p50: null, tpot_ms_p50: null })) }, AUTO_FLAGS, [at('half_widths', 'converged with no interval at all')]],
    ['converged with one half-width past the target', LATER, { ...AUTO3, half_widths: [WIDTHS[0]!, { ...WIDTHS[1]!, tpot_ms_p50: 0.06 }] }, AUTO_FLAGS, [at('half_widths', 'converged, but a half-width of 0.06 exceeds the target 0.05')]],
    ['a block on a single run', LATER, AUTO3, [], [at('', 'a repeat block, but the command line ran a single run (no --repeats)', TOGETHER)]],
    ['a block on --repeats 1', LATER, AUTO3, ['--repeats', '1'], [at('', 'a repeat block, but the command line ran a single run (no --repeats)', TOGETHER)]],
    ['an auto block of a fixed command', LATER, AUTO3, ['--repeats', '10'], [at('', 'the result says auto of 10 but its command line ran --repeats 10', TOGETHER)]],
    ['another count of a fixed command', LATER, FIXED2, ['--repeats', '5'], [at('', 'the result says fixed of 2 but its command line ran --repeats 5', TOGETHER)]],
    ['a fixed block of an auto command', LATER, { ...FIXED2, index: 10, of: 10 }, AUTO_FLAGS, [at('', 'the result says fixed of 10 but its command line ran --repeats auto with --max-repeats 10', TOGETHER)]],
    ['another --max-repeats', LATER, AUTO3, [...AUTO_FLAGS, '--max-repeats', '4'], [at('', 'the result says auto of 10 but its command line ran --repeats auto with --max-repeats 4', TOGETHER)]],
    ['another --repeat-target', LATER, AUTO3, [...AUTO_FLAGS, '--repeat-target', '0.1'], [at('target', 'target 0.05 but the command line ran --repeat-target 0.1', TOGETHER)]],
  ];
  it.each(cases)('%s', (_what, result, repeat, flags, expected) => {
    expect(problems(result, repeat, flags)).toEqual(expected);
  });

  it('a command line that ran --repeats with no block in the result', () => {
    expect(problems(LATER, undefined, ['--repeats', '3'])).toEqual([`harness.command | [repeat] the command line ran --repeats 3, but the result records no repeat block | ${TOGETHER}`]);
  });
});
