/**
 * The llm-d Benchmark Report download: every load point of every official run (OFFICIAL_RUN_SQL:
 * source official, a known or unchecked release) as a v0.2 report (llmd-report.ts), one JSON
 * document a line, in run order (created_at, run_id), written to <out>/llmd-benchmark-reports.jsonl
 * and listed in MANIFEST.json. A run without points (it failed before measuring) has no report:
 * it is skipped and counted.
 *
 * Incremental as the site's per-run pages are: each run's lines are cached in
 * <out>/.cache/llmd/<run_id>-<digest>.jsonl, the digest covering what they are made from (the
 * compile context, the result file's sha256 and its points' validity, which can change without
 * the file, e.g. when a fidelity reference arrives). A compile re-reads only the result files
 * whose digest changed, then joins the cached lines into the download.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { LLMD_REPORTS_FILE, type ManifestFile } from '../contract/site-data.ts';
import type { RunResult } from '../contract/result.ts';
import type { Validity } from '../contract/validity.ts';
import { llmdReports } from './llmd-report.ts';
import { LLMD_REPORT_VERSION } from './llmd-report-schema.ts';
import { OFFICIAL_RUN_SQL } from './official.ts';
import { readResultText } from './result-files.ts';
import { sha256File } from './snapshots.ts';

export interface LlmdDownload {
  /** The download's manifest entry; rows: the reports (lines). */
  readonly file: ManifestFile;
  /** Official runs with at least one point (each has a report per point). */
  readonly runs: number;
  readonly reports: number;
  /** Official runs without points (failed before measuring): no report. */
  readonly skipped_runs: number;
}

interface OfficialRun {
  readonly runId: string;
  readonly file: string;
  readonly sha256: string;
  readonly validity: Array<{ status: Validity; reason: string | null }>;
}

/** The official runs in run order, each with its points' validity in point order (none: no points). */
async function officialRuns(connection: DuckDBConnection): Promise<OfficialRun[]> {
  const runs = (await connection.runAndReadAll(`SELECT run_id, file, file_sha256 FROM valid_runs WHERE ${OFFICIAL_RUN_SQL} ORDER BY created_at, run_id`)).getRowsJS() as Array<[string, string, string]>;
  const points = (await connection.runAndReadAll(`SELECT run_id, validity, validity_reason FROM priced_points WHERE ${OFFICIAL_RUN_SQL} ORDER BY run_id, point`)).getRowsJS() as Array<[string, Validity, string | null]>;
  const byRun = new Map<string, OfficialRun['validity']>();
  for (const [runId, status, reason] of points) {
    const list = byRun.get(runId);
    if (list) list.push({ status, reason });
    else byRun.set(runId, [{ status, reason }]);
  }
  return runs.map(([runId, file, sha256]) => ({ runId, file, sha256, validity: byRun.get(runId) ?? [] }));
}

/** One run's report lines (JSON Lines, each ending in a newline). */
function reportLines(resultsDir: string, run: OfficialRun): { text: string; reports: number } {
  const read = readResultText(join(resultsDir, run.file));
  // Compile ingested and checked this file a moment ago: a file that cannot be read now changed under it.
  if (!('text' in read)) throw new Error(`${run.file}: grew past the result size limit during the compile`);
  const reports = llmdReports(JSON.parse(read.text) as RunResult, { file: run.file, sha256: run.sha256, validity: run.validity });
  return { text: reports.map((r) => `${JSON.stringify(r)}\n`).join(''), reports: reports.length };
}

/** Writes <out>/llmd-benchmark-reports.jsonl from the official runs (after deriveTables: it reads priced_points). */
export async function writeLlmdDownload(connection: DuckDBConnection, resultsDir: string, outDir: string, context: string): Promise<LlmdDownload> {
  const cacheDir = join(outDir, '.cache', 'llmd');
  mkdirSync(cacheDir, { recursive: true });
  const runs = await officialRuns(connection);
  const kept = new Set<string>();
  const target = join(outDir, LLMD_REPORTS_FILE);
  const partial = `${target}.partial`;
  const out = openSync(partial, 'w');
  let reports = 0;
  let skipped = 0;
  try {
    for (const run of runs) {
      if (run.validity.length === 0) {
        skipped += 1;
        continue;
      }
      const digest = createHash('sha256').update(`${context}|${LLMD_REPORT_VERSION}|${run.sha256}|${JSON.stringify(run.validity)}`).digest('hex').slice(0, 16);
      const name = `${run.runId}-${digest}.jsonl`;
      kept.add(name);
      const cached = join(cacheDir, name);
      let text: string;
      if (existsSync(cached)) text = readFileSync(cached, 'utf8');
      else {
        text = reportLines(resultsDir, run).text;
        writeFileSync(cached, text);
      }
      writeSync(out, text);
      reports += run.validity.length;
    }
  } finally {
    closeSync(out);
  }
  renameSync(partial, target);
  for (const name of readdirSync(cacheDir)) if (!kept.has(name)) rmSync(join(cacheDir, name), { force: true });
  return {
    file: { path: LLMD_REPORTS_FILE, sha256: await sha256File(target), bytes: statSync(target).size, rows: reports },
    runs: runs.length - skipped,
    reports,
    skipped_runs: skipped,
  };
}
