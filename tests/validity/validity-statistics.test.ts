/**
 * Invalid points are shown, never ranked, compared, pooled, judged against an SLA tier, drawn on a
 * Pareto frontier or used as a baseline (harness/store/validity.ts), on SYNTHETIC runs
 * (bench/lib/synthetic-results.ts: measured nothing) compiled by the real store in DuckDB.
 *
 * The output-fidelity verdicts are run columns the fidelity step of compile adds to valid_runs; this
 * test stands in for that step with a view that gives those columns (the fidelity engineer's
 * harness/store/fidelity.ts derives them from each run's probe against its reference), so the
 * statistics are tested on the very columns they read. The cache mismatch is a point's own cache
 * block, as the harness writes it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSlaTiers } from '../../harness/contract/sla-tiers.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import type { Delta } from '../../harness/contract/site-data.ts';
import { computeDeltas, computeNoise, deriveTables } from '../../harness/store/derive.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { findRegressions } from '../../harness/store/regress.ts';
import { ingest, openStore, type Store } from '../../harness/store/store.ts';
import { writeResult } from '../../bench/lib/synthetic-results.ts';
import { problemsOf, synthetic } from '../store/claim-fixtures.ts';

type Row = Record<string, unknown>;
const day = (d: number) => new Date(Date.UTC(2026, 0, d, 3));

/** Two repeats of a release (so its noise and interval exist), at c=1 and c=8. */
function release(engine: string, version: string, tpotMs: number, firstDay: number, seed: number): RunResult[] {
  return [0, 1].map((i) => synthetic({ engine, version, tpotMs, ttftMs: tpotMs * 5, concurrencies: [1, 8], seed: seed + i, date: day(firstDay + i) }));
}

/** The audit of a point whose server reused almost nothing of what the workload shares (as tests/cache/cache-columns.test.ts writes it). */
function cacheMismatch(result: RunResult, index: number): void {
  const point = result.points[index]!;
  point.cache = { requests: point.metrics.completed, prompt_tokens: 1000, reusable_tokens: 500, cached_tokens: 40, theoretical_hit_rate: 0.5, observed_hit_rate: 0.04, source: 'timings_cache_n', reuse_after: 'end', theory: 'exact', min_ratio: 0.75, verdict: 'cache_mismatch', cause: 'client rewrote history: the first difference lies inside an earlier turn' };
}

