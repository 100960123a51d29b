/**
 * Where a bisection's releases come from, and what each needs before it runs: llama.cpp's from the
 * npm registry (node-llama-cpp's releases and the tag each bundles, releases.ts), built on first
 * use when servebench launches it as a process; every other engine's from the list the caller
 * gives (--releases), run as they are. One composition for `servebench bisect` and `servebench
 * confirm`, so that both walk and build the same releases.
 */
import type { Engine } from '../../contract/engine.ts';
import { usageError } from '../../lib/errors.ts';
import { packedBundle, type BundleLookup } from '../detect/detect-npm.ts';
import { defaultPolicy } from '../http/http-conditional.ts';
import { fetchPackument, npmClient } from '../http/npm-registry.ts';
import { ensureLlamaCppBuild, type AbComparatorContext, type Builds } from './ab-comparator.ts';
import { explicitReleases, knownBundledTags, npmReleases, type ReleaseList } from './releases.ts';

export interface ReleaseSourceDeps {
  /** Reads a node-llama-cpp tarball's llama.cpp tag (default: npm pack, as detect reads it). */
  readonly bundles?: BundleLookup;
}

/**
 * The releases from `good` to `bad`: `listed` (the versions between them, for an engine without a
 * registry) when given, else the registry's for an engine servebench lists (llamacpp); `flag`
 * names the option that gives `listed`, for the error that asks for it.
 */
export async function listReleases(engine: Engine, good: string, bad: string, listed: readonly string[] | null, options: { readonly flag: string; readonly deps?: ReleaseSourceDeps; readonly progress: (line: string) => void }): Promise<ReleaseList> {
  if (listed !== null) return explicitReleases(listed, good, bad);
  const npmPackage = engine.source.npm;
  if (npmPackage === undefined) throw usageError(`${options.flag} is required for engine ${engine.name}: servebench lists releases from a registry only for llamacpp (node-llama-cpp on npm); give the versions between the two releases, e.g. ${options.flag} 1.1.0,1.2.0`);
  const packument = await fetchPackument(npmClient(defaultPolicy), npmPackage, null);
  if (!packument.changed) throw usageError(`the npm registry answered 304 to an unconditional request for ${npmPackage}`);
  return npmReleases(good, bad, { versions: packument.versions, known: knownBundledTags(), bundles: options.deps?.bundles ?? packedBundle, progress: options.progress });
}

/**
 * For llama.cpp launched as a process: build each release before its first comparison (unless
 * the build cache has it) and run it by its tag, which names its build; nothing for other engines.
 */
export function releasePreparation(engine: Engine, launcher: string | undefined, list: ReleaseList, builds: Builds, progress: (line: string) => void): Pick<AbComparatorContext, 'prepare' | 'engineVersionOf'> {
  if (launcher !== 'process' || engine.local_build !== 'llamacpp') return {};
  const releaseOf = (version: string) => list.releases.find((release) => release.version === version)!;
  return { prepare: (version) => ensureLlamaCppBuild(releaseOf(version), builds, progress), engineVersionOf: (version) => releaseOf(version).tag ?? version };
}
