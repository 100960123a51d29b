/**
 * What `servebench detect` remembers between polls, committed as fleet/detect-state.json so the
 * nightly job carries it from run to run: per engine, the versions already reported (with the
 * day), the versions waiting for their image (re-checked on every poll, even when GitHub answers
 * 304), and the ETag of each listing's first page (for conditional requests). Written whole, in
 * a stable order (versions ascending), so each poll's git diff is the lines it added.
 * `servebench collect --detect-state` puts a reported version whose planned jobs left no result
 * back to pending (putBackPending), so the next poll re-checks it and reports it new again.
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { readJsonFile } from '../../lib/io/json-file.ts';
import { writeFileAtomic } from '../../lib/io/atomic-write.ts';
import { compareVersions } from '../http/github-releases.ts';

const PendingSchema = z
  .object({
    tag: z.string(),
    release_url: z.string(),
    published_at: z.string().nullable(),
    /** The day it was first found without its image (or put back by collect). */
    since: z.string(),
    /** Why collect put it back (a night whose jobs for it left no result); absent for one waiting for its image. */
    reason: z.string().optional(),
  })
  .strict();

const EngineStateSchema = z
  .object({
    /** Where its versions came from last time: a repository without releases is listed by tags; an engine with source.npm by its npm package. */
    source: z.enum(['releases', 'tags', 'npm']).default('releases'),
    /** Request path (without the API base; " (with prereleases)" for --include-prereleases polls) → ETag of its last 200. */
    etags: z.record(z.string(), z.string()).default({}),
    /** Version → the day it was reported (or, at the first sighting, recorded without a report). */
    seen: z.record(z.string(), z.string()).default({}),
    pending: z.record(z.string(), PendingSchema).default({}),
    /**
     * npm sources only: version → the upstream tag its tarball bundles (node-llama-cpp 3.8.1 → llama.cpp
     * b5415), for the versions whose tarball was read. A later version bundling a tag already here is
     * the same engine build: recorded as seen, not reported. Absent when empty (GitHub-polled engines).
     */
    upstream_tags: z.record(z.string(), z.string()).optional(),
  })
  .strict();

export const DetectStateSchema = z
  .object({
    schema_version: z.literal(1),
    engines: z.record(z.string(), EngineStateSchema),
  })
  .strict();

export type DetectState = z.infer<typeof DetectStateSchema>;
export type EngineState = z.infer<typeof EngineStateSchema>;
export type PendingEntry = z.infer<typeof PendingSchema>;

export const DEFAULT_STATE_FILE = 'fleet/detect-state.json';

export function emptyState(): DetectState {
  return { schema_version: 1, engines: {} };
}

/** A missing file is a fresh start; a file that does not parse is an error, never silently reset (that would re-report history). */
export function loadDetectState(file: string, flag = '--state'): DetectState {
  if (!existsSync(file)) return emptyState();
  return readJsonFile(file, DetectStateSchema, { flag, fix: 'fix it or restore it from git' });
}

export function serializeDetectState(state: DetectState): string {
  const byVersion = <T>(record: Record<string, T>): Record<string, T> =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => compareVersions(a, b) || a.localeCompare(b)));
  const engines = Object.fromEntries(
    Object.entries(state.engines)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, engine]) => [
        name,
        {
          source: engine.source,
          etags: Object.fromEntries(Object.entries(engine.etags).sort(([a], [b]) => a.localeCompare(b))),
          seen: byVersion(engine.seen),
          pending: byVersion(engine.pending),
          ...(engine.upstream_tags && Object.keys(engine.upstream_tags).length > 0 ? { upstream_tags: byVersion(engine.upstream_tags) } : {}),
        },
      ]),
  );
  return `${JSON.stringify({ schema_version: 1, engines }, null, 2)}\n`;
}

export function saveDetectState(file: string, state: DetectState): void {
  writeFileAtomic(file, serializeDetectState(state));
}

/** A reported version to re-check: detect's facts of it when known (a plan's inputs carry them). */
export interface PutBack {
  readonly engine: string;
  readonly version: string;
  readonly tag?: string | null | undefined;
  readonly release_url?: string | null | undefined;
  readonly published_at?: string | null | undefined;
  readonly reason: string;
}

export interface PutBackOutcome {
  /** The state with the versions put back (the input is not changed). */
  readonly state: DetectState;
  readonly put_back: Array<{ readonly engine: string; readonly version: string; readonly reason: string }>;
  /** Versions that could not be put back, and why. */
  readonly not_put_back: Array<{ readonly engine: string; readonly version: string; readonly reason: string }>;
}

/**
 * Makes each version pending again (and no longer seen): detect re-checks every pending version
 * on every poll, whether or not the listing changed (a 304 too), and reports it new once its image
 * exists. An engine the state does not hold is left alone: its next poll is a first sighting,
 * and an entry made up here would make that poll report the engine's whole history.
 */
export function putBackPending(state: DetectState, versions: readonly PutBack[], day: string): PutBackOutcome {
  const engines: Record<string, EngineState> = { ...state.engines };
  const putBack: PutBackOutcome['put_back'] = [];
  const notPutBack: PutBackOutcome['not_put_back'] = [];
  for (const v of versions) {
    const previous = engines[v.engine];
    if (previous === undefined) {
      notPutBack.push({ engine: v.engine, version: v.version, reason: `the detect state has no entry for ${v.engine} (its next poll is a first sighting, which reports its newest release)` });
      continue;
    }
    const waiting = previous.pending[v.version];
    const seen = { ...previous.seen };
    delete seen[v.version];
    const entry: PendingEntry = {
      tag: v.tag ?? waiting?.tag ?? v.version,
      release_url: v.release_url ?? waiting?.release_url ?? '',
      published_at: v.published_at !== undefined ? v.published_at : (waiting?.published_at ?? null),
      since: waiting?.since ?? day,
      reason: v.reason,
    };
    engines[v.engine] = { ...previous, seen, pending: { ...previous.pending, [v.version]: entry } };
    putBack.push({ engine: v.engine, version: v.version, reason: v.reason });
  }
  return { state: { ...state, engines }, put_back: putBack, not_put_back: notPutBack };
}
