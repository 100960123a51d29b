/**
 * A fake GitHub REST API for an engine's releases and tags, over a mutable in-memory set of
 * repositories, answering as api.github.com does. Where the shapes come from:
 * - Release objects: the "List releases" response example and the OpenAPI `release` schema
 *   (https://docs.github.com/en/rest/releases/releases#list-releases, github/rest-api-description):
 *   url, html_url, assets_url, upload_url, tarball_url, zipball_url, id, node_id, tag_name,
 *   target_commitish, name, body, draft, prerelease, created_at, published_at (null for a draft),
 *   author, assets. Drafts are listed only to users with push access: here, any request with
 *   an Authorization header.
 * - Tag objects: `GET /repos/cli/cli/tags` as quoted in github/docs#40396 (name, zipball_url,
 *   tarball_url, commit {sha, url}, node_id), listed by name in reverse order, not by date
 *   (google/go-github#3583: golang/go's list starts weekly.2012-03-27, weekly.2012-03-22, …;
 *   loopwerk/tag-changelog#12: y6, y3, y2), so a new tag can land on any page.
 * - A renamed or transferred repository: its old name answers 301 with a Location under
 *   /repositories/{id}/… (GitHub's "Moved Permanently" body: message, url, documentation_url).
 * - Pagination: per_page (default 30, at most 100) and page; a `Link` header with prev/next/last/
 *   first, whose URLs GitHub writes under /repositories/{numeric id}/… (e.g. `curl -I
 *   https://api.github.com/repos/rails/rails/issues` → `<https://api.github.com/repositories/8514/
 *   issues?page=2>; rel="next", …; rel="last"`); no Link when everything fits on one page.
 * - Conditional requests: a weak `ETag` on every 200; `If-None-Match` with it → 304 without a
 *   body. A 304 to an authorized request does not count against the limit (GitHub's "Best
 *   practices for using the REST API"); an anonymous one does.
 * - Rate limits: x-ratelimit-limit/-remaining/-reset (epoch seconds)/-used/-resource on every
 *   answer; when spent, 403 with remaining 0 and the body GitHub sends anonymous callers
 *   ({"message":"API rate limit exceeded for <ip>. (But here's the good news: …)",
 *   "documentation_url":…}, as quoted in e.g. Justintime50/github-archive#54 and
 *   charany1/GHSDD#2) — https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api
 * - Unknown repository: 404 {"message":"Not Found","documentation_url":…,"status":"404"}.
 * - Injected failures (5xx, secondary rate limits with retry-after) answer before anything else.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson, type FakeHandler, type RecordedRequest } from './fake-server.ts';

export interface FakeReleaseInput {
  readonly tag_name: string;
  readonly name?: string;
  readonly draft?: boolean;
  readonly prerelease?: boolean;
  /** Default: now (the fake's clock). */
  readonly published_at?: string;
}

interface StoredRelease extends Required<FakeReleaseInput> {
  readonly id: number;
}

interface FakeRepo {
  readonly id: number;
  readonly fullName: string;
  /** Newest first, as GitHub lists them. */
  readonly releases: StoredRelease[];
  readonly tags: string[];
}

export interface InjectedAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
}

export interface FakeGithub {
  readonly handler: FakeHandler;
  /** Creates a repository (no releases, no tags) if it does not exist. */
  repo(fullName: string): void;
  /** Publishes a release at the top of the list (GitHub lists the newest first). */
  publish(fullName: string, release: FakeReleaseInput): void;
  tag(fullName: string, name: string): void;
  /** Renames `from` (which must exist) to `to`: requests naming `from` answer 301 to the repository's id URL. */
  move(from: string, to: string): void;
  /** The next `count` requests whose path contains `pathPart` get `answer` instead. */
  inject(answer: InjectedAnswer, count: number, pathPart?: string): void;
  /** The primary rate limit: mutable. */
  readonly rateLimit: { limit: number; remaining: number; reset: number };
}

