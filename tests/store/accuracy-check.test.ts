/**
 * [accuracy] on each of its conditions: a block as summarizeAccuracy writes it (4 real GSM8K
 * problems; SYNTHETIC answers: one right, one wrong, one empty, one failed request) passes, a
 * skipped block passes, and each edit that breaks one condition is one problem at the field it names.
 */
import { describe, expect, it } from 'vitest';
import type { Accuracy, AccuracyScored, AccuracyTaskSpec } from '../../harness/contract/accuracy.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { loadGsm8k } from '../../harness/measure/accuracy/gsm8k-dataset.ts';
import { selectSlice } from '../../harness/measure/accuracy/slice.ts';
import { summarizeAccuracy } from '../../harness/measure/accuracy/summarize-accuracy.ts';
import { checkAccuracy } from '../../harness/store/accuracy-check.ts';
import { wilsonInterval } from '../../harness/lib/stats/wilson-interval.ts';

const TASK: AccuracyTaskSpec = { task: 'gsm8k', problems: 4, seed: 3, shots: 2, concurrency: 1 };

function scored(): AccuracyScored {
  const dataset = loadGsm8k();
  const slice = selectSlice(dataset.length, TASK.problems, TASK.shots, TASK.seed);
  const problems = slice.problemIds.map((id) => dataset[id]!);
  return summarizeAccuracy({
    model: 'm',
    api: 'completions',
    seed: TASK.seed,
    slice,
    problems,
    answers: [
      { text: problems[0]!.answer, finishReason: 'stop', failure: null },
      { text: 'The answer is 1000001.', finishReason: 'stop', failure: null },
      { text: '', finishReason: 'stop', failure: null },
      { text: null, finishReason: null, failure: { class: 'http_error', status: 500, message: 'HTTP 500: boom' } },
    ],
    durationS: 1,
  });
}

/** The fields checkAccuracy reads of a run result (the rest of the file is other rules'). */
function run(block: Accuracy | undefined, declared: AccuracyTaskSpec | null = TASK, status: RunResult['status'] = 'completed'): RunResult {
  return { status, target: { api: 'completions', model: 'm' }, workload: { spec: declared === null ? {} : { accuracy: declared } }, run: { accuracy: block } } as unknown as RunResult;
}

function problems(result: RunResult): string[] {
  const found: string[] = [];
  checkAccuracy(result, (path, message) => found.push(`${path}: ${message}`));
  return found;
}

