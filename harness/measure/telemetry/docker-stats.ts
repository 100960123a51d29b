/**
 * Container CPU and memory from `docker stats` (the container's cgroup), sampled about once a
 * second for the docker launcher — the counterpart of /proc sampling for process launches.
 */
import { execFile } from 'node:child_process';
import type { ProcSample, ProcSampler } from './proc-sampler.ts';

const SAMPLE_MS = 1000;
const UNITS: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4, kB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12 };

/** "12.5%|1.5GiB / 80GiB" → CPU percent and resident bytes. */
export function parseDockerStats(line: string): { cpuPercent: number; memoryBytes: number } | null {
  const [cpu, memory] = line.trim().split('|');
  const usage = memory?.split('/')[0]?.trim().match(/^([\d.]+)\s*([A-Za-z]+)$/);
  const percent = Number(cpu?.replace('%', ''));
  if (!usage || Number.isNaN(percent) || UNITS[usage[2]!] === undefined) return null;
  return { cpuPercent: percent, memoryBytes: Math.round(Number(usage[1]) * UNITS[usage[2]!]!) };
}

/** Samples as cumulative CPU seconds (integrated from the percentages), like the /proc sampler. */
export function startDockerStatsSampler(container: string): ProcSampler {
  const samples: ProcSample[] = [];
  let cpuSeconds = 0;
  let last: number | null = null;
  let busy = false;
  const take = (): void => {
    if (busy) return;
    busy = true;
    execFile('docker', ['stats', '--no-stream', '--format', '{{.CPUPerc}}|{{.MemUsage}}', container], { timeout: 10_000 }, (error, stdout) => {
      busy = false;
      const reading = error ? null : parseDockerStats(stdout);
      if (!reading) return;
      const t = Date.now();
      if (last !== null) cpuSeconds += (reading.cpuPercent / 100) * ((t - last) / 1000);
      last = t;
      samples.push({ t, cpuSeconds, rssBytes: reading.memoryBytes });
    });
  };
  take();
  const timer = setInterval(take, SAMPLE_MS);
  timer.unref();
  return { samples: () => samples, stop: () => clearInterval(timer) };
}
