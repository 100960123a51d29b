/**
 * An accuracy task: what a workload may declare (AccuracyTaskSpecSchema, its `accuracy` field) and
 * the block that scored it, which `servebench accuracy` prints and writes and a run result holds at
 * `run.accuracy` (run-block.ts). One task so far, GSM8K as lm-eval's `gsm8k` task scores it
 * (docs/accuracy.md). A block either scored the task or says why it was skipped (dummy weights
 * answer noise: their accuracy says nothing about the engine).
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

/** Problems in GSM8K's test split, the file every slice is drawn from (harness/measure/accuracy/gsm8k-task.ts checks its bytes). */
export const GSM8K_TEST_PROBLEMS = 1319;
/** lm-eval's num_fewshot: 5. */
export const DEFAULT_SHOTS = 5;
/** lm-eval's chain-of-thought variant (gsm8k-cot.yaml) takes 8: the most a prompt here carries. */
export const MAX_SHOTS = 8;
/**
 * 250 of the 1,319: a binomial interval at 250 is ±6 points at worst (p = 0.5) and ±1.5 at p = 1,
 * enough to tell a broken engine (near 0) from a working one, at a fifth of the full set's time.
 */
export const DEFAULT_PROBLEMS = 250;
/** lm-eval's num_concurrent defaults to 1; 4 asks 250 problems in about a quarter of the time. */
export const DEFAULT_ACCURACY_CONCURRENCY = 4;
export const MAX_ACCURACY_CONCURRENCY = 256;
/** Seeds are drawn as 32-bit integers (harness/lib/rng.ts). */
export const MAX_ACCURACY_SEED = 2 ** 32 - 1;

/**
 * What is asked: the task, the seeded slice and how many requests at once. One definition for a
 * workload's `accuracy:` block (workloads/*.yaml; `servebench run` scores it after the load points on
 * the same server) and the flags of `servebench accuracy`, which take the same defaults and bounds.
 */
export const AccuracyTaskSpecSchema = z
  .object({
    task: z.enum(ACCURACY_TASKS),
    problems: z.number().int().positive().default(DEFAULT_PROBLEMS).describe(`Problems in the seeded slice (of ${GSM8K_TEST_PROBLEMS})`),
    seed: z.number().int().nonnegative().max(MAX_ACCURACY_SEED).default(0).describe('Picks the slice and the exemplars: the same seed asks the same problems everywhere'),
    shots: z.number().int().nonnegative().max(MAX_SHOTS).default(DEFAULT_SHOTS).describe('Few-shot exemplars before each problem'),
    concurrency: z.number().int().positive().max(MAX_ACCURACY_CONCURRENCY).default(DEFAULT_ACCURACY_CONCURRENCY).describe('Requests in flight at once (recorded: batch composition can change greedy outputs on a real engine)'),
  })
  .strict()
  .refine((spec) => spec.problems + spec.shots <= GSM8K_TEST_PROBLEMS, {
    message: `problems and shots are drawn apart from the ${GSM8K_TEST_PROBLEMS} test problems: problems + shots may be at most ${GSM8K_TEST_PROBLEMS}`,
    path: ['problems'],
  });

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

export type AccuracyTaskSpec = z.infer<typeof AccuracyTaskSpecSchema>;
export type AccuracyProblem = z.infer<typeof AccuracyProblemSchema>;
export type AccuracyScored = z.infer<typeof AccuracyScoredSchema>;
export type AccuracySkipped = z.infer<typeof AccuracySkippedSchema>;
export type Accuracy = z.infer<typeof AccuracySchema>;
