/**
 * [accuracy]: a run's accuracy block (harness/measure/accuracy/summarize-accuracy.ts) is the task its
 * workload declares, asked of the model and api the run measured, and its counts give its numbers:
 * no failed problem scored correct, and each interval the Wilson interval of its counts
 * (docs/validation.md). The schema has already checked the sums (answered + failed = problems, correct
 * = the records marked correct, accuracy = correct / answered, the interval holds the accuracy).
 */
import { ANSWER_FILTERS, type AccuracyScored } from '../contract/accuracy.ts';
import type { RunResult } from '../contract/result.ts';
import { wilsonInterval } from '../lib/stats/wilson-interval.ts';

type AddProblem = (path: string, message: string, fix: string) => void;

/** The interval is float64 arithmetic on the block's own integers: anything further off was written, not computed. */
const INTERVAL_TOLERANCE = 1e-6;

const problem = (message: string): string => `[accuracy] ${message}`;

/** What the block says it asked, against what the workload declares and the run measured. */
function checkAgainstRun(block: AccuracyScored, result: RunResult, add: AddProblem): void {
  const declared = result.workload.spec.accuracy!;
  const asked: Array<[string, string | number, string | number]> = [
    ['problems', block.problems, declared.problems],
    ['seed', block.seed, declared.seed],
    ['shots', block.shots, declared.shots],
    ['api', block.api, result.target.api],
    ['model', block.model, result.target.model],
  ];
  for (const [field, value, expected] of asked) {
    if (value !== expected) {
      add(`run.accuracy.${field}`, problem(`${field} ${JSON.stringify(value)} is not the run's ${JSON.stringify(expected)}`), "the block asks the workload's declared slice (accuracy.problems, seed, shots) of the model the run measured, through the workload's api: keep what the harness wrote");
    }
  }
}

function checkCounts(block: AccuracyScored, add: AddProblem): void {
  const scoredFailure = block.records.findIndex((record) => record.failure !== null && (record.correct.strict || record.correct.flexible));
  if (scoredFailure >= 0) add(`run.accuracy.records[${scoredFailure}].correct`, problem('a problem whose request failed is marked correct'), 'a failed request has no answer to score: correct false under both filters');
  for (const filter of ANSWER_FILTERS) {
    const expected = wilsonInterval(Math.min(block.correct[filter], block.answered), block.answered);
    const interval = block.interval[filter];
    const off = expected === null || interval === null ? expected !== interval : Math.max(Math.abs(interval[0] - expected[0]), Math.abs(interval[1] - expected[1])) > INTERVAL_TOLERANCE;
    if (off) {
      const shown = (value: readonly number[] | null) => (value === null ? 'null' : `[${value.map((n) => n.toFixed(6)).join(', ')}]`);
      add(`run.accuracy.interval.${filter}`, problem(`${shown(interval)} is not the 95% Wilson interval of ${block.correct[filter]} correct of ${block.answered} answered (${shown(expected)})`), 'the interval is the Wilson score interval at 95% of correct / answered (docs/accuracy.md#interval): keep what the harness wrote');
    }
  }
}

export function checkAccuracy(result: RunResult, add: AddProblem): void {
  const run = result.run;
  if (run === undefined) return;
  const block = run.accuracy;
  const declared = result.workload.spec.accuracy;
  if (block === undefined) {
    if (declared !== undefined && result.status === 'completed') {
      add('run.accuracy', problem(`the workload declares the ${declared.task} task, but the completed run has no accuracy block`), 'servebench run scores the declared task after the load points (or records why it skipped it): measure it again with this harness');
    }
    return;
  }
  if (declared === undefined) {
    add('run.accuracy', problem('an accuracy block in a run whose workload declares no accuracy task'), "the block comes from the workload's accuracy: block (workload.spec.accuracy): keep what the harness wrote");
    return;
  }
  if (block.task !== declared.task) {
    add('run.accuracy.task', problem(`task ${block.task} is not the workload's ${declared.task}`), "the block scores the task the workload declares: keep what the harness wrote");
    return;
  }
  if (block.status === 'skipped') return;
  checkAgainstRun(block, result, add);
  checkCounts(block, add);
}
