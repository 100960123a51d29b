/**
 * The known releases of each engine (fleet/releases.json): the versions a result may name and be
 * ranked with. `validate` and `compile` read it to tell a known release from an "unverified" one
 * (the same answer in both: harness/store/known-releases.ts); `detect` appends every release it
 * reports, and the nightly commits the file with the results. One list per engine, in the order
 * the entries were added; each entry says where it comes from.
 *
 * `version` is what a result records as run.engine.version: the server's own version for engines
 * polled on GitHub (vLLM's /version: "0.11.0", the tag less its "v"), and for llama.cpp the tag
 * servebench built ("b5415", "v0.4.0"), with the node-llama-cpp release that bundles it under npm.
 */
import { existsSync, readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { usageError } from '../lib/errors.ts';

/** The committed list, in the harness's own checkout: `detect` appends to it, validate and compile read it. */
export const DEFAULT_RELEASES_FILE = fileURLToPath(new URL('../../fleet/releases.json', import.meta.url));
/**
 * More lists whose versions also count as known, separated by ":" (as PATH): for tests and dry
 * runs, whose synthetic versions ("1.1.0", "1.0.0+dryrun") are no engine's release. Read from the
 * environment so validate and compile's worker threads see the same lists; they can only add.
 */
export const EXTRA_RELEASES_ENV = 'SERVEBENCH_EXTRA_RELEASES';

export const ReleaseSchema = z
  .object({
    version: z.string().min(1).max(100).describe('As results record it (run.engine.version)'),
    tag: z.string().min(1).nullable().describe("The upstream git tag, or null (servebench's own engines)"),
    published_at: z.string().min(1).nullable().describe('When it was published (for llama.cpp: the node-llama-cpp release that bundles it), or null when unknown'),
    release_url: z.string().min(1).nullable(),
    npm: z
      .object({ package: z.string().min(1), version: z.string().min(1) })
      .strict()
      .optional()
      .describe('llama.cpp: the npm release whose tarball bundles this tag (what `servebench llamacpp build --node-llama-cpp` takes)'),
    source: z.string().min(1).describe('Where this entry comes from'),
  })
  .strict();
export type Release = z.infer<typeof ReleaseSchema>;

const EngineReleasesSchema = z
  .object({
    sources: z.array(z.string().min(1)).describe('Where the list was seeded from'),
    releases: z.array(ReleaseSchema),
  })
  .strict();

export const ReleasesFileSchema = z
  .object({
    schema_version: z.literal(1),
    description: z.string(),
    engines: z.record(z.string(), EngineReleasesSchema),
  })
  .strict()
  .superRefine((file, ctx) => {
    for (const [engine, list] of Object.entries(file.engines)) {
      const seen = new Set<string>();
      list.releases.forEach((release, i) => {
        if (seen.has(release.version)) ctx.addIssue({ code: 'custom', path: ['engines', engine, 'releases', i, 'version'], message: `${engine} ${release.version} is listed twice` });
        seen.add(release.version);
      });
    }
  });
export type ReleasesFile = z.infer<typeof ReleasesFileSchema>;

/** The lists validate and compile read: the checkout's fleet/releases.json and those of $SERVEBENCH_EXTRA_RELEASES. */
export function releasesFilePaths(env: NodeJS.ProcessEnv = process.env): string[] {
  return [DEFAULT_RELEASES_FILE, ...(env[EXTRA_RELEASES_ENV] ?? '').split(delimiter).filter((path) => path !== '')];
}

export function emptyReleases(): ReleasesFile {
  return { schema_version: 1, description: 'Known releases of each engine (see harness/contract/releases.ts).', engines: {} };
}

/** A missing file is an error unless `missingIsEmpty` (detect starting a new list); a bad one always is: it decides what is ranked. */
export function readReleasesFile(file: string, options: { flag: string; missingIsEmpty?: boolean }): ReleasesFile {
  if (!existsSync(file)) {
    if (options.missingIsEmpty) return emptyReleases();
    throw usageError(`${options.flag}: no release list at ${file}; run from a servebench checkout (fleet/releases.json has the known releases)`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw usageError(`${options.flag}: ${file} is not JSON (${(error as Error).message.slice(0, 200)}); restore it from git`);
  }
  const parsed = ReleasesFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw usageError(`${options.flag}: ${file}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`).join('; ')}; fix it or restore it from git`);
  }
  return parsed.data;
}

/** engine → its known versions, over every list. */
export function knownVersions(files: readonly ReleasesFile[]): ReadonlyMap<string, ReadonlySet<string>> {
  const known = new Map<string, Set<string>>();
  for (const file of files) {
    for (const [engine, list] of Object.entries(file.engines)) {
      const versions = known.get(engine) ?? new Set<string>();
      for (const release of list.releases) versions.add(release.version);
      known.set(engine, versions);
    }
  }
  return known;
}

export interface NewRelease {
  readonly engine: string;
  readonly release: Release;
}

/** The list with each release not already in it appended to its engine's list (the input is not changed). */
export function appendReleases(file: ReleasesFile, found: readonly NewRelease[], engineSource: (engine: string) => string): { file: ReleasesFile; added: NewRelease[] } {
  const engines: ReleasesFile['engines'] = { ...file.engines };
  const added: NewRelease[] = [];
  for (const entry of found) {
    const list = engines[entry.engine] ?? { sources: [engineSource(entry.engine)], releases: [] };
    if (list.releases.some((r) => r.version === entry.release.version)) continue;
    engines[entry.engine] = { ...list, releases: [...list.releases, entry.release] };
    added.push(entry);
  }
  return { file: { ...file, engines }, added };
}

export function serializeReleases(file: ReleasesFile): string {
  const engines = Object.fromEntries(Object.entries(file.engines).sort(([a], [b]) => a.localeCompare(b)));
  return `${JSON.stringify({ ...file, engines }, null, 2)}\n`;
}
