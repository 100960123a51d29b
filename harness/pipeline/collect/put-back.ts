/**
 * With a detect state file, a new release some of whose planned jobs left no result is put back
 * to pending there, so the next `servebench detect` reports it (and the nightly plans it) again.
 */
import { loadDetectState, putBackPending, saveDetectState, serializeDetectState, type PutBack, type PutBackOutcome } from '../detect/state.ts';
import { LATEST, type PlannedJob } from '../plan/plan-file.ts';
import type { LoadedPlan } from './plan-input.ts';

export interface DetectStateUpdate {
  readonly file: string;
  /** The day the reasons name (the collect's, UTC). */
  readonly night: string;
  /** Versions now pending again: detect re-checks them on its next poll and reports them new again. */
  readonly put_back: PutBackOutcome['put_back'];
  /** Versions with missing jobs that were not put back, and why. */
  readonly not_put_back: PutBackOutcome['not_put_back'];
  /** Whether the file was rewritten (only when something was put back). */
  readonly written: boolean;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The new releases to re-check: each (engine, version) a missing job with trigger "new" was
 * planned for (a "latest" job never: it is no release). A release whose jobs all left a result
 * stays seen.
 */
export function releasesToPutBack(plan: LoadedPlan['plan'], missing: readonly PlannedJob[], night: string): PutBack[] {
  const byRelease = new Map<string, { engine: string; version: string; missing: number }>();
  for (const job of missing) {
    if (!job.triggers.includes('new') || job.version === LATEST) continue;
    const key = `${job.engine}@${job.version}`;
    const entry = byRelease.get(key) ?? { engine: job.engine, version: job.version, missing: 0 };
    entry.missing += 1;
    byRelease.set(key, entry);
  }
  const releases = plan.inputs?.new ?? [];
  return [...byRelease.values()].map(({ engine, version, missing: n }) => {
    const release = releases.find((r) => r.engine === engine && r.version === version);
    return {
      engine,
      version,
      tag: release?.tag,
      release_url: release?.release_url,
      published_at: release?.published_at,
      reason: `no result from ${plural(n, 'planned job')} on ${night}`,
    };
  });
}

export function updateDetectState(file: string, plan: LoadedPlan['plan'], missing: readonly PlannedJob[], night: string): DetectStateUpdate {
  const versions = releasesToPutBack(plan, missing, night);
  if (versions.length === 0) return { file, night, put_back: [], not_put_back: [], written: false };
  const state = loadDetectState(file, '--detect-state');
  const outcome = putBackPending(state, versions, night);
  const written = outcome.put_back.length > 0 && serializeDetectState(outcome.state) !== serializeDetectState(state);
  if (written) saveDetectState(file, outcome.state);
  return { file, night, put_back: outcome.put_back, not_put_back: outcome.not_put_back, written };
}
