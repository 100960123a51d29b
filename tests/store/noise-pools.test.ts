/**
 * The noise band is pooled per engine × hardware × load (harness/store/noise.ts): a noisy engine,
 * a noisy machine or a noisy load point never widens another's band, and the single-run test of
 * a release uses its own pool's variance and degrees of freedom. On SYNTHETIC results (nothing
 * measured), every expected number recomputed here from the result files:
 *   quiet  vllm 1.0.0, 8B, 1× Synthetic H100, c=8: 3 runs, σ 0.01;  vllm 1.1.0 there: 1 run, 10% slower
 *   noisy  sglang 2.0.0, same hardware and load: 3 runs, σ 0.3 (another engine)
 *   noisy  vllm 1.0.0, 70B on 2× Synthetic H100, c=8: 3 runs, σ 0.3 (another hardware)
 *   noisy  vllm 1.0.0, 8B, 1× Synthetic H100, c=1: 3 runs, σ 0.3 (another load)
 * Pooled over everything (the old rule), the quiet pool's variance would be about 450 times larger.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hardwareLabel } from '../../harness/contract/result-path.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { SITE_FILES, type NoiseRow } from '../../harness/contract/site-data.ts';
import { compile, type CompileReport } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { syntheticResult, writeResult, type SyntheticRun } from '../../bench/lib/synthetic-results.ts';
import { writeFixturePrices } from './fixture-results.ts';

const root = mkdtempSync(join(tmpdir(), 'servebench-noise-'));
const resultsDir = join(root, 'results');

const base: Omit<SyntheticRun, 'engine' | 'version' | 'date' | 'seed' | 'noise'> = { model: 'synthetic/llama-8b', gpu: 'Synthetic H100', gpuCount: 1, workload: 'chat', concurrencies: [8], tpotMs: 10, ttftMs: 60, source: 'official' };
const day = (month: number, d: number) => new Date(Date.UTC(2026, month, d, 3));
const RUNS: SyntheticRun[] = [
  ...[0, 1, 2].map((i) => ({ ...base, engine: 'vllm', version: '1.0.0', noise: 0.01, date: day(0, 10 + i), seed: 700 + i })),
  { ...base, engine: 'vllm', version: '1.1.0', noise: 0.01, tpotMs: 11, ttftMs: 66, date: day(1, 10), seed: 710 },
  ...[0, 1, 2].map((i) => ({ ...base, engine: 'sglang', version: '2.0.0', noise: 0.3, date: day(0, 14 + i), seed: 720 + i })),
  ...[0, 1, 2].map((i) => ({ ...base, model: 'synthetic/llama-70b', gpuCount: 2, engine: 'vllm', version: '1.0.0', noise: 0.3, date: day(0, 17 + i), seed: 730 + i })),
  ...[0, 1, 2].map((i) => ({ ...base, concurrencies: [1], engine: 'vllm', version: '1.0.0', noise: 0.3, date: day(0, 20 + i), seed: 740 + i })),
];

let results: RunResult[] = [];

beforeAll(() => {
  results = RUNS.map((run) => JSON.parse(readFileSync(join(resultsDir, writeResult(resultsDir, syntheticResult(run))), 'utf8')) as RunResult);
});

/**
 * Compiles the folder into its own output, inside the test that reads it: mutation testing
 * (stryker.config.mjs) ignores code reached only in a beforeAll, and runs only the tests that reached it.
 */
