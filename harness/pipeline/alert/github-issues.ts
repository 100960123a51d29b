/**
 * The few GitHub REST calls `servebench alert` needs (issues, comments, labels). Reads go through
 * the shared helper (github-http.ts: headers, token only to the API origin, rate-limit waits,
 * retries); writes are here, because that helper only GETs, and because a write must not be
 * retried blindly: a POST that timed out may have created the issue, so a retry could file it
 * twice (the next run finds it by its marker instead). GitHub's guidance for integrators
 * (https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api,
 * .../rate-limits-for-the-rest-api) is followed for both:
 * - one request at a time, and at least a second between writes (secondary limits);
 * - on 403/429: `retry-after`, else `x-ratelimit-remaining: 0` until `x-ratelimit-reset`, else —
 *   for a secondary limit that gives neither — a minute, doubling; each wait bounded by
 *   --max-wait, and past it a clear error instead of a hung CI job.
 *
 * Existing issues are found with the list endpoint filtered by label, never the search API: search
 * is eventually consistent (an issue created a minute ago may not be found yet, and would be filed
 * twice) and has its own, much lower rate limit.
 */
import { requestBounded } from '../../lib/io/bounded-body.ts';
import { ServebenchError } from '../../lib/errors.ts';
import { githubGet, githubHeaders, githubRateLimitHint, parseLinkHeader, type GithubClient } from '../http/github-http.ts';
import { HttpError, MAX_API_BODY_BYTES, rateLimitWaitS, RateLimitError, summarizeBody, type HttpResponse } from '../http/http-conditional.ts';

/** Exit status of a command that a remote service (GitHub, a webhook) failed. */
export const REMOTE_FAILED = 1;

export interface GitHubIssuesOptions {
  readonly github: GithubClient;
  /** OWNER/NAME */
  readonly repo: string;
  /** Refuse every request but GET (dry runs): a bug cannot write. */
  readonly readOnly?: boolean;
  /** Pause between writes (GitHub asks for at least one second). */
  readonly writeSpacingMs?: number;
  /** Told about each rate-limit wait (progress on stderr). */
  readonly onWait?: (message: string) => void;
}

export interface GitHubIssue {
  readonly number: number;
  readonly title: string;
  readonly body: string;
  readonly state: 'open' | 'closed';
  readonly labels: readonly string[];
  readonly html_url: string;
}

export interface LabelSpec {
  readonly name: string;
  readonly color: string;
  readonly description: string;
}

export interface GitHubIssuesClient {
  /** Every issue (open and closed, pull requests left out) carrying the label, over all pages. */
  listIssues(label: string): Promise<GitHubIssue[]>;
  createIssue(input: { title: string; body: string; labels: readonly string[] }): Promise<GitHubIssue>;
  /** state_reason goes with a change of state (GitHub ignores it otherwise): completed, not_planned, reopened. */
  updateIssue(number: number, patch: { title?: string; body?: string; state?: 'open' | 'closed'; state_reason?: 'completed' | 'not_planned' | 'reopened' }): Promise<GitHubIssue>;
  addComment(number: number, body: string): Promise<{ html_url: string }>;
  /** Creates the label; one that already exists (422 already_exists) is fine and left as it is. */
  ensureLabel(label: LabelSpec): Promise<'created' | 'exists'>;
}

const MAX_PAGES = 100;
const MAX_RATE_LIMIT_WAITS = 3;

function remoteError(message: string): ServebenchError {
  return new ServebenchError(message, REMOTE_FAILED);
}

function messageOf(body: string): string {
  try {
    const json = JSON.parse(body) as { message?: unknown };
    return typeof json.message === 'string' ? json.message : '';
  } catch {
    return '';
  }
}

/** The URL of rel="next" in a Link header, if any. */
export function nextLink(link: string | null | undefined): string | null {
  return parseLinkHeader(link ?? undefined)['next'] ?? null;
}

export interface RateLimitWait {
  readonly waitMs: number;
  readonly kind: 'primary' | 'secondary';
  readonly why: string;
}

/**
 * Whether an answer is a rate limit, and how long to wait: the shared reading of `retry-after`
 * and `x-ratelimit-*` (http-conditional.ts), plus GitHub's secondary limit that sends neither (a
 * 403 whose message says so): a minute, doubling per attempt. Any other 403 is a permission error.
 */
