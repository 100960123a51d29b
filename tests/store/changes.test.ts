/**
 * changes.json ("what changed") on the SYNTHETIC fixture plus SYNTHETIC failed runs: compiled on
 * successive days, so the first compile has no previous snapshot (the last 7 days of runs) and the
 * later ones count from the previous snapshot's day.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { ChangesFileSchema, SITE_FILES, type ChangesFile } from '../../harness/contract/site-data.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { syntheticResult, writeResult, type SyntheticRun } from '../../bench/lib/synthetic-results.ts';
import { fixtureRuns, writeFixture, writeFixturePrices } from './fixture-results.ts';

const root = mkdtempSync(join(tmpdir(), 'servebench-changes-'));
const resultsDir = join(root, 'results');
const outDir = join(root, 'out');
const prices = () => loadPrices(writeFixturePrices(root));
const changes = (): ChangesFile => ChangesFileSchema.parse(JSON.parse(readFileSync(join(outDir, 'site', SITE_FILES.changes), 'utf8')));

/** A SYNTHETIC run that failed at launch: no points, a failure block. */
function failedRun(run: SyntheticRun, version: string | null): RunResult {
  const result = syntheticResult(run);
  result.status = 'failed';
  result.points = [];
  result.run!.engine.version = version;
  result.run!.failure = { phase: 'launch', message: 'SYNTHETIC: the server exited before it was healthy', log_tail: ['synthetic'] };
  result.outcome = { failure_rate: 0, exceeded_max_failure_rate: false, interrupted: false };
  return result;
}

const base = fixtureRuns()[3]!;
let firstFailed: RunResult;
let first: ChangesFile;

beforeAll(async () => {
  writeFixture(resultsDir);
  firstFailed = failedRun({ ...base, seed: 901, date: new Date(Date.UTC(2026, 1, 14, 3)) }, '1.1.0');
  writeResult(resultsDir, firstFailed);
  const report = await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-01T00:00:00Z') });
  expect(report.problems).toEqual([]);
  first = changes();
}, 60_000);

describe('changes.json', () => {
  it('without an older snapshot: the 7 days before the newest run, their new releases, their significant changes and failed runs', () => {
    expect([first.basis, first.since, first.until]).toEqual(['last-7-days', '2026-02-08', '2026-02-15']);
    // vllm 1.1.0 first ran on Feb 10, sglang 2.1.0 on Feb 15 (newest first); each on both load points.
    expect(first.new_releases).toEqual([
      { engine: 'sglang', engine_version: '2.1.0', first_run_date: '2026-02-15', scenarios: 1 },
      { engine: 'vllm', engine_version: '1.1.0', first_run_date: '2026-02-10', scenarios: 1 },
    ]);
    expect(first.changes.length).toBeGreaterThan(0);
    for (const d of first.changes) {
      expect(['better', 'worse']).toContain(d.verdict);
      expect(['sglang 2.1.0', 'vllm 1.1.0']).toContain(`${d.engine} ${d.version}`);
    }
    const sizes = first.changes.map((d) => Math.abs(d.change_pct));
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    // The planted 15% slowdown of vllm 1.1.0 is there.
    expect(first.changes.some((d) => d.engine === 'vllm' && d.metric === 'output_throughput' && d.verdict === 'worse')).toBe(true);
    expect(first.failed_runs).toEqual([
      {
        run_id: firstFailed.run_id,
        engine: 'vllm',
        engine_version: '1.1.0',
        model: 'synthetic/llama-8b',
        precision: 'bfloat16',
        hardware: first.failed_runs[0]!.hardware,
        workload: 'chat',
        created_at: '2026-02-14T03:00:00Z',
        failure_phase: 'launch',
        failure_message: 'SYNTHETIC: the server exited before it was healthy',
        file: first.failed_runs[0]!.file,
      },
    ]);
    expect(first.failed_runs[0]!.file).toMatch(/\.json$/);
    // A failed run has its page, as every run a page links to.
    expect(existsSync(join(outDir, 'site', SITE_FILES.run(firstFailed.run_id)))).toBe(true);
  });

  it('with an older snapshot: counts from its day, and only the new release’s changes', async () => {
    // At vllm 1.0.0's speed (fixtureRuns()[0]): 15% faster than 1.1.0.
    writeResult(resultsDir, syntheticResult({ ...fixtureRuns()[0]!, version: '1.2.0', seed: 902, date: new Date(Date.UTC(2026, 2, 3, 3)) }));
    const failed = failedRun({ ...fixtureRuns()[7]!, seed: 903, date: new Date(Date.UTC(2026, 2, 3, 4)) }, null);
    writeResult(resultsDir, failed);
    await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-04T00:00:00Z') });
    const second = changes();
    expect([second.basis, second.since, second.until]).toEqual(['previous-snapshot', '2026-03-01', '2026-03-03']);
    expect(second.new_releases).toEqual([{ engine: 'vllm', engine_version: '1.2.0', first_run_date: '2026-03-03', scenarios: 1 }]);
    // Beyond the pooled noise: significant.
    expect(second.changes.some((d) => d.metric === 'output_throughput' && d.verdict === 'better')).toBe(true);
    for (const d of second.changes) expect(`${d.engine} ${d.version}`).toBe('vllm 1.2.0');
    // The failed run of Feb 14 is before the previous snapshot; the new one has no engine version.
    expect(second.failed_runs.map((f) => [f.run_id, f.engine, f.engine_version])).toEqual([[failed.run_id, 'sglang', null]]);
    expect(existsSync(join(outDir, 'site', SITE_FILES.run(failed.run_id)))).toBe(true);
  }, 60_000);

  it('with no new release: every significant change, and the failed runs since the previous snapshot', async () => {
    const failed = failedRun({ ...base, seed: 904, date: new Date(Date.UTC(2026, 2, 5, 3)) }, '1.2.0');
    writeResult(resultsDir, failed);
    await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-06T00:00:00Z') });
    const third = changes();
    expect([third.basis, third.since, third.until]).toEqual(['previous-snapshot', '2026-03-04', '2026-03-05']);
    expect(third.new_releases).toEqual([]);
    const deltas = JSON.parse(readFileSync(join(outDir, 'site', SITE_FILES.deltas), 'utf8')) as ChangesFile['changes'];
    expect(third.changes.length).toBeGreaterThan(0);
    expect(third.changes.length).toBe(deltas.filter((d) => d.verdict !== 'unclear').length);
    expect(third.failed_runs.map((f) => f.run_id)).toEqual([failed.run_id]);
  }, 60_000);

  it('a second compile the same day, with a result dated before the previous snapshot: new is what that snapshot did not have', async () => {
    // A community submission measured in February arrives after the March snapshots.
    writeResult(resultsDir, syntheticResult({ ...fixtureRuns()[7]!, version: '2.2.0', seed: 905, date: new Date(Date.UTC(2026, 1, 20, 3)) }));
    await compile({ resultsDir, outDir, prices: prices(), now: new Date('2026-03-06T06:00:00Z') });
    const fourth = changes();
    expect(fourth.basis).toBe('previous-snapshot');
    expect(fourth.new_releases.map((r) => `${r.engine} ${r.engine_version}`)).toEqual(['sglang 2.2.0']);
    // The failed run of March 5 was in the previous snapshot already.
    expect(fourth.failed_runs).toEqual([]);
  }, 60_000);
});
