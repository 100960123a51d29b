/**
 * The engines the sim imitates, each on the wire as its own serving code writes it: stream events
 * (wire-vllm.ts, wire-sglang.ts, wire-trtllm.ts, wire-llamacpp.ts, wire-plain.ts, each citing the
 * engine's files), response ids, when a usage chunk is sent, and error bodies. Clients break on
 * exactly these differences (role-only first chunk, finish reason riding on a text chunk or in its
 * own, usage in the final chunk or none, null versus absent fields, several tokens per event, an
 * error as an event or as a cut connection), so each is reproduced on purpose.
 */
import type { Personality } from './config.ts';
import type { FinishReason } from './faults.ts';
import { wireContext, flatErrorBody, type EndpointKind, type SseFraming, type StreamFormat, type StreamOptions, type UsageCounts } from './wire-format.ts';
import { llamacppErrorObject, llamacppErrorType, llamacppStream, llamacppTimingsJson, llamacppUsageJson } from './wire-llamacpp.ts';
import { plainStream } from './wire-plain.ts';
import { sglangStream } from './wire-sglang.ts';
import { trtllmStream } from './wire-trtllm.ts';
import { vllmErrorBody, vllmStream, vllmUsageJson } from './wire-vllm.ts';

export type { EndpointKind, SseFraming, StreamFormat, StreamOptions, UsageCounts } from './wire-format.ts';

export interface ResponseView {
  readonly kind: EndpointKind;
  readonly id: string;
  readonly created: number;
  readonly model: string;
  /** The request's stream_options: each engine reads them its own way. */
  readonly streamOptions: StreamOptions | null;
}

/**
 * The id of the `counter`th response, as each engine makes it: vLLM chatcmpl-/cmpl- and
 * random_uuid() (32 hex digits); SGLang the bare rid, uuid4().hex; TensorRT-LLM chatcmpl-/cmpl-
 * and the executor's integer request id (postprocess_handlers.py _ensure_stream_metadata);
 * llama.cpp chatcmpl- for both and 32 random letters and digits (the sim's hex are among them).
 * The hex is derived from the counter, so recorded streams diff across runs.
 */
export function responseId(personality: Personality, kind: EndpointKind, counter: number, hex: string): string {
  // llama-server names completions chatcmpl- too (recorded, tests/fixtures/streams.ts).
  const prefix = kind === 'chat' || personality === 'llamacpp' ? 'chatcmpl-' : 'cmpl-';
  if (personality === 'sglang') return hex;
  if (personality === 'trtllm') return `${prefix}${counter + 1}`;
  return prefix + hex;
}

export function streamFormat(personality: Personality, framing: SseFraming, view: ResponseView): StreamFormat {
  const ctx = wireContext(framing, view, view.streamOptions);
  switch (personality) {
    case 'vllm': return vllmStream(ctx);
    case 'sglang': return sglangStream(ctx);
    case 'trtllm': return trtllmStream(ctx);
    case 'llamacpp': return llamacppStream(ctx);
    case 'no-usage': return plainStream(ctx);
  }
}

/**
 * The HTTP body of an error, as each engine answers one. `validation` marks a request its request
 * model refused before any handler ran: TensorRT-LLM answers those {"error": "<str(exc)>"}.
 */
export function errorResponseBody(personality: Personality, status: number, message: string, type: string, validation = false): string {
  switch (personality) {
    case 'vllm':
    case 'no-usage':
      return vllmErrorBody(status, message, type);
    case 'sglang':
      return flatErrorBody(status, message, type);
    case 'trtllm':
      return validation ? JSON.stringify({ error: message }) : flatErrorBody(status, message, type);
    case 'llamacpp':
      return `{"error":${llamacppErrorObject(status, message, llamacppErrorType(status))}}`;
  }
}

/**
 * The single JSON body of a non-streaming response. Not yet derived from each engine's code as the
 * streams are: OpenAI's documented fields, usage in each engine's field order, llama.cpp's timings.
 */
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
  if (personality !== 'no-usage') body['usage'] = JSON.parse(personality === 'llamacpp' ? llamacppUsageJson(usage) : vllmUsageJson(usage));
  if (personality === 'llamacpp') body['timings'] = JSON.parse(llamacppTimingsJson(usage));
  return JSON.stringify(body);
}
