/**
 * One rule for exact prompt lengths (harness/contract/lengths-evidence.ts), on the committed CPU
 * lane of 2026-12-02 (real results, not synthetic): its 12 embedded-engine runs say `exact` while
 * their own length check found every checked prompt counted otherwise by the server; its 48
 * llama.cpp runs found none. The files are immutable: validate keeps accepting them (they predate
 * the rule), compile derives lengths_effective and lengths_reason from their own fields, and a file
 * created after the rule that claims exact against its own counts is refused ([lengths-exact]).
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { effectiveLengths } from '../../harness/contract/lengths-evidence.ts';
import { RunResultSchema, type RunResult } from '../../harness/contract/result.ts';
import { checkResultText } from '../../harness/store/check-result.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { checkPlausibility, LENGTHS_RULE_SINCE } from '../../harness/store/plausibility.ts';
import { query } from './duckdb-query.ts';

const RESULTS = new URL('../../results/', import.meta.url).pathname;
const LANE = '2026-12-02';

const files = (readdirSync(join(RESULTS, LANE), { recursive: true }) as string[]).filter((f) => f.endsWith('.json')).map((f) => `${LANE}/${f}`).sort();
const read = (file: string): { text: string; result: RunResult } => {
  const text = readFileSync(join(RESULTS, file), 'utf8');
  return { text, result: RunResultSchema.parse(JSON.parse(text)) };
};
const embedded = files.filter((f) => f.startsWith(`${LANE}/embedded/`));
const llamacpp = files.filter((f) => f.startsWith(`${LANE}/llamacpp/`));

function lengthsProblems(result: RunResult): string[] {
  const found: string[] = [];
  checkPlausibility(result, (_path, message) => found.push(message));
  return found.filter((m) => m.startsWith('[lengths-exact]'));
}

describe('the committed CPU lane of 2026-12-02', () => {
  it('holds the runs the issue names: 12 embedded, 48 llama.cpp, all claiming exact', () => {
    expect(embedded).toHaveLength(12);
    expect(llamacpp).toHaveLength(48);
    for (const file of files) expect(read(file).result.workload.lengths, file).toBe('exact');
  });

  it('every embedded run is approximate by its own evidence, with the reason; every llama.cpp run stays exact', () => {
    for (const file of embedded) {
      const { result } = read(file);
      const check = result.workload.length_check;
      expect(check.mismatched, file).toBe(check.checked);
      const verdict = effectiveLengths(result);
      expect(verdict.lengths, file).toBe('approximate');
      expect(verdict.reason, file).toMatch(new RegExp(`^the server's tokenizer counted ${check.checked} of ${check.checked} checked prompts otherwise \\(built→counted: (256|512)→\\d+`));
    }
    for (const file of llamacpp) expect(effectiveLengths(read(file).result), file).toEqual({ lengths: 'exact', reason: null });
  });

  it('validate still accepts every file (created before the rule); the same claim in a file created after it is refused', () => {
    for (const file of files) {
      const { text, result } = read(file);
      expect(checkResultText(file, text, file).problems, file).toEqual([]);
      expect(Date.parse(result.created_at)).toBeLessThan(Date.parse(LENGTHS_RULE_SINCE));
    }
    const late = (result: RunResult): RunResult => ({ ...result, created_at: LENGTHS_RULE_SINCE });
    const claim = read(embedded[0]!).result;
    expect(lengthsProblems(late(claim))).toEqual([`[lengths-exact] lengths is exact, but ${effectiveLengths(claim).reason}`]);
    expect(lengthsProblems(late({ ...claim, workload: { ...claim.workload, lengths: 'approximate' } }))).toEqual([]);
    expect(lengthsProblems(late(read(llamacpp[0]!).result))).toEqual([]);
  });
});

describe('compile derives lengths_effective from each file', () => {
  const out = mkdtempSync(join(tmpdir(), 'sb-lengths-effective-'));
  const chosen = [embedded.find((f) => f.includes('/cpu-rag-'))!, embedded.find((f) => f.includes('/cpu-chat-'))!, llamacpp[0]!];
  beforeAll(async () => {
    for (const file of chosen) {
      mkdirSync(dirname(join(out, 'results', file)), { recursive: true });
      cpSync(join(RESULTS, file), join(out, 'results', file));
    }
    const report = await compile({ resultsDir: join(out, 'results'), outDir: join(out, 'data'), prices: loadPrices(), now: new Date('2026-12-03T00:00:00Z') });
    expect(report.problems).toEqual([]);
  }, 120_000);

  it('runs and points: the embedded runs approximate with the reason their file shows, the llama.cpp run exact', async () => {
    const runs = await query(`SELECT file, engine, lengths, lengths_effective, lengths_reason FROM read_parquet('${out}/data/parquet/latest/runs/*.parquet') ORDER BY file`);
    expect(runs.map((r) => r['file'])).toEqual([...chosen].sort());
    for (const row of runs) {
      const verdict = effectiveLengths(read(row['file'] as string).result);
      expect(row['lengths']).toBe('exact');
      expect(row['lengths_effective']).toBe(row['engine'] === 'embedded' ? 'approximate' : 'exact');
      expect(row['lengths_reason']).toBe(verdict.reason);
    }
    const points = await query(`SELECT engine, lengths_effective, count(*)::INTEGER AS n FROM read_parquet('${out}/data/parquet/latest/points/*.parquet') GROUP BY ALL ORDER BY engine`);
    expect(points).toEqual([
      { engine: 'embedded', lengths_effective: 'approximate', n: 6 },
      { engine: 'llamacpp', lengths_effective: 'exact', n: 3 },
    ]);
  });
});
