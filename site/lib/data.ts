/**
 * Build-time access to the compiled data. Pages only read what `servebench compile` wrote
 * (SERVEBENCH_DATA, default build/data); with nothing compiled yet they render an empty state.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { HeadlineMetric, LeaderboardRow, Scenario, ScenarioDetail, SiteMeta } from './types.ts';

export const DATA_DIR = resolve(process.env.SERVEBENCH_DATA ?? 'build/data');

function read<T>(file: string, fallback: T): T {
  const path = join(DATA_DIR, file);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : fallback;
}

export const meta = (): SiteMeta | null => read<SiteMeta | null>('site/meta.json', null);
export const scenarios = (): Scenario[] => read<Scenario[]>('site/scenarios.json', []);
export const leaderboard = (): LeaderboardRow[] => read<LeaderboardRow[]>('site/leaderboard.json', []);
export const headlineMetrics = (): HeadlineMetric[] => read<HeadlineMetric[]>('site/metrics.json', []);
export const scenarioDetail = (id: string): ScenarioDetail | null => read<ScenarioDetail | null>(`site/scenarios/${id}.json`, null);
export const manifest = (): { files: Array<{ path: string; sha256: string; bytes: number; rows: number | null }>; snapshot: string; snapshots: string[]; generated_at: string } | null =>
  read('MANIFEST.json', null);
