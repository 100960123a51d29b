/**
 * A fake of GitHub's REST API for one repository's issues, comments and labels, in memory, for
 * startFakeServer(). It is faithful to GitHub's documented requests and responses (API version
 * 2022-11-28, docs.github.com/en/rest/issues) for the endpoints `servebench alert` uses, and
 * answers 404 Not Found for any other. What it reproduces:
 * - GET /repos/{o}/{r}/issues: labels (comma-separated, all must match, without case), state
 *   (open|closed|all, default open; another value → 422), sort (created|updated|comments, default
 *   created), direction (asc|desc, default desc), per_page (default 30, max 100), page; issues
 *   carry their body; pull requests are listed too
 *   (with a `pull_request` object); a `Link` header whose URLs point at /repositories/{id}/issues
 *   (docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api shows
 *   `<https://api.github.com/repositories/1300192/issues?page=4>; rel="next"`), served as well;
 * - POST /repos/{o}/{r}/issues → 201 with the issue; labels that do not exist are created;
 *   422 Validation Failed for a missing or too long (> 256) title
 *   (docs.github.com/en/rest/issues/issues: create, update, list repository issues);
 * - PATCH /repos/{o}/{r}/issues/{n} → 200 with the issue (title, body, state, state_reason,
 *   labels): state_reason (completed|not_planned|duplicate|reopened) is applied only along with a
 *   change of state (GitHub ignores it otherwise); closing without one is `completed`, reopening
 *   `reopened`; closed_at is set on close and cleared on reopen; a state or state_reason outside
 *   those values → 422 Validation Failed; an unknown number → 404;
 * - POST /repos/{o}/{r}/issues/{n}/comments → 201 with the comment (body required, else 422);
 *   the issue's `comments` count goes up (docs.github.com/en/rest/issues/comments);
 * - GET /repos/{o}/{r}/issues/{n}/comments → 200, the issue's comments oldest first;
 * - POST /repos/{o}/{r}/labels → 201, or 422 {"message":"Validation Failed","errors":[{"resource":
 *   "Label","code":"already_exists","field":"name"}]} for an existing name, compared without case
 *   (docs.github.com/en/rest/issues/labels; the error body as reported in yegor256/0pdd#160 and
 *   cli/cli#5450);
 * - auth: a wrong token → 401 {"message":"Bad credentials"}; no token → 401 "Requires
 *   authentication" for writes, reads allowed on a public repository (404 on a private one);
 * - rate limits (docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api):
 *   x-ratelimit-limit/remaining/used/reset/resource on every answer; at remaining 0 a 403
 *   "API rate limit exceeded" with remaining 0 and the reset time; queued interruptions such as a
 *   secondary-limit 403 with retry-after ("You have exceeded a secondary rate limit…", as in
 *   hisxo/gitGraber#41).
 * Issue objects carry the fields GitHub sends (number, title, body, state, state_reason, labels
 * as objects, html_url, user, comments, timestamps, pull_request only on pull requests).
 */
import type { ServerResponse } from 'node:http';
import { sendJson, type FakeHandler, type RecordedRequest } from './fake-server.ts';

