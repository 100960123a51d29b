/** RFC 4180 CSV: every field quoted when it needs to be; formula-looking cells defused for spreadsheets. */
function field(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^-?\d/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [header, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}

/** One cell of the leaderboard as its data attributes give it (the numbers, never the formatted text). */
export interface CsvCell {
  /** data-value: the number (or the engine's name); empty when there is none. */
  readonly value: string;
  /** data-lo, data-hi: the 95% interval of a release value, where it has one. */
  readonly lo?: string | undefined;
  readonly hi?: string | undefined;
  /** data-version: the engine's release, on the engine cell. */
  readonly version?: string | undefined;
  /** data-supported="false": a percentile its samples cannot support, exported empty as the page shows no number. */
  readonly supported?: boolean;
}

/** The CSV name of the change column: what it holds, in the data dictionary's words. */
const CHANGE_COLUMN = 'output_throughput_change_pct';

/**
 * The leaderboard as data: one column per metric under its data-dictionary name, plain numbers
 * (no thousands separators, no units), the interval in <metric>_lo and <metric>_hi, the engine and
 * its release in two columns; a value the page does not show (an unsupported percentile) is empty.
 */
export function leaderboardCsv(keys: readonly string[], rows: ReadonlyArray<readonly CsvCell[]>): string {
  const intervals = keys.map((_, k) => rows.some((row) => row[k]?.lo !== undefined || row[k]?.hi !== undefined));
  const header = keys.flatMap((key, k) => (key === 'engine' ? ['engine', 'engine_version'] : key === 'delta' ? [CHANGE_COLUMN] : intervals[k] ? [key, `${key}_lo`, `${key}_hi`] : [key]));
  const body = rows.map((row) =>
    keys.flatMap((key, k) => {
      const cell = row[k] ?? { value: '' };
      const value = cell.supported === false ? '' : cell.value;
      if (key === 'engine') return [value, cell.version ?? ''];
      return intervals[k] ? [value, cell.supported === false ? '' : (cell.lo ?? ''), cell.supported === false ? '' : (cell.hi ?? '')] : [value];
    }),
  );
  return toCsv(header, body);
}
