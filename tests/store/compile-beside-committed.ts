/**
 * The store the compile-column tests compile: the first committed result of the 2026-12-02 CPU
 * lane (real and immutable, written before the newer per-point fields existed) beside one
 * SYNTHETIC result that has them. A column must read the new fields where a file has them and
 * be null where it does not, so both kinds of file go through one real compile.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { writeResult } from '../../bench/lib/synthetic-results.ts';

const RESULTS = new URL('../../results/', import.meta.url).pathname;
const OLD = (readdirSync(join(RESULTS, '2026-12-02'), { recursive: true }) as string[]).filter((f) => f.endsWith('.json')).sort().map((f) => `2026-12-02/${f}`)[0]!;

/** Compiles the old committed result and `fresh` in a new temp folder (prefix: its name); returns the folder, whose data/ holds the output. */
export async function compileBesideCommittedResult(fresh: RunResult, prefix: string): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(dirname(join(out, 'results', OLD)), { recursive: true });
  cpSync(join(RESULTS, OLD), join(out, 'results', OLD));
  writeResult(join(out, 'results'), fresh);
  const report = await compile({ resultsDir: join(out, 'results'), outDir: join(out, 'data'), prices: loadPrices(), now: new Date('2026-12-03T00:00:00Z') });
  expect(report.problems).toEqual([]);
  return out;
}
