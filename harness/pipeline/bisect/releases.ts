/**
 * The ordered releases a bisection walks, from --good to --bad inclusive, each with the links a
 * reader follows to see what changed.
 * - llama.cpp: the stable node-llama-cpp versions on the npm registry that bundle llama.cpp's
 *   source (detect's isBundlingVersion; deprecated ones left out, as detect leaves them), each with
 *   the llama.cpp tag its tarball bundles. That tag is read where it is already known (a build in
 *   the cache, fleet/releases.json) before any tarball is fetched: a tarball is 10–20 MB.
 *   Consecutive versions bundling the same tag (a JavaScript-only release) are one engine build:
 *   only the first is kept, so no step compares a build with itself.
 * - Any other engine (and the sim): the list --releases gives, in the harness's version order.
 * --good and --bad are names run --engine-version takes: a node-llama-cpp release, or a llama.cpp
 * tag (or build commit), mapped to the release that bundles it.
 */
import { llamaCppRelease, plainRelease, type BisectRelease } from '../../contract/comparison.ts';
import { usageError } from '../../lib/errors.ts';
import { compareVersions } from '../../lib/version-compare.ts';
import { DEFAULT_RELEASES_FILE, readReleasesFile } from '../../contract/releases.ts';
import { findLlamaCppBuild, listLlamaCppBuilds } from '../../measure/builds/llamacpp-build.ts';
import { isBundlingVersion, type BundleLookup } from '../detect/detect-npm.ts';

export type { BisectRelease } from '../../contract/comparison.ts';

export interface ReleaseList {
  readonly releases: readonly BisectRelease[];
  /** How --good/--bad were mapped, versions left out as the same build: said in the output. */
  readonly notes: readonly string[];
}

export { compareLink, LLAMACPP_REPOSITORY, llamaCppRelease, NODE_LLAMA_CPP_REPOSITORY } from '../../contract/comparison.ts';

function requireOrder(good: string, bad: string, how: string): void {
  if (compareVersions(good, bad) >= 0) throw usageError(`--good ${good} is not older than --bad ${bad}${how}: --good is the older release (the one before the change), --bad the newer`);
}

/** --releases for an engine without a registry: good, bad and the listed versions between them, ordered. */
export function explicitReleases(listed: readonly string[], good: string, bad: string): ReleaseList {
  requireOrder(good, bad, '');
  const between = listed.filter((version) => compareVersions(version, good) > 0 && compareVersions(version, bad) < 0);
  const versions = [...new Set([good, ...between, bad])].sort(compareVersions);
  return { releases: versions.map(plainRelease), notes: [] };
}

/** node-llama-cpp version → the llama.cpp tag it bundles, where already known on this machine or in the checkout. */
export function knownBundledTags(env: NodeJS.ProcessEnv = process.env, releasesFile: string = DEFAULT_RELEASES_FILE): Map<string, string> {
  const known = new Map<string, string>();
  const list = readReleasesFile(releasesFile, { flag: 'bisect' }).engines['llamacpp']?.releases ?? [];
  for (const release of list) if (release.npm !== undefined && release.tag !== null) known.set(release.npm.version, release.tag);
  for (const build of listLlamaCppBuilds(env)) known.set(build.node_llama_cpp, build.tag);
  return known;
}

export interface NpmReleaseSources {
  /** The package's versions as the registry lists them (fetchPackument), deprecated ones flagged. */
  readonly versions: readonly { readonly version: string; readonly deprecated: string | null }[];
  /** Tags already known (knownBundledTags); anything else is read with `bundles`. */
  readonly known: ReadonlyMap<string, string>;
  readonly bundles: BundleLookup;
  readonly env?: NodeJS.ProcessEnv;
  /** One line per tarball read (they take a while). */
  readonly progress?: (line: string) => void;
}

/**
 * The node-llama-cpp releases from --good to --bad, each with its tag. `given` may be a
 * node-llama-cpp version on the registry, or a llama.cpp tag or build commit (resolved as run
 * --engine-version resolves it: the build cache, then the known tags, then the listed tarballs).
 */
export async function npmReleases(good: string, bad: string, sources: NpmReleaseSources): Promise<ReleaseList> {
  const listed = sources.versions.filter((v) => isBundlingVersion(v.version) && v.deprecated === null).map((v) => v.version).sort(compareVersions);
  const tags = new Map(sources.known);
  const tagOf = async (version: string): Promise<string> => {
    const known = tags.get(version);
    if (known !== undefined) return known;
    sources.progress?.(`bisect: reading the llama.cpp tag node-llama-cpp ${version} bundles (npm pack)`);
    const { tag } = await sources.bundles('node-llama-cpp', version);
    tags.set(version, tag);
    return tag;
  };
  const notes: string[] = [];
  const endpoint = async (given: string, flag: '--good' | '--bad'): Promise<string> => {
    if (listed.includes(given)) return given;
    if (/^\d+\.\d+\.\d+/.test(given)) {
      throw usageError(`${flag} ${given}: not a stable node-llama-cpp release on the npm registry that bundles llama.cpp (from ${listed[0] ?? '3.0.0'} to ${listed.at(-1) ?? '?'}); give one of those, or a llama.cpp tag such as b5415`);
    }
    const build = findLlamaCppBuild(given, sources.env);
    const tag = build?.tag ?? given;
    let bundling = [...tags].filter(([version, t]) => t === tag && listed.includes(version)).map(([version]) => version);
    // Not known here: read the listed tarballs, oldest first, until one bundles it.
    for (const version of listed) {
      if (bundling.length > 0) break;
      if ((await tagOf(version)) === tag) bundling = [version];
    }
    if (bundling.length === 0) throw usageError(`${flag} ${given}: no stable node-llama-cpp release on the registry bundles llama.cpp ${tag}; give a node-llama-cpp version, or a tag one of them bundles (\`servebench bisect --help\`)`);
    bundling.sort(compareVersions);
    notes.push(`${flag} ${given}: llama.cpp ${tag}, bundled by node-llama-cpp ${bundling.join(', ')}${bundling.length > 1 ? ` (the same build; ${bundling[0]} is used)` : ''}`);
    return bundling[0]!;
  };
  const from = await endpoint(good, '--good');
  const to = await endpoint(bad, '--bad');
  requireOrder(from, to, from !== good || to !== bad ? ` (node-llama-cpp ${from} and ${to})` : '');
  const releases: BisectRelease[] = [];
  for (const version of listed.filter((v) => compareVersions(v, from) >= 0 && compareVersions(v, to) <= 0)) {
    const tag = await tagOf(version);
    const previous = releases.at(-1);
    if (previous?.tag === tag) {
      notes.push(`node-llama-cpp ${version} bundles llama.cpp ${tag} as ${previous.version} does: the same engine build, left out`);
      continue;
    }
    releases.push(llamaCppRelease(version, tag));
  }
  if (releases.length < 2) throw usageError(`--good ${good} and --bad ${bad} are the same llama.cpp build (llama.cpp ${releases[0]?.tag}): nothing to bisect`);
  return { releases, notes };
}
