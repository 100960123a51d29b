/**
 * Turns a request body into what the engine needs, answering bad input the way OpenAI-compatible
 * servers do (an HTTP status and the engine's error body: personalities.ts errorResponseBody).
 */
import type { Personality } from './config.ts';
import { pythonRepr, pythonTupleRepr } from './python-repr.ts';
import type { EndpointKind, StreamOptions } from './wire-format.ts';
import { chatPromptText, countChatTokens, countSimTokens, promptHash, type ChatMessageText } from './tokens.ts';
import { promptTokenIds } from './prefix-cache.ts';

export class RequestError extends Error {
  readonly status: number;
  readonly type: string;
  /** Refused by the engine's request model before any handler ran (TensorRT-LLM answers those its own way). */
  readonly validation: boolean;
  constructor(status: number, message: string, type: string = errorType(status), validation = false) {
    super(message);
    this.name = 'RequestError';
    this.status = status;
    this.type = type;
    this.validation = validation;
  }
}

export function errorType(status: number): string {
  switch (status) {
    case 400: return 'BadRequestError';
    case 404: return 'NotFoundError';
    case 405: return 'MethodNotAllowedError';
    case 413: return 'RequestEntityTooLargeError';
    case 429: return 'RateLimitError';
    default: return status >= 500 ? 'InternalServerError' : 'Error';
  }
}

export function errorBody(status: number, message: string, type: string = errorType(status)): string {
  return JSON.stringify({ error: { message, type, code: status } });
}

export interface SimRequest {
  readonly kind: EndpointKind;
  readonly promptTokens: number;
  /** The prompt's tokens, for the prefix cache (prefix-cache.ts). */
  readonly promptIds: Uint32Array;
  readonly maxTokens: number;
  readonly minTokens: number;
  readonly ignoreEos: boolean;
  readonly stream: boolean;
  /** stream_options as sent (null: none); each engine decides from them whether usage comes. */
  readonly streamOptions: StreamOptions | null;
  /** Drives the output words and the natural stop length. */
  readonly hash: number;
}

export const DEFAULT_MAX_TOKENS = 16;

/**
 * The fields of trtllm-serve's request models, which forbid any other (OpenAIBaseModel
 * extra="forbid"; tensorrt_llm/serve/openai_protocol.py @0076e939, ChatCompletionRequest and
 * CompletionRequest, in their order). Chat takes max_tokens as the validation alias of
 * max_completion_tokens; completions take max_tokens only.
 */
const TRTLLM_FIELDS: Readonly<Record<EndpointKind, ReadonlySet<string>>> = {
  chat: new Set([
    'messages', 'prompt_token_ids', 'prompt_token_ids_b64', 'model', 'frequency_penalty', 'logit_bias', 'logprobs', 'top_logprobs',
    'max_completion_tokens', 'max_tokens', 'n', 'presence_penalty', 'response_format', 'seed', 'stop', 'stream', 'stream_options',
    'temperature', 'top_p', 'tools', 'tool_choice', 'parallel_tool_calls', 'user', 'reasoning_effort', 'thinking',
    'thinking_token_budget', 'prompt_ignore_length', 'best_of', 'use_beam_search', 'top_k', 'top_p_min', 'min_p',
    'repetition_penalty', 'length_penalty', 'early_stopping', 'stop_token_ids', 'include_stop_str_in_output', 'ignore_eos',
    'min_tokens', 'skip_special_tokens', 'spaces_between_special_tokens', 'truncate_prompt_tokens', 'lora_request', 'echo',
    'add_generation_prompt', 'add_special_tokens', 'documents', 'chat_template', 'chat_template_kwargs',
    'injected_chat_template_kwargs', 'media_io_kwargs', 'disaggregated_params', 'conversation_params', 'cache_salt', 'priority',
    'agent_hierarchy', 'mm_processor_kwargs',
  ]),
  completion: new Set([
    'model', 'prompt', 'best_of', 'echo', 'frequency_penalty', 'logit_bias', 'logprobs', 'max_tokens', 'n', 'presence_penalty',
    'seed', 'stop', 'stream', 'stream_options', 'suffix', 'temperature', 'top_p', 'user', 'lora_request', 'prompt_ignore_length',
    'use_beam_search', 'top_k', 'top_p_min', 'min_p', 'repetition_penalty', 'length_penalty', 'early_stopping', 'stop_token_ids',
    'include_stop_str_in_output', 'ignore_eos', 'min_tokens', 'skip_special_tokens', 'spaces_between_special_tokens',
    'truncate_prompt_tokens', 'return_context_logits', 'detokenize', 'thinking_token_budget', 'add_special_tokens',
    'response_format', 'disaggregated_params', 'priority', 'conversation_params',
  ]),
};

function bad(message: string): RequestError {
  return new RequestError(400, message);
}

function optionalInteger(body: Record<string, unknown>, field: string, min: number): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) throw bad(`${field} must be an integer ≥ ${min}; got ${JSON.stringify(value)}`);
  return value;
}