describe('invalid points never make a statistic (SYNTHETIC)', () => {
  const out = mkdtempSync(join(tmpdir(), 'sb-validity-'));
  let store: Store;
  let deltas: Delta[];
  const rows = async (sql: string) => (await store.connection.runAndReadAll(sql)).getRowObjectsJS() as Row[];

  beforeAll(async () => {
    const results = [
      // vllm: 1.1.0 answers wrongly and is five times faster; 1.2.0 is 30% slower than 1.0.0.
      ...release('vllm', '1.0.0', 10, 1, 100),
      ...release('vllm', '1.1.0', 2, 5, 110),
      ...release('vllm', '1.2.0', 13, 9, 120),
      // trtllm: the fastest of all, and wrong.
      ...release('trtllm', '1.0.0', 1, 3, 130),
      // sglang: 2.0.0's c=1 point missed the cache (c=8 is fine); 2.1.0 is 60% slower at both.
      ...release('sglang', '2.0.0', 5, 2, 140),
      ...release('sglang', '2.1.0', 8, 12, 150),
    ];
    for (const r of results.filter((r) => r.run?.engine.name === 'sglang' && r.run.engine.version === '2.0.0')) cacheMismatch(r, 0);
    for (const r of results) {
      expect(problemsOf(r)).toEqual([]);
      writeResult(join(out, 'results'), r);
    }
    store = await openStore(join(out, 'store.duckdb'));
    await ingest(store, join(out, 'results'));
    // Stand-in for compile's fidelity step (see the header): vllm 1.1.0 and trtllm failed their probe.
    // The runs table has the columns (null: these synthetic runs carry no probe); the view sets them.
    await store.connection.run(`CREATE OR REPLACE TEMP VIEW valid_runs AS SELECT * REPLACE (
      CASE WHEN (engine = 'vllm' AND engine_version = '1.1.0') OR engine = 'trtllm' THEN 'fail' ELSE 'pass' END AS fidelity_verdict, NULL::VARCHAR AS cache_equality) FROM runs`);
    await deriveTables(store.connection, loadPrices(), loadSlaTiers());
    deltas = await computeDeltas(store.connection);
  }, 180_000);
  afterAll(() => store?.close());

  it('marks each point and each release with its status, the release by its first invalid point', async () => {
    const points = await rows(`SELECT engine, engine_version, load, validity, count(*)::INTEGER AS n FROM priced_points GROUP BY ALL ORDER BY ALL`);
    expect(points.filter((p) => p.validity !== 'valid').map((p) => `${p.engine} ${p.engine_version} ${p.load} ${p.validity} ×${p.n}`)).toEqual([
      'sglang 2.0.0 c=1 cache_mismatch ×2',
      'trtllm 1.0.0 c=1 invalid_output ×2',
      'trtllm 1.0.0 c=8 invalid_output ×2',
      'vllm 1.1.0 c=1 invalid_output ×2',
      'vllm 1.1.0 c=8 invalid_output ×2',
    ]);
    const [release] = await rows(`SELECT validity, validity_reason, invalid_points FROM releases WHERE engine = 'vllm' AND engine_version = '1.1.0' AND load = 'c=1'`);
    expect(release).toEqual({ validity: 'invalid_output', validity_reason: expect.stringContaining('output-fidelity probe failed'), invalid_points: 2 });
  });

  it('shows a faster release with wrong outputs on the leaderboard, unranked, and ranks the valid ones without it', async () => {
    const board = await rows(`SELECT engine, engine_version, validity, output_throughput, rank_output_throughput, rank_ttft_ms_p50 FROM leaderboard WHERE load = 'c=1' ORDER BY output_throughput DESC`);
    expect(board[0]).toMatchObject({ engine: 'trtllm', validity: 'invalid_output', rank_output_throughput: null, rank_ttft_ms_p50: null });
    expect(board.slice(1).map((r) => [r.engine, r.rank_output_throughput])).toEqual([
      ['sglang', 1],
      ['vllm', 2],
    ]);
  });

  it('compares the next release with the newest valid one before it, never with the wrong one', () => {
    const vllm = deltas.filter((d) => d.engine === 'vllm' && d.load === 'c=1' && d.metric === 'output_throughput');
    expect(vllm.map((d) => [d.previous_version, d.version, d.verdict])).toEqual([['1.0.0', '1.2.0', 'worse']]);
    expect(deltas.some((d) => d.previous_version === '1.1.0' || d.version === '1.1.0' || d.engine === 'trtllm')).toBe(false);
  });

  it('raises no regression against a cache_mismatch baseline, and still does at the same release’s valid load point', () => {
    const regressions = findRegressions(deltas, 5, new Map()).filter((r) => r.engine === 'sglang' && r.metric === 'output_throughput');
    expect(regressions.map((r) => [r.load, r.previous_version, r.version])).toEqual([['c=8', '2.0.0', '2.1.0']]);
  });

  it('leaves invalid releases out of the Pareto frontier, the capacity tiers and the noise pools', async () => {
    const pareto = await rows(`SELECT engine, engine_version, load FROM pareto ORDER BY ALL`);
    expect(pareto.filter((p) => p.engine === 'trtllm' || p.engine_version === '1.1.0')).toEqual([]);
    expect(pareto.filter((p) => p.engine_version === '2.0.0').map((p) => p.load)).toEqual(['c=8']);
    const capacity = await rows(`SELECT DISTINCT engine, engine_version FROM capacity ORDER BY ALL`);
    expect(capacity.map((c) => `${c.engine} ${c.engine_version}`)).toEqual(['sglang 2.0.0', 'sglang 2.1.0', 'vllm 1.0.0', 'vllm 1.2.0']);
    const capacityAtC1 = await rows(`SELECT DISTINCT load FROM capacity WHERE engine = 'sglang' AND engine_version = '2.0.0' AND meets`);
    expect(capacityAtC1.map((c) => c.load)).not.toContain('c=1');
    // vllm's pool at c=1 holds its two valid repeated releases, not the wrong one.
    const noise = (await computeNoise(store.connection)).filter((n) => n.engine === 'vllm' && n.load === 'c=1' && n.metric === 'output_throughput');
    expect(noise.map((n) => n.releases)).toEqual([2]);
    expect((await computeNoise(store.connection)).some((n) => n.engine === 'trtllm')).toBe(false);
  });

  it('rebuilds the cached releases when a verdict changes though no run did (a reference run that arrives later)', async () => {
    const validity = async () => (await rows(`SELECT validity FROM releases WHERE engine = 'vllm' AND engine_version = '1.1.0' AND load = 'c=1'`))[0]!.validity;
    expect(await validity()).toBe('invalid_output');
    await store.connection.run(`CREATE OR REPLACE TEMP VIEW valid_runs AS SELECT * REPLACE (
      CASE WHEN engine = 'trtllm' THEN 'fail' ELSE 'pass' END AS fidelity_verdict, NULL::VARCHAR AS cache_equality) FROM runs`);
    await deriveTables(store.connection, loadPrices(), loadSlaTiers());
    expect(await validity()).toBe('valid');
  });
});
