/**
 * One poll of every engine's upstream: which (engine, version, image) are new since the last
 * poll. Pure orchestration over injected clients and state; the command does the I/O.
 *
 * Rules:
 * - An engine with `source.npm` is read from the npm registry instead (detect-npm.ts); one without
 *   that or `source.repository` is skipped (nothing to poll).
 * - Releases (drafts never, prereleases only when asked); a repository with no releases at all
 *   is read by its tags instead: every page of them (GitHub lists tags by name, so a new one can
 *   sort onto any page), newest by version.
 * - A tag whose version the fleet could not plan (VersionSchema) is skipped with a note; a
 *   version whose image tag cannot be written (e.g. "0.11.0+cu126": no "+" in an image tag) is
 *   recorded as seen, with a note, rather than left pending forever.
 * - A version is new once its image tag exists (or when the engine has no image). Until then it
 *   is pending: reported as such, kept in the state and re-checked on every poll, then reported
 *   new on the poll that finds the image.
 * - With a fleet file, each new version's fleet images (engines.<name>.images: the ROCm builds an
 *   AMD GPU type runs instead of the official CUDA image) are checked too and listed in `images`.
 *   One not published yet does not hold back the official image's jobs: the version is reported
 *   new (plan skips the GPU types whose image is missing) and is also kept pending while it is
 *   reported (in the state: both seen and pending; under "awaiting_images" in the report). Each
 *   poll re-checks those images; once all are out, it is reported new again with images_only, so
 *   plan runs just the GPU types that use them. The state has no field for which images were
 *   missing (detect-state.ts), so every fleet image of the version is re-checked and, with two
 *   images for one engine published on different days, the GPU types of the first one are run
 *   again on the retry.
 * - First sighting of an engine (no state entry): only its newest release is reported; the
 *   others listed (the first page of releases, every page of tags) are recorded as seen, so the
 *   fleet benchmarks the current release rather than
 *   years of history.
 * - An engine that fails (GitHub unreachable, 5xx after retries, no such repository) is an error
 *   and keeps its previous state; the others go on. A GitHub rate limit too long to wait for stops
 *   the GitHub polling of the engines after it (each would fail the same way).
 */
import { renderImageTag, type Engine } from '../../contract/engine.ts';
import type { Fleet } from '../../contract/fleet.ts';
import type { DetectState, EngineState } from './state.ts';
import type { GithubClient } from '../http/github-http.ts';
import { compareVersions, listReleases, listTags, MAX_TAG_PAGES, newestRelease, releasesPath, tagsPath, type UpstreamRelease } from '../http/github-releases.ts';
import { RateLimitError } from '../http/http-conditional.ts';
import { imageRef, type ImageRef, type RegistryClient } from '../http/registry-tags.ts';
import { npmClient, type NpmClient } from '../http/npm-registry.ts';
import { defaultPolicy } from '../http/http-conditional.ts';
import { detectNpmEngine, packedBundle, type BundleLookup } from './detect-npm.ts';

export interface DetectedVersion {
  readonly engine: string;
  readonly version: string;
  /** The git tag. */
  readonly tag: string;
  readonly release_url: string;
  readonly published_at: string | null;
  /** "vllm/vllm-openai:v0.11.0", or null for an engine without an official image. */
  readonly image: string | null;
  /** The fleet's other images of this version (engines.<name>.images), each checked; [] without a fleet file or overrides. */
  readonly images: FleetImageStatus[];
  /**
   * true: a retry. The official image's GPU types were planned when the version was first
   * reported; plan only the GPU types whose fleet image is listed here (now all published).
   */
  readonly images_only?: true;
  /** An engine read from npm (source.npm): the package, and the commit of the llama.cpp bundle the version ships (detect-npm.ts). */
  readonly npm?: { readonly package: string; readonly bundle_commit: string };
}

export interface FleetImageStatus {
  /** The fleet's key: a GPU type id or a vendor ("amd"). */
  readonly key: string;
  /** The GPU types that run this image for a new release (the id's own override wins over its vendor's). */
  readonly gpu_types: string[];
  readonly image: string;
  readonly published: boolean;
}

export interface PendingVersion extends DetectedVersion {
  readonly reason: string;
}

/** A version reported new for its official image whose fleet images are not all published yet. */
export interface AwaitingImages extends DetectedVersion {
  /** The images still missing (or whose check failed). */
  readonly pending_images: string[];
  /** The day it was first reported without them. */
  readonly since: string;
  readonly reason: string;
}

