/** The seeded slice and its exemplars: reproducible, disjoint, nested as --problems grows. */
import { describe, expect, it } from 'vitest';
import { ServebenchError } from '../../harness/lib/errors.ts';
import { selectSlice } from '../../harness/measure/accuracy/slice.ts';

const SIZE = 1319;

describe('selectSlice', () => {
  it('gives the same ids for the same seed, pinned so that another machine or a changed draw shows', () => {
    const first = selectSlice(SIZE, 250, 5, 0);
    expect(selectSlice(SIZE, 250, 5, 0)).toEqual(first);
    // Pinned on the day it was written: the seeded stream (harness/lib/rng.ts) is integer arithmetic,
    // so every platform draws these.
    expect(first.exemplarIds).toEqual([1177, 1012, 1227, 947, 1247]);
    expect(first.problemIds.slice(0, 8)).toEqual([8, 14, 20, 24, 25, 31, 39, 48]);
  });

  it('draws other ids for another seed', () => {
    const zero = selectSlice(SIZE, 250, 5, 0);
    const one = selectSlice(SIZE, 250, 5, 1);
    expect(one.exemplarIds).not.toEqual(zero.exemplarIds);
    const shared = one.problemIds.filter((id) => zero.problemIds.includes(id)).length;
    // Two random 250-of-1319 draws share about 250²/1319 ≈ 47 ids; not all of them.
    expect(shared).toBeLessThan(100);
  });

  it('asks distinct problems, ascending, none of them an exemplar', () => {
    for (const seed of [0, 1, 7, 2 ** 32 - 1]) {
      const { problemIds, exemplarIds } = selectSlice(SIZE, 250, 8, seed);
      expect(problemIds).toHaveLength(250);
      expect(new Set(problemIds).size).toBe(250);
      expect(exemplarIds).toHaveLength(8);
      expect(new Set(exemplarIds).size).toBe(8);
      expect(problemIds).toEqual([...problemIds].sort((a, b) => a - b));
      expect(problemIds.filter((id) => exemplarIds.includes(id))).toEqual([]);
      expect([...problemIds, ...exemplarIds].every((id) => Number.isInteger(id) && id >= 0 && id < SIZE)).toBe(true);
    }
  });

  it('extends the same slice as --problems grows, with the same exemplars', () => {
    const small = selectSlice(SIZE, 250, 5, 3);
    const large = selectSlice(SIZE, 500, 5, 3);
    expect(large.exemplarIds).toEqual(small.exemplarIds);
    expect(small.problemIds.every((id) => large.problemIds.includes(id))).toBe(true);
  });

  it('takes every problem but the exemplars at most, and says so past it', () => {
    expect(selectSlice(SIZE, SIZE - 5, 5, 0).problemIds).toHaveLength(SIZE - 5);
    expect(() => selectSlice(SIZE, SIZE - 4, 5, 0)).toThrow(ServebenchError);
    expect(() => selectSlice(SIZE, SIZE - 4, 5, 0)).toThrow('ask at most 1314');
  });
});
