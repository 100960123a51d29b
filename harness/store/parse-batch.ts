/**
 * Check and flatten a batch of result files, appending the rows as CSV to three staging files
 * (runs, points, and each run's fidelity probes: every file is parsed once, here; DuckDB's CSV
 * reader is several times faster than its JSON reader on wide rows). Runs in a worker thread for large batches, in-thread for
 * small ones: the same function either way.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { sep } from 'node:path';
import { checkResultText, type ResultProblem } from './check-result.ts';
import { readResultText } from './result-files.ts';
import { fileSizeProblem, stagedLineBytes } from './store-limits.ts';
import { checkSignatureSidecar } from './signature-sidecar.ts';
import { isInRepositoryResults } from './repository-results.ts';
import { RUN_ONLY_COLUMNS, type RunContext, type Value } from './columns.ts';
import { columnValues } from './column-fit.ts';
import { serveWorkerJob } from '../lib/process/worker-job.ts';
import { probeValues } from './fidelity.ts';

export interface BatchFile {
  /** Under the results folder (forward slashes); for a file outside it, the path as given. */
  readonly relativePath: string;
  readonly absolutePath: string;
  /** false: the file is not in a results folder, so its path is not checked against its content. */
  readonly placed?: boolean;
  /** Bytes, where the caller listed them (parseFiles stats the file otherwise). */
  readonly size?: number;
}

export interface FileVerdict {
  readonly relativePath: string;
  readonly runId: string | null;
  readonly problems: ResultProblem[];
}

/** A batch's verdicts, and the longest line it staged in each file (the CSV reader is sized to it). */
export interface BatchOutcome {
  readonly verdicts: FileVerdict[];
  readonly longestRunLine: number;
  readonly longestPointLine: number;
  readonly longestProbeLine: number;
}

export interface BatchJob {
  readonly files: readonly BatchFile[];
  /** Where the rows go; null to check only. */
  readonly runsPath: string | null;
  readonly pointsPath: string | null;
  readonly probesPath: string | null;
}

/** NULL is an unquoted null; every string is quoted, so a string "null" stays a string. */
export const CSV_NULL = 'null';

function csvValue(value: Value): string {
  if (value === null) return CSV_NULL;
  if (typeof value !== 'string') return String(value);
  // split/join, not a global replace: on a valid 8 MiB file whose command line is 4 million
  // quotes, the regex built 134 MB of parts (a parser worker's whole heap) where this takes 42.
  let text = value.includes('"') ? value.split('"').join('""') : value;
  // DuckDB's CSV reader ends a field at NUL: a NUL (from a server's error text) is kept as U+FFFD.
  if (text.includes('\u0000')) text = text.split('\u0000').join('\ufffd');
  return `"${text}"`;
}

/** Values this long skip the JSON fast path below (ordinary rows' values are under 1,000 characters). */
const LONG_VALUE_CHARS = 64 * 1024;

/** The values as CSV fields, comma-separated (no line end). */
function csvFields(values: readonly Value[]): string {
  let longest = 0;
  for (const value of values) if (typeof value === 'string' && value.length > longest) longest = value.length;
  // JSON.stringify (native) writes an array of numbers, booleans, nulls and plain strings exactly
  // as this CSV dialect wants them; a backslash means JSON escaped something, and CSV quoting
  // must do it instead. A long value goes straight to CSV quoting: escaping it twice is what costs.
  if (longest <= LONG_VALUE_CHARS) {
    const json = JSON.stringify(values);
    if (!json.includes('\\')) return json.slice(1, -1);
  }
  let line = csvValue(values[0]!);
  for (let i = 1; i < values.length; i++) line += `,${csvValue(values[i]!)}`;
  return line;
}

/** Rows are flushed in chunks of this many characters: bounded memory on any batch size. */
const FLUSH_CHARS = 4 * 1024 * 1024;

/**
 * Whether each file is bound for the repository's results/, its results folder's real path taken
 * once a batch rather than per file (one system call was 3% of checking a file). A file not placed
 * in a results folder is resolved on its own.
 */
