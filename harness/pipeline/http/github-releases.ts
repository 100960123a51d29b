/**
 * An engine's releases from GitHub: `GET /repos/{o}/{r}/releases` (newest first, as GitHub lists
 * them), or its tags for a repository that only tags.
 * - Releases are paged with the Link header and conditional on the first page's ETag; paging
 *   stops at the first page that holds a version already known, so a routine poll costs one
 *   request (a 304 when nothing changed).
 * - Tags are listed by tag NAME, not by date (google/go-github#3583, loopwerk/tag-changelog#12:
 *   reverse name order), so a new tag can land on any page and shift the pages after it. Every
 *   page is read (at most MAX_TAG_PAGES), each conditional on its own ETag; "newest" is the
 *   highest version, not the first listed.
 * https://docs.github.com/en/rest/releases/releases#list-releases
 * https://docs.github.com/en/rest/repos/repos#list-repository-tags
 */
import { z } from 'zod';
import { VersionSchema } from '../../contract/fleet.ts';
import { githubGet, githubJson, parseLinkHeader, type GithubClient } from './github-http.ts';
import { compareVersions, looksLikePrerelease } from '../../lib/version-compare.ts';

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
      /** Tags that look like versions but were skipped (e.g. too long for the fleet's version names), one line each. */
      readonly notes: string[];
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
 * ("v{version}", "server-cuda12-b{version}", "{version}"). Any other tag ("gateway-v0.2.0",
 * "nightly") belongs to another product of the same repository, or to none: null, skipped.
 * A version the fleet could not plan (the fleet's VersionSchema: at most 64 characters of
 * letters, digits and . _ + -) is null too; see tagVersion for why.
 */
export function versionFromTag(tag: string): string | null {
  const parsed = tagVersion(tag);
  return parsed !== null && 'version' in parsed ? parsed.version : null;
}

/**
 * versionFromTag with the reason a version-like tag was refused: `plan` checks every reported
 * version against VersionSchema and fails the whole night on one it refuses, so such a tag is
 * skipped here, with a note, instead.
 */
export function tagVersion(tag: string): { version: string } | { refused: string } | null {
  const match = /^[A-Za-z]?(\d[\w.+-]*)$/.exec(tag);
  if (!match) return null;
  const version = match[1]!;
  const checked = VersionSchema.safeParse(version);
  if (!checked.success) return { refused: `tag "${tag.length > 80 ? `${tag.slice(0, 77)}...` : tag}" skipped: its version is not ${checked.error.issues[0]?.message ?? 'a valid release name'}` };
  return { version };
}

// One version order for detect and the sim: harness/lib/version-compare.ts.
export { compareVersions, looksLikePrerelease };

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

/** Page `page` of the tags (1: the first page, the path kept before tags were read page by page). */
export function tagsPath(repository: string, page = 1): string {
  return `/repos/${repository}/tags?per_page=${PER_PAGE}${page > 1 ? `&page=${page}` : ''}`;
}

/**
 * Pages of tags read at most: 1,000 tags. A repository with more (listed by name, so not the
 * oldest ones) may hide a new tag past the bound; the listing then carries a note saying so.
 */
export const MAX_TAG_PAGES = 10;

type Mapped = UpstreamRelease | { refused: string } | null;

export function listReleases(client: GithubClient, repository: string, options: ListOptions): Promise<Listing> {
  return listPaged(client, releasesPath(repository), options, (item) => {
    const release = ReleaseJson.parse(item);
    const parsed = tagVersion(release.tag_name);
    if (parsed === null || 'refused' in parsed) return parsed;
    return { tag: release.tag_name, version: parsed.version, release_url: release.html_url, published_at: release.published_at, draft: release.draft, prerelease: release.prerelease };
  });
}

function tagToRelease(repository: string, item: unknown): Mapped {
  const { name } = TagJson.parse(item);
  const parsed = tagVersion(name);
  if (parsed === null || 'refused' in parsed) return parsed;
  return { tag: name, version: parsed.version, release_url: `https://github.com/${repository}/releases/tag/${encodeURIComponent(name)}`, published_at: null, draft: false, prerelease: looksLikePrerelease(parsed.version) };
}

