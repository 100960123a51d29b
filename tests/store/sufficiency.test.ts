/**
 * Sample sufficiency (docs/metrics.md#sample-sufficiency): the rule, the order-statistic interval,
 * the counts compile publishes, and that an insufficient percentile is never ranked, compared or
 * judged against a tier, on the committed CPU lane of 2026-12-02 (real: 2 to 8 requests per point)
 * and on SYNTHETIC runs (bench/lib/synthetic-results.ts: measured nothing) where one engine has
 * enough requests and the other does not.
 */
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MIN_SAMPLES, PERCENTILE_PROBABILITIES, percentileSupported } from '../../harness/contract/sufficiency.ts';
import { percentileSorted } from '../../harness/measure/metrics/stats.ts';
import { compile } from '../../harness/store/compile.ts';
import { percentileInterval } from '../../harness/store/percentile-interval.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { insufficientPercentiles, sampleCounts } from '../../harness/store/sample-counts.ts';
import { writeResult } from '../../bench/lib/synthetic-results.ts';
import { committedResults, problemsOf, RESULTS_DIR, synthetic } from './claim-fixtures.ts';
import { withRequests } from './request-counts.ts';

/** The committed lane of 2 to 8 requests per point. */
const LANE_DAY = '2026-12-02';
import { query } from './duckdb-query.ts';

type Row = Record<string, unknown>;
const readJson = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;

describe('the rule: percentile p needs n ≥ ⌈1/(1−p)⌉ samples', () => {
  it('is that number for each published percentile (in exact arithmetic: per mille)', () => {
    for (const [stat, p] of Object.entries(PERCENTILE_PROBABILITIES)) {
      const perMille = Math.round(p * 1000);
      expect(MIN_SAMPLES[stat as keyof typeof MIN_SAMPLES], stat).toBe(Math.ceil(1000 / (1000 - perMille)));
    }
    expect(percentileSupported('p99', 99)).toBe(false);
    expect(percentileSupported('p99', 100)).toBe(true);
    expect(percentileSupported('p95', 19)).toBe(false);
    expect(percentileSupported('max', 1)).toBe(true);
  });

  it('below it, the interpolated percentile lies between the two largest samples: it cannot be told from the maximum', () => {
    for (const [stat, p] of Object.entries(PERCENTILE_PROBABILITIES)) {
      for (let n = 2; n < MIN_SAMPLES[stat as keyof typeof MIN_SAMPLES]; n++) {
        const sorted = Float64Array.from({ length: n }, (_, i) => i);
        expect(percentileSorted(sorted, p * 100), `${stat} of ${n}`).toBeGreaterThan(n - 2);
      }
    }
  });
});

describe('the distribution-free interval of a percentile from order statistics', () => {
  const ranks = (n: number) => Float64Array.from({ length: n }, (_, i) => i + 1);

  it("gives the median of 100 the ranks 40 and 61 (Conover 1999, Table A3), covering 1 − 2·P(B ≤ 39) = 0.9648", () => {
    const interval = percentileInterval(ranks(100), 0.5)!;
    expect(interval.ranks).toEqual([40, 61]);
    expect([interval.low, interval.high]).toEqual([40, 61]);
    expect(interval.coverage).toBeCloseTo(0.9648, 4);
  });

  it('is null where no pair of order statistics reaches 95% (the median of 5, a p99 of 367), present from 6 and 368', () => {
    expect(percentileInterval(ranks(5), 0.5)).toBeNull();
    expect(percentileInterval(ranks(6), 0.5)!.ranks).toEqual([1, 6]);
    expect(percentileInterval(ranks(367), 0.99)).toBeNull();
    const p99 = percentileInterval(ranks(368), 0.99)!;
    expect(p99.ranks[1]).toBe(368);
    expect(p99.coverage).toBeGreaterThanOrEqual(0.95);
  });
});

describe('sample counts', () => {
  it('of an older file: derived from what its points say (the committed lane has none recorded)', () => {
    for (const { path, result } of committedResults().filter((c) => c.path.startsWith(`${LANE_DAY}/`))) {
      for (const point of result.points) {
        const { counts, source } = sampleCounts(point);
        const m = point.metrics;
        expect(source, path).toBe('derived');
        expect([counts.ttft_ms, counts.e2el_ms, counts.queue_ms, counts.tpot_ms, counts.itl_ms], path).toEqual([m.completed, m.completed, point.requests_sent, m.completed, m.output_tokens - m.completed]);
      }
    }
  });

  it('of a file that records them: as recorded; TPOT from the saved requests when an older file saved them', () => {
    const result = synthetic();
    expect(sampleCounts(result.points[0]!)).toMatchObject({ source: 'recorded', counts: { ttft_ms: 64, tpot_ms: 64, queue_ms: 64 } });
    const older = synthetic();
    const point = older.points[0]!;
    for (const d of Object.values(point.metrics)) if (typeof d === 'object' && d !== null) delete d.count;
    point.requests = Array.from({ length: point.requests_sent }, (_, index) => ({ index, ok: true, failure: null, status: 200, queue_ms: 0, ttft_ms: 50, e2el_ms: 50 + 127 * 10, tpot_ms: index < 4 ? null : 10, input_tokens: 512, output_tokens: 128, server_prompt_tokens: 512, content_events: 128, finish_reason: 'length' }));
    expect(sampleCounts(point).counts.tpot_ms).toBe(60);
  });

  it('name the percentiles they cannot support', () => {
    expect(insufficientPercentiles({ ttft_ms: 64, tpot_ms: 19, itl_ms: 1000, itl_event_ms: null, e2el_ms: 100, queue_ms: 1, interactivity_tok_s: 20 })).toEqual([
      'ttft_ms_p99', 'ttft_ms_p999', 'tpot_ms_p95', 'tpot_ms_p99', 'tpot_ms_p999', 'e2el_ms_p999', 'queue_ms_p50', 'queue_ms_p90', 'queue_ms_p95', 'queue_ms_p99', 'queue_ms_p999', 'interactivity_tok_s_p99', 'interactivity_tok_s_p999',
    ]);
  });
});

