/**
 * The accuracy block: what `servebench accuracy` prints and writes, made to sit later as an optional
 * `accuracy` field of a run result (result.ts imports AccuracySchema). One task so far, GSM8K as
 * lm-eval's `gsm8k` task scores it (docs/accuracy.md). A block either scored the task or says why it
 * was skipped (dummy weights answer noise: their accuracy says nothing about the engine).
 */
import { z } from 'zod';
import { APIS } from './common.ts';
import { FAILURE_CLASSES } from './vocabulary.ts';

export const ACCURACY_TASKS = ['gsm8k'] as const;
export type AccuracyTask = (typeof ACCURACY_TASKS)[number];

/** lm-eval's two answer filters of the gsm8k task: "strict-match" and "flexible-extract". */
export const ANSWER_FILTERS = ['strict', 'flexible'] as const;
export type AnswerFilter = (typeof ANSWER_FILTERS)[number];

/** The filter whose accuracy is the headline (docs/accuracy.md#headline: why flexible-extract). */
export const HEADLINE_FILTER: AnswerFilter = 'flexible';

/** The interval every accuracy carries: Wilson's score interval at 95% (docs/accuracy.md#interval). */
export const INTERVAL_METHOD = 'wilson-95';

const count = z.number().int().nonnegative();
const proportion = z.number().min(0).max(1);
const perFilter = <T extends z.ZodType>(value: T) => z.object({ strict: value, flexible: value }).strict();
const IntervalSchema = z.tuple([proportion, proportion]).describe('[low, high] of the 95% Wilson score interval');

export const AccuracyProblemSchema = z
  .object({
    id: count.describe("The problem's 0-based line in the dataset file"),
    reference: z.string().describe('The reference answer: the number after "#### " in the dataset\'s answer, normalized as lm-eval does (commas and $ removed)'),
    extracted: perFilter(z.string().nullable()).describe('What each filter took from the output ("[invalid]": nothing matched, as lm-eval writes it); null when the request failed'),
    correct: perFilter(z.boolean()),
    finish_reason: z.string().nullable(),
    failure: z.enum(FAILURE_CLASSES).nullable().describe('Why the request failed (no answer, not scored); null when it was answered'),
    failure_message: z.string().nullable().describe("What the failure said (the server's words where it gave them), redacted and cut as a point's failure_messages are; null when answered"),
  })
  .strict();

const DatasetSchema = z
  .object({
    file: z.string().describe('The dataset file, relative to the repository'),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    split: z.literal('test'),
    size: z.number().int().positive().describe('Problems in the file'),
    source: z.string().describe('Where the file comes from (repository and commit)'),
    license: z.string(),
  })
  .strict();

const GenerationSchema = z
  .object({
    temperature: z.literal(0).describe('Greedy'),
    max_tokens: z.number().int().positive(),
    stop: z.array(z.string()),
  })
  .strict();

export const AccuracyScoredSchema = z
  .object({
    status: z.literal('scored'),
    task: z.enum(ACCURACY_TASKS),
    task_version: z.number().int().positive().describe("servebench's definition of the task (prompt, stops, scoring): bumped when any of them changes"),
    dataset: DatasetSchema,
    model: z.string(),
    api: z.enum(APIS),
    seed: z.number().int().nonnegative(),
    shots: z.number().int().nonnegative(),
    exemplar_ids: z.array(count).describe('The few-shot exemplars (ids in the dataset), in prompt order: test problems outside the slice, as the file has no train split'),
    generation: GenerationSchema,
    problems: z.number().int().positive().describe('Problems in the seeded slice'),
    answered: count.describe('Problems whose request succeeded: the denominator of accuracy'),
    failed: count,
    failures: z.partialRecord(z.enum(FAILURE_CLASSES), z.number().int().positive()).describe('Failed requests by class'),
    correct: perFilter(count),
    accuracy: perFilter(proportion.nullable()).describe('correct / answered per filter; null when nothing was answered'),
    interval: perFilter(IntervalSchema.nullable()),
    interval_method: z.literal(INTERVAL_METHOD),
    headline: z.enum(ANSWER_FILTERS).describe('The filter whose accuracy a page shows and a gate reads'),
    duration_s: z.number().nonnegative(),
    records: z.array(AccuracyProblemSchema).describe('One per problem of the slice, in id order'),
  })
  .strict()
  .superRefine((block, ctx) => {
    const problem = (path: Array<string | number>, message: string): void => ctx.addIssue({ code: 'custom', path, message });
    if (block.answered + block.failed !== block.problems) problem(['answered'], `answered ${block.answered} + failed ${block.failed} is not problems ${block.problems}`);
    if (block.records.length !== block.problems) problem(['records'], `${block.records.length} records for ${block.problems} problems`);
    const failedRecords = block.records.filter((record) => record.failure !== null).length;
    block.records.forEach((record, i) => {
      if ((record.failure === null) !== (record.failure_message === null)) problem(['records', i, 'failure_message'], 'a failure has its message, an answer none');
    });
    if (failedRecords !== block.failed) problem(['failed'], `failed is ${block.failed} but ${failedRecords} records have a failure`);
    const byClass = Object.values(block.failures).reduce((sum, n) => sum + (n ?? 0), 0);
    if (byClass !== block.failed) problem(['failures'], `the classes add up to ${byClass}, not failed ${block.failed}`);
    for (const filter of ANSWER_FILTERS) {
      const correct = block.records.filter((record) => record.correct[filter]).length;
      if (correct !== block.correct[filter]) problem(['correct', filter], `${block.correct[filter]} but ${correct} records are correct`);
      const expected = block.answered === 0 ? null : block.correct[filter] / block.answered;
      const accuracy = block.accuracy[filter];
      if (expected === null ? accuracy !== null : accuracy === null || Math.abs(accuracy - expected) > 1e-12) {
        problem(['accuracy', filter], `${accuracy} is not correct / answered (${expected})`);
      }
      const interval = block.interval[filter];
      if ((interval === null) !== (accuracy === null)) problem(['interval', filter], 'an interval goes with an accuracy, null with null');
      if (interval !== null && accuracy !== null && !(interval[0] <= accuracy && accuracy <= interval[1])) {
        problem(['interval', filter], `[${interval[0]}, ${interval[1]}] does not hold the accuracy ${accuracy}`);
      }
    }
  });

export const AccuracySkippedSchema = z
  .object({
    status: z.literal('skipped'),
    task: z.enum(ACCURACY_TASKS),
    skipped: z.string().describe('Why the task did not run, e.g. "dummy weights: …"'),
  })
  .strict();

export const AccuracySchema = z.discriminatedUnion('status', [AccuracyScoredSchema, AccuracySkippedSchema]);

export type AccuracyProblem = z.infer<typeof AccuracyProblemSchema>;
export type AccuracyScored = z.infer<typeof AccuracyScoredSchema>;
export type AccuracySkipped = z.infer<typeof AccuracySkippedSchema>;
export type Accuracy = z.infer<typeof AccuracySchema>;
