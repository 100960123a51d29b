/**
 * `servebench compile`: results/ → DuckDB → published data.
 *   <out>/parquet/snapshots/<day>-<inputs hash>/*.parquet   dated, immutable (same inputs, same name)
 *   <out>/parquet/latest/*.parquet                           the newest snapshot's copy
 *   <out>/MANIFEST.json                                      sha256, rows and bytes of every file
 *   <out>/dictionary.json, <out>/DICTIONARY.md               every column, its type and unit
 *   <out>/llmd/<ISO week>.jsonl.zst                          the official runs' points as llm-d Benchmark Reports v0.2
 *   <out>/site/…                                             what the site prerenders (JSON) and
 *                                                            queries in the browser (Arrow IPC)
 * Inputs: the results, the price table and the SLA tiers (fleet/prices.yaml, fleet/sla-tiers.yaml).
 *   <out>/.cache/store.duckdb                                the incremental store
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PriceTable } from '../contract/prices.ts';
import { SCHEMA_VERSION } from '../contract/result.ts';
import { loadSlaTiers, type SlaTiers } from '../contract/sla-tiers.ts';
import type { Delta, ManifestFile } from '../contract/site-data.ts';
import { writeFileAtomic } from '../lib/io/atomic-write.ts';
import type { ResultProblem } from './check-result.ts';
import { computeDeltas, deriveTables, noisePools, noiseRows } from './derive.ts';
import { writeDictionary } from './dictionary.ts';
import { prepareOutFolder } from './out-folder.ts';
import { referenceDigest } from './reference-digest.ts';
import { writeSiteData, type PreviousSnapshot } from './publish-site.ts';
import { linkOrCopy, manifestOf, stageDeltas, weekDigests, writeSnapshot, type SnapshotManifest, type Week } from './snapshots.ts';
import { ingest, openStore, type IngestReport, type Store } from './store.ts';
import { tableOfFile, WEEKLY } from './tables.ts';
import { applyFidelity } from './fidelity.ts';
import { checkComparisonFiles, type CheckedComparisons } from './comparisons.ts';
import { loadComparisonTables } from './comparison-tables.ts';
import { isInRepositoryResults } from './repository-results.ts';
import { writeLlmdDownload, type LlmdDownload } from './llmd-download.ts';

export type { ManifestFile };

export interface CompileOptions {
  readonly resultsDir: string;
  readonly outDir: string;
  readonly prices: PriceTable;
  /** The SLA tiers capacity is computed at; default: fleet/sla-tiers.yaml. */
  readonly slaTiers?: SlaTiers;
  /** Fixed "now" for reproducible outputs in tests. */
  readonly now?: Date;
}


export interface CompileReport {
  readonly ingest: IngestReport;
  readonly problems: ResultProblem[];
  readonly snapshot: string;
  readonly snapshotWritten: boolean;
  readonly tables: Record<string, number>;
  readonly deltas: Delta[];
  /** Wall seconds per phase (ingest, derive, parquet, site, llmd, manifest). */
  readonly phases: Record<string, number>;
  /** The llm-d Benchmark Report download; null when the compile changed nothing (the published one stands). */
  readonly llmd: Omit<LlmdDownload, 'files'> | null;
}

/** Bump when what compile writes changes for the same inputs: snapshots are keyed on it too. */
const COMPILER_VERSION = 32;

function readJsonIfExists<T>(path: string): T | null {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : null;
}

/** What every digest of compiled output also depends on: the schema, this compiler, the reference data validate reads, the prices. */
function compileContext(prices: PriceTable): string {
  return `${SCHEMA_VERSION}|${COMPILER_VERSION}|${referenceDigest()}|${JSON.stringify(prices)}`;
}

/** Rows per table, summed over its weekly files. */
function rowsByTable(files: readonly ManifestFile[]): Record<string, number> {
  const rows: Record<string, number> = {};
  for (const f of files) rows[tableOfFile(f.path)] = (rows[tableOfFile(f.path)] ?? 0) + (f.rows ?? 0);
  return rows;
}

/**
 * A digest of what the compile read (valid files and their content) and how: one per week, combined,
 * and the SLA tiers (they change only the capacity table and files, so they are not part of the
 * context the per-week and per-scenario files are keyed on).
 */
