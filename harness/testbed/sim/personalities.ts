/**
 * Stream shapes of the engines the sim imitates. Clients break on exactly these differences
 * (role-only first chunk, finish reason riding on a text chunk, usage in the final chunk, several
 * tokens per event), so each is reproduced on purpose. Events are built from per-request string
 * templates: only the token's precomputed JSON literal changes between events.
 */
import type { Personality } from './config.ts';
import type { FinishReason } from './faults.ts';

export type EndpointKind = 'chat' | 'completion';

export interface ResponseView {
  readonly kind: EndpointKind;
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly includeUsage: boolean;
}

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
}

export interface StreamFormat {
  /** Role-only chunk sent with the first token; '' for personalities without one. */
  readonly rolePrelude: string;
  readonly keepalive: string;
  /** Tokens carried by content event number `eventIndex` (always 1 except llama.cpp). */
  tokensPerEvent(eventIndex: number): number;
  content(textJson: string): string;
  /** The last text event with the finish reason on it (vLLM for "length"), or null. */
  lastContent(textJson: string, reason: FinishReason): string | null;
  /** Everything after the last token: finish event unless lastContent sent it, usage, [DONE]. */
  finish(reason: FinishReason, usage: UsageCounts, finishAlreadySent: boolean): string;
  malformed(): string;
  /** An error in place of the rest of the stream, as llama.cpp sends one (the stream ends after it). */
  error(code: number, message: string): string;
}

export function responseIdPrefix(personality: Personality, kind: EndpointKind): string {
  if (personality === 'sglang') return '';
  return kind === 'chat' ? 'chatcmpl-' : 'cmpl-';
}