export interface DetectReport {
  readonly checked_at: string;
  readonly new: DetectedVersion[];
  readonly pending: PendingVersion[];
  /** Versions reported (now or on an earlier poll) that wait for some of the fleet's images; re-checked on every poll. */
  readonly awaiting_images: AwaitingImages[];
  readonly errors: Array<{ engine: string; message: string }>;
  /** What was left out on purpose, and why (tags the fleet cannot plan, images that cannot exist); not errors. */
  readonly notes: Array<{ engine: string; message: string }>;
}

export interface DetectOptions {
  readonly engines: readonly Engine[];
  readonly state: DetectState;
  readonly github: GithubClient;
  readonly registries: RegistryClient;
  readonly includePrereleases: boolean;
  /** The fleet file, for the images it runs instead of the official one; null: official images only. */
  readonly fleet?: Pick<Fleet, 'gpu_types' | 'engines' | 'matrix'> | null;
  readonly now?: () => Date;
  /** Pages of 100 releases read at most (first sightings read one); tags are read to MAX_TAG_PAGES. */
  readonly maxPages?: number;
  /** The npm registry, for engines with source.npm (default: $npm_config_registry, else registry.npmjs.org). */
  readonly npm?: NpmClient;
  /** Reads the llama.cpp tag a version's tarball bundles (default: npm pack; tests inject a recorded one). */
  readonly bundles?: BundleLookup;
}

export interface DetectOutcome {
  readonly report: DetectReport;
  /** The state to save: the input's, with each polled engine's entry replaced. */
  readonly state: DetectState;
  /** Engines without a repository to poll. */
  readonly skipped: string[];
}

const MAX_PAGES = 10;

export async function detect(options: DetectOptions): Promise<DetectOutcome> {
  const checkedAt = (options.now ?? (() => new Date()))().toISOString();
  const report: DetectReport = { checked_at: checkedAt, new: [], pending: [], awaiting_images: [], errors: [], notes: [] };
  const engines: Record<string, EngineState> = { ...options.state.engines };
  const skipped: string[] = [];
  let rateLimited: RateLimitError | null = null;
  for (const engine of options.engines) {
    const npmPackage = engine.source.npm;
    if (npmPackage !== undefined) {
      // npm, not GitHub: a GitHub rate limit does not hold it back.
      try {
        const result = await detectNpmEngine(engine, npmPackage, options.state.engines[engine.name], options.npm ?? npmClient(defaultPolicy), options.bundles ?? packedBundle, checkedAt.slice(0, 10));
        engines[engine.name] = result.state;
        report.new.push(...result.found);
        report.errors.push(...result.errors.map((message) => ({ engine: engine.name, message })));
        report.notes.push(...result.notes.map((message) => ({ engine: engine.name, message })));
      } catch (error) {
        report.errors.push({ engine: engine.name, message: (error as Error).message });
      }
      continue;
    }
    const repository = engine.source.repository;
    if (repository === null) {
      skipped.push(engine.name);
      continue;
    }
    if (rateLimited) {
      report.errors.push({ engine: engine.name, message: `not polled: ${rateLimited.message}` });
      continue;
    }
    try {
      const result = await detectEngine(engine, repository, options.state.engines[engine.name], options, checkedAt.slice(0, 10));
      engines[engine.name] = result.state;
      report.new.push(...result.found);
      report.pending.push(...result.pending);
      report.awaiting_images.push(...result.awaiting);
      report.errors.push(...result.errors.map((message) => ({ engine: engine.name, message })));
      report.notes.push(...result.notes.map((message) => ({ engine: engine.name, message })));
    } catch (error) {
      if (error instanceof RateLimitError && error.url.startsWith(options.github.apiUrl)) rateLimited = error;
      report.errors.push({ engine: engine.name, message: (error as Error).message });
    }
  }
  return { report, state: { schema_version: 1, engines }, skipped };
}

interface EngineResult {
  readonly state: EngineState;
  readonly found: DetectedVersion[];
  readonly pending: PendingVersion[];
  readonly awaiting: AwaitingImages[];
  /** Image checks that could not answer; the versions stay pending. */
  readonly errors: string[];
  /** Versions left out on purpose, one line each. */
  readonly notes: string[];
}

