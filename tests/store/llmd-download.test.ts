/**
 * The llm-d Benchmark Report download of `servebench compile` on the SYNTHETIC fixture
 * (tests/store/fixture-results.ts: 8 official runs of 2 points each), plus an official run that
 * failed before measuring and a community run: one file per ISO week, each listed in MANIFEST.json
 * with its own sha256, holding one v0.2 report per point of the official runs (checked against
 * the result files themselves); an incremental compile rewrites only the weeks whose runs changed,
 * keeping the lines of unchanged runs, yet publishes what a compile from scratch does.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { LLMD_REPORTS_DIR, LLMD_WEEK_SUFFIX, type ManifestFile } from '../../harness/contract/site-data.ts';
import { compile, type CompileReport } from '../../harness/store/compile.ts';
import { LlmdReportSchema, type LlmdReport } from '../../harness/store/llmd-report-schema.ts';
import { writeWeeks } from '../../harness/store/llmd-download.ts';
import type { WeekJob } from '../../harness/store/llmd-week-file.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { syntheticResult, writeResult } from '../../bench/lib/synthetic-results.ts';
import { fixtureRuns, writeFixture, writeFixturePrices } from './fixture-results.ts';

const root = mkdtempSync(join(tmpdir(), 'servebench-llmd-'));
const resultsDir = join(root, 'results');
const outDir = join(root, 'out');
const NOW = new Date('2026-03-01T00:00:00Z');
const prices = () => loadPrices(writeFixturePrices(root));
let report: CompileReport;
let official: Array<{ path: string; result: RunResult }> = [];
let failedPath = '';
let communityPath = '';

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
/** A week file's JSON Lines (the file is one zstd frame). */
const weekText = (path: string) => zstdDecompressSync(readFileSync(path)).toString('utf8');
const llmdEntries = (dir: string) => manifest(dir).files.filter((f) => f.path.startsWith(`${LLMD_REPORTS_DIR}/`));
const reportsOf = (dir: string): LlmdReport[] =>
  llmdEntries(dir).flatMap((f) => weekText(join(dir, f.path)).split('\n').filter((line) => line !== '').map((line) => LlmdReportSchema.parse(JSON.parse(line))));
