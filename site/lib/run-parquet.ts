/**
 * One run and its load points read from the published weekly Parquet files (runs/<week>.parquet,
 * points/<week>.parquet) in JavaScript (hyparquet: no wasm, no extension to fetch from another
 * host), only the columns a run page shows. Its run id names its start day, so its week's runs file
 * is read first; a run whose file says another day (nothing requires the two to agree) is looked
 * for in every other week's. Its points are in the week of its run_date, as every weekly table is.
 * Browser-safe and DOM-free: the lookup page (run-lookup-client.ts) and the tests call it.
 */
import type { Compressors } from 'hyparquet';
import { POINT_COLUMNS, PROVENANCE } from './run-fields.ts';

export type Row = Record<string, unknown>;

/** Path of each week's runs and points file, by ISO week ("2026-W49"). */
export interface WeeklyFiles {
  readonly runs: Readonly<Record<string, string>>;
  readonly points: Readonly<Record<string, string>>;
}

/** The form validate accepts for a run id (harness/contract/result.ts): its UTC start, then 8 hex. */
const RUN_ID = /^(\d{4})(\d{2})(\d{2})T\d{6}Z-[0-9a-f]{8}$/;

/** The ISO 8601 week of a UTC day ("2026-W49"), as compile names the weekly files (strftime '%G-W%V' of run_date). */
export function isoWeek(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  // The Thursday of its week decides the ISO year.
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7) + 3);
  const jan4 = new Date(Date.UTC(d.getUTCFullYear(), 0, 4));
  const week = 1 + Math.round(((d.getTime() - jan4.getTime()) / 86_400_000 - 3 + ((jan4.getUTCDay() + 6) % 7)) / 7);
  return `${d.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

/** The week its id says a run started in; null for a string that is no run id (so in no file). */
export function weekOfRunId(id: string): string | null {
  const m = RUN_ID.exec(id);
  return m ? isoWeek(`${m[1]}-${m[2]}-${m[3]}`) : null;
}

/** What the page reads of a run: its provenance and what that text is made of. */
export const RUN_READ_COLUMNS: readonly string[] = [...new Set(['run_id', 'run_date', 'engine_version_known', 'attestation', 'lengths', 'lengths_reason', 'reproduce_line', ...PROVENANCE.map(([key]) => key)])];
/** What the page reads of a point: its table's columns, the sample counts behind "n = …", its validity. */
export const POINT_READ_COLUMNS: readonly string[] = [
  'run_id', 'point', 'load', ...POINT_COLUMNS.map(([key]) => key), 'insufficient', 'ttft_ms_n', 'tpot_ms_n', 'itl_ms_n', 'e2el_ms_n', 'interactivity_tok_s_n',
  'overloaded', 'overload_reason', 'validity', 'validity_reason',
];

/** A value as the prerendered pages have it from compile's JSON: timestamps as "yyyy-mm-dd hh:mm:ss.sss", days as "yyyy-mm-dd", integers as numbers. */
function plain(value: unknown, column: string): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return column === 'run_date' ? value.toISOString().slice(0, 10) : value.toISOString().replace('T', ' ').replace(/Z$/, '');
  return value;
}

/**
 * compile writes Parquet with zstd (harness/store/snapshots.ts), which hyparquet does not decode
 * itself: fzstd (pure JavaScript, loaded only with the reader) decodes it.
 */
async function zstd(): Promise<Compressors> {
  const { decompress } = await import('fzstd');
  return { ZSTD: (input, outputLength) => decompress(input, new Uint8Array(outputLength)) };
}

async function rowsOf(file: ArrayBuffer, columns: readonly string[], id: string, given: Compressors | undefined): Promise<Row[]> {
  const { parquetMetadata, parquetReadObjects, parquetSchema } = await import('hyparquet');
  const compressors = { ...(await zstd()), ...given };
  const metadata = parquetMetadata(file);
  // An older week's file may lack a column added since: read what it has.
  const present = new Set(parquetSchema(metadata).children.map((c) => c.element.name));
  const rows = await parquetReadObjects({ file, metadata, columns: columns.filter((c) => present.has(c)), filter: { run_id: { $eq: id } }, compressors });
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v, k)])));
}

/**
 * The run `id` and its points, or null when no published file holds it. `bytes` fetches a
 * file by its path (each once); `compressors` decode codecs hyparquet lacks besides zstd.
 */
export async function readRun(files: WeeklyFiles, id: string, bytes: (path: string) => Promise<ArrayBuffer>, compressors?: Compressors): Promise<{ run: Row; points: Row[] } | null> {
  const week = weekOfRunId(id);
  if (week === null) return null;
  const first = files.runs[week];
  const order = [...(first === undefined ? [] : [first]), ...Object.values(files.runs).filter((p) => p !== first)];
  for (const path of order) {
    const [run] = await rowsOf(await bytes(path), RUN_READ_COLUMNS, id, compressors);
    if (run === undefined) continue;
    const pointsPath = files.points[isoWeek(String(run.run_date))];
    const points = pointsPath === undefined ? [] : await rowsOf(await bytes(pointsPath), POINT_READ_COLUMNS, id, compressors);
    return { run, points: points.sort((a, b) => Number(a.point) - Number(b.point)) };
  }
  return null;
}
