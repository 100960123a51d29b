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
