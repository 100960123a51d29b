/**
 * Whether a result's engine version is a known release of its engine (fleet/releases.json). A
 * version that is not is accepted, as "unverified": shown, never ranked, never in a statistic
 * (compile's engine_version_known = false). Not refused, because the nightly measures a release
 * the day detect reports it, and detect appends it to the list in that same commit: refusing would
 * block the night whenever the list and a result disagree for a day. Unverified keeps a made-up
 * version ("v0.5.0") visible to whoever looks, and out of every median, rank, delta and alert.
 *
 * validate and compile call this one function with the same lists (the checkout's, plus those
 * $SERVEBENCH_EXTRA_RELEASES names in both), so they give the same answer.
 */
import { delimiter } from 'node:path';
import { knownVersions, readReleasesFile, releasesFilePaths, type ReleasesFile } from '../contract/releases.ts';
import { memoByKey } from '../lib/memo.ts';

const listsIn = memoByKey((paths: string): ReleasesFile[] => paths.split(delimiter).map((file) => readReleasesFile(file, { flag: 'the release list' })));
const versionsIn = memoByKey((paths: string) => knownVersions(listsIn(paths)));

/** null: the run recorded no version (it failed before the server said), so there is nothing to know. */
export function engineVersionKnown(engine: string, version: string | null | undefined, files: readonly string[] = releasesFilePaths()): boolean | null {
  if (version === null || version === undefined) return null;
  return versionsIn(files.join(delimiter)).get(engine)?.has(version) ?? false;
}

/** What the site says of a release besides its numbers: the day it was published and its release notes. */
export interface ReleaseNotes {
  /** UTC day of published_at; null when the list has none. */
  readonly release_date: string | null;
  /** The release's page, https only (it becomes a link); null when the list has none. */
  readonly release_url: string | null;
}

const httpsUrl = (url: string | null): string | null => {
  if (url === null || !URL.canParse(url)) return null;
  return new URL(url).protocol === 'https:' ? url : null;
};
const dayOf = (at: string | null): string | null => (at !== null && Number.isFinite(Date.parse(at)) ? new Date(at).toISOString().slice(0, 10) : null);

const notesIn = memoByKey((paths: string) => {
  const notes = new Map<string, ReleaseNotes>();
  // Over every list, the first that knows a date (or a link) gives it: a test list only adds to the checkout's.
  for (const file of listsIn(paths)) {
    for (const [engine, list] of Object.entries(file.engines)) {
      for (const release of list.releases) {
        const key = JSON.stringify([engine, release.version]);
        const had = notes.get(key);
        notes.set(key, { release_date: had?.release_date ?? dayOf(release.published_at), release_url: had?.release_url ?? httpsUrl(release.release_url) });
      }
    }
  }
  return notes;
});

/** The published day and release notes of an engine's version, from the release lists; both null for a version none lists. */
export function releaseNotes(engine: string, version: string, files: readonly string[] = releasesFilePaths()): ReleaseNotes {
  return notesIn(files.join(delimiter)).get(JSON.stringify([engine, version])) ?? { release_date: null, release_url: null };
}
