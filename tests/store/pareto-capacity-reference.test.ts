/**
 * Pareto dominance (harness/store/pareto.ts) and capacity at SLA tiers (harness/store/capacity.ts)
 * on hand-made SYNTHETIC release rows in a real in-memory DuckDB: every expected flag and choice
 * is read off the definitions in docs/metrics.md, with the edge cases that tell the definitions
 * apart (ties, points exactly at a limit, a metric not measured).
 */
import { memoryDuckDb } from './memory-duckdb.ts';
import { describe, expect, it } from 'vitest';
import type { SlaTiers } from '../../harness/contract/sla-tiers.ts';
import { deriveCapacity } from '../../harness/store/capacity.ts';
import { derivePareto } from '../../harness/store/pareto.ts';

const db = memoryDuckDb();

/** One SYNTHETIC release row at a load point; the columns pareto.ts and capacity.ts read. */
interface Row {
  scenario: string;
  engine: string;
  version: string;
  order: number;
  load: string;
  x?: number | null;
  y?: number | null;
  gpus?: number;
  ttft95?: number | null;
  tpot95?: number | null;
  runs?: number;
  /** The largest sample behind TTFT p95 and TPOT p95 among the runs (published-values.ts): with a null p95, fewer than its 20. */
  samples?: number | null;
}
const sql = (v: unknown) => (v === null || v === undefined ? 'NULL' : typeof v === 'number' ? `${v}::DOUBLE` : `'${String(v)}'`);

async function releases(rows: readonly Row[], newest: ReadonlyArray<[string, string, string]>): Promise<void> {
  const values = rows.map((r) => {
    const gpus = r.gpus ?? 1;
    const y = r.y ?? null;
    const cols = [
      `${r.scenario}|${r.load}`, r.scenario, 'synthetic/m', 'bf16', gpus > 0 ? `${gpus}x-Synthetic H100` : 'cpu-2x-synthetic', gpus > 0 ? 'Synthetic H100' : null, `${gpus}::INTEGER`, 'w', 'sha', 'm1', r.load, r.engine, r.version, `${r.order}::INTEGER`,
      r.x ?? null, gpus > 0 && y !== null ? y / gpus : null, y, y === null ? null : y * 0.9, y === null ? null : y * 1.1, gpus > 0 && y !== null ? (y * 0.9) / gpus : null, gpus > 0 && y !== null ? (y * 1.1) / gpus : null,
      r.ttft95 ?? null, r.tpot95 ?? null, `${r.runs ?? 3}::INTEGER`, `${Number(r.load.slice(2))}::INTEGER`, 1.5, `run-${r.engine}-${r.version}-${r.load}`,
      `${r.samples ?? 'NULL'}::INTEGER`, `${r.samples ?? 'NULL'}::INTEGER`,
      // Every hand-made release is valid (store/validity.ts): capacity and the frontier read valid ones only.
      'valid',
    ];
    return `(${cols.map((c) => (typeof c === 'string' && c.includes('::') ? c : sql(c))).join(', ')})`;
  });
  await db.connection.run(`CREATE OR REPLACE TEMP TABLE releases AS SELECT * FROM (VALUES ${values.join(', ')}) t(config_id, scenario_id, model, precision, hardware, gpu, gpu_count, workload, workload_sha256, methodology, load, engine, engine_version, engine_version_order,
    interactivity_tok_s_p50, output_throughput_per_gpu, output_throughput, output_throughput__lo, output_throughput__hi, output_throughput_per_gpu__lo, output_throughput_per_gpu__hi,
    ttft_ms_p95, tpot_ms_p95, runs, concurrency, cost_per_1m_output_tokens, latest_run_id, ttft_ms_p95__samples_max, tpot_ms_p95__samples_max, validity)`);
  const latest = newest.map(([scenario, engine, version]) => `('${scenario}', '${engine}', '${version}')`).join(', ');
  await db.connection.run(`CREATE OR REPLACE TEMP TABLE leaderboard AS SELECT r.config_id, r.engine, r.engine_version FROM releases r JOIN (VALUES ${latest}) n(scenario_id, engine, engine_version) USING (scenario_id, engine, engine_version)`);
}

