/**
 * Build-time access to the compiled data. Pages only read what `servebench compile` wrote
 * (SERVEBENCH_DATA, default build/data), as its contract declares it (harness/contract/site-data.ts);
 * with nothing compiled yet they render an empty state.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { HeadlineMetric } from '../../harness/contract/metric-catalog.ts';
import { logStatsOf, type ReleaseLogStats } from './compare-significance.ts';
import { repositoryUrlFromEnv, SITE_FILES, type BisectionRow, type CapacityRow, type ChangesFile, type CommunityRelease, type Delta, type NoiseRow, type SlaTiersFile, type EngineVersion, type Lane, type LeaderboardRow, type ManifestFile, type RegressionsFile, type RunDetail, type Scenario, type ScenarioDetail, type SiteMeta } from '../../harness/contract/site-data.ts';

export const DATA_DIR = resolve(process.env.SERVEBENCH_DATA ?? 'build/data');

function read<T>(file: string, fallback: T): T {
  const path = join(DATA_DIR, file);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : fallback;
}

export const meta = (): SiteMeta | null => read<SiteMeta | null>(`site/${SITE_FILES.meta}`, null);
export const scenarios = (): Scenario[] => read<Scenario[]>(`site/${SITE_FILES.scenarios}`, []);
export const leaderboard = (): LeaderboardRow[] => read<LeaderboardRow[]>(`site/${SITE_FILES.leaderboard}`, []);
export const headlineMetrics = (): HeadlineMetric[] => read<HeadlineMetric[]>(`site/${SITE_FILES.metrics}`, []);
export const scenarioDetail = (id: string): ScenarioDetail | null => read<ScenarioDetail | null>(`site/${SITE_FILES.scenario(id)}`, null);
export const versions = (): EngineVersion[] => read<EngineVersion[]>(`site/${SITE_FILES.versions}`, []);
export const regressions = (): RegressionsFile | null => read<RegressionsFile | null>(`site/${SITE_FILES.regressions}`, null);
export const deltas = (): Delta[] => read<Delta[]>(`site/${SITE_FILES.deltas}`, []);
export const capacity = (): CapacityRow[] => read<CapacityRow[]>(`site/${SITE_FILES.capacity}`, []);
export const slaTiers = (): SlaTiersFile | null => read<SlaTiersFile | null>(`site/${SITE_FILES.slaTiers}`, null);
export const changes = (): ChangesFile | null => read<ChangesFile | null>(`site/${SITE_FILES.changes}`, null);
export const noise = (): NoiseRow[] => read<NoiseRow[]>(`site/${SITE_FILES.noise}`, []);
/** The valid bisections of results/comparisons/, each with its steps. */
export const bisections = (): BisectionRow[] => read<BisectionRow[]>(`site/${SITE_FILES.bisections}`, []);
/** Community and unverified-version releases: shown apart behind the community filter, never ranked. */
export const community = (): CommunityRelease[] => read<CommunityRelease[]>(`site/${SITE_FILES.community}`, []);
/** The lanes the runs were measured on (one per hardware key), each with the line the pages state. */
export const lanes = (): Lane[] => read<Lane[]>(`site/${SITE_FILES.lanes}`, []);
export const runIds = (): string[] => (existsSync(join(DATA_DIR, 'site/runs')) ? readdirSync(join(DATA_DIR, 'site/runs')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort() : []);
export const runDetail = (id: string): RunDetail | null => read<RunDetail | null>(`site/${SITE_FILES.run(id)}`, null);
/** Read once per build: every page names the same repository (the compile's Reproduce blocks use the same definition). */
const REPOSITORY_URL = repositoryUrlFromEnv(process.env);
/** Where links to raw result files point (repositoryUrlFromEnv: the build's configuration, else the checkout's origin); null: no links. */
export const repositoryUrl = (): string | null => REPOSITORY_URL;
export const manifest = (): { files: ManifestFile[]; snapshot: string; snapshots: string[]; generated_at: string } | null =>
  read('MANIFEST.json', null);
/** Each release's log summaries of the compare metrics (compare-significance.ts), from every scenario's history: what the compare page tests a change with. */
export function compareLogStats(): ReleaseLogStats {
  const out: Record<string, ReleaseLogStats[string]> = {};
  for (const { scenario_id } of scenarios()) Object.assign(out, logStatsOf(scenarioDetail(scenario_id)?.history ?? []));
  return out;
}
