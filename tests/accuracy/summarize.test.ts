/**
 * From answers to the block (pure, no server), and the block's schema: what the lead's validator
 * will refuse in a result's accuracy block. The answers are synthetic: written here, not measured.
 */
import { describe, expect, it } from 'vitest';
import { AccuracySchema, type AccuracyScored } from '../../harness/contract/accuracy.ts';
import type { Answer } from '../../harness/measure/accuracy/ask-problems.ts';
import { loadGsm8k } from '../../harness/measure/accuracy/gsm8k-dataset.ts';
import { selectSlice } from '../../harness/measure/accuracy/slice.ts';
import { summarizeAccuracy } from '../../harness/measure/accuracy/summarize-accuracy.ts';

const dataset = loadGsm8k();
const slice = selectSlice(dataset.length, 4, 2, 0);
const problems = slice.problemIds.map((id) => dataset[id]!);
const answered = (text: string): Answer => ({ text, finishReason: 'stop', failure: null });

function block(): AccuracyScored {
  return summarizeAccuracy({
    model: 'm',
    api: 'completions',
    seed: 0,
    slice,
    problems,
    answers: [
      answered(`#### ${problems[0]!.reference}`),
      answered(`The answer is ${problems[1]!.reference}.`),
      answered('#### 123456789'),
      { text: null, finishReason: null, failure: { class: 'timeout', status: null, message: 'no complete response within 1 ms' } },
    ],
    durationS: 1.5,
  });
}

describe('summarizeAccuracy', () => {
  it('scores the answered, counts the failed apart, and gives each filter its accuracy and interval', () => {
    const result = block();
    expect(result).toMatchObject({ problems: 4, answered: 3, failed: 1, failures: { timeout: 1 }, correct: { strict: 1, flexible: 2 }, shots: 2, exemplar_ids: slice.exemplarIds });
    expect(result.accuracy.strict).toBeCloseTo(1 / 3, 12);
    expect(result.accuracy.flexible).toBeCloseTo(2 / 3, 12);
    expect(result.records[3]).toMatchObject({ extracted: { strict: null, flexible: null }, correct: { strict: false, flexible: false }, failure: 'timeout', failure_message: 'no complete response within 1 ms' });
    expect(result.records[0]!.failure_message).toBeNull();
    expect(AccuracySchema.parse(result)).toEqual(result);
  });

  it('has no accuracy when nothing was answered', () => {
    const none = summarizeAccuracy({ model: 'm', api: 'chat', seed: 0, slice, problems, answers: problems.map(() => ({ text: null, finishReason: null, failure: { class: 'connection_refused', status: null, message: 'ECONNREFUSED' } })), durationS: 0 });
    expect(none).toMatchObject({ answered: 0, failed: 4, accuracy: { strict: null, flexible: null }, interval: { strict: null, flexible: null } });
    expect(AccuracySchema.safeParse(none).success).toBe(true);
  });
});

describe('AccuracySchema', () => {
  it.each([
    ['an accuracy that is not correct / answered', (b: AccuracyScored) => ({ ...b, accuracy: { ...b.accuracy, flexible: 1 } }), 'accuracy.flexible'],
    ['a correct count the records do not hold', (b: AccuracyScored) => ({ ...b, correct: { ...b.correct, strict: 3 } }), 'correct.strict'],
    ['failures by class that do not add up', (b: AccuracyScored) => ({ ...b, failures: {} }), 'failures'],
    ['answered and failed that are not the problems', (b: AccuracyScored) => ({ ...b, answered: 4 }), 'answered'],
    ['a failure without its message', (b: AccuracyScored) => ({ ...b, records: b.records.map((r, i) => (i === 3 ? { ...r, failure_message: null } : r)) }), 'records.3.failure_message'],
    ['an interval that does not hold its accuracy', (b: AccuracyScored) => ({ ...b, interval: { ...b.interval, strict: [0.5, 0.9] } }), 'interval.strict'],
  ] as const)('refuses %s', (_, tamper, path) => {
    const parsed = AccuracySchema.safeParse(tamper(block()));
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((issue) => issue.path.join('.'))).toContain(path);
  });

  it('takes a skipped block with its reason, and nothing else beside it', () => {
    expect(AccuracySchema.safeParse({ status: 'skipped', task: 'gsm8k', skipped: 'dummy weights: --model-weights dummy' }).success).toBe(true);
    expect(AccuracySchema.safeParse({ status: 'skipped', task: 'gsm8k', skipped: 'x', accuracy: 0 }).success).toBe(false);
  });
});
