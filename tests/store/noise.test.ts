/**
 * The noise pools (harness/store/noise.ts) on hand-made SYNTHETIC release rows in a real in-memory
 * DuckDB: which releases a pool takes (valid ones of one engine × hardware × load, repeated), and
 * the pooled variance of ln(value), Σ(nᵢ−1)sᵢ² / Σ(nᵢ−1) with Σ(nᵢ−1) degrees of freedom, worked
 * out here by hand for each case. tests/store/noise-pools.test.ts compiles whole result sets.
 */
import { memoryDuckDb } from './memory-duckdb.ts';
import { describe, expect, it } from 'vitest';
import { COMPARED_METRICS } from '../../harness/contract/metric-catalog.ts';
import { computeNoise, noiseOf, noisePools, releaseSummary } from '../../harness/store/noise.ts';

const db = memoryDuckDb();

/** One SYNTHETIC release row: its pool, its runs' log statistics of output throughput (every other metric unmeasured unless `all`). */
interface Release {
  engine: string;
  hardware?: string;
  load?: string;
  config?: string;
  order?: number;
  validity?: string;
  n: number;
  varlog: number | null;
  /** Give every compared metric these statistics, not output throughput alone. */
  all?: boolean;
}

const sql = (v: unknown) => (v === null || v === undefined ? 'NULL' : typeof v === 'number' ? `${v}::DOUBLE` : `'${String(v)}'`);

async function releases(rows: readonly Release[]): Promise<void> {
  const metricColumns = COMPARED_METRICS.flatMap((m) => [`"${m.column}__n"`, `"${m.column}__varlog"`, `"${m.column}__meanlog"`]);
  const values = rows.map((r, i) => {
    const stats = COMPARED_METRICS.flatMap((m) => (m.column === 'output_throughput' || r.all === true ? [`${r.n}::INTEGER`, sql(r.varlog), sql(1)] : ['0::INTEGER', 'NULL::DOUBLE', 'NULL::DOUBLE']));
    return `(${[sql(r.engine), sql(r.hardware ?? 'h100'), sql(r.load ?? 'c=1'), sql(r.config ?? `cfg-${i}`), `${r.order ?? i}::INTEGER`, sql(r.validity ?? 'valid'), ...stats].join(', ')})`;
  });
  await db.connection.run(`CREATE OR REPLACE TEMP TABLE releases AS SELECT * FROM (VALUES ${values.join(', ')}) t(engine, hardware, load, config_id, engine_version_order, validity, ${metricColumns.join(', ')})`);
}

describe('a release row’s log statistics of a metric', () => {
  const cases: Array<[string, Record<string, unknown>, ReturnType<typeof releaseSummary>]> = [
    ['no run measured it', { m__n: 0, m__meanlog: null, m__varlog: null }, null],
    ['no count column at all', {}, null],
    ['one run: no variance', { m__n: 1, m__meanlog: 2, m__varlog: null }, { n: 1, meanLog: 2, varLog: null }],
    ['one run whose variance reads 0 (DuckDB var_samp of one value is null; a 0 is not believed)', { m__n: 1, m__meanlog: 2, m__varlog: 0 }, { n: 1, meanLog: 2, varLog: null }],
    ['two runs', { m__n: 2n, m__meanlog: 2, m__varlog: 0.25 }, { n: 2, meanLog: 2, varLog: 0.25 }],
    ['two runs with no variance recorded', { m__n: 2, m__meanlog: 2, m__varlog: null }, { n: 2, meanLog: 2, varLog: null }],
    ['two runs and no variance column', { m__n: 2, m__meanlog: 2 }, { n: 2, meanLog: 2, varLog: null }],
  ];
  it.each(cases)('%s', (_what, row, expected) => {
    expect(releaseSummary(row, 'm')).toEqual(expected);
  });
});

