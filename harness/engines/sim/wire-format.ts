/**
 * What the sim's imitation of one engine's stream is made of. Each engine's module (wire-vllm.ts,
 * wire-sglang.ts, wire-trtllm.ts, wire-llamacpp.ts, wire-plain.ts) builds its events from per-request
 * string templates, derived from that engine's own serving code and cited there: only the token's
 * precomputed JSON literal changes between events, so streaming never stringifies.
 */
import type { FinishReason } from './faults.ts';

export type EndpointKind = 'chat' | 'completion';

export interface SseFraming {
  readonly crlf: boolean;
  readonly noSpace: boolean;
}

export interface UsageCounts {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** llama.cpp reports prefill and decode times; others ignore these. */
  readonly promptMs: number;
  readonly predictedMs: number;
  /** Prompt tokens found in the prefix cache (prefix-cache.ts). */
  readonly cachedTokens: number;
  /** vLLM and SGLang put cachedTokens in usage only when started to (SimConfig.reportCachedTokens); llama.cpp always does. */
  readonly cachedReported: boolean;
}

/** The `stream_options` a request sent: null when it sent none. */
export interface StreamOptions {
  readonly includeUsage: boolean | undefined;
}

/** One response as the engine module sees it; id and model are JSON string literals. */
export interface WireContext {
  readonly chat: boolean;
  readonly idJson: string;
  readonly modelJson: string;
  readonly created: number;
  /** The request's stream_options, as the engine reads them (usage chunk or not). */
  readonly streamOptions: StreamOptions | null;
  /** `json` as one SSE event in the sim's framing ("data: …" and a blank line). */
  event(json: string): string;
  /** The part of an event before its JSON, and after it. */
  readonly open: string;
  readonly close: string;
  readonly keepalive: string;
}

export interface StreamFormat {
  /** Role-only chunk sent with the first token; '' for engines without one. */
  readonly rolePrelude: string;
  readonly keepalive: string;
  /** Tokens carried by content event number `eventIndex` (always 1 except llama.cpp). */
  tokensPerEvent(eventIndex: number): number;
  content(textJson: string): string;
  /** The last text event with the finish reason on it, where the engine puts it there, or null. */
  lastContent(textJson: string, reason: FinishReason): string | null;
  /** Everything after the last token: finish event unless lastContent sent it, usage, [DONE]. */
  finish(reason: FinishReason, usage: UsageCounts, finishAlreadySent: boolean): string;
  malformed(): string;
  /**
   * The engine's error in place of the rest of the stream (with [DONE] where it sends one), or
   * null where it has none: its server aborts the response, and the sim cuts the connection.
   */
  error(code: number, message: string): string | null;
}

export function wireContext(framing: SseFraming, view: { readonly kind: EndpointKind; readonly id: string; readonly model: string; readonly created: number }, streamOptions: StreamOptions | null): WireContext {
  const open = framing.noSpace ? 'data:' : 'data: ';
  const close = framing.crlf ? '\r\n\r\n' : '\n\n';
  return {
    chat: view.kind === 'chat',
    idJson: JSON.stringify(view.id),
    modelJson: JSON.stringify(view.model),
    created: view.created,
    streamOptions,
    event: (json) => open + json + close,
    open,
    close,
    keepalive: `: keep-alive${close}`,
  };
}

/**
 * The token id the sim's EOS has where an engine names it (SGLang's matched_stop): outside the
 * range of the sim's tokenize ids (word hashes mod 100 000, tokenize.ts), so it is no word's.
 */
export const SIM_EOS_TOKEN_ID = 100_000;

/**
 * ErrorResponse as SGLang and TensorRT-LLM define it (both from FastChat's protocol): flat, with
 * "object": "error" first, param null (sglang protocol.py @004c82e0, tensorrt_llm/serve/openai_protocol.py @0076e939).
 */
export function flatErrorBody(status: number, message: string, type: string): string {
  return `{"object":"error","message":${JSON.stringify(message)},"type":${JSON.stringify(type)},"param":null,"code":${status}}`;
}