const keyword = (r: LlmdReport, key: string) => r.run.keywords!.find((k) => k.startsWith(`${key}=`))?.slice(key.length + 1);
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'MANIFEST.json'), 'utf8')) as { files: ManifestFile[]; llmd_reports: unknown };
/** ISO-8601 week of a UTC instant ("2026-W07"): the week of its Thursday. */
function isoWeek(at: string): string {
  const day = new Date(`${at.slice(0, 10)}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + 3 - ((day.getUTCDay() + 6) % 7));
  const year = day.getUTCFullYear();
  const week = 1 + Math.floor((day.getTime() - Date.UTC(year, 0, 1)) / (7 * 86_400_000));
  return `${year}-W${String(week).padStart(2, '0')}`;
}

beforeAll(async () => {
  const paths = writeFixture(resultsDir);
  official = paths.map((path) => ({ path, result: JSON.parse(readFileSync(join(resultsDir, path), 'utf8')) as RunResult }));
  const failed = syntheticResult({ ...fixtureRuns()[0]!, source: 'official', seed: 950, date: new Date(Date.UTC(2026, 1, 25, 3)) });
  failedPath = writeResult(resultsDir, { ...failed, status: 'failed', points: [], outcome: { failure_rate: 0, exceeded_max_failure_rate: false, interrupted: false }, run: { ...failed.run!, failure: { phase: 'launch', message: 'CUDA out of memory', log_tail: [] } } });
  communityPath = writeResult(resultsDir, syntheticResult({ ...fixtureRuns()[0]!, source: 'community', seed: 951, date: new Date(Date.UTC(2026, 1, 26, 3)) }));
  report = await compile({ resultsDir, outDir, prices: prices(), now: NOW });
}, 60_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the llm-d Benchmark Report download', () => {
  it('is one file per ISO week of official runs, each listed in MANIFEST.json with its sha256, bytes and one row per report', async () => {
    expect(report.problems).toEqual([]);
    const runOrder = (a: RunResult, b: RunResult) => a.created_at.localeCompare(b.created_at) || a.run_id.localeCompare(b.run_id);
    const weeks = [...new Set(official.map(({ result }) => isoWeek(result.created_at)))].sort();
    expect(weeks).toEqual(['2026-W02', '2026-W03', '2026-W07']);
    const entries = llmdEntries(outDir);
    expect(entries.map((f) => f.path)).toEqual(weeks.map((w) => `llmd/${w}${LLMD_WEEK_SUFFIX}`));
    for (const entry of entries) {
      const path = join(outDir, entry.path);
      const inWeek = official.filter(({ result }) => `llmd/${isoWeek(result.created_at)}${LLMD_WEEK_SUFFIX}` === entry.path).map((o) => o.result).sort(runOrder);
      expect(entry).toEqual({ path: entry.path, sha256: sha256(path), bytes: statSync(path).size, rows: inWeek.reduce((sum, r) => sum + r.points.length, 0) });
      // The week's runs in run order, each point once, in point order.
      const uids = weekText(path).trim().split('\n').map((line) => (JSON.parse(line) as LlmdReport).run.uid);
      expect(uids, entry.path).toEqual(inWeek.flatMap((r) => r.points.map((_, i) => `${r.run_id}/${i}`)));
      // Read as the downloads page says a reader reads it: DuckDB's read_json takes the .jsonl.zst as it is.
      const duck = await (await DuckDBInstance.create(':memory:')).connect();
      const [[count, runs]] = (await duck.runAndReadAll(`SELECT count(*)::INTEGER, count(DISTINCT run.eid)::INTEGER FROM read_json('${path}')`)).getRowsJS() as Array<[number, number]>;
      duck.closeSync();
      expect([count, runs], entry.path).toEqual([entry.rows, inWeek.length]);
    }
    // The failed official run (its own week) has no points: skipped and counted, and no file; the community run is not official.
    expect(isoWeek(JSON.parse(readFileSync(join(resultsDir, failedPath), 'utf8')).created_at)).toBe('2026-W09');
    expect(report.llmd).toEqual({ runs: 8, reports: 16, skipped_runs: 1 });
    expect(manifest(outDir).llmd_reports).toEqual(report.llmd);
    expect(readdirSync(join(outDir, LLMD_REPORTS_DIR)).sort()).toEqual(weeks.map((w) => `${w}${LLMD_WEEK_SUFFIX}`));
  });

  it('holds one valid v0.2 report per point of each official run, with the result file’s own numbers', () => {
    const reports = reportsOf(outDir);
    expect(reports).toHaveLength(16);
    for (const r of reports) {
      const { path, result } = official.find((o) => o.result.run_id === r.run.eid)!;
      const point = result.points[r.scenario!.load!.standardized.stage!]!;
      expect(keyword(r, 'result_file')).toBe(path);
      expect(keyword(r, 'result_sha256')).toBe(sha256(join(resultsDir, path)));
      expect(keyword(r, 'source')).toBe('official');
      expect(keyword(r, 'validity')).toBe('valid');
      const latency = r.results.request_performance!.aggregate!.latency!;
      expect(latency.time_to_first_token!.p99).toBeCloseTo(point.metrics.ttft_ms!.p99 / 1000, 12);
      expect(latency.time_per_output_token!.p50).toBeCloseTo(point.metrics.tpot_ms!.p50 / 1000, 12);
      expect(r.results.request_performance!.aggregate!.throughput!.output_token_rate!.mean).toBe(point.metrics.output_throughput);
      expect(r.scenario!.stack![0]!.standardized.tool_version).toBe(result.run!.engine.version);
    }
    const files = new Set(reports.map((r) => keyword(r, 'result_file')));
    expect(files.has(failedPath) || files.has(communityPath)).toBe(false);
  });

  it('rewrites only the weeks whose runs changed, keeping the lines of unchanged runs, and publishes what a compile from scratch does', async () => {
    const stamp = (path: string) => `${statSync(path).ino}:${statSync(path).mtimeMs}`;
    const weekFiles = () => new Map(llmdEntries(outDir).map((f) => [f.path, stamp(join(outDir, f.path))]));
    const before = weekFiles();
    // The week file is its own cache: a marker planted (same length) in a line of an unchanged run survives the rewrite of its week.
    const w07 = join(outDir, 'llmd', '2026-W07.jsonl.zst');
    writeFileSync(w07, zstdCompressSync(weekText(w07).replace('"run_status=completed"', '"run_status=COMPLETED"')));
    // Compressed again, the planted file has another size: its index is made to describe it, as if compile had written it.
    const w07Index = join(outDir, '.cache', 'llmd', '2026-W07.json');
    const indexed = JSON.parse(readFileSync(w07Index, 'utf8')) as { file: ManifestFile };
    writeFileSync(w07Index, JSON.stringify({ ...indexed, file: { ...indexed.file, bytes: statSync(w07).size, sha256: sha256(w07) } }));
    const sameWeek = writeResult(resultsDir, syntheticResult({ ...fixtureRuns()[3]!, seed: 998, date: new Date(Date.UTC(2026, 1, 11, 9)) }));
    const newWeek = writeResult(resultsDir, syntheticResult({ ...fixtureRuns()[7]!, seed: 999, date: new Date(Date.UTC(2026, 1, 20, 3)) }));
    // An uncompressed week file as an older compiler wrote it: it leaves the download.
    writeFileSync(join(outDir, 'llmd', '2026-W02.jsonl'), '{}\n');
    const next = await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-02T00:00:00Z') });
    expect(existsSync(join(outDir, 'llmd', '2026-W02.jsonl'))).toBe(false);
    expect(next.llmd).toEqual({ runs: 10, reports: 20, skipped_runs: 1 });
    const after = weekFiles();
    expect([...after.keys()]).toEqual(['llmd/2026-W02.jsonl.zst', 'llmd/2026-W03.jsonl.zst', 'llmd/2026-W07.jsonl.zst', 'llmd/2026-W08.jsonl.zst']);
    for (const week of ['llmd/2026-W02.jsonl.zst', 'llmd/2026-W03.jsonl.zst']) expect(after.get(week), week).toBe(before.get(week));
    expect(after.get('llmd/2026-W07.jsonl.zst')).not.toBe(before.get('llmd/2026-W07.jsonl.zst'));
    const rewritten = weekText(w07);
    expect(rewritten).toContain('"run_status=COMPLETED"');
    const sameWeekRun = JSON.parse(readFileSync(join(resultsDir, sameWeek), 'utf8')) as RunResult;
    expect(rewritten).toContain(`"uid":"${sameWeekRun.run_id}/1"`);
    // Apart from the marker, what a compile from scratch of the same files publishes.
    const cold = join(root, 'out-cold');
    await compile({ resultsDir, outDir: cold, prices: prices(), now: new Date('2026-03-02T00:00:00Z') });
    expect(llmdEntries(cold).map((f) => f.path)).toEqual([...after.keys()]);
    for (const entry of llmdEntries(cold)) expect(weekText(join(outDir, entry.path)).replace('"run_status=COMPLETED"', '"run_status=completed"'), entry.path).toBe(weekText(join(cold, entry.path)));
    for (const entry of llmdEntries(outDir)) expect(entry.sha256, entry.path).toBe(sha256(join(outDir, entry.path)));
    // Unchanged inputs: nothing is rewritten, the published download stands.
    const unchanged = await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-03T00:00:00Z') });
    expect([unchanged.snapshotWritten, unchanged.llmd]).toEqual([false, null]);
    expect(reportsOf(outDir)).toHaveLength(20);
    // A run deleted: its week is rewritten without it, or leaves the download, the manifest and the cache with its last run.
    rmSync(join(resultsDir, newWeek));
    rmSync(join(resultsDir, sameWeek));
    const dropped = await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-03T00:00:00Z') });
    expect(dropped.llmd).toEqual({ runs: 8, reports: 16, skipped_runs: 1 });
    expect(llmdEntries(outDir).map((f) => f.path)).toEqual(['llmd/2026-W02.jsonl.zst', 'llmd/2026-W03.jsonl.zst', 'llmd/2026-W07.jsonl.zst']);
    expect(weekText(w07)).not.toContain(sameWeekRun.run_id);
    expect(existsSync(join(outDir, 'llmd', '2026-W08.jsonl.zst')) || existsSync(join(outDir, '.cache', 'llmd', '2026-W08.json'))).toBe(false);
  }, 120_000);

  it('written on several cores (as a cold compile writes many weeks) is what one thread writes, each file\'s sha256 and bytes those of the file on disk', async () => {
    const byWeek = new Map<string, Array<{ path: string; result: RunResult }>>();
    for (const run of official) byWeek.set(isoWeek(run.result.created_at), [...(byWeek.get(isoWeek(run.result.created_at)) ?? []), run]);
    const jobsIn = (dir: string): WeekJob[] =>
      [...byWeek].map(([week, runs]) => ({
        resultsDir, outDir: dir, relative: `llmd/${week}${LLMD_WEEK_SUFFIX}`, context: 'ctx', digest: week, reports: runs.length * 2, previous: null,
        runs: runs.map(({ path, result }) => ({ runId: result.run_id, file: path, sha256: sha256(join(resultsDir, path)), validity: result.points.map((_, i) => ({ status: i === 0 ? 'valid' as const : 'overloaded' as const, reason: i === 0 ? null : 'fell behind' })) })),
      }));
    const [one, several] = [join(root, 'weeks-1'), join(root, 'weeks-3')];
    for (const dir of [one, several]) (rmSync(dir, { recursive: true, force: true }), mkdirSync(join(dir, 'llmd'), { recursive: true }));
    const inThread = await writeWeeks(jobsIn(one), 1);
    const inWorkers = await writeWeeks(jobsIn(several), 3);
    expect(inWorkers).toEqual(inThread);
    expect(inThread.map((index) => index.file.path)).toEqual([...byWeek.keys()].map((week) => `llmd/${week}${LLMD_WEEK_SUFFIX}`));
    for (const index of inThread) {
      expect(weekText(join(several, index.file.path))).toBe(weekText(join(one, index.file.path)));
      expect([index.file.sha256, index.file.bytes]).toEqual([sha256(join(one, index.file.path)), statSync(join(one, index.file.path)).size]);
      expect(weekText(join(one, index.file.path))).toMatch(/"validity=overloaded"/);
    }
  });
});