describe('noise pools: the valid repeated releases of one engine on one hardware at one load', () => {
  it('pools Σ(nᵢ−1)sᵢ² / Σ(nᵢ−1) over its repeated valid releases, leaving out single runs and invalid releases', async () => {
    await releases([
      // (3−1)·0.01 + (2−1)·0.04 = 0.06 over 3 degrees of freedom: 0.02.
      { engine: 'vllm', n: 3, varlog: 0.01 },
      { engine: 'vllm', n: 2, varlog: 0.04 },
      { engine: 'vllm', n: 1, varlog: null },
      // An overloaded release's spread is not the engine's noise.
      { engine: 'vllm', n: 3, varlog: 9, validity: 'overloaded' },
      // Other pools: another engine, another hardware, another load.
      { engine: 'sglang', n: 4, varlog: 0.09 },
      { engine: 'vllm', hardware: 'a100', n: 2, varlog: 0.5 },
      { engine: 'vllm', load: 'c=8', n: 1, varlog: null },
    ]);
    const pools = await noisePools(db.connection);
    expect([...pools.keys()].sort()).toEqual(['["sglang","h100","c=1"]', '["vllm","a100","c=1"]', '["vllm","h100","c=1"]', '["vllm","h100","c=8"]']);
    const vllm = noiseOf(pools, 'vllm', 'h100', 'c=1', 'output_throughput')!;
    expect(vllm.variance).toBeCloseTo(0.02, 15);
    expect(vllm.df).toBe(3);
    expect(noiseOf(pools, 'sglang', 'h100', 'c=1', 'output_throughput')).toEqual({ variance: expect.closeTo(0.09, 15), df: 3 });
    expect(noiseOf(pools, 'vllm', 'a100', 'c=1', 'output_throughput')).toEqual({ variance: expect.closeTo(0.5, 15), df: 1 });
    // A pool of single runs has no noise; a metric no run measured neither; nor an engine never seen.
    expect(noiseOf(pools, 'vllm', 'h100', 'c=8', 'output_throughput')).toBeNull();
    expect(noiseOf(pools, 'vllm', 'h100', 'c=1', 'ttft_ms_p50')).toBeNull();
    expect(noiseOf(pools, 'vllm', 'h100', 'c=1', 'no_such_metric')).toBeNull();
    expect(noiseOf(pools, 'trtllm', 'h100', 'c=1', 'output_throughput')).toBeNull();
    const pool = pools.get('["vllm","h100","c=1"]')!;
    expect([pool.engine, pool.hardware, pool.load]).toEqual(['vllm', 'h100', 'c=1']);
    expect(pool.metrics.get('output_throughput')!.releases).toBe(2);
    expect(pool.metrics.get('ttft_ms_p50')).toEqual({ pooled: null, releases: 0 });
  });

  it('pools every compared metric, each from its own statistics', async () => {
    await releases([
      { engine: 'vllm', n: 3, varlog: 0.01, all: true },
      { engine: 'vllm', n: 5, varlog: 0.04, all: true },
    ]);
    const pools = await noisePools(db.connection);
    // (2·0.01 + 4·0.04) / 6 = 0.03.
    for (const m of COMPARED_METRICS) {
      const noise = noiseOf(pools, 'vllm', 'h100', 'c=1', m.column)!;
      expect(noise.variance, m.column).toBeCloseTo(0.03, 15);
      expect(noise.df, m.column).toBe(6);
    }
  });
});

describe('noise.json', () => {
  it('gives each pool and compared metric σ of ln(value), null without repeats, and how many releases it pooled', async () => {
    await releases([
      { engine: 'vllm', n: 3, varlog: 0.01 },
      { engine: 'vllm', n: 2, varlog: 0.04 },
      { engine: 'sglang', hardware: 'a100', load: 'c=8', n: 1, varlog: null },
    ]);
    const rows = await computeNoise(db.connection);
    expect(rows).toHaveLength(2 * COMPARED_METRICS.length);
    const of = (engine: string, metric: string) => rows.find((r) => r.engine === engine && r.metric === metric)!;
    expect(of('vllm', 'output_throughput')).toEqual({ engine: 'vllm', hardware: 'h100', load: 'c=1', metric: 'output_throughput', log_sd: expect.closeTo(Math.sqrt(0.02), 15), releases: 2 });
    expect(of('vllm', 'ttft_ms_p50')).toEqual({ engine: 'vllm', hardware: 'h100', load: 'c=1', metric: 'ttft_ms_p50', log_sd: null, releases: 0 });
    expect(of('sglang', 'output_throughput')).toEqual({ engine: 'sglang', hardware: 'a100', load: 'c=8', metric: 'output_throughput', log_sd: null, releases: 0 });
    expect(rows.filter((r) => r.engine === 'vllm').map((r) => r.metric)).toEqual(COMPARED_METRICS.map((m) => m.column));
  });
});
