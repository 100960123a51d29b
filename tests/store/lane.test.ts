/**
 * The lane line (harness/store/lane.ts): worded from the runs' own fields, on the shape of the
 * committed CPU lane of 2026-12-02 (real, immutable results) and on a GPU-shaped case. The compile
 * test reads every committed result plus one SYNTHETIC GPU run (bench/lib/synthetic-results.ts via
 * claim-fixtures.ts: it measured nothing) and checks lanes.json and the Parquet runs and points
 * tables against the files themselves.
 */
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import { LaneSchema, SITE_FILES } from '../../harness/contract/site-data.ts';
import { compile } from '../../harness/store/compile.ts';
import { describeLane, hardwareDisplayLabel, type LaneFacts } from '../../harness/store/lane.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { committedResults, RESULTS_DIR, synthetic } from './claim-fixtures.ts';
import { query } from './duckdb-query.ts';

/** The committed CPU lane of 2026-12-02 as compile gathered it (the lane line's wording; the compile test below takes the files as they are now). */
const CPU_LANE: LaneFacts = {
  hardware: 'cpu-2x-AMD EPYC', gpu: null, gpu_count: 0, host_cpu: 'AMD EPYC', host_cpus: 2, virtualization: ['kvm'],
  steal_pct_median: 0.072, steal_pct_max: 5.325, weights: ['dummy'], engines: ['embedded', 'llamacpp'], runs: 60,
};

/** GPU-shaped and SYNTHETIC: an 8-GPU bare-metal host serving published checkpoints. */
const GPU_LANE: LaneFacts = {
  hardware: '8x-NVIDIA H100 80GB HBM3', gpu: 'NVIDIA H100 80GB HBM3', gpu_count: 8, host_cpu: 'Intel Xeon Platinum 8480+', host_cpus: 224, virtualization: ['none'],
  steal_pct_median: 0, steal_pct_max: 0, weights: ['checkpoint'], engines: ['sglang', 'vllm'], runs: 4,
};

describe('the lane line', () => {
  it('says a CPU lane is vCPUs of a KVM guest, its steal, dummy weights and its engines on the CPU', () => {
    const lane = describeLane(CPU_LANE);
    expect(lane.label).toBe('CPU lane: 2 vCPU AMD EPYC (KVM guest, CPU steal median 0.072%, max 5.3%), dummy-weight models (random weights of the real shape), engines on the CPU: embedded, llamacpp');
    expect(lane).toMatchObject({ kind: 'cpu', hardware_label: '2 vCPU AMD EPYC (KVM)', throughput_per: 'host' });
    expect(LaneSchema.parse(lane)).toEqual(lane);
  });

  it('says a GPU lane is its GPUs, its host and published weights; throughput per GPU', () => {
    const lane = describeLane(GPU_LANE);
    expect(lane.label).toBe('GPU lane: 8× NVIDIA H100 80GB HBM3 (host: 224 logical CPUs Intel Xeon Platinum 8480+, bare metal, CPU steal 0%), published model weights, engines: sglang, vllm');
    expect(lane).toMatchObject({ kind: 'gpu', hardware_label: '8× NVIDIA H100 80GB HBM3', throughput_per: 'GPU' });
  });

  it('says what it does not know, and each of several values', () => {
    const unrecorded = { ...CPU_LANE, virtualization: [], steal_pct_median: null, steal_pct_max: null, weights: ['checkpoint', 'dummy'] as Array<'checkpoint' | 'dummy'> };
    expect(describeLane(unrecorded).label).toBe('CPU lane: 2 logical CPUs AMD EPYC (virtualization not recorded), dummy-weight and published-weight models, engines on the CPU: embedded, llamacpp');
    expect(hardwareDisplayLabel(unrecorded)).toBe('2 logical CPUs AMD EPYC');
    expect(hardwareDisplayLabel({ ...CPU_LANE, virtualization: ['none'] })).toBe('2 logical CPUs AMD EPYC (bare metal)');
    const mixed = { ...CPU_LANE, virtualization: ['kvm', 'none'], host_cpus: 1, runs: 1, steal_pct_median: 0.5, steal_pct_max: 0.5 };
    expect(describeLane(mixed).label).toBe('CPU lane: 1 logical CPU AMD EPYC (KVM guest or bare metal, CPU steal 0.5%), dummy-weight models (random weights of the real shape), engines on the CPU: embedded, llamacpp');
    expect(hardwareDisplayLabel({ ...CPU_LANE, virtualization: ['microsoft'] })).toBe('2 vCPU AMD EPYC (Hyper-V)');
  });
});