function inputsDigest(weeks: ReadonlyMap<string, Week>, prices: PriceTable, tiers: SlaTiers, comparisons: string): string {
  return createHash('sha256').update(`${compileContext(prices)}|${JSON.stringify(tiers)}|${[...weeks].map(([id, week]) => `${id}:${week.digest}`).join(',')}|${comparisons}`).digest('hex').slice(0, 12);
}

/** The valid comparison files and their content: a new A/B or bisection makes a new snapshot. */
function comparisonsDigest(comparisons: CheckedComparisons): string {
  return [...comparisons.checked].filter(([, c]) => c.problems.length === 0).map(([file, c]) => `${file}:${c.sha256}`).sort().join(',');
}

/**
 * The snapshot published before `snapshot` (the newest one generated earlier), or null when there
 * is none: what changes.json counts from.
 */
function previousSnapshot(snapshotsDir: string, snapshot: string, generatedAt: string): PreviousSnapshot | null {
  let previous: { name: string; at: string } | null = null;
  for (const name of readdirSync(snapshotsDir)) {
    if (name === snapshot || name.endsWith('.partial')) continue;
    const manifest = readJsonIfExists<{ generated_at?: string }>(join(snapshotsDir, name, 'MANIFEST.json'));
    const at = manifest?.generated_at;
    if (typeof at === 'string' && at < generatedAt && (previous === null || at > previous.at)) previous = { name, at };
  }
  return previous === null ? null : { dir: join(snapshotsDir, previous.name), day: previous.at.slice(0, 10) };
}

export function storePath(outDir: string): string {
  return join(outDir, '.cache', 'store.duckdb');
}

/** Store up to date, tables derived, deltas computed: what compile publishes and regress reads. */
export async function analyze(store: Store, resultsDir: string, prices: PriceTable): Promise<{ report: IngestReport; deltas: Delta[] }> {
  const report = await ingest(store, resultsDir);
  await applyFidelity(store.connection);
  await deriveTables(store.connection, prices);
  return { report, deltas: await computeDeltas(store.connection) };
}

