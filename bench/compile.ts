/**
 * bench:compile: the compile step at fleet scale. Writes SYNTHETIC result files (scripts/
 * synthetic-results.ts: nightly runs of every engine × GPU × model × workload, 384 a night, so
 * 100,000 files are about 9 months of a large fleet; 4 concurrency points each) into a temp
 * folder, never into results/, then for each size: a cold compile (files/s, wall time, peak RSS
 * of the compiling process), an unchanged one, three incremental ones after one new file each, and the browser data formats compared on the points the site
 * queries: Arrow IPC (apache-arrow) vs Parquet decoded in JS (hyparquet), size and decode time.
 * Goals (issue 27): 100,000 files cold ≤ 30 s and ≤ 1 GB peak; incremental ≤ 1 s. Beside the
 * ingest rate, DuckDB's own JSON reader on the same files (duckdbJsonReference).
 *
 * Usage: npm run bench:compile [-- --sizes 10000,100000] [--plant slow-ingest (the gate's test: ingest made 2× slower)]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { parquetReadObjects } from 'hyparquet';
import { writeNewFileAtomic } from '../harness/lib/io/atomic-write.ts';
import { benchMachine, benchOutputPath } from './lib/output.ts';
import { harnessGit } from '../harness/measure/run/host.ts';
import { median } from '../harness/lib/stats/median.ts';
import { EXTRA_RELEASES_ENV } from '../harness/contract/releases.ts';
import { fleetHistory, syntheticReleases, syntheticResult, writeResult } from './lib/synthetic-results.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { sizes: { type: 'string', default: '10000,100000' }, plant: { type: 'string' } } });
/** Planted regressions the gate's test uses (bench/plant/): each compile process loads the named one. */
const PLANTS: Record<string, string> = { 'slow-ingest': fileURLToPath(new URL('./plant/slow-ingest.ts', import.meta.url)) };
if (values.plant !== undefined && PLANTS[values.plant] === undefined) throw new Error(`--plant ${values.plant}: unknown; one of ${Object.keys(PLANTS).join(', ')}`);
const plantArgs = values.plant === undefined ? [] : ['--import', PLANTS[values.plant]!];
const sizes = values.sizes!.split(',').map(Number);

interface CompileRun {
  /** Inside the command, from parsing its options to its report. */
  seconds: number;
  /** The whole process: Node and module start-up, opening the store, the compile. */
  wall_seconds: number;
  max_rss_mb: number;
  parsed: number;
  runs: number;
  points: number;
  phases: Record<string, number>;
}

/** One compile in its own process, so its peak RSS is its own. */
function compileOnce(resultsDir: string, outDir: string): CompileRun {
  const started = performance.now();
  const stdout = execFileSync(process.execPath, ['--import', 'tsx', ...plantArgs, join(REPO, 'harness/cli.ts'), 'compile', '--results', resultsDir, '--out', outDir, '--json'], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] });
  const report = JSON.parse(stdout) as { seconds: number; max_rss_mb: number; ingest: { parsed: number }; tables: { runs: number; points: number }; phases: Record<string, number> };
  return { seconds: Number(report.seconds.toFixed(2)), wall_seconds: Number(((performance.now() - started) / 1000).toFixed(2)), max_rss_mb: report.max_rss_mb, parsed: report.ingest.parsed, runs: report.tables.runs, points: report.tables.points, phases: report.phases };
}

function timed<T>(fn: () => T): [T, number] {
  const start = performance.now();
  const value = fn();
  return [value, Number((performance.now() - start).toFixed(1))];
}

async function formats(outDir: string, scratch: string): Promise<Record<string, unknown>> {
  // What the site serves: one Arrow file per scenario; sizes and times summed over them.
  const arrowFiles = readdirSync(join(outDir, 'site', 'points')).map((name) => readFileSync(join(outDir, 'site', 'points', name)));
  const arrowBytes = Buffer.concat(arrowFiles);
  const [tables, arrowMs] = timed(() => arrowFiles.map((bytes) => tableFromIPC(bytes)));
  const table = tables[0]!;
  const numRows = tables.reduce((sum, t) => sum + t.numRows, 0);
  const [, arrowScanMs] = timed(() => {
    let sum = 0;
    for (const t of tables) for (const v of t.getChild('output_throughput')!) sum += (v as number | null) ?? 0;
    return sum;
  });
  // The same rows and columns as Parquet (snappy: the codec hyparquet decodes without add-ons).
  const parquetPath = join(scratch, 'points-site.parquet');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`COPY (SELECT * FROM read_parquet('${join(outDir, 'parquet/latest/points/*.parquet')}') WHERE status = 'completed') TO '${parquetPath}' (FORMAT parquet, COMPRESSION snappy)`);
  const columns = table.schema.fields.map((f) => f.name);
  await connection.run(`COPY (SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM read_parquet('${parquetPath}')) TO '${parquetPath}.subset' (FORMAT parquet, COMPRESSION snappy)`);
  connection.closeSync();
  instance.closeSync();
  const parquetBytes = readFileSync(`${parquetPath}.subset`);
  const buffer = parquetBytes.buffer.slice(parquetBytes.byteOffset, parquetBytes.byteOffset + parquetBytes.byteLength);
  const start = performance.now();
  const rows = await parquetReadObjects({ file: buffer });
  const hyparquetMs = Number((performance.now() - start).toFixed(1));
  return {
    rows: numRows,
    columns: columns.length,
    arrow_ipc: { files: arrowFiles.length, bytes: arrowBytes.length, gzip_bytes: gzipSync(arrowBytes).length, decode_ms: arrowMs, scan_one_column_ms: arrowScanMs },
    parquet_snappy_hyparquet: { bytes: parquetBytes.length, gzip_bytes: gzipSync(parquetBytes).length, decode_to_objects_ms: hyparquetMs, rows: rows.length },
  };
}

