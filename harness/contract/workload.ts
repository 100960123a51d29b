/**
 * The workload spec: one named scenario per workloads/*.yaml, the one definition of what a
 * scenario may say. Lengths are in tokens of the model's tokenizer (approximate without one, and
 * the result says so).
 */
import { z } from 'zod';
import { ARRIVALS, APIS, SloSchema } from './common.ts';
import { AccuracyTaskSpecSchema } from './accuracy.ts';

const tokens = z.number().int().positive();

export const LengthDistributionSchema = z.discriminatedUnion('dist', [
  z.object({ dist: z.literal('fixed'), tokens }).strict(),
  z
    .object({ dist: z.literal('uniform'), min: tokens, max: tokens })
    .strict()
    .refine((d) => d.min <= d.max, { message: 'min must be ≤ max', path: ['max'] }),
  z
    .object({
      dist: z.literal('range_ratio'),
      tokens,
      ratio: z.number().min(0).max(1),
      convention: z.enum(['vllm', 'sglang']).describe('vllm (≥ 0.8.4): [L(1−r), L(1+r)]; sglang and older vLLM: [L·r, L]'),
    })
    .strict()
    .refine((d) => d.convention !== 'vllm' || d.ratio < 1, { message: 'with convention vllm the ratio must be < 1 (as vLLM requires)', path: ['ratio'] }),
  z
    .object({ dist: z.literal('normal'), mean: z.number().positive(), std: z.number().nonnegative(), min: tokens, max: tokens })
    .strict()
    .refine((d) => d.min <= d.max, { message: 'min must be ≤ max', path: ['max'] }),
  z
    .object({
      dist: z.literal('lognormal'),
      median: z.number().positive().describe('exp(μ): half the lengths are below it'),
      sigma: z.number().nonnegative().describe('σ of the log-length'),
      min: tokens,
      max: tokens,
    })
    .strict()
    .refine((d) => d.min <= d.max, { message: 'min must be ≤ max', path: ['max'] }),
  z.object({ dist: z.literal('empirical') }).strict().describe("The lengths of the dataset's entries"),
]);
export type LengthDistribution = z.infer<typeof LengthDistributionSchema>;

/** The smallest length a distribution can draw (1 for empirical: unknown until the dataset is read). */
export function smallestLength(dist: LengthDistribution): number {
  switch (dist.dist) {
    case 'fixed':
      return dist.tokens;
    case 'range_ratio':
      return dist.convention === 'vllm' ? Math.max(1, Math.trunc(dist.tokens * (1 - dist.ratio))) : Math.max(1, Math.trunc(dist.tokens * dist.ratio));
    case 'empirical':
      return 1;
    default:
      return dist.min;
  }
}

export const DatasetSchema = z
  .object({
    format: z.enum(['sharegpt', 'trace']).describe('sharegpt: JSON or JSONL conversations; trace: JSONL of {timestamp_ms, input_tokens, output_tokens}'),
    path: z.string().min(1).describe('Local file; relative paths are from the repository root'),
    text: z
      .enum(['original', 'synthetic'])
      .default('original')
      .describe("original: send the dataset's own prompts; synthetic: corpus text of the same token lengths (a trace has no text)"),
    min_input_tokens: z.number().int().positive().optional(),
    max_input_tokens: z.number().int().positive().optional(),
    min_output_tokens: z.number().int().positive().optional(),
    max_output_tokens: z.number().int().positive().optional(),
  })
  .strict();
export type Dataset = z.infer<typeof DatasetSchema>;