async function rowsOf(query: string): Promise<Array<Record<string, unknown>>> {
  return (await db.connection.runAndReadAll(query)).getRowObjectsJS() as Array<Record<string, unknown>>;
}


describe('Pareto frontier: strict dominance (at least as good on both axes, better on one)', () => {
  it('flags each point on its version’s frontier and, among newest versions, on the overall one', async () => {
    await releases(
      [
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=1', x: 10, y: 100 },
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=2', x: 20, y: 50 },
        // Same x as c=1, lower y: dominated (≥ on x counts).
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=3', x: 10, y: 80 },
        // Exactly c=2's point: neither dominates the other (strict), both stay on.
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=4', x: 20, y: 50 },
        // Same y as c=1, lower x: dominated.
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=5', x: 5, y: 100 },
        { scenario: 's', engine: 'b', version: '1', order: 1, load: 'c=1', x: 15, y: 90 },
        // An older version dominating everything: on its own frontier, never on the overall one, and it knocks no newest point off it.
        { scenario: 's', engine: 'a', version: '0', order: 0, load: 'c=1', x: 30, y: 200 },
        // Another scenario: never compared with s.
        { scenario: 't', engine: 'b', version: '1', order: 1, load: 'c=1', x: 1000, y: 1000 },
        // No interactivity measured: not a Pareto point at all.
        { scenario: 's', engine: 'b', version: '1', order: 1, load: 'c=9', x: null, y: 10 },
      ],
      [['s', 'a', '1'], ['s', 'b', '1'], ['t', 'b', '1']],
    );
    await derivePareto(db.connection);
    const flags = await rowsOf(`SELECT scenario_id || ' ' || engine || '@' || engine_version || ' ' || load AS point, latest_version, on_version_frontier, on_overall_frontier FROM pareto ORDER BY point`);
    expect(flags.map((f) => [f.point, f.latest_version, f.on_version_frontier, f.on_overall_frontier])).toEqual([
      ['s a@0 c=1', false, true, false],
      ['s a@1 c=1', true, true, true],
      ['s a@1 c=2', true, true, true],
      ['s a@1 c=3', true, false, false],
      ['s a@1 c=4', true, true, true],
      ['s a@1 c=5', true, false, false],
      ['s b@1 c=1', true, true, true],
      ['t b@1 c=1', true, true, true],
    ]);
  });

  it('y is throughput per GPU, or output throughput where no GPU was used (CPU-only runs)', async () => {
    await releases(
      [
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=1', x: 10, y: 100, gpus: 4 },
        { scenario: 's', engine: 'b', version: '1', order: 1, load: 'c=1', x: 10, y: 30, gpus: 0 },
      ],
      [['s', 'a', '1'], ['s', 'b', '1']],
    );
    await derivePareto(db.connection);
    const rows = await rowsOf(`SELECT engine, throughput_per_gpu, on_overall_frontier FROM pareto ORDER BY engine`);
    // 100 tok/s on 4 GPUs is 25 per GPU; the CPU run's 30 is higher and dominates it.
    expect(rows.map((r) => [r.engine, r.throughput_per_gpu, r.on_overall_frontier])).toEqual([['a', 25, false], ['b', 30, true]]);
  });
});

