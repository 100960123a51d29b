/**
 * The llm-d Benchmark Report download of `servebench compile` on the SYNTHETIC fixture
 * (tests/store/fixture-results.ts: 8 official runs of 2 points each), plus an official run that
 * failed before measuring and a community run: the file is listed in MANIFEST.json with its own
 * sha256, holds one v0.2 report per point of the official runs (checked against the result files
 * themselves), and an incremental compile rebuilds only the new run's reports yet publishes what a
 * compile from scratch does.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { LLMD_REPORTS_FILE, type ManifestFile } from '../../harness/contract/site-data.ts';
import { compile, type CompileReport } from '../../harness/store/compile.ts';
import { LlmdReportSchema, type LlmdReport } from '../../harness/store/llmd-report-schema.ts';
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
const reportsOf = (dir: string): LlmdReport[] => readFileSync(join(dir, LLMD_REPORTS_FILE), 'utf8').split('\n').filter((line) => line !== '').map((line) => LlmdReportSchema.parse(JSON.parse(line)));
const keyword = (r: LlmdReport, key: string) => r.run.keywords!.find((k) => k.startsWith(`${key}=`))?.slice(key.length + 1);
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'MANIFEST.json'), 'utf8')) as { files: ManifestFile[]; llmd_reports: unknown };

beforeAll(async () => {
  const paths = writeFixture(resultsDir);
  official = paths.map((path) => ({ path, result: JSON.parse(readFileSync(join(resultsDir, path), 'utf8')) as RunResult }));
  const failed = syntheticResult({ ...fixtureRuns()[0]!, source: 'official', seed: 950, date: new Date(Date.UTC(2026, 1, 25, 3)) });
  failedPath = writeResult(resultsDir, { ...failed, status: 'failed', points: [], outcome: { failure_rate: 0, exceeded_max_failure_rate: false, interrupted: false }, run: { ...failed.run!, failure: { phase: 'launch', message: 'CUDA out of memory', log_tail: [] } } });
  communityPath = writeResult(resultsDir, syntheticResult({ ...fixtureRuns()[0]!, source: 'community', seed: 951, date: new Date(Date.UTC(2026, 1, 26, 3)) }));
  report = await compile({ resultsDir, outDir, prices: prices(), now: NOW });
}, 60_000);

describe('the llm-d Benchmark Report download', () => {
  it('is listed in MANIFEST.json with its sha256, bytes and one row per report', () => {
    expect(report.problems).toEqual([]);
    const entry = manifest(outDir).files.find((f) => f.path === LLMD_REPORTS_FILE);
    const path = join(outDir, LLMD_REPORTS_FILE);
    expect(entry).toEqual({ path: LLMD_REPORTS_FILE, sha256: sha256(path), bytes: statSync(path).size, rows: 16 });
    // The failed official run has no points: skipped and counted; the community run is not official.
    expect(report.llmd).toEqual({ runs: 8, reports: 16, skipped_runs: 1 });
    expect(manifest(outDir).llmd_reports).toEqual(report.llmd);
  });

  it('holds one v0.2 report per point of each official run, in run order, with the result file’s own numbers', () => {
    const reports = reportsOf(outDir);
    const ordered = [...official].sort((a, b) => a.result.created_at.localeCompare(b.result.created_at) || a.result.run_id.localeCompare(b.result.run_id));
    expect(reports.map((r) => r.run.uid)).toEqual(ordered.flatMap(({ result }) => result.points.map((_, i) => `${result.run_id}/${i}`)));
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

  it('rebuilds only a new run’s reports, and publishes what a compile from scratch does', async () => {
    const cache = join(outDir, '.cache', 'llmd');
    const before = new Map(readdirSync(cache).map((name) => [name, statSync(join(cache, name)).mtimeMs]));
    expect(before.size).toBe(8);
    const added = writeResult(resultsDir, syntheticResult({ ...fixtureRuns()[7]!, seed: 999, date: new Date(Date.UTC(2026, 1, 20, 3)) }));
    const next = await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-02T00:00:00Z') });
    expect(next.llmd).toEqual({ runs: 9, reports: 18, skipped_runs: 1 });
    const after = readdirSync(cache);
    expect(after).toHaveLength(9);
    // The runs already there kept their cached reports (none rewritten); the new run's were written.
    for (const [name, mtime] of before) expect(statSync(join(cache, name)).mtimeMs, name).toBe(mtime);
    const added_run = JSON.parse(readFileSync(join(resultsDir, added), 'utf8')) as RunResult;
    expect(after.filter((name) => !before.has(name)).map((name) => name.slice(0, added_run.run_id.length))).toEqual([added_run.run_id]);
    const cold = join(root, 'out-cold');
    await compile({ resultsDir, outDir: cold, prices: prices(), now: new Date('2026-03-02T00:00:00Z') });
    expect(readFileSync(join(outDir, LLMD_REPORTS_FILE), 'utf8')).toBe(readFileSync(join(cold, LLMD_REPORTS_FILE), 'utf8'));
    expect(manifest(outDir).files.find((f) => f.path === LLMD_REPORTS_FILE)).toEqual(manifest(cold).files.find((f) => f.path === LLMD_REPORTS_FILE));
    // Unchanged inputs: nothing is rewritten, the published download stands.
    const unchanged = await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-03T00:00:00Z') });
    expect([unchanged.snapshotWritten, unchanged.llmd]).toEqual([false, null]);
    expect(reportsOf(outDir)).toHaveLength(18);
  }, 120_000);
});
