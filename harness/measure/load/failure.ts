/** Turning what went wrong with one request into a failure class (never an exception). */
import type { FailureClass } from '../../contract/vocabulary.ts';
import type { RequestFailure } from '../metrics/request-record.ts';

export class RequestTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no complete response within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

export class RequestAbortedError extends Error {
  constructor() {
    super('aborted by the user');
    this.name = 'RequestAbortedError';
  }
}

/**
 * What a failure keeps of its message before it is cleaned for the result (failure-messages.ts):
 * more than the result shows, so that redaction sees a credential whole before the text is cut.
 */
const RAW_MESSAGE_CHARS = 1000;

export function failure(cls: FailureClass, message: string, status: number | null = null): RequestFailure {
  return { class: cls, status, message: message.slice(0, RAW_MESSAGE_CHARS) };
}

/**
 * The server's own words in an error body or event: the message of an OpenAI-style error object
 * ({"error":{"message":…}} or {"message":…}, as vLLM, SGLang and llama.cpp send them), else the
 * text as it came (a proxy's HTML page, a body cut at its bound).
 */
export function serverMessage(body: unknown): string {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return body.trim();
    }
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const fields = value as Record<string, unknown>;
    const inner = fields['error'] ?? fields;
    if (typeof inner === 'string') return inner;
    const message = inner !== null && typeof inner === 'object' ? (inner as Record<string, unknown>)['message'] : undefined;
    if (typeof message === 'string') return message;
  }
  return typeof body === 'string' ? body.trim() : JSON.stringify(body);
}

const CODE_CLASSES: Record<string, FailureClass> = {
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  UND_ERR_SOCKET: 'connection_reset',
  UND_ERR_CLOSED: 'connection_reset',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
};

/** Classifies a transport-level error from undici (or our own timeout/abort). */
export function classifyError(error: unknown): RequestFailure {
  if (error instanceof RequestTimeoutError) return failure('timeout', error.message);
  if (error instanceof RequestAbortedError) return failure('aborted', error.message);
  const err = error as { code?: unknown; message?: unknown; cause?: unknown } | null;
  const code = typeof err?.code === 'string' ? err.code : undefined;
  const causeCode = (err?.cause as { code?: unknown } | undefined)?.code;
  const cls = (code !== undefined ? CODE_CLASSES[code] : undefined) ?? (typeof causeCode === 'string' ? CODE_CLASSES[causeCode] : undefined) ?? 'other';
  const message = typeof err?.message === 'string' ? err.message : String(error);
  return failure(cls, code ? `${code}: ${message}` : message);
}
