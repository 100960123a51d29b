/**
 * The one function from answers to the accuracy block: each answered problem scored by both filters,
 * failures counted by class (never scored: a failed request says nothing about the model's
 * arithmetic, and the command exits 1 for it), accuracy over the answered, its Wilson interval.
 */
import { ANSWER_FILTERS, HEADLINE_FILTER, INTERVAL_METHOD, type AccuracyProblem, type AccuracyScored, type AnswerFilter } from '../../contract/accuracy.ts';
import type { Api } from '../../contract/common.ts';
import type { FailureClass } from '../../contract/vocabulary.ts';
import type { Answer } from './ask-problems.ts';
import type { Gsm8kProblem } from './gsm8k-dataset.ts';
import { cleanFailureMessage } from '../load/failure-messages.ts';
import { GSM8K_DATASET, GSM8K_GENERATION, GSM8K_TASK_VERSION } from './gsm8k-task.ts';
import { scoreOutput } from './score.ts';
import type { ProblemSlice } from './slice.ts';
import { wilsonInterval } from '../../lib/stats/wilson-interval.ts';

export interface AccuracyRun {
  readonly model: string;
  readonly api: Api;
  readonly seed: number;
  readonly slice: ProblemSlice;
  /** The asked problems, in the slice's order, and their answers, one each. */
  readonly problems: readonly Gsm8kProblem[];
  readonly answers: readonly Answer[];
  readonly durationS: number;
}

function problemRecord(problem: Gsm8kProblem, answer: Answer): AccuracyProblem {
  if (answer.text === null) {
    return {
      id: problem.id,
      reference: problem.reference,
      extracted: { strict: null, flexible: null },
      correct: { strict: false, flexible: false },
      finish_reason: answer.finishReason,
      failure: answer.failure?.class ?? 'other',
      failure_message: cleanFailureMessage(answer.failure?.message ?? 'no answer'),
    };
  }
  const scored = scoreOutput(answer.text, problem.reference);
  return { id: problem.id, reference: problem.reference, extracted: scored.extracted, correct: scored.correct, finish_reason: answer.finishReason, failure: null, failure_message: null };
}

const perFilter = <T>(value: (filter: AnswerFilter) => T): Record<AnswerFilter, T> =>
  Object.fromEntries(ANSWER_FILTERS.map((filter) => [filter, value(filter)])) as Record<AnswerFilter, T>;

export function summarizeAccuracy(run: AccuracyRun): AccuracyScored {
  const records = run.problems.map((problem, i) => problemRecord(problem, run.answers[i]!));
  const failures: Partial<Record<FailureClass, number>> = {};
  for (const record of records) if (record.failure !== null) failures[record.failure] = (failures[record.failure] ?? 0) + 1;
  const failed = records.filter((record) => record.failure !== null).length;
  const answered = records.length - failed;
  const correct = perFilter((filter) => records.filter((record) => record.correct[filter]).length);
  return {
    status: 'scored',
    task: 'gsm8k',
    task_version: GSM8K_TASK_VERSION,
    dataset: { file: GSM8K_DATASET.file, sha256: GSM8K_DATASET.sha256, split: GSM8K_DATASET.split, size: GSM8K_DATASET.size, source: GSM8K_DATASET.source, license: GSM8K_DATASET.license },
    model: run.model,
    api: run.api,
    seed: run.seed,
    shots: run.slice.exemplarIds.length,
    exemplar_ids: run.slice.exemplarIds,
    generation: { temperature: GSM8K_GENERATION.temperature, max_tokens: GSM8K_GENERATION.maxTokens, stop: [...GSM8K_GENERATION.stop] },
    problems: records.length,
    answered,
    failed,
    failures,
    correct,
    accuracy: perFilter((filter) => (answered === 0 ? null : correct[filter] / answered)),
    interval: perFilter((filter) => wilsonInterval(correct[filter], answered)),
    interval_method: INTERVAL_METHOD,
    headline: HEADLINE_FILTER,
    duration_s: run.durationS,
    records,
  };
}