describe('compile of the committed CPU lane (2026-12-02: 2 to 8 requests per point)', () => {
  const out = mkdtempSync(join(tmpdir(), 'sb-sufficiency-lane-'));
  beforeAll(async () => {
    // That night alone (the lane re-measured later has 100 requests a point).
    const night = mkdtempSync(join(tmpdir(), 'sb-sufficiency-results-'));
    cpSync(join(RESULTS_DIR, LANE_DAY), join(night, LANE_DAY), { recursive: true });
    const report = await compile({ resultsDir: night, outDir: out, prices: loadPrices(), now: new Date('2026-12-04T00:00:00Z') });
    expect(report.problems).toEqual([]);
  }, 180_000);

  it('publishes each point’s counts and flags TTFT p95/p99 and TPOT p95 insufficient, keeping the raw values in the points table', async () => {
    const points = await query(`SELECT completed, ttft_ms_n, tpot_ms_n, sample_counts, insufficient, ttft_ms_p99, ttft_ms_p99_ci_low FROM read_parquet('${out}/parquet/latest/points/*.parquet')`);
    expect(points.length).toBe(180);
    for (const p of points) {
      expect(Number(p.ttft_ms_n)).toBe(p.completed);
      expect(Number(p.ttft_ms_n)).toBeGreaterThanOrEqual(2);
      expect(Number(p.ttft_ms_n)).toBeLessThanOrEqual(8);
      expect(p.sample_counts).toBe('derived');
      expect(String(p.insufficient).split(',')).toEqual(expect.arrayContaining(['ttft_ms_p95', 'ttft_ms_p99', 'tpot_ms_p95']));
      expect(p.ttft_ms_p99).toEqual(expect.any(Number));
      // No saved requests: the percentiles alone do not determine the interval.
      expect(p.ttft_ms_p99_ci_low).toBeNull();
    }
  });

  it('shows those as their sample size on the leaderboard: no value, no rank; TTFT p50 (n ≥ 2) keeps both', () => {
    const rows = readJson<Row[]>(join(out, 'site', 'leaderboard.json'));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      for (const column of ['ttft_ms_p95', 'ttft_ms_p99', 'tpot_ms_p95']) {
        expect(row[column], column).toBeNull();
        expect(row[`rank_${column}`], column).toBeNull();
        expect(row[`${column}__samples_max`] as number).toBeLessThanOrEqual(8);
        expect(row[`${column}__samples_min`] as number).toBeGreaterThanOrEqual(2);
      }
      expect(row.ttft_ms_p50).toEqual(expect.any(Number));
      expect(row.rank_ttft_ms_p50).toBe(1);
      expect(row.throughput_window).toBe('whole run');
    }
  });

  it('compares none of them across releases, and judges no SLA tier on them (each capacity row says how many points it could not judge)', () => {
    const deltas = readJson<Array<{ metric: string }>>(join(out, 'site', 'deltas.json'));
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.filter((d) => ['ttft_ms_p99', 'tpot_ms_p95'].includes(d.metric))).toEqual([]);
    const capacity = readJson<Row[]>(join(out, 'site', 'capacity.json'));
    expect(capacity.length).toBeGreaterThan(0);
    for (const row of capacity) {
      expect(row.meets).toBe(false);
      expect(row.unjudged_loads as number).toBeGreaterThanOrEqual(1);
      expect(row.unjudged_samples_max as number).toBeLessThanOrEqual(8);
    }
  });
});

