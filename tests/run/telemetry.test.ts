/**
 * Telemetry: the window arithmetic on hand-made samples, and the wiring end to end with a fake
 * nvidia-smi on PATH (no GPU here; the fake prints nvidia-smi's CSV format with invented values)
 * and a fake amd-smi (replaying amd-smi JSON recorded on real machines, see its header).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { parsePrometheus } from '../../harness/measure/telemetry/engine-metrics.ts';
import { parseDockerStats } from '../../harness/measure/telemetry/docker-stats.ts';
import { parseSampleLine, summarizeGpuWindow, type GpuSample } from '../../harness/measure/telemetry/nvidia-smi.ts';
import { amdSmiGpus, parseMetricJson, parseRocmVersion, parseStaticJson } from '../../harness/measure/telemetry/amd-smi.ts';
import { readProcessGroup, summarizeProcWindow } from '../../harness/measure/telemetry/proc-sampler.ts';
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

describe('amd-smi JSON', () => {
  // Recorded on a Radeon Pro W7700 (amd-smi of ROCm 6.x: a bare list, {value, unit} leaves):
  // https://github.com/henrygd/beszel/issues/737, `amd-smi metric -u --json`. Verbatim except the
  // 32 "N/A" of jpeg_activity, shortened to 4.
  const w7700Usage = `[
    {
        "gpu": 0,
        "usage": {
            "gfx_activity": {
                "value": 42,
                "unit": "%"
            },
            "umc_activity": {
                "value": 1,
                "unit": "%"
            },
            "mm_activity": {
                "value": 0,
                "unit": "%"
            },
            "vcn_activity": [
                {
                    "value": 0,
                    "unit": "%"
                },
                "N/A",
                "N/A",
                "N/A"
            ],
            "jpeg_activity": [
                "N/A",
                "N/A",
                "N/A",
                "N/A"
            ]
        }
    }
]`;

  // Recorded on a Strix Halo APU where nothing was readable: https://github.com/ROCm/rocm-systems/pull/2720,
  // `amd-smi metric -w 1 --json` (its banner line included). Verbatim up to gfx_1, then closed.
  const strixHaloNA = `'CTRL' + 'C' to stop watching output:
[
    {
        "timestamp": 1769014607,
        "gpu": 0,
        "usage": "N/A",
        "power": {
            "socket_power": "N/A",
            "gfx_voltage": "N/A",
            "soc_voltage": "N/A",
            "mem_voltage": "N/A",
            "throttle_status": "N/A",
            "power_management": "N/A"
        },
        "clock": {
            "gfx_0": {
                "clk": "N/A",
                "min_clk": "N/A",
                "max_clk": "N/A",
                "clk_locked": "N/A",
                "deep_sleep": "N/A"
            },
            "gfx_1": {
                "clk": "N/A",
                "min_clk": "N/A",
                "max_clk": "N/A",
                "clk_locked": "N/A",
                "deep_sleep": "N/A"
            }
        }
    }
]`;

  it('reads the activity of a real answer, and what it did not ask for as null', () => {
    expect(parseMetricJson(w7700Usage, 7)).toEqual([{ t: 7, index: 0, memoryUsedMiB: null, powerW: null, utilizationPercent: 42, smClockMHz: null }]);
  });

  it('reads "N/A" everywhere as null, not zero, past a banner line', () => {
    expect(parseMetricJson(strixHaloNA, 1)).toEqual([{ t: 1, index: 0, memoryUsedMiB: null, powerW: null, utilizationPercent: null, smClockMHz: null }]);
  });

  it('reads the {"gpu_data": [...]} envelope of amd-smi 26+: power, GFX activity, the mean GFX clock, VRAM in MiB', () => {
    const fake = resolve('tests/fixtures/fake-amd-smi/amd-smi');
    const answer = execFileSync(process.execPath, [fake, 'metric', '--json', '--mem-usage', '--usage', '--power', '--clock', '-g', '0', '1'], { encoding: 'utf8' });
    expect(JSON.parse(answer)).toHaveProperty('gpu_data');
    expect(parseMetricJson(answer, 3)).toEqual([
      // MI300X figures from AMD's amd-smi blog post; the clock is the mean of gfx_0..gfx_7.
      { t: 3, index: 0, memoryUsedMiB: 7523, powerW: 234, utilizationPercent: 100, smClockMHz: (2102 + 2101 + 2107 + 5 * 2102) / 8 },
      { t: 3, index: 1, memoryUsedMiB: 7556, powerW: 143, utilizationPercent: 13, smClockMHz: 358 },
    ]);
  });

  it('converts memory by its unit ("MB" is MiB in amd-smi), reads bare numbers and older power names', () => {
    const older = JSON.stringify([{ gpu: 2, mem_usage: { used_vram: { value: 34359738368, unit: 'B' } }, power: { current_power: 98 }, usage: { gfx_activity: 55 }, clock: { gfx: { clk: '1700 MHz' } } }]);
    expect(parseMetricJson(older, 0)).toEqual([{ t: 0, index: 2, memoryUsedMiB: 32768, powerW: 98, utilizationPercent: 55, smClockMHz: 1700 }]);
    expect(amdSmiGpus('not json')).toEqual([]);
    expect(amdSmiGpus('{"gpu_data": []}')).toEqual([]);
  });

  it('reads the GPUs of `amd-smi static --json`: market name, VRAM size, driver', () => {
    // The vram block is verbatim from AMD's blog (`amd-smi static --json | jq '.[0]["vram"]'` on an
    // MI300X); the name is its MARKET_NAME line. A bare list: the ROCm 6.x shape.
    const mi300x = `[{"gpu": 0, "asic": {"market_name": "MI300X-O", "device_id": "0x74a1"}, "vram": {"type": "HBM", "vendor": "N/A", "size": {"value": 196592, "unit": "MB"}}}]`;
    expect(parseStaticJson(mi300x)).toEqual({ gpus: [{ index: 0, name: 'MI300X-O', memory_total_mib: 196592 }], driver: null });
    // The asic block is verbatim from an RX 7800 XT (https://github.com/nathaninline/ajean/issues/39),
    // after the Python warnings amd-smi printed first there; no vram or driver section asked for.
    const rx7800 = `/usr/lib/python3.14/site-packages/amdsmi/amdsmi_interface.py:3569: SyntaxWarning: 'return' in a 'finally' block
  return return_dictionary
{
    "gpu_data": [
        {
            "gpu": 0,
            "asic": {
                "market_name": "AMD Radeon RX 7800 XT",
                "vendor_id": "0x1002",
                "vendor_name": "Advanced Micro Devices Inc. [AMD/ATI]",
                "subvendor_id": "0x1eae",
                "device_id": "0x747e",
                "subsystem_id": "0x7801",
                "rev_id": "0xc8",
                "asic_serial": "0x4162405E51BB99B0",
                "oam_id": "N/A",
                "num_compute_units": 60,
                "target_graphics_version": "gfx1101"
            },
            "driver": {"name": "amdgpu", "version": "N/A"}
        }
    ]
}`;
    expect(parseStaticJson(rx7800)).toEqual({ gpus: [{ index: 0, name: 'AMD Radeon RX 7800 XT', memory_total_mib: null }], driver: null });
  });

  it('reads the ROCm version from `amd-smi version` and from the usage banner', () => {
    // Recorded on an MI300X Azure VM, and the banner in AMD's amd-smi docs (latest).
    expect(parseRocmVersion('AMDSMI Tool: 25.3.0+ede62f2 | AMDSMI Library version: 25.3.0 | ROCm version: 6.4.0 | amdgpu version: 6.12.12 | amd_hsmp version: N/A\n')).toBe('6.4.0');
    expect(parseRocmVersion('AMD System Management Interface | Version: 26.2.1 | ROCm version: 7.2.0 | Platform: Linux Baremetal')).toBe('7.2.0');
    expect(parseRocmVersion('AMDSMI Tool: 26.2.2 | AMDSMI Library version: 26.2.2 | ROCm version: N/A')).toBeNull();
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

describe('servebench run that fails to launch, on a (fake) GPU', () => {
  it('still records the hardware it was given (collect matches it to its planned job by GPU type)', { timeout: 60_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    // vllm is not installed here: the process launch fails at once.
    const outcome = await runCli(
      ['run', '--engine', 'vllm', '--model', 'm', '--workload', 'smoke', '--gpu', '1', '--results-dir', results],
      60_000,
      { PATH: `${resolve('tests/fixtures/fake-nvidia-smi')}:${process.env['PATH']}` },
    );
    expect(outcome.code).toBe(1);
    const file = (readdirSync(results, { recursive: true }) as string[]).find((f) => f.endsWith('.json'))!;
    const result = RunResultSchema.parse(JSON.parse(readFileSync(join(results, file), 'utf8')));
    expect([result.status, result.run!.failure!.phase]).toEqual(['failed', 'launch']);
    expect(result.run!.hardware!.gpus.map((g) => g.name)).toEqual(['NVIDIA H100 80GB HBM3']);
  });
});

describe('servebench run with a (fake) AMD GPU', () => {
  it('records the GPUs and ROCm version from amd-smi, and per point memory, power, utilization and GFX clock', { timeout: 60_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    // The fake amd-smi first, and no directory with an nvidia-smi (a real one would win).
    const path = [resolve('tests/fixtures/fake-amd-smi'), ...(process.env['PATH'] ?? '').split(delimiter).filter((dir) => dir !== '' && !existsSync(join(dir, 'nvidia-smi')))].join(delimiter);
    const outcome = await runCli(
      ['run', '--engine', 'sim', '--model', 'sim-model', '--workload', 'smoke', '--gpu', '1', '--num-prompts', '16', '--results-dir', results],
      60_000,
      { PATH: path },
    );
    expect(outcome.code).toBe(0);
    const file = (readdirSync(results, { recursive: true }) as string[]).find((f) => f.endsWith('.json'))!;
    expect(file).toMatch(/1x-mi300x-o\//);
    const result = RunResultSchema.parse(JSON.parse(readFileSync(join(results, file), 'utf8')));
    expect(result.run!.hardware).toEqual({ gpus: [{ index: 1, name: 'MI300X-O', memory_total_mib: 196592 }], driver: '6.12.12', cuda: null, rocm: '6.4.0' });
    for (const point of result.points) {
      const gpu = point.telemetry!.gpu!;
      // Only GPU 1 (the fake answers -g): GPU 0 would add 234 W and 100 %.
      expect(gpu.samples).toBeGreaterThan(0);
      expect(gpu.mean_power_w).toBe(143);
      expect(gpu.mean_utilization_percent).toBe(13);
      expect(gpu.mean_sm_clock_mhz).toBe(358);
      expect(gpu.peak_memory_mib).toBe(7556);
      if (gpu.samples > 1) expect(gpu.energy_j!).toBeLessThanOrEqual(143 * point.metrics.duration_s + 1e-6);
    }
  });
});

describe('fatal log lines', () => {
  it('are found in what the log appended since the last look, also when a line arrives in pieces', async () => {
    const { appendFileSync, mkdtempSync: tempDir } = await import('node:fs');
    const { fatalLineWatcher } = await import('../../harness/measure/run/health.ts');
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
