/**
 * The store's limits as functions (tests/store/limits.test.ts drives whole files through validate,
 * compile and summarize at and past each): the nesting walk, the CSV reader's line options and the
 * byte count of a staged line, each at its boundary.
 */
import { describe, expect, it } from 'vitest';
import { CSV_DEFAULT_MAX_LINE_BYTES, csvLineSizeOptions, fileSizeProblem, MAX_RESULT_BYTES, stagedLineBytes, tooDeepAt } from '../../harness/store/store-limits.ts';

const MiB = 1024 * 1024;

describe('tooDeepAt', () => {
  const nested = (levels: number): unknown => {
    let value: unknown = {};
    for (let i = 1; i < levels; i++) value = { a: value };
    return value;
  };

  it('finds the first value deeper than the limit (the root is level 1), by its JSON path', () => {
    expect(tooDeepAt(nested(3), 3)).toBeNull();
    expect(tooDeepAt(nested(4), 3)).toBe('a.a.a');
    expect(tooDeepAt([[[1]]], 2)).toBe('[0][0]');
    expect(tooDeepAt({ x: [{ y: {} }] }, 3)).toBe('x[0].y');
    expect(tooDeepAt({ x: 1, y: 'deep', z: null, w: { v: [] } }, 3)).toBeNull();
  });

  it('spells the path of the first too-deep value among siblings, keys that look like indexes included', () => {
    // Depth-first from the last key pushed: the path is of the one found first, whole.
    expect(tooDeepAt({ a: { ok: 1 }, b: [{ '[0]': { c: {} } }] }, 3)).toBe('b[0].[0]');
    expect(tooDeepAt({ first: [[{}]], second: { ok: 1 } }, 3)).toBe('first[0][0]');
    expect(tooDeepAt({ k: [1, 'x', { m: [1, { deep: {} }] }] }, 4)).toBe('k[2].m[1]');
  });

  it('is not fooled by what is not an object, or by inherited properties', () => {
    for (const value of [null, 1, 'x', true]) expect(tooDeepAt(value, 1)).toBeNull();
    expect(tooDeepAt(Object.create({ inherited: { deeper: {} } }) as object, 1)).toBeNull();
  });
});

describe('the CSV reader\'s line options', () => {
  it('are the defaults up to DuckDB\'s 2,000,000-byte line (with its line end), then a whole-MiB max_line_size and twice that buffer', () => {
    expect(csvLineSizeOptions(0)).toBe('');
    expect(csvLineSizeOptions(CSV_DEFAULT_MAX_LINE_BYTES - 2)).toBe('');
    expect(csvLineSizeOptions(CSV_DEFAULT_MAX_LINE_BYTES - 1)).toBe(`, max_line_size = ${2 * MiB}, buffer_size = ${4 * MiB}`);
    expect(csvLineSizeOptions(2 * MiB - 2)).toBe(`, max_line_size = ${2 * MiB}, buffer_size = ${4 * MiB}`);
    expect(csvLineSizeOptions(2 * MiB - 1)).toBe(`, max_line_size = ${3 * MiB}, buffer_size = ${6 * MiB}`);
  });
});

describe('stagedLineBytes', () => {
  it('bounds a short line by 3 bytes a code unit, and counts a long one exactly', () => {
    expect(stagedLineBytes('é'.repeat(10))).toBe(30);
    const bound = CSV_DEFAULT_MAX_LINE_BYTES / 2 / 3;
    expect(stagedLineBytes('a'.repeat(Math.floor(bound)))).toBe(3 * Math.floor(bound));
    expect(stagedLineBytes('a'.repeat(Math.ceil(bound)))).toBe(Math.ceil(bound));
    expect(stagedLineBytes('é'.repeat(Math.ceil(bound)))).toBe(2 * Math.ceil(bound));
  });
});

describe('fileSizeProblem', () => {
  it('names the file, its size and the limit', () => {
    expect(fileSizeProblem('r.json', MAX_RESULT_BYTES + 1)).toEqual({ file: 'r.json', path: '', message: `[file-size] the file is ${MAX_RESULT_BYTES + 1} bytes, over the ${MAX_RESULT_BYTES} limit`, fix: 'drop per-request records (--save-requests) or split the sweep into several runs' });
  });
});
