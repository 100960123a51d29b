/**
 * An engine's releases from GitHub: `GET /repos/{o}/{r}/releases` (newest first, as GitHub lists
 * them), or its tags for a repository that only tags. Both are paged with the Link header and
 * conditional on the first page's ETag; paging stops at the first page that holds a version
 * already known, so a routine poll costs one request (a 304 when nothing changed).
 * https://docs.github.com/en/rest/releases/releases#list-releases
 * https://docs.github.com/en/rest/repos/repos#list-repository-tags
 */
import { z } from 'zod';
import { githubGet, githubJson, parseLinkHeader, type GithubClient } from './github-http.ts';

export interface UpstreamRelease {
  /** The git tag, e.g. "v0.11.0" or "b6123". */
  readonly tag: string;
  /** The version the tag names: "0.11.0", "6123" (see versionFromTag). */
  readonly version: string;
  readonly release_url: string;
  /** Null for a plain tag, which has no release date. */
  readonly published_at: string | null;
  readonly draft: boolean;
  readonly prerelease: boolean;
}

export type Listing =
  | { readonly changed: false; readonly etag: string | null }
  | {
      readonly changed: true;
      readonly etag: string | null;
      readonly releases: UpstreamRelease[];
      /** The first page was an empty list: the repository has none at all (not: none that name a version). */
      readonly empty: boolean;
    };

export interface ListOptions {
  /** The first page's ETag from the last poll; a 304 then means nothing changed. */
  readonly etag: string | null;
  /** A version already reported or waiting: paging stops after the page that holds one. */
  readonly isKnown: (version: string) => boolean;
  readonly maxPages: number;
}

const PER_PAGE = 100;

// Only the fields used; GitHub's release object has many more (assets, author, body, …).
const ReleaseJson = z.object({
  tag_name: z.string(),
  html_url: z.string(),
  draft: z.boolean(),
  prerelease: z.boolean(),
  published_at: z.string().nullable(),
});
const TagJson = z.object({ name: z.string() });

/**
 * The version a tag names: the tag itself, or the tag less one leading letter ("v0.11.0" →
 * "0.11.0", llama.cpp's "b6123" → "6123"), which is what the engines' image tag templates take
 * ("v{version}", "server-cuda-b{version}", "{version}"). Any other tag ("gateway-v0.2.0",
 * "nightly") belongs to another product of the same repository, or to none: null, skipped.
 */
export function versionFromTag(tag: string): string | null {
  const match = /^[A-Za-z]?(\d[\w.+-]*)$/.exec(tag);
  return match ? match[1]! : null;
}

// PEP 440 and semver spellings, in release order: dev < alpha < beta < rc.
const PRE_RELEASE_RANK: Readonly<Record<string, number>> = { dev: 0, a: 1, alpha: 1, b: 2, beta: 2, c: 3, rc: 3, pre: 3, preview: 3 };

function isPreRelease(token: number | string | undefined): boolean {
  return typeof token === 'string' && token in PRE_RELEASE_RANK;
}

/** For plain tags, which have no prerelease flag: "1.0.0rc4", "0.5.0-beta.1", "1.2.0a1", "0.1.dev0". */
export function looksLikePrerelease(version: string): boolean {
  return tokens(version).some(isPreRelease);
}

/** Orders versions numerically part by part; a pre-release sorts before its release ("1.0.0rc4" < "1.0.0" < "1.0.0.post1"). */
export function compareVersions(a: string, b: string): number {
  const x = tokens(a);
  const y = tokens(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i];
    const q = y[i];
    if (p === q) continue;
    if (typeof p === 'number' && typeof q === 'number') return p - q;
    // Against an end or a number, a word is a pre-release (before) or a suffix such as "post" (after).
    if (p === undefined || typeof p === 'number') return isPreRelease(q) ? 1 : -1;
    if (q === undefined || typeof q === 'number') return isPreRelease(p) ? -1 : 1;
    if (isPreRelease(p) !== isPreRelease(q)) return isPreRelease(p) ? -1 : 1;
    const rank = (PRE_RELEASE_RANK[p] ?? 0) - (PRE_RELEASE_RANK[q] ?? 0);
    return rank !== 0 ? rank : p < q ? -1 : 1;
  }
  return 0;
}

function tokens(version: string): Array<number | string> {
  return (version.toLowerCase().match(/\d+|[a-z]+/g) ?? []).map((token) => (/^\d/.test(token) ? Number(token) : token));
}

/** The newest of some releases: the latest publication date, else (plain tags) the highest version. */
export function newestRelease(releases: readonly UpstreamRelease[]): UpstreamRelease | null {
  let best: UpstreamRelease | null = null;
  for (const release of releases) {
    if (best === null) best = release;
    else {
      const byDate = (release.published_at ?? '').localeCompare(best.published_at ?? '');
      if (byDate > 0 || (byDate === 0 && compareVersions(release.version, best.version) > 0)) best = release;
    }
  }
  return best;
}

/** The first page's request path: the key its ETag is kept under. */
export function releasesPath(repository: string): string {
  return `/repos/${repository}/releases?per_page=${PER_PAGE}`;
}

export function tagsPath(repository: string): string {
  return `/repos/${repository}/tags?per_page=${PER_PAGE}`;
}

export function listReleases(client: GithubClient, repository: string, options: ListOptions): Promise<Listing> {
  return listPaged(client, releasesPath(repository), options, (item) => {
    const release = ReleaseJson.parse(item);
    const version = versionFromTag(release.tag_name);
    return version === null
      ? null
      : { tag: release.tag_name, version, release_url: release.html_url, published_at: release.published_at, draft: release.draft, prerelease: release.prerelease };
  });
}

export function listTags(client: GithubClient, repository: string, options: ListOptions): Promise<Listing> {
  return listPaged(client, tagsPath(repository), options, (item) => {
    const { name } = TagJson.parse(item);
    const version = versionFromTag(name);
    return version === null
      ? null
      : { tag: name, version, release_url: `https://github.com/${repository}/releases/tag/${encodeURIComponent(name)}`, published_at: null, draft: false, prerelease: looksLikePrerelease(version) };
  });
}

async function listPaged(
  client: GithubClient,
  firstPath: string,
  options: ListOptions,
  toRelease: (item: unknown) => UpstreamRelease | null,
): Promise<Listing> {
  const first = await githubGet(client, firstPath, options.etag);
  if (first.notModified) return { changed: false, etag: first.etag };
  const releases: UpstreamRelease[] = [];
  let empty = false;
  let page = first;
  for (let pages = 1; ; pages++) {
    const items = githubJson(page);
    if (!Array.isArray(items)) throw new Error(`GitHub answered something other than a list for ${page.response.url}`);
    if (pages === 1) empty = items.length === 0;
    const mapped = items.map((item) => {
      try {
        return toRelease(item);
      } catch (error) {
        throw new Error(`unexpected item in ${page.response.url}: ${(error as Error).message.split('\n')[0]}`);
      }
    });
    const onPage = mapped.filter((release): release is UpstreamRelease => release !== null);
    releases.push(...onPage);
    const next = parseLinkHeader(page.response.headers['link'])['next'];
    if (!next || pages >= options.maxPages || onPage.some((release) => options.isKnown(release.version))) break;
    page = await githubGet(client, new URL(next, page.response.url).href);
  }
  return { changed: true, etag: first.etag, releases, empty };
}
