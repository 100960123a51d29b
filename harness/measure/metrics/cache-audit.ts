/**
 * The cache-fidelity audit of one point (docs/metrics.md#cache-audit): how many prompt tokens a
 * perfect prefix cache would have reused (the workload's intent, workloads/reuse.ts, given which
 * earlier requests were done when each was sent) against how many the server says it reused.
 * A server that reused less than CACHE_MIN_RATIO of that is a cache_mismatch, with the likely
 * cause named: the client rewrote history, caching is off, eviction, or block size.
 */
import { CACHE_MIN_RATIO, type CacheReuseAfter, type CacheSource } from '../../contract/cache-audit.ts';
import type { CacheAudit } from '../../contract/result.ts';
import { NO_REUSE, type PromptReuse, type SharedPrefix } from '../workloads/reuse.ts';

/** What the audit reads of a prepared request (load/prepared-request.ts, which it may not import: load imports metrics). */
interface AuditedRequest {
  /** The request body as sent: where a rewritten history differs from what an earlier turn saw. */
  readonly body: Buffer;
  readonly reuse?: PromptReuse;
}
import type { RequestRecord } from './request-record.ts';

/** Cached prompt tokens as the server reported them, from the first source it offers (contract/cache-audit.ts). */
export function observedCachedTokens(record: RequestRecord): { tokens: number; source: CacheSource } | null {
  const timings = record.serverTimings;
  if (timings !== null && timings.cacheN !== null) return { tokens: timings.cacheN, source: 'timings_cache_n' };
  if (record.serverCachedTokens !== null) return { tokens: record.serverCachedTokens, source: 'usage_cached_tokens' };
  // b4753's prompt_n counts only the tokens it evaluated, not those found in the slot's cache.
  if (timings !== null && record.serverPromptTokens !== null && record.serverPromptTokens >= timings.promptN) {
    return { tokens: record.serverPromptTokens - timings.promptN, source: 'timings_prompt_n' };
  }
  return null;
}

/** Only llama.cpp reports `timings`, and its cache is per slot: reusable once the request that left it ended. */
function reuseAfterOf(records: readonly RequestRecord[]): CacheReuseAfter {
  return records.some((r) => r.serverTimings !== null) ? 'end' : 'prefill';
}

/**
 * When the server started on a request: it may have waited in the server's queue after the send
 * (llama.cpp: for a free slot), and could reuse what ended meanwhile. Where the server says how
 * long the prefill took (llama.cpp's prompt_ms), that is before its first token; else the send.
 */
function startedMs(record: RequestRecord): number {
  const first = record.contentTimesMs[0];
  if (record.serverTimings === null || first === undefined) return record.sendMs;
  return Math.max(record.sendMs, first - record.serverTimings.promptMs);
}

interface Provider {
  readonly atMs: number;
  readonly record: RequestRecord;
}

/**
 * A prefix's length: a conversation's earlier turn is its provider's whole prompt, as the server
 * counted it (exact even without a tokenizer); a group's prefix as the workload measured it.
 */
function prefixTokens(prefix: SharedPrefix, provider: RequestRecord): { tokens: number; exact: boolean } | null {
  if (prefix.chars !== null || provider.inputTokens === null) return null;
  return { tokens: provider.inputTokens, exact: provider.inputTokensSource !== 'declared' };
}

export interface RequestCache {
  readonly reusable: number;
  readonly cached: number | null;
}

export interface CacheAuditOutcome {
  readonly block: CacheAudit;
  /** By request index, for the saved requests. */
  readonly perRequest: ReadonlyMap<number, RequestCache>;
}

/** Where two sent inputs first differ inside what the later one should have resent unchanged, or null. */
function rewrittenAt(provider: unknown, request: unknown, prefix: SharedPrefix): string | null {
  const textOf = (body: unknown): string => {
    const b = body as { prompt?: unknown; messages?: Array<{ content?: unknown }> };
    return typeof b.prompt === 'string' ? b.prompt : String(b.messages?.[0]?.content ?? '');
  };
  const firstDifference = (a: string, b: string): number => {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return i;
  };
  if (prefix.chars !== null) {
    const at = firstDifference(textOf(provider), textOf(request));
    return at < prefix.chars ? `the shared prefix changed at character ${at} of ${prefix.chars}` : null;
  }
  const earlier = (provider as { messages?: Array<{ role?: unknown; content?: unknown }> }).messages ?? [];
  const later = (request as { messages?: Array<{ role?: unknown; content?: unknown }> }).messages ?? [];
  for (let m = 0; m < earlier.length; m++) {
    const a = earlier[m]!;
    const b = later[m];
    if (b === undefined || a.role !== b.role || a.content !== b.content) {
      const at = b === undefined ? 0 : firstDifference(String(a.content ?? ''), String(b.content ?? ''));
      return `message ${m} (${String(a.role)}) of the history changed at character ${at}`;
    }
  }
  return null;
}

/** Requests compared body to body when looking for a rewritten history (a JSON parse each). */
const REWRITE_CHECKS = 64;
/** vLLM's default block: a deficit below it per request is what whole-block reuse loses. */
const BLOCK_TOKENS = 16;