function optionalBoolean(body: Record<string, unknown>, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw bad(`${field} must be a boolean; got ${JSON.stringify(value)}`);
  return value;
}

/**
 * What trtllm-serve answers a body its request model refuses: FastAPI raises RequestValidationError
 * with pydantic's error list, and the server's handler returns {"error": str(exc)} with 400
 * (openai_server.py @00057725). That exception class has no __str__ of its own
 * (fastapi/exceptions.py), so the text is the list's Python repr: each error a dict of type, loc
 * (a tuple from "body"), msg and input, in pydantic's order; one per extra field, and one for a
 * missing model (model: str has no default), whose input is the whole body.
 */
function trtllmValidationError(kind: EndpointKind, body: Record<string, unknown>): RequestError | null {
  const errors: string[] = [];
  if (!('model' in body)) errors.push(`{'type': 'missing', 'loc': ${pythonTupleRepr(['body', 'model'])}, 'msg': 'Field required', 'input': ${pythonRepr(body)}}`);
  for (const [field, value] of Object.entries(body)) {
    if (!TRTLLM_FIELDS[kind].has(field)) errors.push(`{'type': 'extra_forbidden', 'loc': ${pythonTupleRepr(['body', field])}, 'msg': 'Extra inputs are not permitted', 'input': ${pythonRepr(value)}}`);
  }
  return errors.length === 0 ? null : new RequestError(400, `[${errors.join(', ')}]`, errorType(400), true);
}

function parseMessages(value: unknown): ChatMessageText[] {
  if (!Array.isArray(value) || value.length === 0) throw bad('messages must be a non-empty array of {role, content}');
  return value.map((message: unknown, index) => {
    const record = message as Record<string, unknown> | null;
    if (typeof record !== 'object' || record === null || typeof record['role'] !== 'string' || typeof record['content'] !== 'string') {
      throw bad(`messages[${index}] must be {"role": string, "content": string}; the sim does not take content parts`);
    }
    return { role: record['role'], content: record['content'] };
  });
}

export function parseBody(text: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw bad(`request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('request body must be a JSON object');
  return body as Record<string, unknown>;
}

export interface ParseContext {
  readonly personality: Personality;
  readonly modelName: string;
}

/** Validates a generation request. Throws RequestError (400/404). */
export function parseSimRequest(kind: EndpointKind, body: Record<string, unknown>, context: ParseContext): SimRequest {
  if (context.personality === 'trtllm') {
    const refused = trtllmValidationError(kind, body);
    if (refused !== null) throw refused;
  }
  // A missing model means the served one, as in vLLM; a different one is a 404.
  if (body['model'] !== undefined && body['model'] !== context.modelName) {
    throw new RequestError(404, `The model \`${String(body['model'])}\` does not exist.`);
  }
  let promptText: string;
  let promptTokens: number;
  let promptIds: Uint32Array;
  if (kind === 'chat') {
    const messages = parseMessages(body['messages']);
    promptText = chatPromptText(messages);
    promptTokens = countChatTokens(messages);
    promptIds = promptTokenIds({ messages });
  } else {
    const prompt = body['prompt'];
    if (typeof prompt !== 'string') throw bad('prompt must be a string (the sim does not take token-id or batched prompts)');
    promptTokens = countSimTokens(prompt);
    if (promptTokens === 0) throw bad('prompt is empty');
    promptText = prompt;
    promptIds = promptTokenIds({ text: prompt });
  }
  const maxTokens = (kind === 'chat' ? optionalInteger(body, 'max_completion_tokens', 1) : undefined)
    ?? optionalInteger(body, 'max_tokens', 1) ?? DEFAULT_MAX_TOKENS;
  const minTokens = optionalInteger(body, 'min_tokens', 0) ?? 0;
  if (minTokens > maxTokens) throw bad(`min_tokens (${minTokens}) must be ≤ max_tokens (${maxTokens})`);
  const streamOptions = body['stream_options'];
  if (streamOptions !== undefined && streamOptions !== null && (typeof streamOptions !== 'object' || Array.isArray(streamOptions))) {
    throw bad('stream_options must be an object');
  }
  const includeUsage = (streamOptions as Record<string, unknown> | null | undefined)?.['include_usage'];
  if (includeUsage !== undefined && includeUsage !== null && typeof includeUsage !== 'boolean') throw bad('stream_options.include_usage must be a boolean');
  const seed = body['seed'];
  if (seed !== undefined && seed !== null && (typeof seed !== 'number' || !Number.isInteger(seed))) throw bad('seed must be an integer');
  const temperature = body['temperature'];
  if (temperature !== undefined && temperature !== null && typeof temperature !== 'number') throw bad('temperature must be a number');
  return {
    kind,
    promptTokens,
    promptIds,
    maxTokens,
    minTokens,
    ignoreEos: optionalBoolean(body, 'ignore_eos') ?? false,
    stream: optionalBoolean(body, 'stream') ?? false,
    streamOptions: streamOptions === undefined || streamOptions === null ? null : { includeUsage: includeUsage ?? undefined },
    hash: promptHash(promptText, typeof seed === 'number' ? seed : 0),
  };
}
