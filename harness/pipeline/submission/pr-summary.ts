/**
 * `servebench summarize`, the part that reads: what a pull request adds to results/ against a base
 * commit, whether it may go in, and how each added run compares with the releases on its
 * configurations. The comparison numbers are the rows of the compile's `releases` table (the
 * store's analyze(), as regress reads it): the site shows the same release values, computed once by the
 * same SQL, so a summary can never disagree with the leaderboard it announces. Baselines are
 * official releases only (the releases table holds nothing else): a community run is compared
 * with them and never becomes one.
 */
import { execFileSync } from 'node:child_process';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { PriceTable } from '../../contract/prices.ts';
import type { ResultProblem } from '../../store/check-result.ts';
import { columnOf } from '../../store/columns.ts';
import { analyze } from '../../store/compile.ts';
import { OFFICIAL_RUN_SQL } from '../../store/official.ts';
import { HEADLINE_METRICS } from '../../contract/metric-catalog.ts';
import { diffAgainstBase } from '../../store/immutability.ts';
import type { Store } from '../../store/store.ts';

export const SOURCES = ['community', 'official'] as const;
export type Source = (typeof SOURCES)[number];
export type BaselineRole = 'previous-release' | 'newest-official';

export interface AddedRun {
  /** Path under the results folder, as the pull request names it (untrusted text). */
  readonly file: string;
  /** False when the file has a problem: it is not in the store, and nothing of it is compared. */
  readonly valid: boolean;
  readonly run_id: string | null;
  readonly source: string | null;
  readonly status: string | null;
  readonly engine: string | null;
  readonly version: string | null;
  readonly model: string | null;
  readonly precision: string | null;
  readonly hardware: string | null;
  readonly workload: string | null;
  readonly points: number | null;
  /** "<phase>: <message>" of a failed run. */
  readonly failure: string | null;
  readonly harness_commit: string | null;
  /** Whether that commit is in this repository's history (null: no commit, or no git to ask). */
  readonly harness_commit_known: boolean | null;
  readonly harness_dirty: boolean | null;
}

export type MetricValues = Record<string, number | null>;

export interface Baseline {
  readonly engine: string;
  readonly version: string;
  readonly roles: readonly BaselineRole[];
  /** Always true: only official releases are baselines (kept for readers of the JSON). */
  readonly official: boolean;
  /** Completed runs the release's values (geometric means) are taken over. */
  readonly runs: number;
  /** The release is this run's own engine version and the run is official, so its values include this run. */
  readonly includes_this_run: boolean;
  readonly values: MetricValues;
  /** (this run / release − 1) × 100 per metric; null where either side has no value. */
  readonly change_pct: MetricValues;
}

export interface PointComparison {
  readonly point: number;
  readonly load: string;
  readonly config_id: string;
  readonly values: MetricValues;
  readonly baselines: readonly Baseline[];
}

export interface RunComparison {
  readonly file: string;
  readonly run_id: string;
  readonly engine: string;
  readonly version: string | null;
  readonly model: string;
  readonly precision: string;
  readonly hardware: string;
  readonly workload: string;
  /** Why nothing is compared (a failed run, a copy of a run already in results/), else null. */
  readonly note: string | null;
  readonly points: readonly PointComparison[];
}

export interface SubmissionSummary {
  readonly base: string;
  readonly expect_source: Source | null;
  readonly added: readonly AddedRun[];
  /** Every reason the pull request cannot go in as it is: validation, immutability, source. */
  readonly problems: readonly ResultProblem[];
  readonly comparisons: readonly RunComparison[];
  readonly metrics: ReadonlyArray<{ readonly column: string; readonly label: string; readonly unit: string; readonly better: 'higher' | 'lower' }>;
}

export interface SummarizeOptions {
  readonly store: Store;
  readonly resultsDir: string;
  readonly base: string;
  readonly prices: PriceTable;
  readonly expectSource?: Source | null;
}

type Row = Record<string, unknown>;

async function rows(connection: DuckDBConnection, sql: string): Promise<Row[]> {
  return (await connection.runAndReadAll(sql)).getRowObjectsJS() as Row[];
}

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const num = (value: unknown): number | null => (typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : null);

const METRIC_SQL = HEADLINE_METRICS.map((m) => columnOf(m.column)).join(', ');

function metricValues(row: Row): MetricValues {
  return Object.fromEntries(HEADLINE_METRICS.map((m) => [m.column, num(row[m.column])]));
}

function changePct(values: MetricValues, baseline: MetricValues): MetricValues {
  return Object.fromEntries(
    HEADLINE_METRICS.map((m) => {
      const a = values[m.column] ?? null;
      const b = baseline[m.column] ?? null;
      return [m.column, a === null || b === null || b === 0 ? null : (a / b - 1) * 100];
    }),
  );
}

