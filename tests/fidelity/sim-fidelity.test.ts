/**
 * The fidelity probe end to end with the simulated engine: `servebench run` on a sim started here
 * (external launcher), measures, probes, and compile judges each run against its configuration's
 * reference (the sim serves its own model, so its oldest, earliest run is the reference). A clean
 * sim passes against itself; --output-fault corrupt-output fails; --output-fault cache-differs,
 * with a workload that shares prefixes, is flagged as cache_equality differs. Nothing is faked:
 * the sim's answers are deterministic words from the prompt (harness/engines/sim/tokens.ts).
 */
import { mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { RunResultSchema, type RunResult } from '../../harness/contract/result.ts';
import { startSimServer } from '../../harness/engines/sim/server.ts';
import type { OutputFault } from '../../harness/engines/sim/config.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { writeFixturePrices } from '../store/fixture-results.ts';
import { resultFilesIn, runCli } from '../cli/run-cli.ts';

/** `servebench run --launcher external` on a sim with this output fault, in this process. */
async function run(results: string, outputFault: OutputFault, workload: string): Promise<RunResult> {
  const sim = await startSimServer({ port: 0, zeroCost: true, outputFault });
  try {
    const before = new Set(resultFilesIn(results));
    const outcome = await runCli(['run', '--engine', 'sim', '--launcher', 'external', '--endpoint', sim.url, '--model', 'sim-model', '--workload', workload, '--results-dir', results, '--tokenizer', 'tests/fixtures/tokenizer-words', '--num-prompts', '4']);
    expect(outcome.code, outcome.stderr).toBe(0);
    const file = resultFilesIn(results).find((f) => !before.has(f))!;
    return RunResultSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } finally {
    await sim.close();
  }
}

describe('the fidelity probe with the simulated engine', () => {
  it('a clean sim passes against itself, a corrupting sim fails, a sim whose cached answers differ is flagged', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-fidelity-'));
    const results = join(dir, 'results');
    const reference = await run(results, 'none', 'smoke');
    const again = await run(results, 'none', 'smoke');
    const corrupt = await run(results, 'corrupt-output', 'smoke');
    const cacheDiffers = await run(results, 'cache-differs', 'tests/cache/cache-shared-prefix.yaml');
    const cacheClean = await run(results, 'none', 'tests/cache/cache-shared-prefix.yaml');

    const fidelity = reference.run!.fidelity!;
    expect(fidelity).toMatchObject({ probe_set: { version: 'fidelity-v1', prompts: 16, max_tokens: 16 }, cache_equality: null, error: null });
    expect(fidelity.outputs).toHaveLength(16);
    // The sim gives text, no token ids: 16 words each.
    expect(fidelity.outputs.every((o) => o.token_ids === null && o.text.trim().split(/\s+/).length === 16)).toBe(true);
    expect(again.run!.fidelity!.outputs).toEqual(fidelity.outputs);
    expect(corrupt.run!.fidelity!.outputs.filter((o, i) => o.text === fidelity.outputs[i]!.text)).toEqual([]);
    // The three shortest prompts fill no cache block (the vLLM personality caches whole 16-token blocks): answered cold twice.
    expect(cacheDiffers.run!.fidelity!.cache_equality).toEqual({ verdict: 'differs', differing: [...Array(16).keys()].slice(3), method: 'repeat' });
    expect(cacheClean.run!.fidelity!.cache_equality).toEqual({ verdict: 'identical', differing: [], method: 'repeat' });

    const outDir = join(dir, 'out');
    const report = await compile({ resultsDir: results, outDir, prices: loadPrices(writeFixturePrices(dir)), now: new Date() });
    expect(report.problems).toEqual([]);
    const instance = await DuckDBInstance.create(join(outDir, '.cache', 'store.duckdb'));
    const connection = await instance.connect();
    try {
      const rows = (await connection.runAndReadAll('SELECT run_id, fidelity_verdict, fidelity_identical_share, fidelity_mean_divergence, fidelity_logprob_drift, fidelity_reference_run, cache_equality FROM runs')).getRowObjectsJS();
      const of = (r: RunResult) => rows.find((row) => row['run_id'] === r.run_id);
      expect(of(reference)).toMatchObject({ fidelity_verdict: 'pass', fidelity_identical_share: 1, fidelity_mean_divergence: null, fidelity_logprob_drift: null, fidelity_reference_run: reference.run_id, cache_equality: null });
      expect(of(again)).toMatchObject({ fidelity_verdict: 'pass', fidelity_identical_share: 1, fidelity_reference_run: reference.run_id });
      expect(of(corrupt)).toMatchObject({ fidelity_verdict: 'fail', fidelity_identical_share: 0, fidelity_reference_run: reference.run_id });
      // Within one word: the first answer word differs, so the texts part at character ≤ 1 of " word …".
      expect(of(corrupt)!['fidelity_mean_divergence']).toBeLessThan(8);
      // Chat is another configuration (its own reference: the clean chat run); its cold answers are the sim's own.
      expect(of(cacheDiffers)).toMatchObject({ fidelity_verdict: 'pass', cache_equality: 'differs', fidelity_reference_run: cacheDiffers.run_id });
      expect(of(cacheClean)).toMatchObject({ fidelity_verdict: 'pass', cache_equality: 'identical' });
    } finally {
      connection.closeSync();
      instance.closeSync();
    }

    // Later compiles keep one probe row per file: a file read again (its mtime moved) replaces its row, a file gone takes its row with it.
    const fileOf = (r: RunResult) => resultFilesIn(results).find((f) => readFileSync(f, 'utf8').includes(r.run_id))!;
    utimesSync(fileOf(again), new Date(), new Date(Date.now() + 5_000));
    rmSync(fileOf(corrupt));
    const second = await compile({ resultsDir: results, outDir, prices: loadPrices(writeFixturePrices(dir)), now: new Date() });
    expect(second.ingest).toMatchObject({ parsed: 1, removed: 2 });
    const after = await DuckDBInstance.create(join(outDir, '.cache', 'store.duckdb'));
    const store = await after.connect();
    try {
      const probes = (await store.runAndReadAll('SELECT file, count(*)::INTEGER FROM fidelity_probes GROUP BY file ORDER BY file')).getRowsJS();
      const runs = (await store.runAndReadAll('SELECT file FROM runs ORDER BY file')).getRowsJS();
      expect(probes).toEqual(runs.map(([file]) => [file, 1]));
      const verdicts = (await store.runAndReadAll('SELECT run_id, fidelity_verdict, fidelity_reference_run FROM runs ORDER BY run_id')).getRowsJS();
      expect(verdicts).toEqual([reference, again, cacheDiffers, cacheClean].sort((a, b) => a.run_id.localeCompare(b.run_id)).map((r) => [r.run_id, 'pass', r === cacheClean ? cacheDiffers.run_id : r === cacheDiffers ? cacheDiffers.run_id : reference.run_id]));
    } finally {
      store.closeSync();
      after.closeSync();
    }
  });
});