async function detectEngine(engine: Engine, repository: string, previous: EngineState | undefined, options: DetectOptions, day: string): Promise<EngineResult> {
  const state: EngineState = previous
    ? { source: previous.source, etags: { ...previous.etags }, seen: { ...previous.seen }, pending: { ...previous.pending } }
    : { source: 'releases', etags: {}, seen: {}, pending: {} };
  const firstSighting = previous === undefined;
  // A listing unchanged since a poll that skipped prereleases still holds prereleases this one wants:
  // the ETags of the two kinds of poll are kept apart.
  const etagKey = (path: string) => (options.includePrereleases ? `${path} (with prereleases)` : path);
  const listOptions = (path: string) => ({
    etag: state.etags[etagKey(path)] ?? null,
    isKnown: (version: string) => version in state.seen || version in state.pending,
    maxPages: firstSighting ? 1 : (options.maxPages ?? MAX_PAGES),
  });
  const remember = (path: string, etag: string | null) => {
    if (etag) state.etags[etagKey(path)] = etag;
    else delete state.etags[etagKey(path)];
  };

  // Every tag page's ETag (and the probe past the last page).
  const forgetTagPages = () => {
    for (let page = 1; page <= MAX_TAG_PAGES + 1; page++) delete state.etags[etagKey(tagsPath(repository, page))];
  };
  const notes: string[] = [];
  let listed: UpstreamRelease[] = [];
  const releases = await listReleases(options.github, repository, listOptions(releasesPath(repository)));
  if (releases.changed) {
    remember(releasesPath(repository), releases.etag);
    listed = releases.releases;
    notes.push(...releases.notes);
  }
  // Unchanged releases of a repository read by its tags last time: its tags may still have moved.
  if (releases.changed ? releases.empty : state.source === 'tags') {
    const tags = await listTags(options.github, repository, { etag: (path) => state.etags[etagKey(path)] ?? null });
    forgetTagPages();
    for (const [path, etag] of tags.etags) remember(path, etag);
    if (tags.changed) listed = tags.releases;
    notes.push(...tags.notes);
    state.source = 'tags';
  } else if (releases.changed) {
    state.source = 'releases';
    forgetTagPages();
  }

  const wanted = (release: UpstreamRelease) => options.includePrereleases || !release.prerelease;
  const unseen = uniqueByVersion(listed.filter((release) => !release.draft && !(release.version in state.seen)));
  let candidates: UpstreamRelease[];
  if (firstSighting) {
    const newest = newestRelease(unseen.filter(wanted));
    for (const release of unseen) if (release !== newest) state.seen[release.version] = day;
    candidates = newest ? [newest] : [];
  } else {
    candidates = unseen.filter((release) => wanted(release) && !(release.version in state.pending));
  }
  // Versions waiting for their image are re-checked whether or not the listing changed.
  for (const [version, waiting] of Object.entries(state.pending)) {
    candidates.push({ tag: waiting.tag, version, release_url: waiting.release_url, published_at: waiting.published_at, draft: false, prerelease: false });
  }
  candidates.sort((a, b) => (a.published_at ?? '').localeCompare(b.published_at ?? '') || compareVersions(a.version, b.version));

  const found: DetectedVersion[] = [];
  const pending: PendingVersion[] = [];
  const awaiting: AwaitingImages[] = [];
  const errors: string[] = [];
  const overrides = options.fleet ? fleetImages(options.fleet, engine.name) : null;

  // The fleet's images of a version: each checked; the missing ones (and failed checks) are waited for.
  const checkFleetImages = async (version: string): Promise<{ images: FleetImageStatus[]; waiting: string[] }> => {
    const images: FleetImageStatus[] = [];
    const waiting: string[] = [];
    for (const override of overrides ?? []) {
      const colon = override.template.lastIndexOf(':');
      const repository = override.template.slice(0, colon);
      const tag = renderImageTag(override.template.slice(colon + 1), version);
      const status = { key: override.key, gpu_types: override.gpu_types, image: `${repository}:${tag}` };
      let ref: ImageRef;
      try {
        ref = imageRef(repository, tag);
      } catch (error) {
        // As for the official image: no registry can ever hold it, so it is not waited for (plan skips its GPU types).
        images.push({ ...status, published: false });
        notes.push(`${version}: its ${override.key} image ${status.image} cannot exist (${(error as Error).message}); not waited for`);
        continue;
      }
      let published = false;
      try {
        published = await options.registries.imageExists(ref);
      } catch (error) {
        errors.push(`${version}: image check failed: ${(error as Error).message}`);
      }
      images.push({ ...status, published });
      if (!published) waiting.push(status.image);
    }
    return { images, waiting };
  };
  const awaitingEntry = (base: DetectedVersion, waiting: readonly string[], since: string): AwaitingImages => ({
    ...base,
    pending_images: [...waiting],
    since,
    reason: `reported new for its official image; waiting for ${waiting.join(', ')} (since ${since}); their GPU types run once published`,
  });

  for (const release of candidates) {
    const since = state.pending[release.version]?.since ?? day;
    const wait = () => {
      state.pending[release.version] = { tag: release.tag, release_url: release.release_url, published_at: release.published_at, since };
    };
    const base = { engine: engine.name, version: release.version, tag: release.tag, release_url: release.release_url, published_at: release.published_at };

    // Both seen and pending: reported for its official image, waiting for some of the fleet's.
    // (collect --detect-state drops the seen mark when its jobs leave no result: then it is re-checked whole.)
    if (release.version in state.seen) {
      if (overrides === null) {
        notes.push(`${release.version}: waits for the fleet's images, not re-checked: no fleet file (--fleet)`);
        continue;
      }
      if (overrides.length === 0) {
        delete state.pending[release.version];
        notes.push(`${release.version}: no longer waited for: the fleet declares no image of ${engine.name} for new releases`);
        continue;
      }
      const checked = await checkFleetImages(release.version);
      const reported = { ...base, image: officialImageRef(engine, release.version), images: checked.images };
      if (checked.waiting.length > 0) {
        awaiting.push(awaitingEntry(reported, checked.waiting, since));
        continue;
      }
      delete state.pending[release.version];
      found.push({ ...reported, images_only: true });
      continue;
    }

    let image: string | null = null;
    if (engine.image !== null) {
      let ref: ImageRef;
      try {
        ref = imageRef(engine.image.repository, renderImageTag(engine.image.tag, release.version));
      } catch (error) {
        // No registry can ever hold it: waiting would fail (exit 1) every night. Seen, not reported.
        delete state.pending[release.version];
        state.seen[release.version] = day;
        notes.push(`${release.version} (tag ${release.tag}) recorded as seen, not reported: its image tag cannot exist (${(error as Error).message})`);
        continue;
      }
      image = ref.display;
      let exists: boolean;
      try {
        exists = await options.registries.imageExists(ref);
      } catch (error) {
        wait();
        errors.push(`${release.version}: image check failed: ${(error as Error).message}`);
        continue;
      }
      if (!exists) {
        wait();
        pending.push({ ...base, image, images: [], reason: `image ${image} is not published yet (waiting since ${since})` });
        continue;
      }
    }
    // The official image is out: its GPU types are planned now, whatever the fleet's other images.
    const checked = await checkFleetImages(release.version);
    const reported = { ...base, image, images: checked.images };
    found.push(reported);
    state.seen[release.version] = day;
    if (checked.waiting.length > 0) {
      state.pending[release.version] = { tag: release.tag, release_url: release.release_url, published_at: release.published_at, since: day };
      awaiting.push(awaitingEntry(reported, checked.waiting, day));
    } else {
      delete state.pending[release.version];
    }
  }
  return { state, found, pending, awaiting, errors, notes };
}