describe('compile of the committed results states their lane', () => {
  const out = mkdtempSync(join(tmpdir(), 'sb-lane-'));
  const committed = committedResults();
  const gpu = synthetic({ gpuCount: 8 });
  gpu.run!.host.virtualization = 'none';
  gpu.run!.host.steal_pct = 0;
  // SYNTHETIC community runs: one beside the official GPU run, one alone on a lane of its own.
  const beside = synthetic({ gpuCount: 8, engine: 'lmdeploy', version: '1.0.0', source: 'community', seed: 7 });
  const alone = synthetic({ gpuCount: 2, engine: 'sglang', version: '2.0.0', source: 'community', seed: 8 });
  beforeAll(async () => {
    cpSync(RESULTS_DIR, join(out, 'results'), { recursive: true });
    for (const result of [gpu, beside, alone]) {
      const text = `${JSON.stringify(result, null, 2)}\n`;
      const path = join(out, 'results', resultRelativePath(result, text));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
    const report = await compile({ resultsDir: join(out, 'results'), outDir: join(out, 'data'), prices: loadPrices(), now: new Date('2026-12-03T00:00:00Z') });
    expect(report.problems).toEqual([]);
  }, 120_000);

  it('lanes.json: the CPU lane from the files own host, weights and engines, and the GPU lanes beside it (their ranked engines; a community lane its own)', () => {
    const lanes = z.array(LaneSchema).parse(JSON.parse(readFileSync(join(out, 'data', 'site', SITE_FILES.lanes), 'utf8')));
    const steal = committed.map((c) => c.result.run!.host.steal_pct!).sort((a, b) => a - b);
    const middle = Math.floor(steal.length / 2);
    const median = steal.length % 2 === 1 ? steal[middle]! : (steal[middle - 1]! + steal[middle]!) / 2;
    expect(steal.length).toBeGreaterThanOrEqual(60);
    // By hardware key. Runs that recorded no virtualization or steal (the community ones) leave them to those that did.
    expect(lanes).toEqual([
      describeLane({ hardware: '2x-Synthetic H100', gpu: 'Synthetic H100', gpu_count: 2, host_cpu: 'Synthetic CPU', host_cpus: 64, virtualization: [], steal_pct_median: null, steal_pct_max: null, weights: ['checkpoint'], engines: ['sglang'], runs: 1 }),
      describeLane({ hardware: '8x-Synthetic H100', gpu: 'Synthetic H100', gpu_count: 8, host_cpu: 'Synthetic CPU', host_cpus: 64, virtualization: ['none'], steal_pct_median: 0, steal_pct_max: 0, weights: ['checkpoint'], engines: ['vllm'], runs: 2 }),
      describeLane({ ...CPU_LANE, runs: committed.length, steal_pct_median: Math.round(median * 1000) / 1000, steal_pct_max: steal.at(-1)! }),
    ]);
  });

  it('the Parquet runs table keeps each file\'s weights, virtualization, steal and CPUs; points keep the weights', async () => {
    const runs = await query(`SELECT file, model_weights, host_virtualization, host_steal_pct, host_cpus FROM read_parquet('${out}/data/parquet/latest/runs/*.parquet') ORDER BY file`);
    expect(runs).toHaveLength(committed.length + 3);
    const byFile = new Map(runs.map((r) => [r['file'], r]));
    for (const { path, result } of committed) {
      expect(byFile.get(path), path).toEqual({ file: path, model_weights: 'dummy', host_virtualization: 'kvm', host_steal_pct: result.run!.host.steal_pct, host_cpus: 2 });
    }
    expect(runs.filter((r) => r['host_cpus'] === 64).map((r) => [r['model_weights'], r['host_virtualization'], r['host_steal_pct']]).sort()).toEqual([[null, null, null], [null, null, null], [null, 'none', 0]]);
    const points = await query(`SELECT model_weights, count(*)::INTEGER AS n FROM read_parquet('${out}/data/parquet/latest/points/*.parquet') GROUP BY ALL ORDER BY ALL`);
    expect(points).toEqual([{ model_weights: 'dummy', n: committed.reduce((n, c) => n + c.result.points.length, 0) }, { model_weights: null, n: gpu.points.length * 3 }]);
  });

  it('the data dictionary describes the new columns', () => {
    const dictionary = JSON.parse(readFileSync(join(out, 'data', 'dictionary.json'), 'utf8')) as { tables: Record<string, Array<{ name: string; description: string }>> };
    const runs = new Map(dictionary.tables['runs']!.map((c) => [c.name, c.description]));
    expect(runs.get('model_weights')).toMatch(/seeded random weights/);
    expect(runs.get('host_virtualization')).toMatch(/vCPUs shared with other tenants/);
    expect(runs.get('host_steal_pct')).toMatch(/stole/);
    expect(runs.get('host_cpus')).toMatch(/vCPUs on a virtual machine/);
  });
});