/** A 40-hex commit only: the value comes from a submitted file and goes into a git argument. */
function commitKnown(resultsDir: string, commit: string | null): boolean | null {
  if (commit === null || !/^[0-9a-f]{40}$/.test(commit)) return null;
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: resultsDir, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function stageAddedFiles(connection: DuckDBConnection, files: readonly string[]): Promise<void> {
  await connection.run('CREATE OR REPLACE TEMP TABLE summarize_added (file VARCHAR)');
  const appender = await connection.createAppender('summarize_added');
  for (const file of files) (appender.appendVarchar(file), appender.endRow());
  appender.closeSync();
}

interface ReleaseRow {
  readonly config_id: string;
  readonly engine: string;
  readonly version: string;
  readonly order: string;
  readonly runs: number;
  readonly official: boolean;
  readonly values: MetricValues;
}

interface RunFacts {
  readonly engine: string;
  readonly version: string | null;
  readonly order: string | null;
  /** The run counts in the official statistics (store/official.ts): only then is it in a release's values. */
  readonly official: boolean;
}

/** The release holds this run: its own engine version, and the run is official (others are never pooled into releases). */
const holdsRun = (run: RunFacts, r: ReleaseRow) => run.official && r.engine === run.engine && r.version === run.version;

/**
 * The releases one point is compared with, official ones only: the same engine's previous
 * release, and the newest official release of every engine (this engine's included: a community
 * repeat of an official release says how well it reproduces). A release made of this run alone
 * compares it with itself, so it is left out.
 */
export function pickBaselines(run: RunFacts, candidates: readonly ReleaseRow[]): Array<{ row: ReleaseRow; roles: BaselineRole[] }> {
  const usable = candidates.filter((r) => r.official && !(holdsRun(run, r) && r.runs <= 1));
  const picked = new Map<string, { row: ReleaseRow; roles: BaselineRole[] }>();
  const take = (row: ReleaseRow, role: BaselineRole) => {
    const key = `${row.engine}\u0000${row.version}`;
    const entry = picked.get(key) ?? { row, roles: [] };
    entry.roles.push(role);
    picked.set(key, entry);
  };
  const newest = (list: readonly ReleaseRow[]) => list.reduce<ReleaseRow | null>((best, r) => (best === null || r.order > best.order ? r : best), null);
  if (run.order !== null) {
    const previous = newest(usable.filter((r) => r.engine === run.engine && r.order < run.order!));
    if (previous) take(previous, 'previous-release');
  }
  const engines = [...new Set(usable.filter((r) => r.official).map((r) => r.engine))];
  for (const engine of engines) take(newest(usable.filter((r) => r.official && r.engine === engine))!, 'newest-official');
  // This engine first, then the others by name.
  return [...picked.values()].sort((a, b) => Number(b.row.engine === run.engine) - Number(a.row.engine === run.engine) || (a.row.engine < b.row.engine ? -1 : a.row.engine > b.row.engine ? 1 : 0) || (a.row.order < b.row.order ? 1 : -1));
}

/** Whether `file` (under the results folder) exists at `base`; `<rev>:./path` is relative to the cwd. */
function existsAtBase(resultsDir: string, base: string, file: string): boolean {
  try {
    execFileSync('git', ['cat-file', '-e', `${base}:./${file}`], { cwd: resultsDir, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The store's problems that are this pull request's: its added files', anything new that is no
 * result at all (a link, a non-JSON file: the base diff lists .json files only), and duplicates
 * that name one of its files. Files already broken at the base are not its doing.
 */
function ownProblems(problems: readonly ResultProblem[], added: ReadonlySet<string>, resultsDir: string, base: string): ResultProblem[] {
  return problems.filter(
    (p) =>
      added.has(p.file) ||
      (p.path === 'run_id' && [...added].some((file) => p.message.includes(file))) ||
      (p.path === '' && !p.file.endsWith('.json') && !existsAtBase(resultsDir, base, p.file)),
  );
}

export async function summarizeSubmission(options: SummarizeOptions): Promise<SubmissionSummary> {
  const { store, resultsDir, base } = options;
  const expectSource = options.expectSource ?? null;
  const diff = diffAgainstBase(resultsDir, base);
  const { report } = await analyze(store, resultsDir, options.prices);
  const { connection } = store;
  const addedFiles = new Set(diff.added);
  // The base diff and the folder listing can both name one file (an added non-result file): once each.
  const problems: ResultProblem[] = [...new Map([...diff.problems, ...ownProblems(report.problems, addedFiles, resultsDir, base)].map((p) => [`${p.file}\0${p.path}\0${p.message}`, p])).values()];
  await stageAddedFiles(connection, diff.added);

  const runRows = await rows(
    connection,
    `SELECT r.file, r.run_id, r.source, r.status, r.engine, r.engine_version, r.engine_version_order, r.model, r.precision, r.hardware, r.workload,
       r.points, r.harness_git_commit, r.harness_git_dirty, r.failure_phase, r.failure_message,
       r.file IN (SELECT file FROM valid_runs) AS stands, ${OFFICIAL_RUN_SQL} AS official
     FROM runs r WHERE r.file IN (SELECT file FROM summarize_added)`,
  );
  const byFile = new Map(runRows.map((r) => [String(r.file), r]));
  if (expectSource !== null) {
    for (const r of runRows) {
      if (r.source === expectSource) continue;
      problems.push({
        file: String(r.file),
        path: 'source',
        message: `source is "${String(r.source)}"; this pull request may add ${expectSource} results only`,
        fix: expectSource === 'community' ? 'run `servebench run` with --source community (the default): official results come from the servebench fleet' : 'official results are written by the fleet with --source official',
      });
    }
  }
  const badFiles = new Set(problems.map((p) => p.file));

  const added: AddedRun[] = diff.added.map((file) => {
    const r = byFile.get(file);
    const commit = text(r?.harness_git_commit);
    return {
      file,
      valid: r !== undefined && !badFiles.has(file),
      run_id: text(r?.run_id),
      source: text(r?.source),
      status: text(r?.status),
      engine: text(r?.engine),
      version: text(r?.engine_version),
      model: text(r?.model),
      precision: text(r?.precision),
      hardware: text(r?.hardware),
      workload: text(r?.workload),
      points: num(r?.points),
      failure: r?.failure_phase ? `${String(r.failure_phase)}: ${text(r.failure_message) ?? ''}` : null,
      harness_commit: commit,
      harness_commit_known: commitKnown(resultsDir, commit),
      harness_dirty: typeof r?.harness_git_dirty === 'boolean' ? r.harness_git_dirty : null,
    };
  });

  const pointRows = await rows(
    connection,
    `SELECT run_id, point, load, config_id, ${METRIC_SQL} FROM priced_points
     WHERE run_id IN (SELECT run_id FROM valid_runs WHERE file IN (SELECT file FROM summarize_added)) ORDER BY run_id, point`,
  );
  const releaseRows: ReleaseRow[] = (
    await rows(
      connection,
      `SELECT config_id, engine, engine_version, engine_version_order, runs, official, ${METRIC_SQL} FROM releases
       WHERE config_id IN (SELECT DISTINCT config_id FROM priced_points WHERE run_id IN (SELECT run_id FROM valid_runs WHERE file IN (SELECT file FROM summarize_added)))`,
    )
  ).map((r) => ({
    config_id: String(r.config_id),
    engine: String(r.engine),
    version: String(r.engine_version),
    order: String(r.engine_version_order),
    runs: num(r.runs) ?? 0,
    official: r.official === true,
    values: metricValues(r),
  }));
  const releasesByConfig = new Map<string, ReleaseRow[]>();
  for (const r of releaseRows) releasesByConfig.set(r.config_id, [...(releasesByConfig.get(r.config_id) ?? []), r]);

  const comparisons: RunComparison[] = runRows
    .filter((r) => r.run_id !== null)
    .map((r) => {
      const runId = String(r.run_id);
      const facts: RunFacts = { engine: String(r.engine), version: text(r.engine_version), order: text(r.engine_version_order), official: r.official === true };
      const note =
        r.stands !== true ? 'a copy of a run already in results/: not compared' :
        r.status !== 'completed' ? `the run ${String(r.status)}${r.failure_phase ? ` during ${String(r.failure_phase)}` : ''}: releases are made of completed runs only, so it is not compared` :
        facts.version === null ? 'no engine version: not compared' : null;
      const points: PointComparison[] = note !== null
        ? []
        : pointRows
            .filter((p) => p.run_id === runId)
            .map((p) => {
              const values = metricValues(p);
              const configId = String(p.config_id);
              const baselines = pickBaselines(facts, releasesByConfig.get(configId) ?? []).map(({ row, roles }) => ({
                engine: row.engine,
                version: row.version,
                roles,
                official: row.official,
                runs: row.runs,
                includes_this_run: holdsRun(facts, row),
                values: row.values,
                change_pct: changePct(values, row.values),
              }));
              return { point: num(p.point) ?? 0, load: String(p.load), config_id: configId, values, baselines };
            });
      return {
        file: String(r.file),
        run_id: runId,
        engine: facts.engine,
        version: facts.version,
        model: String(r.model),
        precision: String(r.precision),
        hardware: String(r.hardware),
        workload: String(r.workload),
        note,
        points,
      };
    })
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));

  return {
    base,
    expect_source: expectSource,
    added,
    problems,
    comparisons,
    metrics: HEADLINE_METRICS.map(({ column, label, unit, better }) => ({ column, label, unit, better })),
  };
}