describe('ranks and deltas use sufficient values only; throughput ranks on the steady window; overloaded points are not ranked (SYNTHETIC)', () => {
  const out = mkdtempSync(join(tmpdir(), 'sb-sufficiency-synthetic-'));
  const results = join(out, 'results');
  beforeAll(async () => {
    // vllm: 64 requests a point (p99 unsupported) and a TTFT that would rank it first; sglang: 128 (p99 supported), slower.
    const vllm = [1, 2].map((i) => synthetic({ engine: 'vllm', version: i === 1 ? '1.0.0' : '1.1.0', ttftMs: 20, concurrencies: [1, 8], seed: 700 + i, date: new Date(Date.UTC(2026, 0, 10 + i, 3)) }));
    const sglang = withRequests(synthetic({ engine: 'sglang', version: '2.0.0', ttftMs: 80, concurrencies: [1, 8], seed: 710, date: new Date(Date.UTC(2026, 0, 12, 3)) }), 128);
    // sglang's c=1 point has a steady window at twice its whole-run rate; vllm's c=8 of the newest release is an overloaded open loop at 8/s, as is sglang's (not overloaded).
    const c1 = sglang.points[0]!;
    const d = c1.metrics.duration_s * 0.25;
    const outputTokens = Math.round(c1.metrics.output_throughput! * 2 * d);
    c1.steady = { start_s: d, end_s: 2 * d, duration_s: d, completed: 10, input_tokens: 10 * 512, output_tokens: outputTokens, request_throughput: 10 / d, output_throughput: outputTokens / d, total_throughput: (10 * 512 + outputTokens) / d };
    const open = { mode: 'open' as const, rate: 8, arrival: 'poisson' as const, burstiness: 1, max_concurrency: null };
    Object.assign(vllm[1]!.points[1]!, { load: open, achieved_rate: { send_ratio: 1, completion_ratio: 0.5 }, overloaded: true, overload_reason: 'requests completed at 50.0% of the scheduled 8 requests/s: the backlog grew' });
    Object.assign(sglang.points[1]!, { load: open, achieved_rate: { send_ratio: 1, completion_ratio: 1 }, overloaded: false });
    for (const result of [...vllm, sglang]) {
      expect(problemsOf(result)).toEqual([]);
      writeResult(results, result);
    }
    const report = await compile({ resultsDir: results, outDir: join(out, 'data'), prices: loadPrices(), now: new Date('2026-02-01T00:00:00Z') });
    expect(report.problems).toEqual([]);
  }, 180_000);

  const leaderboard = () => readJson<Row[]>(join(out, 'data', 'site', 'leaderboard.json'));
  const at = (engine: string, load: string) => leaderboard().find((r) => r.engine === engine && r.load === load)!;

  it('ranks TTFT p99 among the releases whose samples support it only: the unsupported one is not ranked, even with the lower value', async () => {
    const raw = await query(`SELECT engine, min(ttft_ms_p99) AS p99 FROM read_parquet('${out}/data/parquet/latest/points/*.parquet') WHERE load = 'c=1' GROUP BY engine ORDER BY engine`);
    expect((raw[1]!.p99 as number) < (raw[0]!.p99 as number)).toBe(true);
    const [vllm, sglang] = [at('vllm', 'c=1'), at('sglang', 'c=1')];
    expect([vllm.ttft_ms_p99, vllm.rank_ttft_ms_p99, vllm.ttft_ms_p99__samples_max]).toEqual([null, null, 64]);
    expect([sglang.rank_ttft_ms_p99, sglang.ttft_ms_p99__samples_max]).toEqual([1, 128]);
    expect(sglang.ttft_ms_p99).toEqual(expect.any(Number));
    // p95 needs 20: both have it, and the faster one ranks first.
    expect([vllm.rank_ttft_ms_p95, sglang.rank_ttft_ms_p95]).toEqual([1, 2]);
  });

  it('never compares an unsupported percentile across releases (TTFT p99 of 64 requests), while TTFT p50 is compared', () => {
    const deltas = readJson<Array<{ engine: string; metric: string; load: string }>>(join(out, 'data', 'site', 'deltas.json')).filter((d) => d.engine === 'vllm' && d.load === 'c=1');
    expect(deltas.map((d) => d.metric)).toContain('ttft_ms_p50');
    expect(deltas.map((d) => d.metric)).not.toContain('ttft_ms_p99');
  });

  it('ranks throughput on the steady window where the point has one, only beside releases measured over the same window', async () => {
    const [point] = await query(`SELECT output_throughput, steady_output_throughput FROM read_parquet('${out}/data/parquet/latest/points/*.parquet') WHERE engine = 'sglang' AND load = 'c=1'`);
    const sglang = at('sglang', 'c=1');
    expect(sglang.throughput_window).toBe('steady');
    expect(sglang.output_throughput as number).toBeCloseTo(point!.steady_output_throughput as number, 6);
    expect(sglang.output_throughput as number).toBeGreaterThan(1.9 * (point!.output_throughput as number));
    const vllm = at('vllm', 'c=1');
    expect(vllm.throughput_window).toBe('whole run');
    expect([vllm.rank_output_throughput, sglang.rank_output_throughput]).toEqual([1, 1]);
  });

  it('shows an overloaded point, unranked on every metric, with its reason', () => {
    const [vllm, sglang] = [at('vllm', 'rate=8'), at('sglang', 'rate=8')];
    expect([vllm.overloaded, vllm.overload_reason]).toEqual([true, expect.stringContaining('backlog grew')]);
    for (const [key, value] of Object.entries(vllm)) if (key.startsWith('rank_')) expect(value, key).toBeNull();
    expect([sglang.overloaded, sglang.rank_output_throughput, sglang.rank_ttft_ms_p50]).toEqual([false, 1, 1]);
  });
});