export interface FakeGithubOptions {
  /** The fake's clock in ms (default Date.now): tests that skip waits move it forward. */
  readonly now?: () => number;
  /** Requests per hour (GitHub: 60 anonymous, 5000 with a token). */
  readonly limit?: number;
}

export function fakeGithub(options: FakeGithubOptions = {}): FakeGithub {
  const now = options.now ?? (() => Date.now());
  const repos = new Map<string, FakeRepo>();
  // old full name (lower case) → the repository it became
  const moved = new Map<string, FakeRepo>();
  const injected: Array<{ answer: InjectedAnswer; left: number; pathPart: string }> = [];
  const limit = options.limit ?? 60;
  const rateLimit = { limit, remaining: limit, reset: Math.floor(now() / 1000) + 3600 };
  let nextId = 1000;

  function repo(fullName: string): FakeRepo {
    const key = fullName.toLowerCase();
    let found = repos.get(key);
    if (!found) {
      found = { id: nextId++, fullName, releases: [], tags: [] };
      repos.set(key, found);
    }
    return found;
  }

  function rateHeaders(): Record<string, string> {
    return {
      'x-ratelimit-limit': String(rateLimit.limit),
      'x-ratelimit-remaining': String(Math.max(0, rateLimit.remaining)),
      'x-ratelimit-reset': String(rateLimit.reset),
      'x-ratelimit-used': String(rateLimit.limit - Math.max(0, rateLimit.remaining)),
      'x-ratelimit-resource': 'core',
      'x-github-api-version-selected': '2022-11-28',
    };
  }

  function releaseJson(base: string, owner: FakeRepo, release: StoredRelease): Record<string, unknown> {
    const api = `${base}/repos/${owner.fullName}`;
    return {
      url: `${api}/releases/${release.id}`,
      assets_url: `${api}/releases/${release.id}/assets`,
      upload_url: `${base.replace('://', '://uploads.')}/repos/${owner.fullName}/releases/${release.id}/assets{?name,label}`,
      html_url: `https://github.com/${owner.fullName}/releases/tag/${release.tag_name}`,
      id: release.id,
      author: { login: 'release-bot', id: 1, node_id: 'MDQ6VXNlcjE=', type: 'User', site_admin: false },
      node_id: Buffer.from(`RE_${release.id}`).toString('base64'),
      tag_name: release.tag_name,
      target_commitish: 'main',
      name: release.name,
      draft: release.draft,
      immutable: false,
      prerelease: release.prerelease,
      created_at: release.published_at,
      published_at: release.draft ? null : release.published_at,
      assets: [],
      tarball_url: `${api}/tarball/${release.tag_name}`,
      zipball_url: `${api}/zipball/${release.tag_name}`,
      body: `Release ${release.tag_name}`,
    };
  }

  function tagJson(base: string, owner: FakeRepo, name: string): Record<string, unknown> {
    const sha = createHash('sha1').update(`${owner.fullName}@${name}`).digest('hex');
    return {
      name,
      zipball_url: `${base}/repos/${owner.fullName}/zipball/refs/tags/${name}`,
      tarball_url: `${base}/repos/${owner.fullName}/tarball/refs/tags/${name}`,
      commit: { sha, url: `${base}/repos/${owner.fullName}/commits/${sha}` },
      node_id: Buffer.from(`REF_${owner.id}:refs/tags/${name}`).toString('base64'),
    };
  }

  const handler: FakeHandler = (request: RecordedRequest, response: ServerResponse) => {
    const url = new URL(request.url, 'http://fake');
    const byName = /^\/repos\/([^/]+\/[^/]+)\/(releases|tags)$/.exec(url.pathname);
    const byId = /^\/repositories\/(\d+)\/(releases|tags)$/.exec(url.pathname);
    if (!byName && !byId) return false;
    const base = `http://${request.headers.host}`;
    const authorized = typeof request.headers.authorization === 'string';

    const hit = injected.find((entry) => entry.left > 0 && url.pathname.includes(entry.pathPart));
    if (hit) {
      hit.left -= 1;
      return sendJson(response, hit.answer.status, hit.answer.body ?? { message: 'Server Error' }, { ...rateHeaders(), ...hit.answer.headers });
    }

    if (now() / 1000 >= rateLimit.reset) {
      rateLimit.remaining = rateLimit.limit;
      rateLimit.reset = Math.floor(now() / 1000) + 3600;
    }
    if (rateLimit.remaining <= 0) {
      return sendJson(
        response,
        403,
        {
          message: "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)",
          documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
        },
        rateHeaders(),
      );
    }

    const kind = (byName ?? byId)![2] as 'releases' | 'tags';
    const movedTo = byName && !repos.has(byName[1]!.toLowerCase()) ? moved.get(byName[1]!.toLowerCase()) : undefined;
    if (movedTo) {
      rateLimit.remaining -= 1;
      const location = `${base}/repositories/${movedTo.id}/${kind}${url.search}`;
      return sendJson(response, 301, { message: 'Moved Permanently', url: location, documentation_url: 'https://docs.github.com/v3/#http-redirects' }, { location, ...rateHeaders() });
    }
    const owner = byName ? repos.get(byName[1]!.toLowerCase()) : [...repos.values()].find((r) => String(r.id) === byId![1]);
    if (!owner) {
      rateLimit.remaining -= 1;
      return sendJson(response, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/releases/releases#list-releases', status: '404' }, rateHeaders());
    }

    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30) || 30));
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
    const all = kind === 'releases'
      ? owner.releases.filter((r) => authorized || !r.draft).map((r) => releaseJson(base, owner, r))
      : [...owner.tags].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)).map((name) => tagJson(base, owner, name));
    const items = all.slice((page - 1) * perPage, page * perPage);
    const body = JSON.stringify(items);
    const etag = `W/"${createHash('sha256').update(`${authorized}|${body}`).digest('hex').slice(0, 32)}"`;

    const ifNoneMatch = request.headers['if-none-match'];
    if (typeof ifNoneMatch === 'string' && ifNoneMatch.split(',').map((v) => v.trim()).some((v) => v === etag || v === '*' || `W/${v}` === etag)) {
      if (!authorized) rateLimit.remaining -= 1;
      response.writeHead(304, { etag, ...rateHeaders() });
      response.end();
      return true;
    }

    rateLimit.remaining -= 1;
    const lastPage = Math.max(1, Math.ceil(all.length / perPage));
    const link = (p: number) => `${base}/repositories/${owner.id}/${kind}?per_page=${perPage}&page=${p}`;
    const links: string[] = [];
    if (page > 1) links.push(`<${link(page - 1)}>; rel="prev"`);
    if (page < lastPage) links.push(`<${link(page + 1)}>; rel="next"`, `<${link(lastPage)}>; rel="last"`);
    if (page > 1) links.push(`<${link(1)}>; rel="first"`);
    return sendJson(response, 200, items, { etag, ...(links.length > 0 ? { link: links.join(', ') } : {}), 'cache-control': 'public, max-age=60, s-maxage=60', ...rateHeaders() });
  };

  return {
    handler,
    repo: (fullName) => void repo(fullName),
    publish(fullName, release) {
      const owner = repo(fullName);
      owner.releases.unshift({
        id: nextId++,
        tag_name: release.tag_name,
        name: release.name ?? release.tag_name,
        draft: release.draft ?? false,
        prerelease: release.prerelease ?? false,
        published_at: release.published_at ?? new Date(now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      });
    },
    tag(fullName, name) {
      repo(fullName).tags.unshift(name);
    },
    move(from, to) {
      const owner = repos.get(from.toLowerCase());
      if (!owner) throw new Error(`fake GitHub: no repository ${from} to move`);
      repos.delete(from.toLowerCase());
      const renamed: FakeRepo = { ...owner, fullName: to };
      repos.set(to.toLowerCase(), renamed);
      moved.set(from.toLowerCase(), renamed);
    },
    inject(answer, count, pathPart = '/') {
      injected.push({ answer, left: count, pathPart });
    },
    rateLimit,
  };
}