/**
 * DuckDB's own JSON reader on the same files, the reference the ingest rate is stated beside:
 * parse only (read_json_objects), and read_json counting rows (it finds the objects, reads no
 * field). Its memory limit is the compile's own (1 GB); materializing every field of the files
 * into a table needs more than that at 10,000 files, so that is not measured here.
 */
async function duckdbJsonReference(resultsDir: string, bytes: number): Promise<Record<string, { seconds: number; mb_per_s: number }>> {
  const instance = await DuckDBInstance.create(':memory:', { memory_limit: '1GB', preserve_insertion_order: 'false' });
  const connection = await instance.connect();
  const glob = `${resultsDir}/**/*.json`.replace(/'/g, "''");
  const timedSql = async (sql: string) => {
    const start = performance.now();
    await connection.run(sql);
    const seconds = (performance.now() - start) / 1000;
    return { seconds: Number(seconds.toFixed(2)), mb_per_s: Number((bytes / 1e6 / seconds).toFixed(1)) };
  };
  try {
    return {
      read_json_objects_parse_only: await timedSql(`SELECT count(*) FROM read_json_objects('${glob}', maximum_object_size = 16777216)`),
      read_json_count: await timedSql(`SELECT count(*) FROM read_json('${glob}', format = 'auto', maximum_object_size = 16777216)`),
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const results = [];
for (const size of sizes) {
  const scratch = mkdtempSync(join(tmpdir(), `servebench-bench-compile-${size}-`));
  try {
    const resultsDir = join(scratch, 'results');
    const outDir = join(scratch, 'out');
    process.stderr.write(`writing ${size} SYNTHETIC result files under ${resultsDir}\n`);
    const [, generateMs] = timed(() => {
      for (const run of fleetHistory(size)) writeResult(resultsDir, syntheticResult(run));
    });
    // The synthetic versions count as known releases (as the fleet's real ones would), so compile derives every statistic.
    const releasesFile = join(scratch, 'synthetic-releases.json');
    writeFileSync(releasesFile, JSON.stringify(syntheticReleases(fleetHistory(size + 1))));
    process.env[EXTRA_RELEASES_ENV] = releasesFile;
    const bytes = Number(execFileSync('du', ['-sb', resultsDir], { encoding: 'utf8' }).split('\t')[0]);
    process.stderr.write(`compiling ${size} files (cold)\n`);
    const cold = compileOnce(resultsDir, outDir);
    const noChange = compileOnce(resultsDir, outDir);
    // Three times one new file (a nightly result's run date, so it lands in the newest week).
    const [last] = [...fleetHistory(size + 1)].slice(-1);
    const incremental = [7_777_777, 7_777_778, 7_777_779].map((seed) => {
      writeResult(resultsDir, syntheticResult({ ...last!, seed }));
      return compileOnce(resultsDir, outDir);
    });
    const format = await formats(outDir, scratch);
    const reference = await duckdbJsonReference(resultsDir, bytes);
    const parquetBytes = readdirSync(join(outDir, 'parquet/latest/points')).reduce((sum, name) => sum + statSync(join(outDir, 'parquet/latest/points', name)).size, 0);
    const entry = {
      files: size,
      input_bytes: bytes,
      generate_s: Number((generateMs / 1000).toFixed(1)),
      cold: { ...cold, files_per_s: Math.round(size / cold.seconds), ingest_mb_per_s: Number((bytes / 1e6 / cold.phases.ingest!).toFixed(1)) },
      duckdb_json_reference: reference,
      no_change: noChange,
      incremental_one_new_file: { median_seconds: median(incremental.map((r) => r.seconds)), median_wall_seconds: median(incremental.map((r) => r.wall_seconds)), runs: incremental },
      points_parquet_bytes: parquetBytes,
      browser_formats: format,
    };
    process.stderr.write(`${JSON.stringify(entry, null, 2)}\n`);
    results.push(entry);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const at = new Date();
const document = { bench: 'compile', at: at.toISOString(), node: process.version, cpus: (await import('node:os')).availableParallelism(), machine: benchMachine(), harness: harnessGit(), synthetic: true, planted: values.plant ?? null, results };
const path = benchOutputPath('compile', at, values.plant ? `-planted-${values.plant}` : '');
await writeNewFileAtomic(path, `${JSON.stringify(document, null, 2)}\n`);
process.stdout.write(`${path}\n`);