export const WorkloadSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes, like the file name'),
    description: z.string().min(1),
    api: z.enum(APIS).default('chat'),
    input: LengthDistributionSchema.describe(
      'Prompt tokens per request (after the chat template for chat); with multi_turn, the tokens of each new user message.',
    ),
    output: LengthDistributionSchema.describe('max_tokens per request.'),
    shared_prefix: z
      .object({
        tokens: tokens.describe('Length of the prefix the requests of a group share.'),
        groups: z.number().int().positive().describe('Number of distinct prefixes; requests are dealt to groups in turn.'),
      })
      .strict()
      .optional(),
    multi_turn: z
      .object({ turns: z.number().int().min(2).describe('Requests per conversation; each resends the history so far.') })
      .strict()
      .optional(),
    dataset: DatasetSchema.optional().describe('Requests (and with a trace, arrival times) from a file instead of distributions'),
    requests: z
      .object({
        count: z.number().int().positive().optional(),
        duration_s: z.number().positive().optional(),
        warmup: z.number().int().nonnegative().default(2),
      })
      .strict()
      .refine((r) => r.count !== undefined || r.duration_s !== undefined, { message: 'give count or duration_s (or both)' }),
    load: z.union([
      z.object({ concurrency: z.array(z.number().int().positive()).min(1) }).strict(),
      z
        .object({
          rates: z.array(z.union([z.number().positive(), z.literal('inf')])).min(1),
          arrival: z.enum(ARRIVALS).default('poisson'),
          burstiness: z.number().positive().default(1),
          max_concurrency: z.number().int().positive().optional(),
        })
        .strict(),
      z
        .object({
          trace: z
            .object({
              time_scale: z.number().positive().default(1).describe('Multiplies the gaps between arrivals: 0.5 replays twice as fast'),
              max_concurrency: z.number().int().positive().optional(),
            })
            .strict(),
        })
        .strict(),
    ]),
    slo: SloSchema.optional(),
    sampling: z
      .object({ temperature: z.number().nonnegative().default(0), ignore_eos: z.boolean().default(true) })
      .strict()
      .default({ temperature: 0, ignore_eos: true }),
    seed: z.number().int().nonnegative().default(0),
    prefix_caching: z
      .enum(['expected', 'irrelevant'])
      .describe('expected: the scenario rewards prefix caching (shared prefixes, conversations); irrelevant: prompts share nothing'),
    // No default: a workload without it has the spec, and so the spec_sha256, it always had.
    accuracy: AccuracyTaskSpecSchema.optional().describe(
      "An accuracy task `servebench run` scores after the load points, on the same server, through the workload's api (docs/accuracy.md); skipped, saying why, where the weights are dummy",
    ),
  })
  .strict()
  .refine((w) => !(w.shared_prefix && smallestLength(w.input) <= w.shared_prefix.tokens), {
    message: 'every input length must exceed shared_prefix.tokens (the prefix is part of the input): raise the input minimum',
    path: ['shared_prefix', 'tokens'],
  })
  .refine((w) => !(w.multi_turn && w.shared_prefix), { message: 'multi_turn and shared_prefix cannot be combined', path: ['shared_prefix'] })
  .refine((w) => !(w.multi_turn && w.api !== 'chat'), { message: 'multi_turn needs api: chat', path: ['multi_turn'] })
  .refine((w) => w.dataset !== undefined || (w.input.dist !== 'empirical' && w.output.dist !== 'empirical'), {
    message: 'empirical lengths need a dataset',
    path: ['dataset'],
  })
  .refine((w) => w.dataset === undefined || (w.input.dist === 'empirical' && w.output.dist === 'empirical'), {
    message: 'with a dataset, input and output are { dist: empirical } (the lengths come from the file)',
    path: ['input'],
  })
  .refine((w) => !('trace' in w.load) || w.dataset?.format === 'trace', { message: 'trace replay needs a dataset of format trace', path: ['load'] })
  .refine((w) => w.dataset?.format !== 'trace' || w.dataset.text === 'synthetic', {
    message: 'a trace has no text: set dataset.text: synthetic',
    path: ['dataset', 'text'],
  })
  .refine((w) => !(w.dataset && (w.multi_turn || w.shared_prefix)), { message: 'a dataset cannot be combined with multi_turn or shared_prefix', path: ['dataset'] });

export type Workload = z.infer<typeof WorkloadSchema>;
