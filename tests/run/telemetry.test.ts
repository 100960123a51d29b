/**
 * Telemetry: the window arithmetic on hand-made samples, and the wiring end to end with a fake
 * nvidia-smi on PATH (no GPU here; the fake prints nvidia-smi's CSV format with invented values).
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunResultSchema } from '../../harness/schema/result.ts';
import { parsePrometheus } from '../../harness/telemetry/engine-metrics.ts';
import { parseDockerStats } from '../../harness/telemetry/docker-stats.ts';
import { parseSampleLine, summarizeGpuWindow, type GpuSample } from '../../harness/telemetry/nvidia-smi.ts';
import { readProcessGroup, summarizeProcWindow } from '../../harness/telemetry/proc-sampler.ts';
import { runCli } from '../cli/run-cli.ts';

describe('GPU window statistics', () => {
  const samples: GpuSample[] = [];
  for (let k = 0; k <= 10; k++) {
    samples.push({ t: 1000 + 200 * k, index: 0, memoryUsedMiB: 1000 + k, powerW: 100 + 10 * k, utilizationPercent: 50, smClockMHz: 1500 });
    samples.push({ t: 1000 + 200 * k, index: 1, memoryUsedMiB: 2000, powerW: 200, utilizationPercent: 100, smClockMHz: 1700 });
  }

  it('energy is the trapezoid integral of each GPU, summed; power is summed over GPUs', () => {
    const w = summarizeGpuWindow(samples, 1000, 3000);
    // GPU 0: power rises linearly 100→200 W over 2 s: 300 J. GPU 1: 200 W × 2 s = 400 J.
    expect(w.energy_j).toBeCloseTo(700, 9);
    expect(w.mean_power_w).toBeCloseTo(150 + 200, 9);
    expect(w.peak_memory_mib).toBe(2000);
    expect(w.mean_utilization_percent).toBe(75);
    expect(w.samples).toBe(22);
  });

  it('only samples inside the window count; none is null, not zero', () => {
    expect(summarizeGpuWindow(samples, 1000, 1400).energy_j).toBeCloseTo(((100 + 110) / 2) * 0.2 + ((110 + 120) / 2) * 0.2 + 200 * 0.4, 9);
    expect(summarizeGpuWindow(samples, 9000, 9999)).toEqual({ peak_memory_mib: null, mean_power_w: null, energy_j: null, mean_utilization_percent: null, mean_sm_clock_mhz: null, samples: 0 });
  });

  it('reads nvidia-smi CSV lines, "[N/A]" as missing', () => {
    expect(parseSampleLine('0, 1234, 350.25, 87, 1980', 5)).toEqual({ t: 5, index: 0, memoryUsedMiB: 1234, powerW: 350.25, utilizationPercent: 87, smClockMHz: 1980 });
    expect(parseSampleLine('1, 1234, [N/A], 87, 1980', 5)!.powerW).toBeNull();
  });
});

describe('server process and engine metrics', () => {
  it('reads this process group from /proc', () => {
    const stat = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
    const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    const reading = readProcessGroup(pgid);
    expect(reading!.rssBytes).toBeGreaterThan(10_000_000);
    expect(summarizeProcWindow([{ t: 0, cpuSeconds: 1, rssBytes: 5 }, { t: 2000, cpuSeconds: 2, rssBytes: 9 }], 0, 2000)).toEqual({ cpu_percent: 50, rss_peak_bytes: 9 });
  });

  it('reads docker stats lines', () => {
    expect(parseDockerStats('12.50%|1.5GiB / 80GiB')).toEqual({ cpuPercent: 12.5, memoryBytes: 1.5 * 1024 ** 3 });
    expect(parseDockerStats('0.00%|512MiB / 7.6GiB')).toEqual({ cpuPercent: 0, memoryBytes: 512 * 1024 ** 2 });
    expect(parseDockerStats('--|-- / --')).toBeNull();
  });

  it('keeps the metrics that explain a result, summed over labels', () => {
    const text = '# HELP x\nvllm:num_requests_running{model="m"} 3\nvllm:num_requests_running{model="n"} 2\nvllm:kv_cache_usage_perc 0.5\nvllm:e2e_request_latency_seconds_bucket{le="1"} 4\nprocess_cpu_seconds_total 9\n';
    expect(parsePrometheus(text)).toEqual({ 'vllm:num_requests_running': 5, 'vllm:kv_cache_usage_perc': 0.5 });
  });
});

describe('servebench run with a (fake) GPU', () => {
  it('records the GPUs, and per point peak memory, power, energy and the engine metrics', { timeout: 60_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(
      ['run', '--engine', 'sim', '--model', 'sim-model', '--workload', 'smoke', '--gpu', '1', '--num-prompts', '16', '--results-dir', results],
      60_000,
      { PATH: `${resolve('tests/fixtures/fake-nvidia-smi')}:${process.env['PATH']}` },
    );
    expect(outcome.code).toBe(0);
    const file = (readdirSync(results, { recursive: true }) as string[]).find((f) => f.endsWith('.json'))!;
    expect(file).toMatch(/1x-nvidia-h100-80gb-hbm3\//);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(join(results, file), 'utf8')));
    expect(result.run!.hardware).toEqual({ gpus: [{ index: 1, name: 'NVIDIA H100 80GB HBM3', memory_total_mib: 81559 }], driver: '550.54.15', cuda: '12.4' });
    for (const point of result.points) {
      const gpu = point.telemetry!.gpu!;
      expect(gpu.samples).toBeGreaterThan(0);
      expect(gpu.mean_power_w).toBe(300);
      expect(gpu.peak_memory_mib).toBeGreaterThan(1000);
      // 300 W over the samples' span, which is within the point's duration.
      expect(gpu.energy_j!).toBeLessThanOrEqual(300 * point.metrics.duration_s + 1e-6);
      expect(point.telemetry!.server!.rss_peak_bytes).toBeGreaterThan(10_000_000);
      expect(point.telemetry!.engine_metrics!.after['sim_generation_tokens_total']).toBeGreaterThan(point.telemetry!.engine_metrics!.before['sim_generation_tokens_total']!);
    }
  });
});

describe('fatal log lines', () => {
  it('are found in what the log appended since the last look, also when a line arrives in pieces', async () => {
    const { appendFileSync, mkdtempSync: tempDir } = await import('node:fs');
    const { fatalLineWatcher } = await import('../../harness/run/health.ts');
    const file = join(tempDir(join(tmpdir(), 'sb-log-')), 'server.log');
    const next = fatalLineWatcher(file, [/CUDA out of memory/]);
    expect(next()).toBeNull(); // no log yet
    appendFileSync(file, 'loading weights\nallocating KV cache: CUDA out');
    expect(next()).toBeNull(); // the line is not complete yet
    appendFileSync(file, ' of memory\nshutting down\n');
    expect(next()).toBe('allocating KV cache: CUDA out of memory');
    expect(next()).toBeNull(); // nothing new since
  });
});
