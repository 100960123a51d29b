/**
 * Where the cached prompt tokens of a request are read, on streams recorded from the real servers
 * (tests/fixtures/streams.ts): llama.cpp v0.4.0 reports timings.cache_n (and cached_tokens in
 * usage), b4753 only the prompt tokens it evaluated (timings.prompt_n); SGLang's recorded chat
 * stream has prompt_tokens_details null (no --enable-cache-report), vLLM's none.
 */
import { describe, expect, it } from 'vitest';
import { readChunk } from '../../harness/measure/load/openai-chunk.ts';
import { emptyRecord, type RequestRecord } from '../../harness/measure/metrics/request-record.ts';
import { observedCachedTokens } from '../../harness/measure/metrics/cache-audit.ts';
import { LLAMACPP_CHAT_EVENTS, LLAMACPP_V040_CHAT_EVENTS, LLAMACPP_V040_COMPLETIONS_EVENTS, SGLANG_CHAT_EVENTS, VLLM_CHAT_EVENTS } from '../fixtures/streams.ts';

/** What send-request.ts keeps of a recorded stream's usage and timings. */
function recordOf(events: readonly string[]): RequestRecord {
  const record = emptyRecord(0, 'r', 0, false);
  for (const data of events) {
    const reading = readChunk(data);
    if (reading.kind !== 'chunk') continue;
    if (reading.usage?.promptTokens != null) record.serverPromptTokens = reading.usage.promptTokens;
    if (reading.usage?.cachedTokens != null) record.serverCachedTokens = reading.usage.cachedTokens;
    if (reading.timings) record.serverTimings = reading.timings;
  }
  return record;
}

describe('cached prompt tokens as each recorded server reports them', () => {
  it('llama.cpp v0.4.0: timings.cache_n first (it agrees with usage.prompt_tokens_details.cached_tokens)', () => {
    const completions = recordOf(LLAMACPP_V040_COMPLETIONS_EVENTS);
    expect(completions.serverCachedTokens).toBe(1);
    expect(observedCachedTokens(completions)).toEqual({ tokens: 1, source: 'timings_cache_n' });
    // cache_n + prompt_n = prompt_tokens: the prompt tokens it evaluated are the rest.
    expect(completions.serverTimings!.promptN + 1).toBe(completions.serverPromptTokens);
    expect(observedCachedTokens(recordOf(LLAMACPP_V040_CHAT_EVENTS))).toEqual({ tokens: 0, source: 'timings_cache_n' });
  });

  it('llama.cpp b4753: no cache_n and no prompt_tokens_details, so prompt_tokens − timings.prompt_n', () => {
    const record = recordOf(LLAMACPP_CHAT_EVENTS);
    expect(record.serverTimings!.cacheN).toBeNull();
    expect(record.serverCachedTokens).toBeNull();
    expect(observedCachedTokens(record)).toEqual({ tokens: 0, source: 'timings_prompt_n' });
  });

  it('vLLM and SGLang started without their flags: nothing', () => {
    expect(observedCachedTokens(recordOf(VLLM_CHAT_EVENTS))).toBeNull();
    expect(observedCachedTokens(recordOf(SGLANG_CHAT_EVENTS))).toBeNull();
  });
});