export interface TagListOptions {
  /** The ETag a page (by its path, tagsPath(repository, n)) had at the last poll, or null. */
  readonly etag: (path: string) => string | null;
  /** Default MAX_TAG_PAGES. */
  readonly maxPages?: number;
}

export interface TagListing {
  /** Some page answered 200; false: every page read answered 304. */
  readonly changed: boolean;
  /** The tags on the pages that changed (an unchanged page's tags were handled at the poll its ETag came from). */
  readonly releases: UpstreamRelease[];
  /** Page path → ETag, for every page read: the ETags to keep (replacing the last poll's). */
  readonly etags: Array<[path: string, etag: string]>;
  readonly notes: string[];
}

/**
 * Every page of a repository's tags. GitHub lists tags by name (reverse order), not by date, so
 * there is no "stop at the first known tag": a new tag sorts wherever its name puts it and
 * shifts the pages after it. So every page is requested, each conditional on its own ETag
 * (unchanged pages cost a 304), up to MAX_TAG_PAGES. Which pages exist when a page answers 304
 * (no Link is promised on a 304) comes from the ETags kept: a page follows a 304 page when one
 * was read after it last time. A full last page is followed by one probe of the next (an empty
 * list, whose ETag is kept too), so a tag that sorts last onto a new page is not missed.
 */
export async function listTags(client: GithubClient, repository: string, options: TagListOptions): Promise<TagListing> {
  const maxPages = options.maxPages ?? MAX_TAG_PAGES;
  const releases: UpstreamRelease[] = [];
  const etags: Array<[string, string]> = [];
  const notes: string[] = [];
  let changed = false;
  for (let page = 1; page <= maxPages; page++) {
    const path = tagsPath(repository, page);
    const result = await githubGet(client, path, options.etag(path));
    if (result.etag) etags.push([path, result.etag]);
    if (result.notModified) {
      if (options.etag(tagsPath(repository, page + 1)) === null) break;
      continue;
    }
    changed = true;
    const items = pageItems(result.response.url, githubJson(result), (item) => tagToRelease(repository, item), releases, notes);
    const next = parseLinkHeader(result.response.headers['link'])['next'];
    if (!next && items < PER_PAGE) break;
    if (page === maxPages && next) notes.push(`tags past page ${maxPages} (the first ${maxPages * PER_PAGE} by name) not read; a new tag there goes unnoticed`);
  }
  return { changed, releases, etags, notes };
}

/** Maps one page's items into `releases` and `notes`; returns how many items the page held. */
function pageItems(url: string, items: unknown, toRelease: (item: unknown) => Mapped, releases: UpstreamRelease[], notes: string[]): number {
  if (!Array.isArray(items)) throw new Error(`GitHub answered something other than a list for ${url}`);
  for (const item of items) {
    let mapped: Mapped;
    try {
      mapped = toRelease(item);
    } catch (error) {
      throw new Error(`unexpected item in ${url}: ${(error as Error).message.split('\n')[0]}`);
    }
    if (mapped === null) continue;
    if ('refused' in mapped) notes.push(mapped.refused);
    else releases.push(mapped);
  }
  return items.length;
}

async function listPaged(client: GithubClient, firstPath: string, options: ListOptions, toRelease: (item: unknown) => Mapped): Promise<Listing> {
  const first = await githubGet(client, firstPath, options.etag);
  if (first.notModified) return { changed: false, etag: first.etag };
  const releases: UpstreamRelease[] = [];
  const notes: string[] = [];
  let empty = false;
  let page = first;
  for (let pages = 1; ; pages++) {
    const before = releases.length;
    const count = pageItems(page.response.url, githubJson(page), toRelease, releases, notes);
    if (pages === 1) empty = count === 0;
    const next = parseLinkHeader(page.response.headers['link'])['next'];
    if (!next || pages >= options.maxPages || releases.slice(before).some((release) => options.isKnown(release.version))) break;
    page = await githubGet(client, new URL(next, page.response.url).href);
  }
  return { changed: true, etag: first.etag, releases, empty, notes };
}
