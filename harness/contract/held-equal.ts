/**
 * What the fleet holds equal across engines (fleet/fleet.yaml `held_equal`, overridable per matrix
 * entry): left unset, each engine's own default decides prefix caching, the batch cap, how much
 * memory the KV cache gets, its dtype and whether a model's generation_config.json changes the
 * sampling defaults, and a comparison measures those defaults instead of the engines. `plan` turns
 * each held value into the `servebench run` flag below and every engine file says how it honours it
 * (a flag, the request body, or a reason it cannot: plan then refuses that engine there).
 */
import { z } from 'zod';
import type { ServeParameter } from './engine.ts';

/** The batch cap at the highest concurrency the entry's sweeps reach: no engine queues below it. */
export const TOP_CONCURRENCY = 'at-least-top-concurrency';

export const HeldEqualSchema = z
  .object({
    prefix_caching: z
      .enum(['on', 'off'])
      .nullable()
      .describe('Prefix caching on or off for every engine (vLLM, SGLang, TensorRT-LLM and MLC default on, LMDeploy off)'),
    max_num_seqs: z
      .union([z.literal(TOP_CONCURRENCY), z.number().int().positive()])
      .nullable()
      .describe(`The batch cap (llama.cpp: its slots): ${TOP_CONCURRENCY} is the highest concurrency of the entry's workloads; a number must be at least that`),
    kv_budget_tokens: z
      .number()
      .int()
      .positive()
      .nullable()
      .describe('The KV cache every engine gets, in tokens; each engine file translates it to its own knob (blocks, tokens, pool size)'),
    kv_cache_dtype: z
      .enum(['auto', 'bf16', 'fp16', 'fp8'])
      .nullable()
      .describe("The KV cache's dtype, named so a quantized checkpoint cannot make one engine pick FP8 while another keeps bf16 (auto: each engine's own rule)"),
    sampling: z
      .enum(['neutral'])
      .nullable()
      .describe("neutral: a model's generation_config.json does not change any engine's sampling defaults (OpenAI's neutral values apply)"),
  })
  .strict();

export type HeldEqual = z.infer<typeof HeldEqualSchema>;
export type HeldEqualName = keyof HeldEqual;

export const HELD_EQUAL_NAMES = ['prefix_caching', 'max_num_seqs', 'kv_budget_tokens', 'kv_cache_dtype', 'sampling'] as const satisfies readonly HeldEqualName[] & readonly ServeParameter[];

/** Nothing held: every engine's default applies (a fleet file without held_equal). */
export const NOTHING_HELD: HeldEqual = { prefix_caching: null, max_num_seqs: null, kv_budget_tokens: null, kv_cache_dtype: null, sampling: null };

/** The fleet's held_equal with a matrix entry's override applied field by field (null in the entry: not held there). */
export function resolveHeldEqual(fleetLevel: Partial<HeldEqual> | undefined, entry: Partial<HeldEqual> | undefined): HeldEqual {
  return { ...NOTHING_HELD, ...fleetLevel, ...entry };
}

/** The highest concurrency of closed-loop sweeps (null: none has one, e.g. only open-loop rates). */
export function topConcurrency(loads: ReadonlyArray<{ readonly concurrency?: readonly number[] } | object>): number | null {
  const levels = loads.flatMap((load) => ('concurrency' in load && Array.isArray(load.concurrency) ? (load.concurrency as number[]) : []));
  return levels.length > 0 ? Math.max(...levels) : null;
}

/** A held value as the serve parameter `servebench run` passes on (prefix caching is a boolean there). */
export function heldServeValue(name: HeldEqualName, value: string | number): string | number | boolean {
  return name === 'prefix_caching' ? value === 'on' : value;
}

/** The `servebench run` flag of each held parameter (the option table in contract/command-options.ts). */
export const HELD_EQUAL_FLAGS: Readonly<Record<HeldEqualName, string>> = {
  prefix_caching: '--prefix-caching',
  max_num_seqs: '--max-num-seqs',
  kv_budget_tokens: '--kv-budget-tokens',
  kv_cache_dtype: '--kv-cache-dtype',
  sampling: '--sampling',
};
