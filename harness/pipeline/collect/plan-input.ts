/** The plan collect accounts for: what it reads of the plan.json `servebench plan --out` wrote. */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { usageError } from '../../lib/errors.ts';
import { readJsonFile } from '../../lib/io/json-file.ts';
import { PLAN_FORMAT, type Plan, type PlannedRelease } from '../plan/plan-file.ts';

/** What collect reads of a plan.json (`servebench plan --out`): the jobs, as missingJobs matches them. */
const PlanFileSchema = z
  .object({
    format: z.literal(PLAN_FORMAT),
    plan_id: z.string(),
    jobs: z.array(
      z
        .object({
          id: z.string(),
          name: z.string(),
          title: z.string(),
          triggers: z.array(z.string()),
          engine: z.string(),
          version: z.string(),
          model: z
            .object({
              id: z.string(),
              tp: z.number(),
              dtype: z.string().nullable(),
              quantization: z.string().nullable(),
              kv_cache_dtype: z.string().nullable(),
              max_model_len: z.number().nullable(),
              max_num_seqs: z.number().nullable(),
            })
            .loose(),
          gpu_type: z.string(),
          gpu: z.object({ vendor: z.enum(['nvidia', 'amd', 'cpu']), name: z.string(), aliases: z.array(z.string()), count: z.number() }).loose(),
          workload: z.string(),
          load: z.unknown(),
        })
        .loose(),
    ),
    inputs: z
      .object({
        new: z
          .array(
            z
              .object({ engine: z.string(), version: z.string(), tag: z.string().optional(), release_url: z.string().optional(), published_at: z.string().nullable().optional() })
              .loose(),
          )
          .optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

export interface LoadedPlan {
  readonly file: string;
  readonly plan: Pick<Plan, 'plan_id' | 'jobs'> & { readonly inputs?: { readonly new?: readonly PlannedRelease[] } };
}

export function loadPlanFile(file: string): LoadedPlan {
  const fix = 'give the plan.json `servebench plan --out DIR` wrote';
  if (!existsSync(file)) throw usageError(`--plan: no file ${file}; ${fix}`);
  const plan = readJsonFile(file, PlanFileSchema, { flag: '--plan', fix });
  // The fields missingJobs reads were checked above; the rest of a job is carried as written.
  return { file, plan: plan as unknown as LoadedPlan['plan'] };
}
