/**
 * One week file of the llm-d download (<out>/llmd/<week>.jsonl.zst), written from the week's runs in
 * run order: a run whose lines the week's previous file holds under the same digest keeps them, the
 * others are converted from their result files. CPU-bound (each result is parsed and converted, a
 * report per point, and the week compressed), so a cold compile writes its weeks in worker threads
 * (llmd-download.ts); the file's sha256 and size are taken from what is written, not read back.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createZstdCompress, createZstdDecompress } from 'node:zlib';
import type { RunResult } from '../contract/result.ts';
import type { ManifestFile } from '../contract/site-data.ts';
import type { Validity } from '../contract/validity.ts';
import { serveWorkerJob } from '../lib/process/worker-job.ts';
import { llmdReportLines } from './llmd-report.ts';
import { LLMD_REPORT_VERSION } from './llmd-report-schema.ts';
import { readResultText } from './result-files.ts';

export interface WeekRun {
  readonly runId: string;
  readonly file: string;
  readonly sha256: string;
  readonly validity: Array<{ status: Validity; reason: string | null }>;
}

/** What the cache keeps of a week file it wrote: the week's digest, its manifest entry, and its runs in file order with each one's digest and number of lines. */
export interface WeekIndex {
  readonly digest: string;
  readonly file: ManifestFile;
  readonly runs: Array<[runId: string, digest: string, lines: number]>;
}

export interface WeekJob {
  readonly resultsDir: string;
  readonly outDir: string;
  /** Under outDir: llmd/<week>.jsonl.zst. */
  readonly relative: string;
  /** The compile context (compile.ts): a run's lines are reused only under the same one. */
  readonly context: string;
  /** The week's digest (its inputs), kept in its index. */
  readonly digest: string;
  /** The week's reports (its file's rows). */
  readonly reports: number;
  readonly runs: readonly WeekRun[];
  /** The index of the week's file written before, if any. */
  readonly previous: WeekIndex | null;
}

/** One run's report lines (JSON Lines, each ending in a newline). */
function reportLines(resultsDir: string, run: WeekRun): string {
  const read = readResultText(join(resultsDir, run.file));
  // Compile ingested and checked this file a moment ago: one that cannot be read now changed under it.
  if (!('text' in read)) throw new Error(`${run.file}: grew past the result size limit during the compile`);
  return llmdReportLines(JSON.parse(read.text) as RunResult, { file: run.file, sha256: run.sha256, validity: run.validity });
}

/** A week file's text: one zstd frame, read through Node's stream decoder. */
async function weekFileText(path: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of createReadStream(path).pipe(createZstdDecompress())) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Each run's lines in the week file `index` describes, by run id, with the digest they were made
 * under; empty when the file is not the one described, or not `relative` (an older compiler's name).
 */
async function previousLines(outDir: string, relative: string, index: WeekIndex | null): Promise<Map<string, { digest: string; text: string }>> {
  const lines = new Map<string, { digest: string; text: string }>();
  const path = join(outDir, relative);
  if (index === null || index.file.path !== relative || !existsSync(path) || statSync(path).size !== index.file.bytes) return lines;
  const all = (await weekFileText(path)).split('\n');
  let at = 0;
  for (const [runId, digest, count] of index.runs) {
    lines.set(runId, { digest, text: all.slice(at, at + count).map((line) => `${line}\n`).join('') });
    at += count;
  }
  return lines;
}

/**
 * zstd's level, and how much text goes to the compressor at once. Level 1 compressed a 52 MB
 * SYNTHETIC week 11.8× in 56 ms; gzip -4, 9.8× in 259 ms (at 100,000 runs gzip added 13 s to a cold
 * compile). Only one frame: Node's zstd decoder stops after the first of several.
 */
const ZSTD_LEVEL = 1;
const WRITE_CHARS = 4 * 1024 * 1024;

/**
 * Writes the week's file (beside it, then renamed into place) and returns its new index. The reports
 * stream through zstd to the file, a few MB at a time: a week's reports are never held whole (joined,
 * a 52 MB week raised a cold compile's peak memory by 400 MB).
 */
export async function writeWeekFile(job: WeekJob): Promise<WeekIndex> {
  const target = join(job.outDir, job.relative);
  const partial = `${target}.partial`;
  const reusable = await previousLines(job.outDir, job.relative, job.previous);
  const runs: WeekIndex['runs'] = [];
  const hash = createHash('sha256');
  let bytes = 0;
  const compressor = createZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } });
  const measured = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  const written = pipeline(compressor, measured, createWriteStream(partial));
  let pending = '';
  const send = async () => {
    if (!compressor.write(pending)) await once(compressor, 'drain');
    pending = '';
  };
  try {
    for (const run of job.runs) {
      const digest = createHash('sha256').update(`${job.context}|${LLMD_REPORT_VERSION}|${run.sha256}|${JSON.stringify(run.validity)}`).digest('hex').slice(0, 16);
      const old = reusable.get(run.runId);
      pending += old !== undefined && old.digest === digest ? old.text : reportLines(job.resultsDir, run);
      runs.push([run.runId, digest, run.validity.length]);
      if (pending.length >= WRITE_CHARS) await send();
    }
    if (pending !== '') await send();
    compressor.end();
  } catch (error) {
    compressor.destroy(error as Error);
    await written.catch(() => undefined);
    rmSync(partial, { force: true });
    throw error;
  }
  await written;
  renameSync(partial, target);
  return { digest: job.digest, file: { path: job.relative, sha256: hash.digest('hex'), bytes, rows: job.reports }, runs };
}

export const WEEK_FILES_JOB = 'llmdWeekFiles';

/** A worker's share of the weeks, written one after another. */
export async function writeWeekFiles(jobs: readonly WeekJob[]): Promise<WeekIndex[]> {
  const written: WeekIndex[] = [];
  for (const job of jobs) written.push(await writeWeekFile(job));
  return written;
}

serveWorkerJob(WEEK_FILES_JOB, writeWeekFiles);