export function rateLimitWait(response: HttpResponse, nowMs: number, attempt: number): RateLimitWait | null {
  const message = messageOf(response.body);
  const secondary = /secondary rate limit|abuse/i.test(message);
  const waitS = rateLimitWaitS(response, nowMs);
  const retryAfter = response.headers['retry-after'];
  if (waitS !== null && (retryAfter !== undefined || response.headers['x-ratelimit-remaining'] === '0')) {
    // One second past the reset, as the shared helper does: x-ratelimit-reset has whole-second resolution.
    const why = retryAfter !== undefined ? `retry-after: ${retryAfter}` : `x-ratelimit-reset: ${new Date(Number(response.headers['x-ratelimit-reset']) * 1000).toISOString()}`;
    return { waitMs: Math.ceil(waitS) * 1000 + 1000, kind: secondary ? 'secondary' : 'primary', why };
  }
  if (secondary || response.status === 429) return { waitMs: 60_000 * 2 ** attempt, kind: 'secondary', why: 'no retry-after; GitHub asks for at least a minute' };
  return null;
}

function describeFailure(method: string, path: string, response: HttpResponse): string {
  const detail = summarizeBody(response.body).trim();
  const said = detail ? ` ${detail}` : '';
  if (response.status === 401) return `GitHub rejected the token for ${method} ${path}: 401${said}; check GITHUB_TOKEN`;
  if (response.status === 403) return `GitHub refused ${method} ${path}: 403${said}; the token needs the "issues: write" permission on the repository`;
  if (response.status === 404) return `GitHub answered 404 for ${method} ${path}${said}: no such repository, or the token cannot see it`;
  if (response.status === 410) return `GitHub answered 410 for ${method} ${path}${said}: issues are disabled on the repository`;
  return `GitHub answered ${response.status} for ${method} ${path}${said}`;
}

function issueOf(json: unknown): GitHubIssue & { isPullRequest: boolean } {
  const raw = json as { number: number; title: string; body: string | null; state: string; labels?: Array<string | { name?: string }>; html_url: string; pull_request?: unknown };
  return {
    number: raw.number,
    title: raw.title,
    body: raw.body ?? '',
    state: raw.state === 'closed' ? 'closed' : 'open',
    labels: (raw.labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))),
    html_url: raw.html_url,
    isPullRequest: raw.pull_request !== undefined && raw.pull_request !== null,
  };
}

function withoutPullRequestFlag({ isPullRequest: _, ...issue }: GitHubIssue & { isPullRequest: boolean }): GitHubIssue {
  return issue;
}

