/**
 * GPU telemetry from nvidia-smi: static facts (model, memory, driver, CUDA) once, then a sampler
 * (`--query-gpu … -lms 200`) for the whole run, each line stamped on arrival. Per point the
 * samples inside its time window give peak memory, mean power, energy (trapezoid), utilization
 * and SM clock. Where nvidia-smi is missing, there is simply no GPU telemetry (null).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface GpuFacts {
  readonly gpus: Array<{ index: number; name: string; memory_total_mib: number }>;
  readonly driver: string | null;
  readonly cuda: string | null;
}

export interface GpuSample {
  /** Epoch milliseconds when the line arrived. */
  readonly t: number;
  readonly index: number;
  readonly memoryUsedMiB: number | null;
  readonly powerW: number | null;
  readonly utilizationPercent: number | null;
  readonly smClockMHz: number | null;
}

export interface GpuWindow {
  peak_memory_mib: number | null;
  mean_power_w: number | null;
  energy_j: number | null;
  mean_utilization_percent: number | null;
  mean_sm_clock_mhz: number | null;
  samples: number;
}

export interface GpuSampler {
  readonly facts: GpuFacts;
  samples(): readonly GpuSample[];
  stop(): void;
}

const SAMPLE_MS = 200;
const PROGRAM = 'nvidia-smi';

function run(args: readonly string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(PROGRAM, args, { timeout: 15_000 }, (error, stdout) => resolve(error ? null : stdout));
  });
}

/** A CSV number, or null for "[N/A]", "[Not Supported]" and the like. */
function num(text: string | undefined): number | null {
  const value = Number(text?.trim());
  return text === undefined || text.trim() === '' || Number.isNaN(value) ? null : value;
}

export function parseSampleLine(line: string, t: number): GpuSample | null {
  const [index, memory, power, util, clock] = line.split(',');
  const gpu = num(index);
  if (gpu === null) return null;
  return { t, index: gpu, memoryUsedMiB: num(memory), powerW: num(power), utilizationPercent: num(util), smClockMHz: num(clock) };
}

export async function gpuFacts(gpus: readonly number[]): Promise<GpuFacts | null> {
  const select = gpus.length > 0 ? ['-i', gpus.join(',')] : [];
  const csv = await run(['--query-gpu=index,name,memory.total,driver_version', '--format=csv,noheader,nounits', ...select]);
  if (csv === null) return null;
  const rows = csv.trim().split('\n').filter((line) => line.trim() !== '').map((line) => line.split(',').map((cell) => cell.trim()));
  const header = await run([]);
  return {
    gpus: rows.map(([index, name, total]) => ({ index: Number(index), name: name ?? 'unknown', memory_total_mib: Number(total) })),
    driver: rows[0]?.[3] ?? null,
    cuda: header?.match(/CUDA Version:\s*([\d.]+)/)?.[1] ?? null,
  };
}

export async function startGpuSampler(gpus: readonly number[]): Promise<GpuSampler | null> {
  const facts = await gpuFacts(gpus);
  if (facts === null) return null;
  const samples: GpuSample[] = [];
  const select = gpus.length > 0 ? ['-i', gpus.join(',')] : [];
  const child: ChildProcess = spawn(PROGRAM, ['--query-gpu=index,memory.used,power.draw,utilization.gpu,clocks.sm', '--format=csv,noheader,nounits', `-lms`, String(SAMPLE_MS), ...select], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  child.on('error', () => undefined);
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const sample = parseSampleLine(line, Date.now());
    if (sample) samples.push(sample);
  });
  return { facts, samples: () => samples, stop: () => void child.kill() };
}

function mean(values: number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Statistics of the samples in [fromMs, toMs]; energy integrates each GPU's power over time. */
export function summarizeGpuWindow(samples: readonly GpuSample[], fromMs: number, toMs: number): GpuWindow {
  const inside = samples.filter((s) => s.t >= fromMs && s.t <= toMs);
  const byGpu = new Map<number, GpuSample[]>();
  for (const s of inside) byGpu.set(s.index, [...(byGpu.get(s.index) ?? []), s]);
  let energy: number | null = null;
  for (const series of byGpu.values()) {
    for (let i = 1; i < series.length; i++) {
      const [a, b] = [series[i - 1]!, series[i]!];
      if (a.powerW === null || b.powerW === null) continue;
      energy = (energy ?? 0) + ((a.powerW + b.powerW) / 2) * ((b.t - a.t) / 1000);
    }
  }
  // Peak memory of the busiest GPU; power summed over GPUs at each moment, then averaged.
  const memory = inside.map((s) => s.memoryUsedMiB).filter((v): v is number => v !== null);
  const perGpuPower = [...byGpu.values()].map((series) => mean(series.map((s) => s.powerW).filter((v): v is number => v !== null)));
  const power = perGpuPower.every((p) => p !== null) && perGpuPower.length > 0 ? perGpuPower.reduce((a, b) => a! + b!, 0) : null;
  return {
    peak_memory_mib: memory.length > 0 ? Math.max(...memory) : null,
    mean_power_w: power,
    energy_j: energy,
    mean_utilization_percent: mean(inside.map((s) => s.utilizationPercent).filter((v): v is number => v !== null)),
    mean_sm_clock_mhz: mean(inside.map((s) => s.smClockMHz).filter((v): v is number => v !== null)),
    samples: inside.length,
  };
}
