/**
 * The output-fidelity probe of a run (docs/metrics.md#output-fidelity): what the server answered to
 * a fixed, versioned set of greedy prompts after the load points, and, for workloads that reuse
 * prefixes, whether the same requests answered alike cold and warm. Compile compares the answers
 * with the configuration's reference run (harness/store/fidelity.ts); the file records only facts.
 */
import { z } from 'zod';

/** The outcome of sending the probe's requests twice (cold, then with their prompts cached). */
export const CACHE_EQUALITY_VERDICTS = ['identical', 'differs'] as const;

export const FidelityOutputSchema = z
  .object({
    text: z.string().describe('The generated text'),
    text_sha256: z.string().regex(/^[0-9a-f]{64}$/).describe('sha256 of text (UTF-8)'),
    token_ids: z.array(z.number().int().nonnegative()).nullable().describe("The generated token ids, where the engine returns them (llama.cpp's logprobs.content[].id); null: not offered"),
    logprobs: z.array(z.number().max(0)).nullable().describe('The log-probability of each generated token, where the engine returns them; null: not offered'),
  })
  .strict();

export const FidelitySchema = z
  .object({
    probe_set: z
      .object({
        version: z.string().min(1).describe('The probe set (harness/measure/fidelity/probe-set.ts): only runs of the same version are compared'),
        sha256: z.string().regex(/^[0-9a-f]{64}$/).describe('sha256 of its prompts and output length'),
        prompts: z.number().int().positive(),
        max_tokens: z.number().int().positive().describe('Tokens asked per prompt, with ignore_eos and greedy sampling'),
      })
      .strict(),
    outputs: z.array(FidelityOutputSchema).describe("One per prompt, in the probe set's order; empty when the probe failed (error says why)"),
    cache_equality: z
      .object({
        verdict: z.enum(CACHE_EQUALITY_VERDICTS).describe('identical: every prompt answered alike cold and warm; differs: at least one did not (flagged)'),
        differing: z.array(z.number().int().nonnegative()).describe('Indexes of the prompts whose warm answer differed from the cold one'),
        method: z.literal('repeat').describe('repeat: each request sent again once its prompt is in the prefix cache (no restart; the first answer is the cold one)'),
      })
      .strict()
      .nullable()
      .describe("Null: not checked (the workload shares no prefix, or the probe failed)"),
    error: z.string().max(1000).nullable().describe('Why the probe could not complete (it never fails the run); null when it did'),
  })
  .strict();

export type Fidelity = z.infer<typeof FidelitySchema>;
export type FidelityOutput = z.infer<typeof FidelityOutputSchema>;

/** Two answers are the same output: by token ids where both have them, else by text. */
export function sameOutput(a: FidelityOutput, b: FidelityOutput): boolean {
  if (a.token_ids && b.token_ids) return a.token_ids.length === b.token_ids.length && a.token_ids.every((id, i) => id === b.token_ids![i]);
  return a.text_sha256 === b.text_sha256;
}
