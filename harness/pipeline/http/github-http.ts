/**
 * The GitHub REST API as every servebench command should call it: the documented headers
 * (Accept, X-GitHub-Api-Version, a User-Agent, which GitHub requires), the token only when
 * GITHUB_TOKEN is set and only to the API's own origin, conditional GETs, rate limits, retries
 * and redirects (http-conditional.ts's send(), the one place that waits out rate limits and that
 * follows a renamed repository's 301, dropping the token on a hop to another origin), and
 * Link-header pagination.
 * https://docs.github.com/en/rest/using-the-rest-api/getting-started-with-the-rest-api
 * https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api
 */
import { SERVEBENCH_VERSION } from '../../lib/version.ts';
import { conditionalGet, HttpError, summarizeBody, type ConditionalResult, type HttpPolicy } from './http-conditional.ts';

export const DEFAULT_GITHUB_API = 'https://api.github.com';
export const GITHUB_API_ENV = 'SERVEBENCH_GITHUB_API_URL';

export interface GithubClient {
  /** e.g. https://api.github.com, without a trailing slash. */
  readonly apiUrl: string;
  readonly token: string | null;
  readonly policy: HttpPolicy;
}

/** The API base: the flag, else $SERVEBENCH_GITHUB_API_URL, else api.github.com; the token from $GITHUB_TOKEN. */
export function githubClient(policy: HttpPolicy, env: NodeJS.ProcessEnv = process.env, apiUrl?: string): GithubClient {
  const base = (apiUrl ?? env[GITHUB_API_ENV] ?? DEFAULT_GITHUB_API).replace(/\/+$/, '');
  const token = env['GITHUB_TOKEN']?.trim();
  return { apiUrl: base, token: token ? token : null, policy };
}

export function githubHeaders(client: GithubClient, url: string): Record<string, string> {
  const headers: Record<string, string> = {
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
    'user-agent': `servebench/${SERVEBENCH_VERSION}`,
  };
  // A Link header could name another host: the token goes to the API origin only (send() drops it on a redirect that leaves the origin).
  if (client.token && new URL(url).origin === new URL(client.apiUrl).origin) headers['authorization'] = `Bearer ${client.token}`;
  return headers;
}

/** What to do about an exhausted limit, appended to the rate-limit error. */
export function githubRateLimitHint(client: GithubClient): string {
  return client.token
    ? "the token's hourly quota is spent; wait, or raise --max-wait"
    : 'set GITHUB_TOKEN (5,000 requests an hour instead of 60 for anonymous calls), or raise --max-wait';
}

/** A GET of an API path ("/repos/o/r/releases?per_page=100") or a full URL (a Link "next"), conditional on `etag`. */
export async function githubGet(client: GithubClient, pathOrUrl: string, etag: string | null = null): Promise<ConditionalResult> {
  const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${client.apiUrl}${pathOrUrl}`;
  return conditionalGet({ url, headers: githubHeaders(client, url), rateLimitHint: githubRateLimitHint(client) }, etag, client.policy);
}

/** The JSON of a 200, or an error naming the status and GitHub's message (404: no such repository, 401: bad token…). */
export function githubJson(result: ConditionalResult): unknown {
  const { response } = result;
  if (response.status !== 200) {
    const hint = response.status === 401 ? '; check GITHUB_TOKEN' : response.status === 404 ? '; check the repository name' : '';
    throw new HttpError(`GitHub answered ${response.status} ${summarizeBody(response.body)}for ${response.url}${hint}`, response.url, response.status);
  }
  try {
    return JSON.parse(response.body) as unknown;
  } catch {
    throw new HttpError(`GitHub answered 200 with a body that is not JSON for ${response.url}`, response.url, 200);
  }
}

/** `<url>; rel="next", <url>; rel="last"` → { next: url, last: url } (RFC 8288, as GitHub writes it). */
export function parseLinkHeader(value: string | undefined): Record<string, string> {
  const links: Record<string, string> = {};
  if (!value) return links;
  for (const match of value.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel="?([^";,]+)"?/i.exec(match[2] ?? '')?.[1];
    if (rel) for (const name of rel.trim().split(/\s+/)) links[name] = match[1]!;
  }
  return links;
}