describe('capacity at SLA tiers: the best measured load point within both limits (each ≤ inclusive)', () => {
  const TIERS: SlaTiers = {
    version: 3,
    tiers: [
      { id: 'loose', label: 'Loose', description: 'SYNTHETIC', limits: { ttft_ms_p95: 1e9, tpot_ms_p95: 1e9 }, sources: { ttft_ms_p95: 'test https://example.invalid/a', tpot_ms_p95: 'test https://example.invalid/b' } },
      { id: 'tight', label: 'Tight', description: 'SYNTHETIC', limits: { ttft_ms_p95: 100, tpot_ms_p95: 20 }, sources: { ttft_ms_p95: 'test https://example.invalid/a', tpot_ms_p95: 'test https://example.invalid/b' } },
      { id: 'none', label: 'None', description: 'SYNTHETIC', limits: { ttft_ms_p95: 1, tpot_ms_p95: 1 }, sources: { ttft_ms_p95: 'test https://example.invalid/a', tpot_ms_p95: 'test https://example.invalid/b' } },
    ],
  };

  // Derived inside the test, not in a beforeAll: mutation testing ignores code reached only while a suite sets up.
  it('a row per release × tier: the chosen load, its throughput per GPU and interval, or none', async () => {
    await releases(
      [
        // Exactly at both tight limits: meets them.
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=1', y: 500, ttft95: 100, tpot95: 20, runs: 3, gpus: 2 },
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=2', y: 900, ttft95: 150, tpot95: 10, runs: 2, gpus: 2 },
        // Ties c=2 on throughput with a lower TTFT: the tie goes to it.
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=3', y: 900, ttft95: 120, tpot95: 12, runs: 4, gpus: 2 },
        // The most throughput, but no TPOT measured: fails every tier.
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=4', y: 2000, ttft95: 10, tpot95: null, runs: 5, gpus: 2 },
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=5', y: 400, ttft95: 80, tpot95: 15, runs: 1, gpus: 2 },
        // An older version no tier's limits let through but the loose one.
        { scenario: 's', engine: 'a', version: '0', order: 0, load: 'c=1', y: 300, ttft95: 200, tpot95: 30, runs: 6, gpus: 2 },
      ],
      [['s', 'a', '1']],
    );
    await deriveCapacity(db.connection, TIERS);
    const rows = await rowsOf(`SELECT engine_version, tier, meets, load, concurrency, throughput_per_gpu, throughput_per_gpu_lo, throughput_per_gpu_hi, ttft_ms_p95, tpot_ms_p95, runs, run_id, latest_version, tiers_version FROM capacity ORDER BY engine_version, tier_order`);
    expect(rows.map((r) => [r.engine_version, r.tier, r.meets, r.load, r.concurrency, r.throughput_per_gpu, r.ttft_ms_p95, r.tpot_ms_p95, r.runs, r.run_id, r.latest_version, r.tiers_version])).toEqual([
      ['0', 'loose', true, 'c=1', 1, 150, 200, 30, 6, 'run-a-0-c=1', false, 3],
      ['0', 'tight', false, null, null, null, null, null, 6, null, false, 3],
      ['0', 'none', false, null, null, null, null, null, 6, null, false, 3],
      ['1', 'loose', true, 'c=3', 3, 450, 120, 12, 4, 'run-a-1-c=3', true, 3],
      ['1', 'tight', true, 'c=1', 1, 250, 100, 20, 3, 'run-a-1-c=1', true, 3],
      // No point meets it: the most runs of any of the release's points.
      ['1', 'none', false, null, null, null, null, null, 5, null, true, 3],
    ]);
    const tight = rows.find((r) => r.engine_version === '1' && r.tier === 'tight')!;
    expect([tight.throughput_per_gpu_lo, tight.throughput_per_gpu_hi]).toEqual([225, 275]);
  });

  it('a load point whose p95 has too few samples to be published meets no tier, and the row says how many such points and their largest sample', async () => {
    await releases(
      [
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=1', y: 500, ttft95: 100, tpot95: 20, runs: 3, gpus: 2, samples: 64 },
        // The most throughput, but its p95s rest on 8 and 12 requests (compile published them as null): not judged.
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=2', y: 2000, ttft95: null, tpot95: null, runs: 3, gpus: 2, samples: 8 },
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=4', y: 3000, ttft95: null, tpot95: null, runs: 3, gpus: 2, samples: 12 },
        // No TPOT measured at all (not a matter of samples): fails, but is no unjudged point.
        { scenario: 's', engine: 'a', version: '1', order: 1, load: 'c=8', y: 4000, ttft95: 10, tpot95: null, runs: 3, gpus: 2 },
      ],
      [['s', 'a', '1']],
    );
    await deriveCapacity(db.connection, TIERS);
    const rows = await rowsOf(`SELECT tier, meets, load, unjudged_loads, unjudged_samples_max FROM capacity ORDER BY tier_order`);
    expect(rows.map((r) => [r.tier, r.meets, r.load, r.unjudged_loads, r.unjudged_samples_max])).toEqual([
      ['loose', true, 'c=1', 2, 12],
      ['tight', true, 'c=1', 2, 12],
      ['none', false, null, 2, 12],
    ]);
  });
});
