/**
 * HTTP for polling third-party APIs (GitHub, container registries) politely: conditional GETs
 * (If-None-Match, so an unchanged listing costs a 304 and no body), rate limits honoured the way
 * GitHub documents them (retry-after, else x-ratelimit-remaining 0 until x-ratelimit-reset, else a
 * minute for a bare 429 or a secondary-limit 403 without either, doubling), and a few retries with
 * backoff on 5xx and connection errors. send() is the one place that waits out rate limits: at
 * most MAX_RATE_LIMIT_WAITS per request, whoever calls it. Redirects (a renamed or transferred
 * GitHub repository answers 301) are followed, at most MAX_REDIRECTS, for GET and HEAD only;
 * Authorization is dropped on a hop to another origin. Waits and clock are injected so tests run
 * in milliseconds.
 * https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api
 * https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api#rate-limit-errors
 */
import { BoundedReadError, requestBounded, type ReadLimits } from '../../lib/io/bounded-body.ts';

export interface HttpPolicy {
  /** The longest rate-limit wait (seconds) worth sitting out; a longer one fails at once. */
  readonly maxWaitS: number;
  /** Retries after a 5xx or a connection error, each after twice the previous backoff. */
  readonly retries: number;
  readonly backoffMs: number;
  readonly timeoutMs: number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
}

export const defaultPolicy: HttpPolicy = {
  maxWaitS: 60,
  retries: 3,
  backoffMs: 1000,
  timeoutMs: 30_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => Date.now(),
};

export interface HttpResponse {
  readonly url: string;
  readonly status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface HttpRequest {
  readonly method?: 'GET' | 'HEAD';
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Appended to the rate-limit error, e.g. how to get a higher limit. */
  readonly rateLimitHint?: string;
}

/** A request that failed for good: unreachable, or still 5xx after the retries. */
export class HttpError extends Error {
  readonly url: string;
  readonly status: number | null;
  constructor(message: string, url: string, status: number | null) {
    super(message);
    this.name = 'HttpError';
    this.url = url;
    this.status = status;
  }
}

/** Rate-limited for longer than the caller is willing to wait; every later request would be too. */
export class RateLimitError extends Error {
  readonly url: string;
  readonly resetAt: Date;
  constructor(message: string, url: string, resetAt: Date) {
    super(message);
    this.name = 'RateLimitError';
    this.url = url;
    this.resetAt = resetAt;
  }
}

/**
 * A hard bound on rate-limit waits in one request, so a server that keeps saying "wait 1 s" cannot
 * hold us forever. send() owns the waits: callers get either an answer that is no rate limit or a
 * RateLimitError, so nothing above it has a limit left to wait out (and cannot stack waits on these).
 */
export const MAX_RATE_LIMIT_WAITS = 3;

/** Redirects followed in one request (undici's `request` follows none by itself). */
export const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export async function send(req: HttpRequest, policy: HttpPolicy): Promise<HttpResponse> {
  let failures = 0;
  let waits = 0;
  for (;;) {
    let response: HttpResponse;
    try {
      response = await follow(req, policy);
    } catch (error) {
      if (error instanceof HttpError) throw error;
      if (failures >= policy.retries) {
        // A read over its time limit already names the request and the limit.
        throw new HttpError(error instanceof BoundedReadError ? error.message : `${req.method ?? 'GET'} ${req.url}: ${(error as Error).message}`, req.url, null);
      }
      await policy.sleep(policy.backoffMs * 2 ** failures++);
      continue;
    }
    const headerWaitS = rateLimitWaitS(response, policy.now());
    // Told how long (retry-after, x-ratelimit-reset): that, plus a second; told nothing (a bare 429, a secondary-limit 403): a minute, doubling.
    const told = headerWaitS !== null && (response.headers['retry-after'] !== undefined || response.headers['x-ratelimit-remaining'] === '0');
    const waitS = told ? headerWaitS : headerWaitS !== null || isSecondaryLimit(response) ? 60 * 2 ** waits : null;
    if (waitS !== null) {
      const resetAt = new Date(policy.now() + waitS * 1000);
      if (waitS > policy.maxWaitS || waits >= MAX_RATE_LIMIT_WAITS) {
        const remaining = response.headers['x-ratelimit-remaining'];
        const limit = response.headers['x-ratelimit-limit'];
        const quota = remaining !== undefined && limit !== undefined ? ` (${remaining} of ${limit} requests left)` : '';
        throw new RateLimitError(
          `${hostOf(req.url)} rate limit exceeded${quota}: it resets at ${resetAt.toISOString()} (in ${formatWait(waitS)}), ${waitS > policy.maxWaitS ? `longer than --max-wait ${policy.maxWaitS} s` : `still limited after ${waits} waits`}${req.rateLimitHint ? `; ${req.rateLimitHint}` : ''}`,
          req.url,
          resetAt,
        );
      }
      waits += 1;
      // One second past the reset: x-ratelimit-reset has whole-second resolution.
      await policy.sleep(told ? Math.ceil(waitS) * 1000 + 1000 : waitS * 1000);
      continue;
    }
    if (response.status >= 500 && failures < policy.retries) {
      await policy.sleep(policy.backoffMs * 2 ** failures++);
      continue;
    }
    if (response.status >= 500) {
      throw new HttpError(`${req.method ?? 'GET'} ${req.url} answered ${response.status} ${summarizeBody(response.body)}after ${failures + 1} attempts`, req.url, response.status);
    }
    return response;
  }
}

export interface ConditionalResult {
  /** 304: nothing changed since the response the ETag came from. */
  readonly notModified: boolean;
  readonly response: HttpResponse;
  /** The validator to send next time (the old one on a 304 without its own). */
  readonly etag: string | null;
}

export async function conditionalGet(req: HttpRequest, etag: string | null, policy: HttpPolicy): Promise<ConditionalResult> {
  const headers = etag ? { ...req.headers, 'if-none-match': etag } : { ...req.headers };
  const response = await send({ ...req, method: 'GET', headers }, policy);
  const fresh = response.headers['etag'] ?? null;
  return response.status === 304 ? { notModified: true, response, etag: fresh ?? etag } : { notModified: false, response, etag: fresh };
}

/**
 * Seconds to wait before retrying, or null when the response is not a rate-limit answer. GitHub
 * answers 403 or 429: retry-after (seconds or an HTTP date) wins; else remaining 0 means until
 * x-ratelimit-reset (epoch seconds); a 429 with neither still means back off (a minute, as GitHub
 * advises for secondary limits).
 */
export function rateLimitWaitS(response: HttpResponse, nowMs: number): number | null {
  if (response.status !== 403 && response.status !== 429) return null;
  const retryAfter = response.headers['retry-after'];
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, (date - nowMs) / 1000);
  }
  if (response.headers['x-ratelimit-remaining'] === '0') {
    const reset = Number(response.headers['x-ratelimit-reset']);
    return Number.isFinite(reset) ? Math.max(0, reset - nowMs / 1000) : 60;
  }
  return response.status === 429 ? 60 : null;
}

