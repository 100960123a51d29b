/**
 * Is the client itself the bottleneck? Watches this process while a point runs: event-loop delay
 * (how late a timestamp can be taken) and CPU use (a single JS thread tops out at one core).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ClientHealth } from '../../contract/result.ts';
import type { LiveCounters } from './send-request.ts';

/** Sampling interval of the delay monitor. Node records the whole interval, so we subtract it. */
const RESOLUTION_MS = 1;
/** Above these the client may have distorted its own timestamps; the point is flagged. */
export const SATURATION_CPU_PERCENT = 90;
export const SATURATION_EVENT_LOOP_P99_MS = 5;

export interface ClientMonitor {
  stop(): ClientHealth;
}

export function startClientMonitor(counters: LiveCounters): ClientMonitor {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const startWall = performance.now();
  const startCpu = process.cpuUsage();
  const startEvents = counters.contentEvents;
  return {
    stop() {
      histogram.disable();
      const wallMs = performance.now() - startWall;
      const cpu = process.cpuUsage(startCpu);
      const cpuPercent = wallMs > 0 ? ((cpu.user + cpu.system) / 1000 / wallMs) * 100 : 0;
      const excess = (ns: number): number => (histogram.count > 0 ? Math.max(0, ns / 1e6 - RESOLUTION_MS) : 0);
      const p99 = excess(histogram.percentile(99));
      return {
        event_loop_delay_p99_ms: p99,
        event_loop_delay_max_ms: excess(histogram.max),
        cpu_percent: cpuPercent,
        content_events_per_s: wallMs > 0 ? ((counters.contentEvents - startEvents) / wallMs) * 1000 : 0,
        saturated: cpuPercent >= SATURATION_CPU_PERCENT || p99 > SATURATION_EVENT_LOOP_P99_MS,
      };
    },
  };
}
