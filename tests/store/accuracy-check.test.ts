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
  });
});