/** GitHub's secondary limit may come as a bare 403 whose message says so (no retry-after, quota left). */
function isSecondaryLimit(response: HttpResponse): boolean {
  if (response.status !== 403) return false;
  try {
    const message = (JSON.parse(response.body) as { message?: unknown }).message;
    return typeof message === 'string' && /secondary rate limit|abuse/i.test(message);
  } catch {
    return false;
  }
}

/**
 * One request, following redirects (GET and HEAD only; 303 stays GET/HEAD). A hop to another
 * origin loses Authorization: a token is for the origin it was meant for (the GitHub API's, a
 * registry's), never for wherever a Location points. The answer's url is the final one, so a
 * Link header's relative URLs resolve against it.
 */
async function follow(req: HttpRequest, policy: HttpPolicy): Promise<HttpResponse> {
  const method = req.method ?? 'GET';
  let url = req.url;
  let headers: Record<string, string> = { ...req.headers };
  for (let hops = 0; ; hops++) {
    const response = await once({ ...req, url, headers }, policy);
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    const location = response.headers['location'];
    if (location === undefined) return response;
    if (hops >= MAX_REDIRECTS) throw new HttpError(`${method} ${req.url}: more than ${MAX_REDIRECTS} redirects (the last to ${location})`, req.url, response.status);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new HttpError(`${method} ${url} redirected to "${location}", which is not a URL`, url, response.status);
    }
    if (next.protocol !== 'https:' && next.protocol !== 'http:') throw new HttpError(`${method} ${url} redirected to ${next.protocol} URL ${next.href}`, url, response.status);
    if (next.origin !== new URL(url).origin) headers = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
    url = next.href;
  }
}

/**
 * A page of 100 GitHub releases with their notes, or of 100 issues, is a few megabytes; a
 * registry's manifest or token, kilobytes. 32 MiB is none of those, only a body that never ends.
 */
export const MAX_API_BODY_BYTES = 32 * 1024 * 1024;

async function once(req: HttpRequest, policy: HttpPolicy): Promise<HttpResponse> {
  const method = req.method ?? 'GET';
  // The policy's timeout bounds the whole answer, not only the silence between two reads.
  const limits: ReadLimits = { maxBytes: MAX_API_BODY_BYTES, timeoutMs: policy.timeoutMs };
  let response;
  try {
    response = await requestBounded(req.url, { method, headers: { ...req.headers }, label: `${method} ${req.url}` }, limits);
  } catch (error) {
    // Too big is what that server answers every time: fail now. Too slow may pass: retried as a timeout is.
    if (error instanceof BoundedReadError && error.limit === 'size') throw new HttpError(error.message, req.url, null);
    throw error;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { url: req.url, status: response.status, headers, body: response.text() };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function formatWait(seconds: number): string {
  if (seconds < 120) return `${Math.ceil(seconds)} s`;
  return `${Math.ceil(seconds / 60)} min`;
}

/** The server's own words, short: JSON APIs say what went wrong in "message". */
export function summarizeBody(body: string): string {
  const text = body.trim();
  if (text === '') return '';
  try {
    const parsed = JSON.parse(text) as { message?: unknown; errors?: Array<{ message?: unknown }> };
    const message = typeof parsed.message === 'string' ? parsed.message : typeof parsed.errors?.[0]?.message === 'string' ? parsed.errors[0].message : null;
    if (message) return `(${message.slice(0, 200)}) `;
  } catch {
    // not JSON: an HTML error page from a proxy, say
  }
  return `(${text.replace(/\s+/g, ' ').slice(0, 120)}) `;
}