function likelyCause(
  deficits: ReadonlyArray<{ record: RequestRecord; prefix: SharedPrefix; provider: number; deficit: number }>,
  cachedSum: number,
  reuseAfter: CacheReuseAfter,
  prepared: (index: number) => AuditedRequest,
): string {
  for (const { record, prefix, provider } of deficits.slice(0, REWRITE_CHECKS)) {
    const where = rewrittenAt(JSON.parse(prepared(provider).body.toString('utf8')), JSON.parse(prepared(record.index).body.toString('utf8')), prefix);
    if (where !== null) return `client rewrote history: request ${record.index} resends request ${provider}'s prompt, but ${where}; the server could not reuse what followed`;
  }
  if (cachedSum === 0) return 'caching off: the server reused no prompt token at all (llama.cpp cache_prompt false; vLLM --no-enable-prefix-caching; SGLang --disable-radix-cache)';
  const meanDeficit = deficits.reduce((sum, d) => sum + d.deficit, 0) / Math.max(1, deficits.length);
  if (reuseAfter === 'end') {
    return 'eviction: llama.cpp keeps one prompt per slot, and a prefix was overwritten before it recurred (a slot takes whichever request comes next: more prefixes than --parallel slots, or requests of one prefix in flight together)';
  }
  if (meanDeficit < BLOCK_TOKENS) return `block size: the server reused whole blocks only (${meanDeficit.toFixed(1)} tokens short per request)`;
  return 'eviction: the cache held less than the working set of this load (KV cache too small for the prefixes in flight)';
}

export function auditCache(records: readonly RequestRecord[], prepared: (index: number) => AuditedRequest): CacheAuditOutcome {
  const done = records.filter((r) => r.failure === null && r.inputTokens !== null);
  const reuseAfter = reuseAfterOf(done);
  const providers = new Map<string, Provider>();
  for (const record of done) {
    const atMs = reuseAfter === 'end' ? record.endMs : (record.contentTimesMs[0] ?? record.endMs);
    for (const prefix of (prepared(record.index).reuse ?? NO_REUSE).provides) {
      const known = providers.get(prefix.key);
      if (known === undefined || atMs < known.atMs) providers.set(prefix.key, { atMs, record });
    }
  }
  const perRequest = new Map<number, RequestCache>();
  const deficits: Array<{ record: RequestRecord; prefix: SharedPrefix; provider: number; deficit: number }> = [];
  let promptSum = 0;
  let reusableSum = 0;
  let cachedSum = 0;
  let reported = 0;
  let source: CacheSource | null = null;
  let exact = true;
  for (const record of done) {
    const reuse = prepared(record.index).reuse ?? NO_REUSE;
    const prompt = record.inputTokens!;
    let best: { prefix: SharedPrefix; provider: number; tokens: number; exact: boolean } | null = null;
    for (const prefix of reuse.contains) {
      const provider = providers.get(prefix.key);
      if (provider === undefined || provider.atMs > startedMs(record)) continue;
      const length = prefixTokens(prefix, provider.record) ?? { tokens: prefix.tokens, exact: reuse.exact };
      if (best === null || length.tokens > best.tokens) best = { prefix, provider: provider.record.index, ...length };
    }
    if (best !== null && !best.exact) exact = false;
    // Every engine evaluates at least the prompt's last token, for the logits of the first output.
    const reusable = best === null ? 0 : Math.max(0, Math.min(best.tokens, prompt - 1));
    const observed = observedCachedTokens(record);
    promptSum += prompt;
    reusableSum += reusable;
    if (observed !== null) {
      reported += 1;
      cachedSum += observed.tokens;
      source ??= observed.source;
      if (best !== null && observed.tokens < reusable) deficits.push({ record, prefix: best.prefix, provider: best.provider, deficit: reusable - observed.tokens });
    }
    perRequest.set(record.index, { reusable, cached: observed?.tokens ?? null });
  }
  const rate = (tokens: number): number => (promptSum === 0 ? 0 : Math.min(1, tokens / promptSum));
  const allReported = done.length > 0 && reported === done.length;
  const theoretical = rate(reusableSum);
  const observed = allReported ? rate(cachedSum) : null;
  const judged = theoretical > 0 && observed !== null;
  const mismatch = judged && observed < CACHE_MIN_RATIO * theoretical;
  const block: CacheAudit = {
    requests: done.length,
    prompt_tokens: promptSum,
    reusable_tokens: reusableSum,
    cached_tokens: allReported ? cachedSum : null,
    theoretical_hit_rate: theoretical,
    observed_hit_rate: observed,
    ...(observed === null
      ? {
          observed_reason:
            done.length === 0
              ? 'no completed request'
              : reported === 0
                ? 'the server reported no cached prompt tokens (vLLM: start it with --enable-prompt-tokens-details; SGLang: --enable-cache-report)'
                : `the server reported cached prompt tokens for ${reported} of ${done.length} completed requests`,
        }
      : {}),
    source,
    reuse_after: reuseAfter,
    theory: exact ? 'exact' : 'approximate',
    min_ratio: CACHE_MIN_RATIO,
    verdict: !judged ? null : mismatch ? 'cache_mismatch' : 'consistent',
    ...(mismatch ? { cause: likelyCause(deficits.sort((a, b) => b.deficit - a.deficit), cachedSum, reuseAfter, prepared) } : {}),
  };
  return { block, perRequest };
}