export async function compile(options: CompileOptions): Promise<CompileReport> {
  const now = options.now ?? new Date();
  // Read first: a bad tier file stops the compile before anything is written.
  const tiers = options.slaTiers ?? loadSlaTiers();
  prepareOutFolder(options.outDir);
  const store = await openStore(storePath(options.outDir));
  const phases: Record<string, number> = {};
  let mark = performance.now();
  const lap = (phase: string) => {
    phases[phase] = Number(((performance.now() - mark) / 1000).toFixed(3));
    mark = performance.now();
  };
  try {
    const { connection } = store;
    const ingested = await ingest(store, options.resultsDir);
    await applyFidelity(connection);
    // The comparisons (A/Bs, bisections): few files, checked whole every time, published as two tables.
    const comparisons = await checkComparisonFiles(options.resultsDir, { publishedStore: isInRepositoryResults(options.resultsDir) });
    const report: IngestReport = { ...ingested, problems: [...ingested.problems, ...comparisons.problems] };
    lap('ingest');
    const parquetRoot = join(options.outDir, 'parquet');
    mkdirSync(join(parquetRoot, 'snapshots'), { recursive: true });
    const weeks = await weekDigests(connection, compileContext(options.prices));
    const digest = inputsDigest(weeks, options.prices, tiers, comparisonsDigest(comparisons));
    // Same inputs as an existing snapshot (any day): that snapshot stands, nothing is rewritten.
    const existing = readdirSync(join(parquetRoot, 'snapshots')).find((name) => name.endsWith(`-${digest}`) && existsSync(join(parquetRoot, 'snapshots', name, 'MANIFEST.json')));
    const snapshot = existing ?? `${now.toISOString().slice(0, 10)}-${digest}`;
    const snapshotDir = join(parquetRoot, 'snapshots', snapshot);
    const published = readJsonIfExists<{ snapshot?: string }>(join(options.outDir, 'site', 'meta.json'));
    if (existing !== undefined && published?.snapshot === snapshot && existsSync(join(options.outDir, 'MANIFEST.json')) && existsSync(join(parquetRoot, 'latest'))) {
      const files = (readJsonIfExists<{ files: ManifestFile[] }>(join(snapshotDir, 'MANIFEST.json'))?.files ?? []);
      const deltas = readJsonIfExists<Delta[]>(join(options.outDir, 'site', 'deltas.json')) ?? [];
      lap('unchanged');
      return { ingest: report, problems: report.problems, snapshot, snapshotWritten: false, tables: rowsByTable(files), deltas, phases, llmd: null };
    }
    await deriveTables(connection, options.prices, tiers);
    await loadComparisonTables(connection, comparisons);
    // Read once: the deltas test against these pools, and noise.json publishes them.
    const pools = await noisePools(connection);
    const deltas = await computeDeltas(connection, pools);
    lap('derive');
    const staging = join(options.outDir, '.cache', 'staging');
    mkdirSync(staging, { recursive: true });
    await stageDeltas(connection, deltas, staging);
    const snapshotWritten = !existsSync(snapshotDir);
    if (snapshotWritten) {
      // Written next to its final place, then renamed: a snapshot folder is whole or absent.
      const partial = `${snapshotDir}.partial`;
      rmSync(partial, { recursive: true, force: true });
      const previousId = published?.snapshot;
      const previousDir = previousId === undefined ? null : join(parquetRoot, 'snapshots', previousId);
      const previousManifest = previousDir === null ? null : readJsonIfExists<SnapshotManifest>(join(previousDir, 'MANIFEST.json'));
      const manifest = await writeSnapshot(connection, partial, weeks, previousDir !== null && previousManifest?.weeks !== undefined ? { dir: previousDir, manifest: previousManifest } : null, { snapshot, generated_at: now.toISOString(), schema_version: SCHEMA_VERSION });
      writeFileSync(join(partial, 'MANIFEST.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      renameSync(partial, snapshotDir);
    }
    lap('parquet');
    const snapshotManifest = (id: string) => JSON.parse(readFileSync(join(parquetRoot, 'snapshots', id, 'MANIFEST.json'), 'utf8')) as SnapshotManifest;
    const current = snapshotManifest(snapshot).files;
    const rows = rowsByTable(current);
    const latestNext = join(parquetRoot, 'latest.next');
    rmSync(latestNext, { recursive: true, force: true });
    for (const table of WEEKLY) mkdirSync(join(latestNext, table), { recursive: true });
    for (const file of current) linkOrCopy(join(snapshotDir, file.path), join(latestNext, file.path));
    rmSync(join(parquetRoot, 'latest'), { recursive: true, force: true });
    renameSync(latestNext, join(parquetRoot, 'latest'));
    await writeDictionary(connection, options.outDir);
    const meta = {
      generated_at: now.toISOString(),
      schema_version: SCHEMA_VERSION,
      snapshot,
      // No valid run writes no runs/ or points/ file: zero rows, not a missing count.
      runs: rows.runs ?? 0,
      points: rows.points ?? 0,
      invalid_files: new Set(report.problems.map((p) => p.file)).size,
      price_tier: options.prices.tier,
    };
    const previous = previousSnapshot(join(parquetRoot, 'snapshots'), snapshot, snapshotManifest(snapshot).generated_at);
    await writeSiteData(connection, join(options.outDir, 'site'), deltas, meta, compileContext(options.prices), { tiers, previousSnapshot: previous, today: now.toISOString().slice(0, 10), noise: noiseRows(pools) });
    lap('site');
    const llmd = await writeLlmdDownload(connection, options.resultsDir, options.outDir, compileContext(options.prices));
    lap('llmd');
    const snapshots = readdirSync(join(parquetRoot, 'snapshots')).filter((name) => !name.endsWith('.partial')).sort();
    const files: ManifestFile[] = [
      ...current.map((f) => ({ ...f, path: `parquet/latest/${f.path}` })),
      ...snapshots.flatMap((id) => snapshotManifest(id).files.map((f) => ({ ...f, path: `parquet/snapshots/${id}/${f.path}` }))),
      ...(await manifestOf(options.outDir, ['dictionary.json', 'DICTIONARY.md'], {})),
      ...llmd.files,
    ];
    const { files: _files, ...llmdCounts } = llmd;
    writeFileAtomic(join(options.outDir, 'MANIFEST.json'), `${JSON.stringify({ ...meta, llmd_reports: llmdCounts, snapshots, files }, null, 2)}\n`);
    lap('manifest');
    return { ingest: report, problems: report.problems, snapshot, snapshotWritten, tables: rows, deltas, phases, llmd: llmdCounts };
  } finally {
    store.close();
  }
}