function usageJson(personality: Personality, usage: UsageCounts): string {
  const total = usage.promptTokens + usage.completionTokens;
  if (personality === 'llamacpp') {
    return `{"completion_tokens":${usage.completionTokens},"prompt_tokens":${usage.promptTokens},"total_tokens":${total}}`;
  }
  return `{"prompt_tokens":${usage.promptTokens},"total_tokens":${total},"completion_tokens":${usage.completionTokens}}`;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function timingsJson(usage: UsageCounts): string {
  return JSON.stringify({
    prompt_n: usage.promptTokens,
    prompt_ms: round3(usage.promptMs),
    predicted_n: usage.completionTokens,
    predicted_ms: round3(usage.predictedMs),
  });
}

const LLAMACPP_FINGERPRINT = 'b0000-servebench-sim';
/** llama.cpp may coalesce tokens; the sim cycles 1–4 so clients cannot assume one per event. */
const LLAMACPP_GROUP_CYCLE = [1, 2, 3, 4] as const;

export function streamFormat(personality: Personality, framing: SseFraming, view: ResponseView): StreamFormat {
  const open = framing.noSpace ? 'data:' : 'data: ';
  const close = framing.crlf ? '\r\n\r\n' : '\n\n';
  const event = (json: string): string => open + json + close;
  const done = event('[DONE]');
  // llama-server's error object ({"error":{"code":500,"message":…,"type":"server_error"}}); the sim sends it for every personality.
  const errorEvent = (code: number, message: string): string => event(JSON.stringify({ error: { code, message, type: 'server_error' } }));
  const keepalive = `: keep-alive${close}`;
  const id = JSON.stringify(view.id);
  const model = JSON.stringify(view.model);
  const chat = view.kind === 'chat';
  const objectName = chat ? 'chat.completion.chunk' : 'text_completion';

  if (personality === 'llamacpp') {
    // As llama-server v0.4.0 streams (recorded): chat opens with a role-only chunk (content null),
    // ends with an empty-delta finish chunk and a separate chunk of usage and timings with no
    // choices; completions carry usage and timings on the finish chunk itself. Usage (and
    // timings) come whatever stream_options says.
    const tail = `,"created":${view.created},"id":${id},"model":${model},"system_fingerprint":"${LLAMACPP_FINGERPRINT}","object":"${objectName}"`;
    const contentOpen = open + (chat ? '{"choices":[{"finish_reason":null,"index":0,"delta":{"content":' : '{"choices":[{"text":');
    const contentClose = (chat ? '}}]' : ',"index":0,"logprobs":null,"finish_reason":null}]') + tail + '}' + close;
    const usageAndTimings = (usage: UsageCounts): string => `"usage":${usageJson(personality, usage)},"timings":${timingsJson(usage)}`;
    return {
      rolePrelude: chat ? event(`{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}]${tail}}`) : '',
      keepalive,
      tokensPerEvent: (eventIndex) => LLAMACPP_GROUP_CYCLE[eventIndex % LLAMACPP_GROUP_CYCLE.length]!,
      content: (textJson) => contentOpen + textJson + contentClose,
      lastContent: () => null,
      finish: (reason, usage) => {
        if (chat) {
          return (
            event(`{"choices":[{"finish_reason":"${reason}","index":0,"delta":{}}]${tail}}`) +
            event(`{"choices":[]${tail},${usageAndTimings(usage)}}`) +
            done
          );
        }
        return event(`{"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"${reason}"}]${tail},${usageAndTimings(usage)}}`) + done;
      },
      malformed: () => `${contentOpen}"sim-malformed${close}`,
      error: (code, message) => errorEvent(code, message),
    };
  }

  const head = `{"id":${id},"object":"${objectName}","created":${view.created},"model":${model},"choices":[{"index":0,`;
  const textKey = chat ? '"delta":{"content":' : '"text":';
  const textEnd = chat ? '}' : '';
  const contentOpen = open + head + textKey;
  const contentClose = `${textEnd},"logprobs":null,"finish_reason":null}]}${close}`;
  const roleChunk = chat ? event(`${head}"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`) : '';
  const sendsUsage = personality !== 'no-usage' && view.includeUsage;
  // vLLM puts the finish reason on the chunk of the token that ended generation; SGLang sends a
  // separate chunk with an empty delta (chat) or empty text (completions).
  const finishOnToken = personality !== 'sglang';
  const finishEvent = (reason: FinishReason): string => {
    const text = chat ? (finishOnToken ? '"delta":{"content":""}' : '"delta":{}') : '"text":""';
    const stopReason = finishOnToken ? ',"stop_reason":null' : '';
    return event(`${head}${text},"logprobs":null,"finish_reason":"${reason}"${stopReason}}]}`);
  };
  return {
    rolePrelude: personality === 'no-usage' ? '' : roleChunk,
    keepalive,
    tokensPerEvent: () => 1,
    content: (textJson) => contentOpen + textJson + contentClose,
    lastContent: (textJson, reason) =>
      // An EOS token has no text, so vLLM's "stop" arrives on an empty chunk after the last word.
      finishOnToken && reason === 'length'
        ? `${contentOpen}${textJson}${textEnd},"logprobs":null,"finish_reason":"length","stop_reason":null}]}${close}`
        : null,
    finish: (reason, usage, finishAlreadySent) => {
      const usageEvent = sendsUsage
        ? event(`{"id":${id},"object":"${objectName}","created":${view.created},"model":${model},"choices":[],"usage":${usageJson(personality, usage)}}`)
        : '';
      return (finishAlreadySent ? '' : finishEvent(reason)) + usageEvent + done;
    },
    malformed: () => `${contentOpen}"sim-malformed${close}`,
    error: (code, message) => errorEvent(code, message),
  };
}

/** The single JSON body of a non-streaming response. */
export function responseBody(personality: Personality, view: ResponseView, text: string, reason: FinishReason, usage: UsageCounts): string {
  const choice = view.kind === 'chat'
    ? { index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: reason }
    : { index: 0, text, logprobs: null, finish_reason: reason };
  const body: Record<string, unknown> = {
    id: view.id,
    object: view.kind === 'chat' ? 'chat.completion' : 'text_completion',
    created: view.created,
    model: view.model,
    choices: [choice],
  };
  if (personality !== 'no-usage') body['usage'] = JSON.parse(usageJson(personality, usage));
  if (personality === 'llamacpp') body['timings'] = JSON.parse(timingsJson(usage));
  return JSON.stringify(body);
}