export function createGitHubIssuesClient(options: GitHubIssuesOptions): GitHubIssuesClient {
  const { github } = options;
  const { policy } = github;
  const origin = new URL(github.apiUrl).origin;
  const [owner, name] = options.repo.split('/') as [string, string];
  const repoPath = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
  const writeSpacingMs = options.writeSpacingMs ?? 1000;
  let lastWriteAt = Number.NEGATIVE_INFINITY;
  const shown = (url: string) => (url.startsWith(origin) ? url.slice(origin.length) : url);

  /** Waits out a rate limit GitHub asked for, or throws when it is too long or keeps coming. */
  async function waitOut(limit: RateLimitWait, method: string, url: string, attempt: number): Promise<void> {
    if (attempt >= MAX_RATE_LIMIT_WAITS) throw remoteError(`GitHub ${limit.kind} rate limit on ${method} ${shown(url)}: still limited after ${attempt} waits; run again later`);
    if (limit.waitMs > policy.maxWaitS * 1000) {
      throw remoteError(`GitHub ${limit.kind} rate limit on ${method} ${shown(url)} (${limit.why}): it asks for ${Math.ceil(limit.waitMs / 1000)} s, more than --max-wait ${policy.maxWaitS} s; run again later${limit.kind === 'primary' ? ` (${githubRateLimitHint(github)})` : ''}`);
    }
    options.onWait?.(`GitHub ${limit.kind} rate limit on ${method} ${shown(url)} (${limit.why}): waiting ${Math.ceil(limit.waitMs / 1000)} s`);
    await policy.sleep(limit.waitMs);
  }

  async function get(url: string): Promise<HttpResponse> {
    for (let attempt = 0; ; attempt++) {
      let response: HttpResponse;
      try {
        ({ response } = await githubGet(github, url));
      } catch (error) {
        if (error instanceof HttpError || error instanceof RateLimitError) throw remoteError(error.message);
        throw error;
      }
      if (response.status === 200) return response;
      // The shared helper already waited out what the headers asked for; a secondary limit without them is left to us.
      const limit = rateLimitWait(response, policy.now(), attempt);
      if (limit === null || limit.kind !== 'secondary') throw remoteError(describeFailure('GET', shown(url), response));
      await waitOut(limit, 'GET', url, attempt);
    }
  }

  async function write(method: 'POST' | 'PATCH', path: string, body: unknown, accept: readonly number[] = []): Promise<{ status: number; json: unknown }> {
    const url = `${github.apiUrl}${path}`;
    if (options.readOnly) throw new Error(`internal: ${method} ${path} in a read-only (dry) run`);
    for (let attempt = 0; ; attempt++) {
      const pause = lastWriteAt + writeSpacingMs - policy.now();
      if (pause > 0) await policy.sleep(pause);
      let response: HttpResponse;
      try {
        // Bounded like every read of a remote answer (harness/lib/io/bounded-body.ts).
        const answer = await requestBounded(url, { method, headers: { ...githubHeaders(github, url), 'content-type': 'application/json' }, body: JSON.stringify(body) }, { maxBytes: MAX_API_BODY_BYTES, timeoutMs: policy.timeoutMs });
        const headers = Object.fromEntries(Object.entries(answer.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]));
        response = { url, status: answer.status, headers, body: answer.text() };
      } catch (error) {
        const cause = (error as Error & { cause?: Error }).cause;
        throw remoteError(`cannot reach the GitHub API at ${origin} for ${method} ${path}: ${cause?.message ?? (error as Error).message}; not retried (it may have been applied), the next run picks up from what exists`);
      } finally {
        lastWriteAt = policy.now();
      }
      if ((response.status >= 200 && response.status < 300) || accept.includes(response.status)) {
        try {
          return { status: response.status, json: response.body === '' ? null : (JSON.parse(response.body) as unknown) };
        } catch {
          throw remoteError(`GitHub answered ${method} ${path} with ${response.status} and a body that is not JSON`);
        }
      }
      const limit = rateLimitWait(response, policy.now(), attempt);
      if (limit === null) throw remoteError(describeFailure(method, path, response));
      // A rate-limited write was refused before it took effect, so repeating it cannot duplicate anything.
      await waitOut(limit, method, url, attempt);
    }
  }

  return {
    async listIssues(label) {
      const issues: GitHubIssue[] = [];
      // Oldest first, so an issue filed while we page lands on a later page instead of shifting one in.
      let url: string | null = `${repoPath}/issues?labels=${encodeURIComponent(label)}&state=all&sort=created&direction=asc&per_page=100`;
      for (let page = 0; url !== null; page++) {
        if (page >= MAX_PAGES) throw remoteError(`more than ${MAX_PAGES * 100} issues labelled "${label}" in ${options.repo}; not reading further`);
        const response = await get(url);
        let list: unknown;
        try {
          list = JSON.parse(response.body);
        } catch {
          list = null;
        }
        if (!Array.isArray(list)) throw remoteError(`GitHub answered GET ${shown(response.url)} with something other than a list of issues`);
        for (const item of list) {
          const issue = issueOf(item);
          if (!issue.isPullRequest) issues.push(withoutPullRequestFlag(issue));
        }
        url = nextLink(response.headers['link']);
      }
      return issues;
    },
    async createIssue(input) {
      return withoutPullRequestFlag(issueOf((await write('POST', `${repoPath}/issues`, { title: input.title, body: input.body, labels: input.labels })).json));
    },
    async updateIssue(number, patch) {
      return withoutPullRequestFlag(issueOf((await write('PATCH', `${repoPath}/issues/${number}`, patch)).json));
    },
    async addComment(number, body) {
      const json = (await write('POST', `${repoPath}/issues/${number}/comments`, { body })).json as { html_url: string };
      return { html_url: json.html_url };
    },
    async ensureLabel(label) {
      const response = await write('POST', `${repoPath}/labels`, label, [422]);
      if (response.status !== 422) return 'created';
      const errors = (response.json as { errors?: Array<{ code?: string }> } | null)?.errors ?? [];
      if (errors.some((e) => e.code === 'already_exists')) return 'exists';
      throw remoteError(`GitHub refused the label "${label.name}": 422 ${summarizeBody(JSON.stringify(response.json)).trim()}`);
    },
  };
}
