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

export function failure(cls: FailureClass, message: string, status: number | null = null): RequestFailure {
  return { class: cls, status, message: message.slice(0, 300) };
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
