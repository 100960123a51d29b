/**
 * What `servebench detect` remembers between polls, committed as fleet/detect-state.json so the
 * nightly job carries it from run to run: per engine, the versions already reported (with the
 * day), the versions waiting for their image (re-checked on every poll, even when GitHub answers
 * 304), and the ETag of each listing's first page (for conditional requests). Written whole, in
 * a stable order (versions ascending), so each poll's git diff is the lines it added.
 */
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { usageError } from '../errors.ts';
import { writeFileAtomic } from '../io/atomic-write.ts';
import { compareVersions } from './github-releases.ts';

const PendingSchema = z
  .object({
    tag: z.string(),
    release_url: z.string(),
    published_at: z.string().nullable(),
    /** The day it was first found without its image. */
    since: z.string(),
  })
  .strict();

const EngineStateSchema = z
  .object({
    /** Where its versions came from last time: a repository without releases is listed by tags. */
    source: z.enum(['releases', 'tags']).default('releases'),
    /** Request path (without the API base; " (with prereleases)" for --include-prereleases polls) → ETag of its last 200. */
    etags: z.record(z.string(), z.string()).default({}),
    /** Version → the day it was reported (or, at the first sighting, recorded without a report). */
    seen: z.record(z.string(), z.string()).default({}),
    pending: z.record(z.string(), PendingSchema).default({}),
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
export function loadDetectState(file: string): DetectState {
  if (!existsSync(file)) return emptyState();
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw usageError(`--state: ${file} is not JSON (${(error as Error).message}); fix it or restore it from git`);
  }
  const parsed = DetectStateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw usageError(`--state: ${file}: ${issue.path.join('.') || '(top level)'}: ${issue.message}; fix it or restore it from git`);
  }
  return parsed.data;
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
        },
      ]),
  );
  return `${JSON.stringify({ schema_version: 1, engines }, null, 2)}\n`;
}

export function saveDetectState(file: string, state: DetectState): void {
  writeFileAtomic(file, serializeDetectState(state));
}
