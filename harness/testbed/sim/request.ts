/**
 * Turns a request body into what the engine needs, answering bad input the way OpenAI-compatible
 * servers do (HTTP status plus {"error": {message, type, code}}).
 */
import type { Personality } from './config.ts';
import type { EndpointKind } from './personalities.ts';
import { chatPromptText, countChatTokens, countSimTokens, promptHash, type ChatMessageText } from './tokens.ts';

export class RequestError extends Error {
  readonly status: number;
  readonly type: string;
  constructor(status: number, message: string, type: string = errorType(status)) {
    super(message);
    this.name = 'RequestError';
    this.status = status;
    this.type = type;
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
  readonly maxTokens: number;
  readonly minTokens: number;
  readonly ignoreEos: boolean;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  /** Drives the output words and the natural stop length. */
  readonly hash: number;
}

export const DEFAULT_MAX_TOKENS = 16;

/** Fields trtllm-serve's pydantic models accept; anything else is rejected with 400. */
const TRTLLM_ALLOWED_FIELDS = new Set([
  'model', 'prompt', 'messages', 'max_tokens', 'max_completion_tokens', 'stream', 'stream_options', 'temperature',
  'top_p', 'top_k', 'seed', 'stop', 'n', 'ignore_eos', 'min_tokens', 'user',
]);

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

function pydanticExtraFieldError(kind: EndpointKind, field: string, value: unknown): RequestError {
  const model = kind === 'chat' ? 'ChatCompletionRequest' : 'CompletionRequest';
  const inputType = value === null ? 'NoneType' : Array.isArray(value) ? 'list' : typeof value === 'number' ? (Number.isInteger(value) ? 'int' : 'float') : typeof value === 'string' ? 'str' : typeof value === 'boolean' ? 'bool' : 'dict';
  return bad(`1 validation error for ${model}\n${field}\n  Extra inputs are not permitted [type=extra_forbidden, input_value=${JSON.stringify(value)}, input_type=${inputType}]`);
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
    const extra = Object.keys(body).find((field) => !TRTLLM_ALLOWED_FIELDS.has(field));
    if (extra !== undefined) throw pydanticExtraFieldError(kind, extra, body[extra]);
  }
  // A missing model means the served one, as in vLLM; a different one is a 404.
  if (body['model'] !== undefined && body['model'] !== context.modelName) {
    throw new RequestError(404, `The model \`${String(body['model'])}\` does not exist.`);
  }
  let promptText: string;
  let promptTokens: number;
  if (kind === 'chat') {
    const messages = parseMessages(body['messages']);
    promptText = chatPromptText(messages);
    promptTokens = countChatTokens(messages);
  } else {
    const prompt = body['prompt'];
    if (typeof prompt !== 'string') throw bad('prompt must be a string (the sim does not take token-id or batched prompts)');
    promptTokens = countSimTokens(prompt);
    if (promptTokens === 0) throw bad('prompt is empty');
    promptText = prompt;
  }
  const maxTokens = (kind === 'chat' ? optionalInteger(body, 'max_completion_tokens', 1) : undefined)
    ?? optionalInteger(body, 'max_tokens', 1) ?? DEFAULT_MAX_TOKENS;
  const minTokens = optionalInteger(body, 'min_tokens', 0) ?? 0;
  if (minTokens > maxTokens) throw bad(`min_tokens (${minTokens}) must be ≤ max_tokens (${maxTokens})`);
  const streamOptions = body['stream_options'];
  if (streamOptions !== undefined && streamOptions !== null && (typeof streamOptions !== 'object' || Array.isArray(streamOptions))) {
    throw bad('stream_options must be an object');
  }
  const includeUsage = (streamOptions as Record<string, unknown> | null | undefined)?.['include_usage'] === true;
  const seed = body['seed'];
  if (seed !== undefined && seed !== null && (typeof seed !== 'number' || !Number.isInteger(seed))) throw bad('seed must be an integer');
  const temperature = body['temperature'];
  if (temperature !== undefined && temperature !== null && typeof temperature !== 'number') throw bad('temperature must be a number');
  return {
    kind,
    promptTokens,
    maxTokens,
    minTokens,
    ignoreEos: optionalBoolean(body, 'ignore_eos') ?? false,
    stream: optionalBoolean(body, 'stream') ?? false,
    includeUsage,
    hash: promptHash(promptText, typeof seed === 'number' ? seed : 0),
  };
}
