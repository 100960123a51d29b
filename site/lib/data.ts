/**
 * Build-time access to the compiled data. Pages only read what `servebench compile` wrote
 * (SERVEBENCH_DATA, default build/data); with nothing compiled yet they render an empty state.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Delta, EngineVersion, HeadlineMetric, LeaderboardRow, RunDetail, Scenario, ScenarioDetail, SiteMeta } from './types.ts';

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
export const versions = (): EngineVersion[] => read<EngineVersion[]>('site/versions.json', []);
export const deltas = (): Delta[] => read<Delta[]>('site/deltas.json', []);
export const runIds = (): string[] => (existsSync(join(DATA_DIR, 'site/runs')) ? readdirSync(join(DATA_DIR, 'site/runs')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort() : []);
export const runDetail = (id: string): RunDetail | null => read<RunDetail | null>(`site/runs/${id}.json`, null);
/** Where links to raw result files point (SERVEBENCH_REPO_URL, or the GitHub repository in Actions); null: no links. */
export const repositoryUrl = (): string | null =>
  process.env.SERVEBENCH_REPO_URL ?? (process.env.GITHUB_SERVER_URL && process.env.GITHUB_REPOSITORY ? `${process.env.GITHUB_SERVER_URL}/${process.env.GITHUB_REPOSITORY}` : null);
export const manifest = (): { files: Array<{ path: string; sha256: string; bytes: number; rows: number | null }>; snapshot: string; snapshots: string[]; generated_at: string } | null =>
  read('MANIFEST.json', null);