/** The official image as the registry client names it (checked: a tag that cannot exist throws). */
function officialImageRef(engine: Engine, version: string): string | null {
  return engine.image === null ? null : imageRef(engine.image.repository, renderImageTag(engine.image.tag, version)).display;
}

/** One of the fleet's images of an engine (engines.<name>.images), with the GPU types that run it. */
export interface FleetImage {
  readonly key: string;
  readonly gpu_types: string[];
  /** "vllm/vllm-openai-rocm:v{version}" */
  readonly template: string;
}

/**
 * The fleet images a new release of the engine runs: for each GPU type of a matrix entry with
 * new_versions that runs the engine, its override as plan resolves it (the type id's, else its
 * vendor's; a CPU type runs no image). An override no such GPU type uses is left out: waiting
 * for an image no job pulls would keep the version pending for nothing.
 */
export function fleetImages(fleet: Pick<Fleet, 'gpu_types' | 'engines' | 'matrix'>, engine: string): FleetImage[] {
  const settings = fleet.engines[engine];
  if (!settings) return [];
  const used = new Set(fleet.matrix.filter((entry) => entry.new_versions && entry.engines.includes(engine)).flatMap((entry) => entry.gpu_types));
  const typesByKey = new Map<string, string[]>();
  for (const type of fleet.gpu_types) {
    if (type.vendor === 'cpu' || !used.has(type.id)) continue;
    const key = settings.images[type.id] ? type.id : settings.images[type.vendor] ? type.vendor : null;
    if (key !== null) typesByKey.set(key, [...(typesByKey.get(key) ?? []), type.id]);
  }
  return Object.entries(settings.images)
    .filter(([key]) => typesByKey.has(key))
    .map(([key, override]) => ({ key, gpu_types: typesByKey.get(key)!, template: override.template }));
}

function uniqueByVersion(releases: readonly UpstreamRelease[]): UpstreamRelease[] {
  const byVersion = new Map<string, UpstreamRelease>();
  for (const release of releases) if (!byVersion.has(release.version)) byVersion.set(release.version, release);
  return [...byVersion.values()];
}
