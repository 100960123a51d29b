/**
 * Every limit a result's values meet once validate has accepted the file, in one place: what a
 * file may hold (checked by validate, with the rule in brackets), and how the stages after it
 * (CSV staging, DuckDB, Parquet, Arrow, the site's JSON) are set up so that nothing a valid file
 * holds can reach a reader's own limit. A file that validates and then stops a compile stops every
 * later compile too (results are immutable), so each limit here is either checked up front or
 * made unreachable. docs/validation.md ("Limits") lists them with the reason for each.
 */
import type { ResultProblem } from './check-result.ts';

/**
 * Largest result file. A run with --save-requests over thousands of requests stays well under it;
 * everything downstream is sized from it (a staged row is at most 2.5 times the file, below).
 */
export const MAX_RESULT_BYTES = 8 * 1024 * 1024;

/**
 * Deepest nesting of a result document (the root object is level 1). The schema's own fields
 * nest 6 levels; the free-form objects (workload.extra_body, run.engine.config) are what reach
 * this. Every later walk of the document (credential search, JSON.stringify, zod) recurses, so a
 * file nested 100,000 levels would end validate with a stack overflow instead of a problem.
 */
export const MAX_NESTING_DEPTH = 32;

/**
 * Longest name the leaderboard groups by (engine, version, model, GPU, …): it is shown in table
 * cells and repeated in every row of the points and releases tables and their Arrow dictionaries.
 */
export const MAX_NAME_CHARS = 200;

/** DuckDB INTEGER columns are 32-bit: a larger count would stop the INSERT of every staged file. */
export const INTEGER_MAX = 2 ** 31 - 1;

/**
 * DuckDB's read_csv refuses a line longer than max_line_size, 2,000,000 bytes by default
 * (measured on @duckdb/node-api 1.5: not 2 MiB). A runs row holds harness.command three times (as
 * text, as a JSON array, as the shell-quoted reproduce line): a 150,000-entry --extra-body
 * logit_bias map made a 4.6 MB row when it held it twice.
 */
export const CSV_DEFAULT_MAX_LINE_BYTES = 2_000_000;

/**
 * The most a staged CSV row can grow over the file it came from: harness.command is staged three
 * times, and a `"` (2 bytes in the file, `\"`) becomes `""` as text, `\""` in the JSON array and
 * `""` in the reproduce line (inside its single quotes): 7 bytes.
 */
export const STAGED_ROW_GROWTH = 3.5;

const MiB = 1024 * 1024;

/**
 * read_csv options for staged files whose longest line is `longestLineBytes`: none below the
 * default (the common case reads exactly as before), else a max_line_size above that line, in
 * whole MiB, with a buffer of twice that. DuckDB's default buffer is 16 times max_line_size and
 * is allocated per file whatever the file's size: for a 20 MiB row that is 320 MiB a file, past
 * the store's memory limit with a few staged files. (Buffer sizes that are not whole MiB made the
 * reader misparse lines in a probe; whole-MiB sizes never did over 120 randomized files.)
 */
export function csvLineSizeOptions(longestLineBytes: number): string {
  // +2: the line end, and DuckDB counting it in some versions.
  if (longestLineBytes + 2 <= CSV_DEFAULT_MAX_LINE_BYTES) return '';
  const maxLineSize = Math.ceil((longestLineBytes + 2) / MiB) * MiB;
  return `, max_line_size = ${maxLineSize}, buffer_size = ${2 * maxLineSize}`;
}

/** Bytes of a staged line, counted exactly only when it could be near a reader's limit. */
export function stagedLineBytes(line: string): number {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short lines are bounded without encoding them.
  // Stryker disable next-line EqualityOperator: at the cut both answers are at most 1,000,000 bytes, far under the reader's limit, so the CSV options are the same.
  return line.length * 3 < CSV_DEFAULT_MAX_LINE_BYTES / 2 ? line.length * 3 : Buffer.byteLength(line);
}

/** The rule names problems carry in brackets, as docs/validation.md lists them. */
export const LIMIT_RULES = {
  fileSize: 'file-size',
  nestingDepth: 'nesting-depth',
  nameLength: 'name-length',
  columnFit: 'column-fit',
} as const;

export const limitRule = (rule: (typeof LIMIT_RULES)[keyof typeof LIMIT_RULES], message: string): string => `[${rule}] ${message}`;

/** The one problem of a file over MAX_RESULT_BYTES (validate reads the size before a byte of it). */
export function fileSizeProblem(file: string, bytes: number): ResultProblem {
  return {
    file,
    path: '',
    message: limitRule(LIMIT_RULES.fileSize, `the file is ${bytes} bytes, over the ${MAX_RESULT_BYTES} limit`),
    fix: 'drop per-request records (--save-requests) or split the sweep into several runs',
  };
}

/**
 * The JSON path of the first value nested deeper than `limit` levels (the root is level 1), or
 * null. Iterative, so a million nested arrays cannot overflow the stack; only objects are pushed,
 * so a map of a million numbers costs no allocation per entry. A pushed object keeps a link to its
 * parent and its key, and the path is spelled out only for the value found: every file is walked
 * (validate and compile), and building a path string per object was a tenth of ingest.
 */
export function tooDeepAt(root: unknown, limit = MAX_NESTING_DEPTH): string | null {
  // Stryker disable next-line ConditionalExpression: a string or number root has no object children either (Object.keys of a primitive yields none that is an object).
  if (root === null || typeof root !== 'object') return null;
  const nodes: object[] = [root];
  const depths: number[] = [1];
  const links: Array<{ readonly parent: number; readonly key: string; readonly inArray: boolean } | null> = [null];
  const pending: number[] = [0];
  const pathOf = (parent: number, key: string, inArray: boolean): string => {
    const steps = [{ key, inArray }];
    // Stryker disable next-line ConditionalExpression: links[0] is null and every other link's parent is pushed before it: undefined never comes (the test is for the type).
    for (let link = links[parent]; link !== null && link !== undefined; link = links[link.parent]) steps.push(link);
    let path = '';
    for (let i = steps.length - 1; i >= 0; i--) path += steps[i]!.inArray ? `[${steps[i]!.key}]` : `${path === '' ? '' : '.'}${steps[i]!.key}`;
    return path;
  };
  while (pending.length > 0) {
    const index = pending.pop()!;
    const node = nodes[index]!;
    const depth = depths[index]!;
    const inArray = Array.isArray(node);
    // An array by index (a for-in over a parsed array's thousands of numbers enumerates them as
    // strings); an object by its own keys, in the order for-in gives them.
    const keys = inArray ? null : Object.keys(node);
    const count = keys === null ? (node as unknown[]).length : keys.length;
    // Stryker disable next-line EqualityOperator: one step past the end reads undefined (no key, or index length), which is no object and is skipped.
    for (let i = 0; i < count; i++) {
      const key = keys === null ? i : keys[i]!;
      const child = (node as Record<string | number, unknown>)[key];
      if (child === null || typeof child !== 'object') continue;
      if (depth + 1 > limit) return pathOf(index, String(key), inArray);
      pending.push(nodes.length);
      nodes.push(child);
      depths.push(depth + 1);
      links.push({ parent: index, key: String(key), inArray });
    }
  }
  return null;
}
