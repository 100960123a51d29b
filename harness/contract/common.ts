/** Vocabulary shared by the result and workload schemas. */
import { z } from 'zod';

export const APIS = ['completions', 'chat'] as const;
export type Api = (typeof APIS)[number];
export const ARRIVALS = ['poisson', 'gamma', 'constant'] as const;

export const SloSchema = z
  .object({
    ttft_ms: z.number().positive().optional(),
    tpot_ms: z.number().positive().optional(),
    e2el_ms: z.number().positive().optional(),
  })
  .strict();

/** workload.lengths_reason and every other reason a result gives in words is at most this long (the harness cuts a long tokenizer name). */
export const MAX_LENGTHS_REASON_CHARS = 300;

/** Free text that reaches a page: one line, nothing that displays as something else. */
export const noteText = z
  .string()
  .min(1)
  .max(MAX_LENGTHS_REASON_CHARS)
  .regex(/^[^\p{Cc}\p{Cf}\u2028\u2029]*$/u, 'a reason holds no control or invisible format characters');
