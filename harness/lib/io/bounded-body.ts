/**
 * Every HTTP read of a server's answer other than the measured stream goes through here, with a
 * byte cap and one deadline over the whole exchange (connect, headers, body). undici's own
 * headersTimeout/bodyTimeout only bound the gap between two reads, so a server that trickles a
 * byte a second, or streams an endless body fast, would otherwise hold the client for ever or
 * drive it out of memory (one such server took the client to 9.5 GB in 20 s). Whichever limit is
 * hit, the body is destroyed, which closes its connection: nothing more is read from it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { request, type Dispatcher } from 'undici';

export interface ReadLimits {
  /** Bytes the whole body may have. */
  readonly maxBytes: number;
  /** Milliseconds from sending the request to the body's last byte. */
  readonly timeoutMs: number;
}

export type LimitHit = 'size' | 'time';

/** A read stopped by its limit: says where, which limit and how much. */
export class BoundedReadError extends Error {
  /** The URL read, or the label given for it. */
  readonly target: string;
  readonly limit: LimitHit;
  readonly limits: ReadLimits;
  constructor(label: string, limit: LimitHit, limits: ReadLimits) {
    super(
      limit === 'size'
        ? `${label}: the answer is larger than ${formatBytes(limits.maxBytes)}, the size limit for this read; stopped reading it (a broken or hostile server)`
        : `${label}: no complete answer within ${formatSeconds(limits.timeoutMs)}, the time limit for this read; gave up on it`,
    );
    this.name = 'BoundedReadError';
    this.target = label;
    this.limit = limit;
    this.limits = limits;
  }
}

export interface BoundedRequest {
  readonly method?: 'GET' | 'HEAD' | 'POST' | 'PATCH';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly dispatcher?: Dispatcher;
  /** How errors name the URL when the URL itself is a secret (a webhook's). */
  readonly label?: string;
  /**
   * 'error' (default): a longer body is an error. 'truncate': the first maxBytes are the answer,
   * for bodies read only to quote them (an error message) or not needed at all (a health check).
   */
  readonly overflow?: 'error' | 'truncate';
  /**
   * Hands each chunk over instead of keeping it (a stream the caller decodes as it comes); the
   * limits still count every byte. Called after the status is known.
   */
  readonly onChunk?: (chunk: Buffer, status: number) => void;
  /** The caller's own stop (SIGINT/SIGTERM/SIGHUP during a run): ends the read at once. */
  readonly signal?: AbortSignal;
}

export interface BoundedResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Empty with onChunk. */
  readonly body: Buffer;
  /** The body was longer than maxBytes and cut there ('truncate' only). */
  readonly truncated: boolean;
  text(): string;
  /** The body as JSON, or null when it is not JSON. */
  json(): unknown;
}

export async function requestBounded(url: string, options: BoundedRequest, limits: ReadLimits): Promise<BoundedResponse> {
  const label = options.label ?? url;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new BoundedReadError(label, 'time', limits)), limits.timeoutMs);
  let response: Dispatcher.ResponseData | null = null;
  try {
    response = await request(url, {
      method: options.method ?? 'GET',
      headers: { ...options.headers },
      ...(options.body !== undefined ? { body: options.body } : {}),
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      signal: options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal,
      // The deadline bounds the whole exchange; these only make a silent server fail sooner.
      headersTimeout: limits.timeoutMs,
      bodyTimeout: limits.timeoutMs,
    });
    const status = response.statusCode;
    const declared = Number(response.headers['content-length']);
    // A HEAD's content-length is the size of the body it did not send.
    if (options.overflow !== 'truncate' && options.method !== 'HEAD' && Number.isFinite(declared) && declared > limits.maxBytes) {
      throw new BoundedReadError(label, 'size', limits);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    for await (const data of response.body) {
      const chunk = data as Buffer;
      if (size + chunk.length > limits.maxBytes) {
        if (options.overflow !== 'truncate') throw new BoundedReadError(label, 'size', limits);
        const head = chunk.subarray(0, limits.maxBytes - size);
        if (options.onChunk) options.onChunk(head, status);
        else chunks.push(head);
        size = limits.maxBytes;
        truncated = true;
        break;
      }
      size += chunk.length;
      if (options.onChunk) options.onChunk(chunk, status);
      else chunks.push(chunk);
    }
    const body = Buffer.concat(chunks);
    return {
      status,
      headers: response.headers,
      body,
      truncated,
      text: () => body.toString('utf8'),
      json: () => {
        try {
          return JSON.parse(body.toString('utf8')) as unknown;
        } catch {
          return null;
        }
      },
    };
  } catch (error) {
    // The deadline's abort surfaces as whatever undici wraps it in; report the limit, not that.
    if (deadline.signal.aborted) throw deadline.signal.reason as BoundedReadError;
    throw error;
  } finally {
    clearTimeout(timer);
    // Leaving the loop early (a limit, a throwing onChunk) must not leave the socket streaming.
    if (response && !response.body.destroyed && !response.body.readableEnded) response.body.destroy();
  }
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

function formatSeconds(ms: number): string {
  return `${+(ms / 1000).toFixed(1)} s`;
}