export function publishedStoreOf(): (file: BatchFile) => boolean {
  const roots = new Map<string, boolean>();
  return (file) => {
    const placed = file.placed !== false && file.absolutePath.endsWith(`${sep}${file.relativePath.split('/').join(sep)}`);
    if (!placed) return isInRepositoryResults(file.absolutePath);
    const root = file.absolutePath.slice(0, file.absolutePath.length - file.relativePath.length - 1);
    let inStore = roots.get(root);
    if (inStore === undefined) roots.set(root, (inStore = isInRepositoryResults(root)));
    return inStore;
  };
}

export function parseBatch(job: BatchJob): BatchOutcome {
  const publishedStore = publishedStoreOf();
  const verdicts: FileVerdict[] = [];
  let longestRunLine = 0;
  let longestPointLine = 0;
  let longestProbeLine = 0;
  const runsFd = job.runsPath === null ? null : openSync(job.runsPath, 'a');
  const pointsFd = job.pointsPath === null ? null : openSync(job.pointsPath, 'a');
  const probesFd = job.probesPath === null ? null : openSync(job.probesPath, 'a');
  let runs = '';
  let points = '';
  let probes = '';
  const flush = (force: boolean) => {
    if (runsFd === null || pointsFd === null || probesFd === null) return;
    if (force || runs.length > FLUSH_CHARS) (writeSync(runsFd, runs), (runs = ''));
    if (force || points.length > FLUSH_CHARS) (writeSync(pointsFd, points), (points = ''));
    if (force || probes.length > FLUSH_CHARS) (writeSync(probesFd, probes), (probes = ''));
  };
  try {
    for (const file of job.files) {
      let text: string;
      try {
        const read = readResultText(file.absolutePath);
        if ('tooLarge' in read) {
          verdicts.push({ relativePath: file.relativePath, runId: null, problems: [fileSizeProblem(file.relativePath, read.tooLarge)] });
          continue;
        }
        text = read.text;
      } catch (error) {
        verdicts.push({ relativePath: file.relativePath, runId: null, problems: [{ file: file.relativePath, path: '', message: `[unreadable] cannot read: ${(error as Error).message}`, fix: 'check the file permissions' }] });
        continue;
      }
      const checked = checkResultText(file.relativePath, text, file.placed === false ? null : file.relativePath, { publishedStore: publishedStore(file) });
      if (!checked.result) {
        verdicts.push({ relativePath: file.relativePath, runId: null, problems: checked.problems });
        continue;
      }
      const signature = checkSignatureSidecar(file.relativePath, file.absolutePath, checked.sha256);
      if (signature.problems.length > 0) {
        verdicts.push({ relativePath: file.relativePath, runId: null, problems: signature.problems });
        continue;
      }
      if (runsFd !== null) {
        // Columns in table order: config, then the run's own (runs) or the point's own + file (points).
        // The config and point values are the ones the column check read; the run's own depend on the signature.
        const context: RunContext = { result: checked.result, run: checked.result.run!, relativePath: file.relativePath, sha256: checked.sha256, signed: signature.present };
        const columns = checked.columns!;
        const config = csvFields(columns.config);
        const run = `${config},${csvFields(columnValues(RUN_ONLY_COLUMNS, context))}`;
        longestRunLine = Math.max(longestRunLine, stagedLineBytes(run));
        runs += `${run}\n`;
        const fileField = csvValue(file.relativePath);
        columns.points.forEach((values) => {
          const line = `${config},${csvFields(values)},${fileField}`;
          longestPointLine = Math.max(longestPointLine, stagedLineBytes(line));
          points += `${line}\n`;
        });
        const probe = csvFields(probeValues(checked.result, file.relativePath));
        longestProbeLine = Math.max(longestProbeLine, stagedLineBytes(probe));
        probes += `${probe}\n`;
      }
      verdicts.push({ relativePath: file.relativePath, runId: checked.result.run_id, problems: [] });
      flush(false);
    }
    flush(true);
  } finally {
    if (runsFd !== null) closeSync(runsFd);
    if (pointsFd !== null) closeSync(pointsFd);
    if (probesFd !== null) closeSync(probesFd);
  }
  return { verdicts, longestRunLine, longestPointLine, longestProbeLine };
}

export const PARSE_BATCH_JOB = 'parseBatch';

serveWorkerJob(PARSE_BATCH_JOB, parseBatch);
