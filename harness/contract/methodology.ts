/**
 * What a number means depends on how it was measured. A methodology label names that: the
 * result schema version, the metric-definition generation of the harness that wrote it, and
 * whether prompts had exact token lengths. Numbers with different labels are never compared
 * (deltas and history break their series there).
 */
import { effectiveLengths } from './lengths-evidence.ts';
import type { RunResult } from './result.ts';

/**
 * Harness versions from which the metric definitions changed meaning, oldest first. Add an
 * entry (and a line in docs/CHANGELOG.md) whenever a metric's definition changes.
 */
const METRIC_GENERATIONS: ReadonlyArray<{ readonly since: string; readonly generation: number }> = [{ since: '0.0.0', generation: 1 }];

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((part) => Number.parseInt(part, 10) || 0);
  const pb = b.split(/[.+-]/).map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

function metricGeneration(harnessVersion: string): number {
  let generation = METRIC_GENERATIONS[0]!.generation;
  for (const entry of METRIC_GENERATIONS) if (compareVersions(harnessVersion, entry.since) >= 0) generation = entry.generation;
  return generation;
}

/**
 * The lengths part is the one the result's own counts support (lengths-evidence.ts), not the one it
 * claims: a run whose server counted its prompts otherwise is in an "approximate" series of its own,
 * so it is never ranked or compared beside exact runs.
 */
export function methodologyOf(result: Pick<RunResult, 'schema_version' | 'harness' | 'workload' | 'points'>): string {
  return `s${result.schema_version}.m${metricGeneration(result.harness.version)}.${effectiveLengths(result).lengths}`;
}
