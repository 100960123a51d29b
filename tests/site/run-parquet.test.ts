/**
 * The lookup page's reader (site/lib/run-parquet.ts) on the compiled SYNTHETIC fixture
 * (tests/store/fixture-results.ts): each run and its points as its result file says, reading only
 * its week's files; an unknown id is null. The published files are zstd (fzstd decodes them); the
 * same tables rewritten as snappy read the same (hyparquet's own codec).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { isoWeek, readRun, weekOfRunId, type WeeklyFiles } from '../../site/lib/run-parquet.ts';
import { writeFixture, writeFixturePrices } from '../store/fixture-results.ts';

const root = mkdtempSync(join(tmpdir(), 'servebench-run-parquet-'));
const out = join(root, 'data');
let results: Array<{ file: string; text: string; result: RunResult }> = [];
let files: WeeklyFiles;
/** The files' bytes by path, each read logged. */
const read = (dir: string, log: string[]) => async (path: string) => (log.push(path), new Uint8Array(readFileSync(join(dir, path))).buffer);

beforeAll(async () => {
  const resultsDir = join(root, 'results');
  results = writeFixture(resultsDir).map((file) => {
    const text = readFileSync(join(resultsDir, file), 'utf8');
    return { file, text, result: JSON.parse(text) as RunResult };
  });
  await compile({ resultsDir, outDir: out, prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-03-01T00:00:00Z') });
  const manifest = JSON.parse(readFileSync(join(out, 'MANIFEST.json'), 'utf8')) as { files: Array<{ path: string }> };
  const weekly = (table: string) => Object.fromEntries(manifest.files.filter((f) => f.path.startsWith(`parquet/latest/${table}/`)).map((f) => [f.path.slice(`parquet/latest/${table}/`.length, -'.parquet'.length), f.path]));
  files = { runs: weekly('runs'), points: weekly('points') };
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  for (const path of [...Object.values(files.runs), ...Object.values(files.points)]) {
    await connection.run(`COPY (SELECT * FROM read_parquet('${join(out, path)}')) TO '${join(out, `${path}.snappy`)}' (FORMAT parquet, COMPRESSION snappy)`);
  }
}, 120_000);

describe('the run lookup reader', () => {
  it('names weeks as compile does (ISO 8601, %G-W%V)', () => {
    expect([isoWeek('2026-01-01'), isoWeek('2025-12-29'), isoWeek('2027-01-03'), isoWeek('2026-12-04'), isoWeek('2020-12-31')]).toEqual(['2026-W01', '2026-W01', '2026-W53', '2026-W49', '2020-W53']);
    expect(weekOfRunId('20261204T165532Z-0a1b2c3d')).toBe('2026-W49');
    expect(weekOfRunId('../etc/passwd')).toBeNull();
  });

  it("reads each run and its points as its file says, from its week's runs and points files only", async () => {
    expect(Object.keys(files.runs).length).toBeGreaterThan(1);
    for (const { file, text, result } of results) {
      const log: string[] = [];
      const found = (await readRun(files, result.run_id, read(out, log)))!;
      const week = isoWeek(result.created_at.slice(0, 10));
      expect(log).toEqual([`parquet/latest/runs/${week}.parquet`, `parquet/latest/points/${week}.parquet`]);
      expect([found.run.run_id, found.run.engine, found.run.engine_version, found.run.file, found.run.file_sha256]).toEqual([result.run_id, result.run!.engine.name, result.run!.engine.version, file, createHash('sha256').update(text).digest('hex')]);
      expect(found.points.map((p) => [p.point, p.output_throughput, p.requests_sent, p.ttft_ms_p50])).toEqual(result.points.map((p, i) => [i, p.metrics.output_throughput, p.requests_sent, p.metrics.ttft_ms!.p50]));
    }
  });

  it("finds a run outside its id's week in the other weeks' files; an unknown id is in none", async () => {
    const { result } = results[0]!;
    const week = weekOfRunId(result.run_id)!;
    // Its week's runs file under another week's name, read last: the id's week has none, so every file is read.
    const moved: WeeklyFiles = { runs: Object.fromEntries([...Object.entries(files.runs).filter(([w]) => w !== week), ['2099-W01', files.runs[week]!]].map(([w, p]) => [w, `${p}.snappy`])), points: Object.fromEntries(Object.entries(files.points).map(([w, p]) => [w, `${p}.snappy`])) };
    const log: string[] = [];
    expect((await readRun(moved, result.run_id, read(out, log)))?.run.file_sha256).toBe(createHash('sha256').update(results[0]!.text).digest('hex'));
    expect(log.filter((p) => p.includes('/runs/')).length).toBe(Object.keys(files.runs).length);
    const none: string[] = [];
    await expect(readRun(moved, '20990101T000000Z-0badf00d', read(out, none))).resolves.toBeNull();
    expect(none.length).toBe(Object.keys(files.runs).length);
    await expect(readRun(moved, 'not-a-run', read(out, []))).resolves.toBeNull();
  });

  it('reads the same from the tables rewritten as snappy (another codec compile could choose)', async () => {
    const snappy: WeeklyFiles = { runs: Object.fromEntries(Object.entries(files.runs).map(([w, p]) => [w, `${p}.snappy`])), points: Object.fromEntries(Object.entries(files.points).map(([w, p]) => [w, `${p}.snappy`])) };
    for (const { result } of results) expect(await readRun(snappy, result.run_id, read(out, []))).toEqual(await readRun(files, result.run_id, read(out, [])));
  });
});