export interface FakeIssue {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  state_reason: string | null;
  labels: string[];
  comments: number;
  pull_request: boolean;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

export interface FakeComment {
  readonly id: number;
  readonly issue_number: number;
  readonly body: string;
  readonly created_at: string;
}

export interface FakeLabel {
  readonly id: number;
  readonly name: string;
  readonly color: string;
  readonly description: string | null;
}

export interface FakeInterruption {
  /** Which request to answer instead of the API (default: the next one). */
  readonly when?: (request: RecordedRequest) => boolean;
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body: unknown;
}

export interface FakeGitHub {
  readonly handler: FakeHandler;
  readonly owner: string;
  readonly repo: string;
  readonly token: string;
  readonly issues: FakeIssue[];
  readonly comments: FakeComment[];
  readonly labels: FakeLabel[];
  readonly interruptions: FakeInterruption[];
  readonly rateLimit: { limit: number; remaining: number; reset: number };
  /** Adds an issue as if someone had filed it (e.g. an unrelated one, or a pull request). */
  addIssue(issue: Partial<FakeIssue> & { title: string }): FakeIssue;
  /** A maintainer closes an issue. */
  close(number: number): void;
  /** A maintainer reopens an issue. */
  reopen(number: number): void;
}

export interface FakeGitHubOptions {
  readonly owner?: string;
  readonly repo?: string;
  readonly token?: string;
  readonly private?: boolean;
}

const REPO_ID = 1300192;
const DOCS = 'https://docs.github.com/rest';

/** The 403 GitHub sends for a secondary rate limit. */
export function secondaryRateLimit(retryAfterS?: number): FakeInterruption {
  return {
    status: 403,
    headers: retryAfterS === undefined ? {} : { 'retry-after': String(retryAfterS) },
    body: {
      message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.',
      documentation_url: 'https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
      status: '403',
    },
  };
}

export function createFakeGitHub(options: FakeGitHubOptions = {}): FakeGitHub {
  const owner = options.owner ?? 'octo-org';
  const repo = options.repo ?? 'servebench';
  const token = options.token ?? 'ghp_fake_token';
  const issues: FakeIssue[] = [];
  const comments: FakeComment[] = [];
  const labels: FakeLabel[] = [];
  const interruptions: FakeInterruption[] = [];
  const rateLimit = { limit: 5000, remaining: 5000, reset: Math.floor(Date.now() / 1000) + 3600 };
  let clock = Date.UTC(2026, 0, 1);
  let nextCommentId = 1;
  let nextLabelId = 1;
  const stamp = () => new Date((clock += 1000)).toISOString().replace(/\.\d{3}Z$/, 'Z');

  const labelObject = (base: string, name: string) => {
    const label = labels.find((l) => l.name.toLowerCase() === name.toLowerCase())!;
    return { id: label.id, node_id: `LA_${label.id}`, url: `${base}/repos/${owner}/${repo}/labels/${encodeURIComponent(label.name)}`, name: label.name, color: label.color, default: false, description: label.description };
  };
  const ensureLabel = (name: string, color = 'ededed', description: string | null = null) => {
    if (!labels.some((l) => l.name.toLowerCase() === name.toLowerCase())) labels.push({ id: nextLabelId++, name, color, description });
  };
  const commentObject = (base: string, comment: FakeComment) => ({
    id: comment.id,
    node_id: `IC_${comment.id}`,
    url: `${base}/repos/${owner}/${repo}/issues/comments/${comment.id}`,
    html_url: `https://github.com/${owner}/${repo}/issues/${comment.issue_number}#issuecomment-${comment.id}`,
    body: comment.body,
    user: { login: 'servebench-bot', id: 1, type: 'Bot' },
    created_at: comment.created_at,
    updated_at: comment.created_at,
    issue_url: `${base}/repos/${owner}/${repo}/issues/${comment.issue_number}`,
    author_association: 'NONE',
  });
  const issueObject = (base: string, issue: FakeIssue) => ({
    id: 1_000_000 + issue.number,
    node_id: `I_${issue.number}`,
    url: `${base}/repos/${owner}/${repo}/issues/${issue.number}`,
    repository_url: `${base}/repos/${owner}/${repo}`,
    labels_url: `${base}/repos/${owner}/${repo}/issues/${issue.number}/labels{/name}`,
    comments_url: `${base}/repos/${owner}/${repo}/issues/${issue.number}/comments`,
    events_url: `${base}/repos/${owner}/${repo}/issues/${issue.number}/events`,
    html_url: `https://github.com/${owner}/${repo}/${issue.pull_request ? 'pull' : 'issues'}/${issue.number}`,
    number: issue.number,
    state: issue.state,
    state_reason: issue.state_reason,
    title: issue.title,
    body: issue.body,
    user: { login: 'servebench-bot', id: 1, type: 'Bot' },
    labels: issue.labels.map((name) => labelObject(base, name)),
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    comments: issue.comments,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at,
    author_association: 'NONE',
    ...(issue.pull_request
      ? { pull_request: { url: `${base}/repos/${owner}/${repo}/pulls/${issue.number}`, html_url: `https://github.com/${owner}/${repo}/pull/${issue.number}`, diff_url: null, patch_url: null } }
      : {}),
  });

  const addIssue = (partial: Partial<FakeIssue> & { title: string }): FakeIssue => {
    for (const name of partial.labels ?? []) ensureLabel(name);
    const created = stamp();
    const issue: FakeIssue = {
      number: issues.length + 1,
      body: null,
      state: 'open',
      state_reason: null,
      labels: [],
      comments: 0,
      pull_request: false,
      created_at: created,
      updated_at: created,
      closed_at: null,
      ...partial,
    };
    issues.push(issue);
    return issue;
  };

  const validation = (response: ServerResponse, resource: string, errors: object[], doc: string) =>
    sendJson(response, 422, { message: 'Validation Failed', errors: errors.map((e) => ({ resource, ...e })), documentation_url: `${DOCS}/${doc}`, status: '422' });

  const handler: FakeHandler = (request, response) => {
    const url = new URL(request.url, 'http://fake');
    const repoPrefix = `/repos/${owner}/${repo}`;
    const listById = `/repositories/${REPO_ID}/issues`;
    if (!url.pathname.startsWith(`${repoPrefix}/`) && url.pathname !== listById) return false;
    const base = `http://${request.headers.host}`;
    const write = request.method !== 'GET';

    const interruption = interruptions.findIndex((i) => i.when === undefined || i.when(request));
    const rateHeaders = () => ({
      'x-ratelimit-limit': String(rateLimit.limit),
      'x-ratelimit-remaining': String(rateLimit.remaining),
      'x-ratelimit-used': String(rateLimit.limit - rateLimit.remaining),
      'x-ratelimit-reset': String(rateLimit.reset),
      'x-ratelimit-resource': 'core',
    });
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => sendJson(response, status, body, { ...rateHeaders(), ...headers });

    const auth = request.headers.authorization;
    const given = auth === undefined ? null : /^(?:Bearer|token) (.+)$/i.exec(auth)?.[1] ?? '';
    if (given !== null && given !== token) return answer(401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' });
    if (given === null && options.private) return answer(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
    if (given === null && write) return answer(401, { message: 'Requires authentication', documentation_url: DOCS, status: '401' });

    if (interruption >= 0) {
      const [i] = interruptions.splice(interruption, 1);
      return answer(i!.status, i!.body, i!.headers);
    }
    if (rateLimit.remaining <= 0) {
      return answer(403, { message: 'API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.', documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api`, status: '403' });
    }
    rateLimit.remaining -= 1;

    let payload: Record<string, unknown> = {};
    if (write) {
      try {
        payload = JSON.parse(request.body || '{}') as Record<string, unknown>;
      } catch {
        return answer(400, { message: 'Problems parsing JSON', documentation_url: DOCS, status: '400' });
      }
    }

    const rest = url.pathname === listById ? '/issues' : url.pathname.slice(repoPrefix.length);
    if (request.method === 'GET' && rest === '/issues') {
      const state = url.searchParams.get('state') ?? 'open';
      const sort = url.searchParams.get('sort') ?? 'created';
      const direction = url.searchParams.get('direction') ?? 'desc';
      if (!['open', 'closed', 'all'].includes(state)) return validation(response, 'Issue', [{ code: 'invalid', field: 'state', value: state }], 'issues/issues#list-repository-issues');
      if (!['created', 'updated', 'comments'].includes(sort) || !['asc', 'desc'].includes(direction)) return validation(response, 'Issue', [{ code: 'invalid', field: sort === 'created' || sort === 'updated' || sort === 'comments' ? 'direction' : 'sort' }], 'issues/issues#list-repository-issues');
      const wanted = (url.searchParams.get('labels') ?? '').split(',').map((l) => l.trim().toLowerCase()).filter((l) => l !== '');
      const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30)));
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
      const ascending = direction === 'asc';
      const sortKey = (i: FakeIssue): [string | number, number] => [sort === 'updated' ? i.updated_at : sort === 'comments' ? i.comments : i.created_at, i.number];
      const matching = issues
        .filter((i) => state === 'all' || i.state === state)
        .filter((i) => wanted.every((w) => i.labels.some((l) => l.toLowerCase() === w)))
        .sort((a, b) => {
          const [ka, na] = sortKey(a);
          const [kb, nb] = sortKey(b);
          const order = ka < kb ? -1 : ka > kb ? 1 : na - nb;
          return ascending ? order : -order;
        });
      const last = Math.max(1, Math.ceil(matching.length / perPage));
      const pageUrl = (n: number) => {
        const query = new URLSearchParams(url.searchParams);
        query.set('page', String(n));
        return `${base}${listById}?${query.toString()}`;
      };
      const links = [
        ...(page > 1 ? [`<${pageUrl(page - 1)}>; rel="prev"`] : []),
        ...(page < last ? [`<${pageUrl(page + 1)}>; rel="next"`, `<${pageUrl(last)}>; rel="last"`] : []),
        ...(page > 1 ? [`<${pageUrl(1)}>; rel="first"`] : []),
      ];
      return answer(200, matching.slice((page - 1) * perPage, page * perPage).map((i) => issueObject(base, i)), links.length > 0 ? { link: links.join(', ') } : {});
    }
    if (request.method === 'POST' && rest === '/issues') {
      const title = payload['title'];
      if (typeof title !== 'string' || title === '') return validation(response, 'Issue', [{ code: 'missing_field', field: 'title' }], 'issues/issues#create-an-issue');
      if (title.length > 256) return validation(response, 'Issue', [{ code: 'custom', field: 'title', message: 'title is too long (maximum is 256 characters)' }], 'issues/issues#create-an-issue');
      const names = Array.isArray(payload['labels']) ? (payload['labels'] as unknown[]).map(String) : [];
      const issue = addIssue({ title, body: typeof payload['body'] === 'string' ? payload['body'] : null, labels: names });
      return answer(201, issueObject(base, issue), { location: `${base}${repoPrefix}/issues/${issue.number}` });
    }
    const one = /^\/issues\/(\d+)$/.exec(rest);
    if (one && request.method === 'PATCH') {
      const issue = issues.find((i) => i.number === Number(one[1]));
      if (!issue) return answer(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
      if (typeof payload['title'] === 'string') {
        if (payload['title'].length > 256) return validation(response, 'Issue', [{ code: 'custom', field: 'title', message: 'title is too long (maximum is 256 characters)' }], 'issues/issues#update-an-issue');
        issue.title = payload['title'];
      }
      const state = payload['state'];
      const reason = payload['state_reason'];
      if (state !== undefined && state !== 'open' && state !== 'closed') return validation(response, 'Issue', [{ code: 'invalid', field: 'state' }], 'issues/issues#update-an-issue');
      if (reason !== undefined && reason !== null && !['completed', 'not_planned', 'duplicate', 'reopened'].includes(reason as string)) return validation(response, 'Issue', [{ code: 'invalid', field: 'state_reason' }], 'issues/issues#update-an-issue');
      if ('body' in payload) issue.body = typeof payload['body'] === 'string' ? payload['body'] : null;
      // state_reason is ignored unless the state changes (docs: "Ignored unless `state` is changed").
      if ((state === 'open' || state === 'closed') && state !== issue.state) {
        issue.state = state;
        issue.closed_at = state === 'closed' ? stamp() : null;
        issue.state_reason = typeof reason === 'string' ? reason : state === 'closed' ? 'completed' : 'reopened';
      }
      if (Array.isArray(payload['labels'])) {
        issue.labels = (payload['labels'] as unknown[]).map(String);
        for (const name of issue.labels) ensureLabel(name);
      }
      issue.updated_at = stamp();
      return answer(200, issueObject(base, issue));
    }
    const commentsOf = /^\/issues\/(\d+)\/comments$/.exec(rest);
    if (commentsOf && request.method === 'POST') {
      const issue = issues.find((i) => i.number === Number(commentsOf[1]));
      if (!issue) return answer(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
      if (typeof payload['body'] !== 'string' || payload['body'] === '') return validation(response, 'IssueComment', [{ code: 'missing_field', field: 'body' }], 'issues/comments#create-an-issue-comment');
      const comment: FakeComment = { id: nextCommentId++, issue_number: issue.number, body: payload['body'], created_at: stamp() };
      comments.push(comment);
      issue.comments += 1;
      issue.updated_at = comment.created_at;
      return answer(201, commentObject(base, comment));
    }
    if (commentsOf && request.method === 'GET') {
      const issue = issues.find((i) => i.number === Number(commentsOf[1]));
      if (!issue) return answer(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
      const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30)));
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
      const all = comments.filter((c) => c.issue_number === issue.number);
      return answer(200, all.slice((page - 1) * perPage, page * perPage).map((c) => commentObject(base, c)));
    }
    if (request.method === 'POST' && rest === '/labels') {
      const name = payload['name'];
      if (typeof name !== 'string' || name === '') return validation(response, 'Label', [{ code: 'missing_field', field: 'name' }], 'issues/labels#create-a-label');
      if (labels.some((l) => l.name.toLowerCase() === name.toLowerCase())) return validation(response, 'Label', [{ code: 'already_exists', field: 'name' }], 'issues/labels#create-a-label');
      ensureLabel(name, typeof payload['color'] === 'string' ? payload['color'] : 'ededed', typeof payload['description'] === 'string' ? payload['description'] : null);
      return answer(201, labelObject(base, name));
    }
    return answer(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
  };

  return {
    handler,
    owner,
    repo,
    token,
    issues,
    comments,
    labels,
    interruptions,
    rateLimit,
    addIssue,
    close(number) {
      const issue = issues.find((i) => i.number === number)!;
      issue.state = 'closed';
      issue.state_reason = 'completed';
      issue.closed_at = stamp();
      issue.updated_at = issue.closed_at;
    },
    reopen(number) {
      const issue = issues.find((i) => i.number === number)!;
      issue.state = 'open';
      issue.state_reason = 'reopened';
      issue.closed_at = null;
      issue.updated_at = stamp();
    },
  };
}
