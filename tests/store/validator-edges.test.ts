/**
 * Corners of the validator that mutation testing found no test for: which conditions of a rule
 * each matter on their own. SYNTHETIC results (claim-fixtures.ts).
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { checkResultText } from '../../harness/store/check-result.ts';
import { MAX_NESTING_DEPTH } from '../../harness/store/store-limits.ts';
import { synthetic } from './claim-fixtures.ts';

const textOf = (result: unknown) => `${JSON.stringify(result, null, 2)}\n`;
const problemsOf = (result: unknown) => checkResultText('f.json', textOf(result), null).problems.map((p) => `${p.path}: ${p.message}`);
const edited = (edit: (r: RunResult) => void): RunResult => {
  const result = synthetic();
  edit(result);
  return result;
};

describe('the file as a whole', () => {
  it('JSON that is a number or a string is no result object', () => {
    for (const text of ['1', '"text"', 'true']) expect(checkResultText('f.json', text, null).problems.map((p) => p.message), text).toEqual(['[json] not a JSON object']);
  });

  it('a run result without its run block is refused as a bare load result', () => {
    const bare = edited((r) => delete (r as { run?: unknown }).run);
    expect(problemsOf(bare).map((p) => p.split(': ')[1]!.slice(0, 10))).toEqual(['[run-kind]']);
  });

  it('a load result (no run block) at a results path is refused for its kind alone: there is no run to place it by', () => {
    const load = edited((r) => {
      delete (r as { run?: unknown }).run;
      r.kind = 'load';
    });
    const text = textOf(load);
    expect(checkResultText('f.json', text, '2026-01-10/load/x-000000000000.json').problems.map((p) => p.message.slice(0, 10))).toEqual(['[run-kind]']);
  });

  it('names a too-deep path of up to 80 characters whole, and cuts a longer one', () => {
    // The first value past 32 levels: workload.extra_body (levels 2, 3) then 30 keys.
    const deepAt = (keys: string[]) =>
      edited((r) => {
        let deep: Record<string, unknown> = {};
        for (const key of [...keys].reverse()) deep = { [key]: deep };
        r.workload.extra_body = deep;
      });
    const keys = (first: string) => [first, ...Array.from({ length: MAX_NESTING_DEPTH - 3 }, () => 'a')];
    const eighty = `workload.extra_body.bb${'.a'.repeat(MAX_NESTING_DEPTH - 3)}`;
    expect(eighty).toHaveLength(80);
    expect(checkResultText('f.json', textOf(deepAt(keys('bb'))), null).problems.map((p) => p.path)).toEqual([eighty]);
    const longer = `workload.extra_body.bbb${'.a'.repeat(MAX_NESTING_DEPTH - 3)}`;
    expect(checkResultText('f.json', textOf(deepAt(keys('bbb'))), null).problems.map((p) => p.path)).toEqual([`${longer.slice(0, 80)}…`]);
  });
});

describe('interactivity', () => {
  it('is refused at 0 where every TPOT is 0 (a request with no TPOT has no interactivity)', () => {
    const result = edited((r) => {
      const m = r.points[0]!.metrics;
      m.tpot_ms = { ...m.tpot_ms!, min: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0, mean: 0, std: 0 };
      m.interactivity_tok_s = { ...m.interactivity_tok_s!, min: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0, mean: 0, std: 0 };
    });
    expect(problemsOf(result)).toEqual(['points[0].metrics.interactivity_tok_s.min: [interactivity=1000/tpot] interactivity min 0 tok/s is not 1000 / TPOT max (0 ms)']);
  });
});
