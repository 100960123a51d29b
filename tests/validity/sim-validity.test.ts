/**
 * Each invalid class from a real run against the sim on 127.0.0.1, without llama.cpp: the sim's
 * faults and limits make the point, compile's own column getters (harness/store/columns.ts) read it
 * and the validity rule (harness/store/validity.ts) judges it in DuckDB, as compile does.
 *   cache_mismatch        a llama.cpp-like sim with prefix caching off, on a conversation
 *   overloaded            a sim that serves about 200 requests/s, asked for 2000/s open loop
 *   insufficient_samples  a point of one request
 *   valid                 the same sim and workloads done right
 * invalid_output needs the output-fidelity probe's verdict, a run column of compile's fidelity step:
 * sim-invalid-output.test.ts runs the sim's corrupt-output fault through `servebench run` and compile.
 */
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { normalizeLoadOptions } from '../../harness/measure/load/load-options.ts';
import { runLoad } from '../../harness/measure/load/run-load.ts';
import { POINT_ONLY_COLUMNS, type PointContext } from '../../harness/store/columns.ts';
import { fidelityInputs, validityColumnsSql } from '../../harness/store/validity.ts';
import { fastSim } from '../load/sim-fixture.ts';

const MULTI_TURN = fileURLToPath(new URL('../cache/cache-multi-turn.yaml', import.meta.url));

/** What the validity rule reads of a point, through compile's own getters. */
const READ = ['cache_verdict', 'cache_observed', 'cache_theoretical', 'overloaded', 'overload_reason', 'completed', 'ttft_ms_n', 'tpot_ms_n', 'itl_ms_n', 'e2el_ms_n', 'interactivity_tok_s_n'];

async function run(url: string, flags: Record<string, string>): Promise<RunResult> {
  const config = normalizeLoadOptions({ endpoint: url, model: 'sim-model', 'no-progress': true, ...flags }, {});
  return (await runLoad(config, { signal: new AbortController().signal, keepRecords: true, notice: () => {} })).result;
}

/** Each point's validity and reason, as compile derives them (no fidelity step: not checked). */
async function judge(result: RunResult): Promise<Array<{ validity: string; validity_reason: string | null }>> {
  const columns = POINT_ONLY_COLUMNS.filter((c) => READ.includes(c.name));
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(`CREATE TEMP TABLE valid_points (file VARCHAR, point INTEGER, ${columns.map((c) => `${c.name} ${c.type}`).join(', ')})`);
    await connection.run('CREATE TEMP VIEW valid_runs AS SELECT NULL::VARCHAR AS file');
    const literal = (v: unknown) => (v === null || v === undefined ? 'NULL' : typeof v === 'string' ? `'${v.replace(/'/g, "''")}'` : String(v));
    for (const [index, point] of result.points.entries()) {
      const context = { result, run: result.run!, relativePath: 'sim.json', sha256: '', point, index } as PointContext;
      await connection.run(`INSERT INTO valid_points VALUES ('sim.json', ${index}, ${columns.map((c) => literal(c.get(context))).join(', ')})`);
    }
    const fidelity = await fidelityInputs(connection);
    return (await connection.runAndReadAll(`SELECT ${validityColumnsSql(fidelity)} FROM valid_points p ${fidelity.join} ORDER BY p.point`)).getRowObjectsJS() as Array<{ validity: string; validity_reason: string | null }>;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('the sim makes each invalid class, and compile judges it so', () => {
  it('cache_mismatch: prefix caching off on a conversation; valid with it on', async () => {
    const off = await fastSim({ personality: 'llamacpp', prefixCacheSequences: 0 });
    expect(await judge(await run(off.url, { workload: MULTI_TURN }))).toEqual([{ validity: 'cache_mismatch', validity_reason: expect.stringMatching(/^the server reused 0% of the prompt tokens where a perfect prefix cache reuses \d+%$/) }]);
    const on = await fastSim({ personality: 'llamacpp' });
    expect((await judge(await run(on.url, { workload: MULTI_TURN }))).map((r) => r.validity)).toEqual(['valid']);
  });

  it('overloaded: a sim of about 200 requests/s asked for 2000/s; valid at 25/s', async () => {
    const sim = await fastSim({ decodeBaseMs: 2, maxNumSeqs: 4 });
    const result = await run(sim.url, { 'input-len': '8', 'output-len': '10', warmup: '0', 'num-prompts': '30', seed: '1', rate: '25,2000' });
    const judged = await judge(result);
    expect(judged.map((r) => r.validity)).toEqual(['valid', 'overloaded']);
    expect(judged[1]!.validity_reason).toBe(result.points[1]!.overload_reason);
  });

  it('insufficient_samples: a point of one request; valid from two', async () => {
    const sim = await fastSim();
    const flags = { 'input-len': '8', 'output-len': '4', warmup: '0', concurrency: '1' };
    expect(await judge(await run(sim.url, { ...flags, 'num-prompts': '1' }))).toEqual([{ validity: 'insufficient_samples', validity_reason: 'too few samples for any headline percentile (1 completed requests; a median needs 2)' }]);
    expect((await judge(await run(sim.url, { ...flags, 'num-prompts': '2' }))).map((r) => r.validity)).toEqual(['valid']);
  });
});