async function compiled(name: string): Promise<{ report: CompileReport; outDir: string }> {
  const outDir = join(root, name);
  const report = await compile({ resultsDir, outDir, prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-03-01T00:00:00Z') });
  expect(report.problems).toEqual([]);
  return { report, outDir };
}

/** ln(output throughput) of each run of a pool (engine, hardware label, load), by release. */
function logsByRelease(engine: string, hardware: string, load: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const r of results) {
    if (r.run!.engine.name !== engine || hardwareLabel(r) !== hardware) continue;
    for (const p of r.points) {
      if (`c=${p.load.mode === 'closed' ? p.load.concurrency : '?'}` !== load) continue;
      const key = `${r.run!.model.id} ${r.run!.engine.version}`;
      out.set(key, [...(out.get(key) ?? []), Math.log(p.metrics.output_throughput!)]);
    }
  }
  return out;
}
/** Σ(n−1)s² / Σ(n−1) over the repeated releases, by hand. */
function pooled(releases: Map<string, number[]>): { variance: number; df: number; releases: number } {
  let sum = 0;
  let df = 0;
  let repeated = 0;
  for (const logs of releases.values()) {
    if (logs.length < 2) continue;
    const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
    sum += logs.reduce((a, b) => a + (b - mean) ** 2, 0);
    df += logs.length - 1;
    repeated += 1;
  }
  return { variance: sum / df, df, releases: repeated };
}

const H1 = '1x-Synthetic H100';
const H2 = '2x-Synthetic H100';

describe('noise pools: engine × hardware × load', () => {
  it('noise.json has one row per pool and compared metric, each σ from that pool’s repeats only', async () => {
    const { outDir } = await compiled('noise');
    const noise = JSON.parse(readFileSync(join(outDir, 'site', SITE_FILES.noise), 'utf8')) as NoiseRow[];
    const pools: Array<[string, string, string]> = [['sglang', H1, 'c=8'], ['vllm', H1, 'c=1'], ['vllm', H1, 'c=8'], ['vllm', H2, 'c=8']];
    expect([...new Set(noise.map((n) => JSON.stringify([n.engine, n.hardware, n.load])))].sort()).toEqual(pools.map((p) => JSON.stringify(p)).sort());
    for (const [engine, hardware, load] of pools) {
      const row = noise.find((n) => n.engine === engine && n.hardware === hardware && n.load === load && n.metric === 'output_throughput')!;
      const hand = pooled(logsByRelease(engine, hardware, load));
      expect(row.releases, `${engine} ${hardware} ${load}`).toBe(hand.releases);
      expect(Math.abs(row.log_sd! - Math.sqrt(hand.variance)), `${engine} ${hardware} ${load}`).toBeLessThan(1e-12);
    }
    const quiet = noise.find((n) => n.engine === 'vllm' && n.hardware === H1 && n.load === 'c=8' && n.metric === 'output_throughput')!.log_sd!;
    for (const n of noise.filter((r) => r.metric === 'output_throughput' && !(r.engine === 'vllm' && r.hardware === H1 && r.load === 'c=8'))) expect(n.log_sd!).toBeGreaterThan(5 * quiet);
  }, 60_000);

  it('the single-run release is tested against its own pool: variance of vllm 1.0.0’s three runs there, 2 degrees of freedom', async () => {
    const { report } = await compiled('deltas');
    const delta = report.deltas.find((d) => d.engine === 'vllm' && d.hardware === H1 && d.load === 'c=8' && d.metric === 'output_throughput')!;
    expect([delta.previous_version, delta.version, delta.method, delta.previous_runs, delta.runs]).toEqual(['1.0.0', '1.1.0', 'noise-band', 3, 1]);
    const releases = logsByRelease('vllm', H1, 'c=8');
    const previous = releases.get('synthetic/llama-8b 1.0.0')!;
    const next = releases.get('synthetic/llama-8b 1.1.0')![0]!;
    const { variance, df } = pooled(releases);
    expect(df).toBe(2);
    const diff = next - previous.reduce((a, b) => a + b, 0) / 3;
    const se = Math.sqrt(variance * (1 / 3 + 1));
    const t = diff / se;
    // Student's t with 2 degrees of freedom in closed form: P(|T| ≥ t) = 1 − |t| / √(2 + t²); t(0.975, 2) = 0.95·√(2 / 0.0975).
    expect(Math.abs(delta.p_value! - (1 - Math.abs(t) / Math.sqrt(2 + t * t)))).toBeLessThan(1e-9);
    const q = 0.95 * Math.sqrt(2 / 0.0975);
    expect(Math.abs(delta.ci_low_pct! - (Math.exp(diff - q * se) - 1) * 100)).toBeLessThan(1e-6);
    expect(Math.abs(delta.ci_high_pct! - (Math.exp(diff + q * se) - 1) * 100)).toBeLessThan(1e-6);
    // A 10% slowdown against a 1% noise: found. Against everyone's noise pooled (σ ≈ 0.2) it would not be.
    expect([delta.significant, delta.verdict]).toEqual([true, 'worse']);
  }, 60_000);
});

describe('release values and intervals (derive.ts), from the same logs', () => {
  it('vllm 1.0.0 at c=8: the geometric mean of its three runs, inside exp(mean ± t(0.975, 2)·sd/√3); throughput per GPU divided by the GPUs', async () => {
    const { outDir } = await compiled('releases');
    const scenarios = JSON.parse(readFileSync(join(outDir, 'site', SITE_FILES.scenarios), 'utf8')) as Array<{ scenario_id: string; model: string; gpu_count: number }>;
    const q = 0.95 * Math.sqrt(2 / 0.0975);
    let withInterval = 0;
    for (const s of scenarios.filter((x) => x.model === 'synthetic/llama-70b' || x.model === 'synthetic/llama-8b')) {
      const history = (JSON.parse(readFileSync(join(outDir, 'site', SITE_FILES.scenario(s.scenario_id)), 'utf8')) as { history: Array<Record<string, unknown>> }).history;
      for (const row of history) {
        const runs = results.filter((r) => r.run!.model.id === s.model && r.run!.engine.name === row.engine && r.run!.engine.version === row.engine_version && hardwareLabel(r) === row.hardware);
        const values = runs.flatMap((r) => r.points.filter((p) => `c=${p.load.mode === 'closed' ? p.load.concurrency : '?'}` === row.load).map((p) => p.metrics.ttft_ms!.p50));
        const logs = values.map(Math.log);
        const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
        const where = `${s.model} ${String(row.engine)} ${String(row.engine_version)} ${String(row.load)}`;
        expect(row.runs, where).toBe(values.length);
        expect(Math.abs((row.ttft_ms_p50 as number) / Math.exp(mean) - 1), where).toBeLessThan(1e-12);
        if (values.length !== 3) {
          expect([row.ttft_ms_p50__lo, row.ttft_ms_p50__hi], where).toEqual([null, null]);
          continue;
        }
        const half = q * Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / 2 / 3);
        expect(Math.abs((row.ttft_ms_p50__lo as number) / Math.exp(mean - half) - 1), where).toBeLessThan(1e-9);
        expect(Math.abs((row.ttft_ms_p50__hi as number) / Math.exp(mean + half) - 1), where).toBeLessThan(1e-9);
        const perGpu = (row.output_throughput_per_gpu__lo as number) * s.gpu_count;
        expect(Math.abs(perGpu / (row.output_throughput__lo as number) - 1), where).toBeLessThan(1e-12);
        expect(Math.abs((row.output_throughput_per_gpu as number) * s.gpu_count / (row.output_throughput as number) - 1), where).toBeLessThan(1e-12);
        withInterval += 1;
      }
    }
    // sglang 2.0.0 at c=8, vllm 1.0.0 at c=1 and c=8 on one GPU, and at c=8 on two.
    expect(withInterval).toBe(4);
  }, 60_000);
});