describe('[accuracy]', () => {
  it('passes the blocks the harness writes: scored, skipped, none declared, and a run stopped before the task', () => {
    const block = scored();
    expect(block).toMatchObject({ answered: 3, failed: 1, correct: { flexible: 1 } });
    expect(problems(run(block))).toEqual([]);
    expect(problems(run({ status: 'skipped', task: 'gsm8k', skipped: 'dummy weights: …' }))).toEqual([]);
    expect(problems(run(undefined, null))).toEqual([]);
    expect(problems(run(undefined, TASK, 'interrupted'))).toEqual([]);
  });

  const broken: Array<[string, (block: AccuracyScored) => void, string]> = [
    ['another slice than declared', (b) => (b.seed = 4), 'run.accuracy.seed'],
    ['other shots than declared', (b) => (b.shots = 5), 'run.accuracy.shots'],
    ['another api than the run measured', (b) => (b.api = 'chat'), 'run.accuracy.api'],
    ['another model than the run measured', (b) => (b.model = 'other'), 'run.accuracy.model'],
    ['a failed request scored correct', (b) => (b.records[3]!.correct.strict = true), 'run.accuracy.records[3].correct'],
    ['an interval off the Wilson interval of its counts', (b) => (b.interval.flexible = [0.01, 0.9]), 'run.accuracy.interval.flexible'],
    ['an interval where nothing was answered', (b) => ((b.answered = 0), (b.interval.strict = [0, 1])), 'run.accuracy.interval.strict'],
  ];
  for (const [name, edit, path] of broken) {
    it(`refuses ${name}`, () => {
      const block = scored();
      edit(block);
      const found = problems(run(block));
      expect(found.length, found.join('\n')).toBeGreaterThan(0);
      expect(found.every((line) => line.includes('[accuracy] '))).toBe(true);
      expect(found.map((line) => line.split(': ')[0])).toContain(path);
    });
  }

  it('refuses a block of another task, a block the workload does not declare, and a completed run without the declared block', () => {
    expect(problems(run({ status: 'skipped', task: 'gsm8k', skipped: 'x' }, null))).toEqual(['run.accuracy: [accuracy] an accuracy block in a run whose workload declares no accuracy task']);
    expect(problems(run({ status: 'skipped', task: 'other' as 'gsm8k', skipped: 'x' }))).toEqual(['run.accuracy.task: [accuracy] task other is not the workload\'s gsm8k']);
    expect(problems(run(undefined))).toEqual(['run.accuracy: [accuracy] the workload declares the gsm8k task, but the completed run has no accuracy block']);
    // Only a completed run owes the block: a failed or interrupted one may stop before the task.
    expect(problems(run(undefined, TASK, 'failed'))).toEqual([]);
    // A result with no run block (a `load` of a server) has no accuracy to check.
    expect(problems({ status: 'completed', target: { api: 'completions', model: 'm' }, workload: { spec: { accuracy: TASK } } } as unknown as RunResult)).toEqual([]);
  });

  /** Every problem of a result with its fix, one line each. */
  function withFixes(result: RunResult): string[] {
    const found: string[] = [];
    checkAccuracy(result, (path, message, fix) => found.push(`${path}: ${message} | ${fix}`));
    return found;
  }
  const SLICE_FIX = "the block asks the workload's declared slice (accuracy.problems, seed, shots) of the model the run measured, through the workload's api: keep what the harness wrote";

  it('names the field, the value and what the run declares, with the fix, for each field of the slice and the target', () => {
    const cases: Array<[(b: AccuracyScored) => void, string]> = [
      [(b) => (b.problems = 5), "run.accuracy.problems: [accuracy] problems 5 is not the run's 4"],
      [(b) => (b.seed = 4), "run.accuracy.seed: [accuracy] seed 4 is not the run's 3"],
      [(b) => (b.shots = 5), "run.accuracy.shots: [accuracy] shots 5 is not the run's 2"],
      [(b) => (b.api = 'chat'), 'run.accuracy.api: [accuracy] api "chat" is not the run\'s "completions"'],
      [(b) => (b.model = 'other'), 'run.accuracy.model: [accuracy] model "other" is not the run\'s "m"'],
    ];
    for (const [edit, expected] of cases) {
      const block = scored();
      edit(block);
      expect(withFixes(run(block))).toEqual([`${expected} | ${SLICE_FIX}`]);
    }
  });

  it('a failed request scored correct is named at its own record, the first one included', () => {
    const block = scored();
    block.records[0]!.failure = 'http_error';
    const found = withFixes(run(block));
    expect(found[0]).toBe('run.accuracy.records[0].correct: [accuracy] a problem whose request failed is marked correct | a failed request has no answer to score: correct false under both filters');
  });

  it('judges each end of the interval against Wilson within 1e-6, and says both', () => {
    const block = scored();
    const wilson = wilsonInterval(block.correct.flexible, block.answered)!;
    const fix = 'the interval is the Wilson score interval at 95% of correct / answered (docs/accuracy.md#interval): keep what the harness wrote';
    const shown = (v: readonly number[]) => `[${v.map((n) => n.toFixed(6)).join(', ')}]`;
    // Half the tolerance off on both ends: as computed. Twice it on one end only: written.
    block.interval.flexible = [wilson[0] + 5e-7, wilson[1] - 5e-7];
    expect(withFixes(run(block))).toEqual([]);
    block.interval.flexible = [wilson[0], wilson[1] + 2e-6];
    expect(withFixes(run(block))).toEqual([`run.accuracy.interval.flexible: [accuracy] ${shown(block.interval.flexible)} is not the 95% Wilson interval of 1 correct of 3 answered (${shown(wilson)}) | ${fix}`]);
    block.interval.flexible = [wilson[0] - 2e-6, wilson[1]];
    expect(withFixes(run(block))).toHaveLength(1);
    // No interval where answers were scored, and one where nothing was.
    const missing = scored();
    missing.interval.strict = null;
    expect(withFixes(run(missing))).toEqual([`run.accuracy.interval.strict: [accuracy] null is not the 95% Wilson interval of ${missing.correct.strict} correct of 3 answered (${shown(wilsonInterval(missing.correct.strict, 3)!)}) | ${fix}`]);
    const none = scored();
    none.answered = 0;
    none.interval.strict = null;
    none.interval.flexible = null;
    expect(withFixes(run(none))).toEqual([]);
  });

  it('the fixes of the block-level problems say what to do', () => {
    expect(withFixes(run({ status: 'skipped', task: 'gsm8k', skipped: 'x' }, null))[0]).toContain("| the block comes from the workload's accuracy: block (workload.spec.accuracy): keep what the harness wrote");
    expect(withFixes(run({ status: 'skipped', task: 'other' as 'gsm8k', skipped: 'x' }))[0]).toContain('| the block scores the task the workload declares: keep what the harness wrote');
    expect(withFixes(run(undefined))[0]).toContain('| servebench run scores the declared task after the load points (or records why it skipped it): measure it again with this harness');
  });
});
