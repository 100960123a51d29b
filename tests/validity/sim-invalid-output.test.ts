/**
 * invalid_output end to end without llama.cpp: `servebench run` against the sim on 127.0.0.1 (the
 * external launcher), once clean and once with its corrupt-output fault (answers other than its
 * deterministic words); compile judges the probe against the configuration's reference (the clean,
 * earlier run: docs/metrics.md#output-fidelity) and every point of the corrupting run is published
 * as invalid_output with its reason, the clean run's as valid.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimServer } from '../../harness/engines/sim/server.ts';
import type { OutputFault } from '../../harness/engines/sim/config.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { writeFixturePrices } from '../store/fixture-results.ts';
import { query } from '../store/duckdb-query.ts';
import { runCli } from '../cli/run-cli.ts';

async function run(results: string, outputFault: OutputFault): Promise<void> {
  const sim = await startSimServer({ port: 0, zeroCost: true, outputFault });
  try {
    const outcome = await runCli(['run', '--engine', 'sim', '--launcher', 'external', '--endpoint', sim.url, '--model', 'sim-model', '--workload', 'smoke', '--results-dir', results, '--tokenizer', 'tests/fixtures/tokenizer-words', '--num-prompts', '4']);
    expect(outcome.code, outcome.stderr).toBe(0);
  } finally {
    await sim.close();
  }
}

describe('a sim that corrupts its outputs', () => {
  it('is published invalid_output on every point, the clean run valid', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-validity-sim-'));
    const results = join(dir, 'results');
    await run(results, 'none');
    await run(results, 'corrupt-output');
    const report = await compile({ resultsDir: results, outDir: join(dir, 'out'), prices: loadPrices(writeFixturePrices(dir)), now: new Date() });
    expect(report.problems).toEqual([]);
    const rows = await query(`SELECT run_id, validity, validity_reason FROM read_parquet('${join(dir, 'out')}/parquet/latest/points/*.parquet') ORDER BY created_at, point`);
    const runs = [...new Set(rows.map((r) => r.run_id))];
    expect(runs).toHaveLength(2);
    const of = (id: unknown) => rows.filter((r) => r.run_id === id);
    expect(of(runs[0]).map((r) => r.validity)).toEqual(of(runs[0]).map(() => 'valid'));
    expect(of(runs[1]).length).toBeGreaterThan(0);
    for (const r of of(runs[1])) expect(r).toMatchObject({ validity: 'invalid_output', validity_reason: expect.stringContaining('output-fidelity probe failed') });
  });
});
