/**
 * Server CPU and memory for a process launch, from /proc: every process in the server's process
 * group (workers and helpers included), sampled twice a second, summed. Linux only; elsewhere
 * there are no samples.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcSample {
  readonly t: number;
  readonly cpuSeconds: number;
  readonly rssBytes: number;
}

const SAMPLE_MS = 500;
const TICKS_PER_SECOND = 100; // USER_HZ on Linux
const PAGE_BYTES = 4096; // x86-64 and arm64 Linux

/** CPU seconds and resident bytes of every process whose process group is `pgid`. */
export function readProcessGroup(pgid: number): { cpuSeconds: number; rssBytes: number } | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  let ticks = 0;
  let pages = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone between listing and reading
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== pgid) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
    pages += Number(fields[21]);
  }
  return { cpuSeconds: ticks / TICKS_PER_SECOND, rssBytes: pages * PAGE_BYTES };
}

export interface ProcSampler {
  samples(): readonly ProcSample[];
  stop(): void;
}

export function startProcSampler(pgid: number): ProcSampler {
  const samples: ProcSample[] = [];
  const take = (): void => {
    const reading = readProcessGroup(pgid);
    if (reading) samples.push({ t: Date.now(), ...reading });
  };
  take();
  const timer = setInterval(take, SAMPLE_MS);
  timer.unref();
  return { samples: () => samples, stop: () => clearInterval(timer) };
}

export function summarizeProcWindow(samples: readonly ProcSample[], fromMs: number, toMs: number): { cpu_percent: number | null; rss_peak_bytes: number | null } {
  const inside = samples.filter((s) => s.t >= fromMs && s.t <= toMs);
  if (inside.length === 0) return { cpu_percent: null, rss_peak_bytes: null };
  const first = inside[0]!;
  const last = inside[inside.length - 1]!;
  const seconds = (last.t - first.t) / 1000;
  return {
    cpu_percent: seconds > 0 ? ((last.cpuSeconds - first.cpuSeconds) / seconds) * 100 : null,
    rss_peak_bytes: Math.max(...inside.map((s) => s.rssBytes)),
  };
}
