/**
 * The words of the cache-fidelity audit (docs/metrics.md#cache-audit) and a point's `cache` block,
 * shared by the harness that writes it (harness/measure/metrics/cache-audit.ts), the validator that
 * checks it (harness/store/cache-audit-check.ts) and compile.
 */
import { z } from 'zod';
import { noteText } from './common.ts';

/**
 * Where a request's cached prompt tokens were read, in the order they are preferred:
 * - timings_cache_n: llama.cpp's `timings.cache_n` (v0.4.0: tools/server/server-common.cpp, server_slot_stats::to_json);
 * - usage_cached_tokens: `usage.prompt_tokens_details.cached_tokens` (llama.cpp v0.4.0 always; vLLM
 *   with --enable-prompt-tokens-details; SGLang with --enable-cache-report);
 * - timings_prompt_n: usage.prompt_tokens − llama.cpp's `timings.prompt_n`, the prompt tokens it
 *   evaluated (b4753 reports nothing else: tests/fixtures/streams.ts LLAMACPP_B4753_*).
 */
export const CACHE_SOURCES = ['timings_cache_n', 'usage_cached_tokens', 'timings_prompt_n'] as const;
export type CacheSource = (typeof CACHE_SOURCES)[number];

/** consistent: the server reused at least CACHE_MIN_RATIO of what a perfect cache would have. */
export const CACHE_VERDICTS = ['consistent', 'cache_mismatch'] as const;
export type CacheVerdict = (typeof CACHE_VERDICTS)[number];

/**
 * A point whose observed hit rate is below this fraction of its theoretical one is a
 * cache_mismatch. From runs of the real llama.cpp builds b4753 and v0.4.0 (docs/metrics.md#cache-audit):
 * honest runs whose slots held the working set measured 0.90–2.0 of theory, so 0.75 leaves 16%
 * margin below the smallest; the planted history rewrite measured 0.15–0.43, eviction (3 prefixes,
 * 1 slot) 0.11–0.15, caching off 0.
 */
export const CACHE_MIN_RATIO = 0.75;

/**
 * When a request's prefix becomes reusable by a later request:
 * - end: llama.cpp keeps a prompt in the slot that served it, for the next task that slot takes
 *   (server_context::get_available_slot picks an idle slot by prompt similarity, else the least
 *   recently used): nothing of a request in flight can be reused;
 * - prefill: vLLM's and SGLang's caches are shared by every running request as soon as the
 *   prompt's blocks (vLLM) or radix-tree nodes (SGLang) are computed.
 */
export const CACHE_REUSE_AFTER = ['end', 'prefill'] as const;
export type CacheReuseAfter = (typeof CACHE_REUSE_AFTER)[number];

const count = z.number().int().nonnegative();

/** The cache-fidelity audit of a point (harness/measure/metrics/cache-audit.ts; docs/metrics.md#cache-audit). */
export const CacheAuditSchema = z
  .object({
    requests: count.describe('Completed requests counted (every sum below is over them)'),
    prompt_tokens: count.describe('Their prompt tokens'),
    reusable_tokens: count.describe('Σ reusable_prompt_tokens: what a perfect prefix cache would have reused'),
    cached_tokens: count.nullable().describe('Σ cached prompt tokens as the server reported them; null: not reported for every counted request'),
    theoretical_hit_rate: z.number().min(0).max(1).describe('reusable_tokens / prompt_tokens (0 with no prompt tokens)'),
    observed_hit_rate: z.number().min(0).max(1).nullable().describe('cached_tokens / prompt_tokens; null with cached_tokens'),
    observed_reason: noteText.optional().describe('Why observed_hit_rate is null'),
    source: z.enum(CACHE_SOURCES).nullable().describe('Where the cached counts were read (the first of the requests; harness/contract/cache-audit.ts); null when none was'),
    reuse_after: z.enum(CACHE_REUSE_AFTER).describe("When an earlier request's prompt counted as reusable: end (llama.cpp's per-slot cache) or prefill (vLLM, SGLang)"),
    theory: z.enum(['exact', 'approximate']).describe("exact: shared lengths in the model tokenizer's tokens; approximate: in corpus words (no tokenizer)"),
    min_ratio: z.number().positive().max(1).describe('The verdict threshold: cache_mismatch when observed_hit_rate < min_ratio × theoretical_hit_rate'),
    verdict: z.enum(CACHE_VERDICTS).nullable().describe('null: nothing to judge (theoretical_hit_rate 0: the workload shares no prefix; or observed_hit_rate null)'),
    cause: noteText.optional().describe('With cache_mismatch: the likely cause (client rewrote history, caching off, eviction, block size)'),
  })
  .strict();

export type CacheAudit = z.infer<typeof CacheAuditSchema>;
