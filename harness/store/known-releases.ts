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
import { knownVersions, readReleasesFile, releasesFilePaths } from '../contract/releases.ts';
import { memoByKey } from '../lib/memo.ts';

const versionsIn = memoByKey((paths: string) => knownVersions(paths.split(delimiter).map((file) => readReleasesFile(file, { flag: 'the release list' }))));

/** null: the run recorded no version (it failed before the server said), so there is nothing to know. */
export function engineVersionKnown(engine: string, version: string | null | undefined, files: readonly string[] = releasesFilePaths()): boolean | null {
  if (version === null || version === undefined) return null;
  return versionsIn(files.join(delimiter)).get(engine)?.has(version) ?? false;
}
