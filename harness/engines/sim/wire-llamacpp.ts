/**
 * llama.cpp's stream (llama-server) as upstream v0.4.0 sends it: recorded from the server
 * servebench builds (tests/fixtures/streams.ts LLAMACPP_V040_*, scripts/record-stream.ts; the CPU
 * lane's engine), and as its code writes it (github.com/ggml-org/llama.cpp tools/server:
 * server_task_result_cmpl_partial / _final, to_json_oaicompat_chat_stream and to_json_oaicompat;
 * nlohmann ordered_json, so keys come in the order the code inserts them):
 * - chat opens with a role-only chunk (content null), then text chunks, an empty-delta finish
 *   chunk and a separate chunk of usage and timings with no choices;
 * - completions put created, model, system_fingerprint and object before the id (which says
 *   chatcmpl- here too), and usage and timings on the finish chunk itself, the id between them;
 * - usage (completion_tokens, prompt_tokens, total_tokens, prompt_tokens_details) and timings
 *   (cache_n, then per prompt and per prediction: n, ms, ms per token, tokens per second) come
 *   whatever stream_options says; cache_n and cached_tokens are the prompt tokens found in the
 *   slot's cache, prompt_n those evaluated (n_prompt_tokens_cache, server_slot_stats: their sum
 *   is prompt_tokens);
 * - the recording has one token per chunk; the server may coalesce, and the sim cycles 1–4 so
 *   clients cannot assume one per event;
 * - an error ends the stream with {"error": format_error_response(...)} ({"code", "message",
 *   "type"}, tools/server/utils.hpp; recorded bodies in streams.ts) and no [DONE].
 */
import type { StreamFormat, UsageCounts, WireContext } from './wire-format.ts';

export function llamacppUsageJson(usage: UsageCounts): string {
  return `{"completion_tokens":${usage.completionTokens},"prompt_tokens":${usage.promptTokens},"total_tokens":${usage.promptTokens + usage.completionTokens},"prompt_tokens_details":{"cached_tokens":${usage.cachedTokens}}}`;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** Rates as the server computes them; a zero time gives infinity, which its JSON writes as null (as JSON.stringify does). */
export function llamacppTimingsJson(usage: UsageCounts): string {
  const promptMs = round3(usage.promptMs);
  const predictedMs = round3(usage.predictedMs);
  const evaluated = usage.promptTokens - usage.cachedTokens;
  return JSON.stringify({
    cache_n: usage.cachedTokens,
    prompt_n: evaluated,
    prompt_ms: promptMs,
    prompt_per_token_ms: promptMs / evaluated,
    prompt_per_second: (1e3 / promptMs) * evaluated,
    predicted_n: usage.completionTokens,
    predicted_ms: predictedMs,
    predicted_per_token_ms: predictedMs / usage.completionTokens,
    predicted_per_second: (1e3 / predictedMs) * usage.completionTokens,
  });
}

/** As llama-server writes it: "b<build number>-<commit>" (recorded: b1-80fb11a). */
const LLAMACPP_FINGERPRINT = 'b0-servebench-sim';
const LLAMACPP_GROUP_CYCLE = [1, 2, 3, 4] as const;

/** format_error_response: {"code", "message", "type"} in that order. */
export function llamacppErrorObject(status: number, message: string, type: string): string {
  return `{"code":${status},"message":${JSON.stringify(message)},"type":${JSON.stringify(type)}}`;
}

/** The type format_error_response gives a status (ERROR_TYPE_* in tools/server/utils.hpp). */
export function llamacppErrorType(status: number): string {
  switch (status) {
    case 400: return 'invalid_request_error';
    case 401: return 'authentication_error';
    case 403: return 'permission_error';
    case 404: return 'not_found_error';
    case 501: return 'not_supported_error';
    case 503: return 'unavailable_error';
    default: return 'server_error';
  }
}

export function llamacppStream(ctx: WireContext): StreamFormat {
  const objectName = ctx.chat ? 'chat.completion.chunk' : 'text_completion';
  const tail = ctx.chat
    ? `,"created":${ctx.created},"id":${ctx.idJson},"model":${ctx.modelJson},"system_fingerprint":"${LLAMACPP_FINGERPRINT}","object":"${objectName}"`
    : `,"created":${ctx.created},"model":${ctx.modelJson},"system_fingerprint":"${LLAMACPP_FINGERPRINT}","object":"${objectName}"`;
  const contentOpen = ctx.open + (ctx.chat ? '{"choices":[{"finish_reason":null,"index":0,"delta":{"content":' : '{"choices":[{"text":');
  const contentClose = (ctx.chat ? '}}]' + tail : ',"index":0,"logprobs":null,"finish_reason":null}]' + tail + `,"id":${ctx.idJson}`) + '}' + ctx.close;
  const usageAndTimings = (usage: UsageCounts): string => `"usage":${llamacppUsageJson(usage)},"timings":${llamacppTimingsJson(usage)}`;
  return {
    rolePrelude: ctx.chat ? ctx.event(`{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}]${tail}}`) : '',
    keepalive: ctx.keepalive,
    tokensPerEvent: (eventIndex) => LLAMACPP_GROUP_CYCLE[eventIndex % LLAMACPP_GROUP_CYCLE.length]!,
    content: (textJson) => contentOpen + textJson + contentClose,
    lastContent: () => null,
    finish: (reason, usage) => {
      if (ctx.chat) {
        return (
          ctx.event(`{"choices":[{"finish_reason":"${reason}","index":0,"delta":{}}]${tail}}`) +
          ctx.event(`{"choices":[]${tail},${usageAndTimings(usage)}}`) +
          ctx.event('[DONE]')
        );
      }
      return ctx.event(`{"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"${reason}"}]${tail},"usage":${llamacppUsageJson(usage)},"id":${ctx.idJson},"timings":${llamacppTimingsJson(usage)}}`) + ctx.event('[DONE]');
    },
    malformed: () => `${contentOpen}"sim-malformed${ctx.close}`,
    error: (code, message) => ctx.event(`{"error":${llamacppErrorObject(code, message, llamacppErrorType(code))}}`),
  };
}
