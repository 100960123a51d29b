/**
 * detect for an engine whose releases come from npm (source.npm): llama.cpp, which servebench
 * builds from the source node-llama-cpp ships. A new stable node-llama-cpp version (x.y.z, from
 * 3.0, the first major that ships llama.cpp's source) is read once from its tarball
 * (llama/llama.cpp.info.json: the llama.cpp tag; llama/gitRelease.bundle: the commit) and reported
 * as {version: "3.8.1", tag: "b5415"}: the version is what `servebench llamacpp build
 * --node-llama-cpp` and `servebench run --engine-version` take, the tag what the result records.
 *
 * Rules, as for GitHub-polled engines (detect.ts) where they apply:
 * - First sighting (no state entry, or one written by a GitHub poll, whose versions are another
 *   namespace): only the newest version is reported; the others are recorded as seen unread.
 * - A version whose tarball cannot be read (registry down, npm missing) stays pending and is
 *   re-checked on every poll, also after a 304; the error is reported.
 * - A version that bundles a llama.cpp tag an earlier version already bundled (a JavaScript-only
 *   fix release) is the same engine build: recorded as seen, with a note, not reported.
 * - Prereleases (3.0.0-beta.12) and deprecated versions are never reported: --include-prereleases
 *   is about GitHub prereleases, and a beta of node-llama-cpp is not a llama.cpp release.
 * - There is no image to wait for: the lane builds the engine itself (image: null).
 */
import type { Engine } from '../../contract/engine.ts';
import { registrySource } from '../../measure/builds/llamacpp-source.ts';
import { compareVersions } from '../http/github-releases.ts';
import { fetchPackument, npmVersionUrl, packumentPath, type NpmClient } from '../http/npm-registry.ts';
import type { EngineState } from './state.ts';

/** node-llama-cpp ships llama.cpp's source (llama/gitRelease.bundle, llama/llama.cpp.info.json) from 3.0 on. */
export const MIN_BUNDLING_MAJOR = 3;
const STABLE = /^(\d+)\.(\d+)\.(\d+)$/;

/** What a version's tarball says of the llama.cpp it bundles. */
export interface BundledUpstream {
  /** llama.cpp's release tag: "b5415", "v0.4.0". */
  readonly tag: string;
  /** The bundle's commit (the build cache's key). */
  readonly commit: string;
}

/** Reads a version's tarball; injected so unit tests need no 10–20 MB download. */
export type BundleLookup = (npmPackage: string, version: string) => Promise<BundledUpstream>;

/** The real lookup: `npm pack` of the version (registrySource, as `servebench llamacpp build` fetches it), read and removed. */
export const packedBundle: BundleLookup = async (npmPackage, version) => {
  if (npmPackage !== 'node-llama-cpp') throw new Error(`${npmPackage}: only node-llama-cpp tarballs bundle llama.cpp's source`);
  const source = await registrySource(version);
  try {
    return { tag: source.tag, commit: source.commit };
  } finally {
    source.dispose();
  }
};

export function isBundlingVersion(version: string): boolean {
  const m = STABLE.exec(version);
  return m !== null && Number(m[1]) >= MIN_BUNDLING_MAJOR;
}

export interface NpmDetected {
  readonly engine: string;
  readonly version: string;
  readonly tag: string;
  readonly release_url: string;
  readonly published_at: string | null;
  readonly image: null;
  readonly images: [];
  /** Where the release came from and the bundle's commit (the key of `servebench llamacpp build`'s cache). */
  readonly npm: { readonly package: string; readonly bundle_commit: string };
}

export interface NpmEngineResult {
  readonly state: EngineState;
  readonly found: NpmDetected[];
  readonly errors: string[];
  readonly notes: string[];
}

export async function detectNpmEngine(
  engine: Engine,
  npmPackage: string,
  previous: EngineState | undefined,
  client: NpmClient,
  bundles: BundleLookup,
  day: string,
): Promise<NpmEngineResult> {
  const notes: string[] = [];
  const fresh = previous === undefined || previous.source !== 'npm';
  if (previous !== undefined && fresh) notes.push(`its state was written by a GitHub poll (${previous.source}); now read from npm (${npmPackage}): a first sighting`);
  const state: EngineState = fresh
    ? { source: 'npm', etags: {}, seen: {}, pending: {}, upstream_tags: {} }
    : { source: 'npm', etags: { ...previous.etags }, seen: { ...previous.seen }, pending: { ...previous.pending }, upstream_tags: { ...previous.upstream_tags } };
  const tags = state.upstream_tags!;
  const path = packumentPath(npmPackage);

  const packument = await fetchPackument(client, npmPackage, state.etags[path] ?? null);
  if (packument.etag) state.etags[path] = packument.etag;
  else delete state.etags[path];
  const published = new Map<string, string | null>();
  let listed: string[] = [];
  if (packument.changed) {
    for (const v of packument.versions) published.set(v.version, v.published_at);
    const deprecated = packument.versions.filter((v) => isBundlingVersion(v.version) && v.deprecated !== null && !(v.version in state.seen));
    for (const v of deprecated) {
      state.seen[v.version] = day;
      notes.push(`${v.version} recorded as seen, not reported: deprecated on npm (${v.deprecated!.slice(0, 200)})`);
    }
    listed = packument.versions.filter((v) => isBundlingVersion(v.version) && v.deprecated === null).map((v) => v.version);
  }
  const unseen = listed.filter((version) => !(version in state.seen)).sort(compareVersions);
  let candidates: string[];
  if (fresh) {
    const newest = unseen.at(-1);
    for (const version of unseen) if (version !== newest) state.seen[version] = day;
    candidates = newest === undefined ? [] : [newest];
  } else {
    candidates = unseen.filter((version) => !(version in state.pending));
  }
  // Versions whose tarball could not be read (or that collect put back) are re-checked whatever the packument said.
  for (const version of Object.keys(state.pending)) if (!candidates.includes(version)) candidates.push(version);
  candidates.sort(compareVersions);

  const found: NpmDetected[] = [];
  const errors: string[] = [];
  for (const version of candidates) {
    const waiting = state.pending[version];
    const since = waiting?.since ?? day;
    const publishedAt = published.get(version) ?? waiting?.published_at ?? null;
    let upstream: BundledUpstream;
    try {
      upstream = await bundles(npmPackage, version);
    } catch (error) {
      state.pending[version] = { tag: waiting?.tag ?? version, release_url: npmVersionUrl(npmPackage, version), published_at: publishedAt, since };
      errors.push(`${version}: could not read the llama.cpp tag its tarball bundles (re-checked on the next poll): ${(error as Error).message.split('\n')[0]}`);
      continue;
    }
    delete state.pending[version];
    state.seen[version] = day;
    const twin = Object.entries(tags).find(([other, tag]) => other !== version && tag === upstream.tag);
    tags[version] = upstream.tag;
    if (twin !== undefined) {
      notes.push(`${version} recorded as seen, not reported: it bundles llama.cpp ${upstream.tag}, as ${twin[0]} does (the same engine build)`);
      continue;
    }
    const repository = engine.source.repository;
    found.push({
      engine: engine.name,
      version,
      tag: upstream.tag,
      release_url: repository === null ? npmVersionUrl(npmPackage, version) : `https://github.com/${repository}/releases/tag/${upstream.tag}`,
      published_at: publishedAt,
      image: null,
      images: [],
      npm: { package: npmPackage, bundle_commit: upstream.commit },
    });
  }
  return { state, found, errors, notes };
}
