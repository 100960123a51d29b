/**
 * The lanes of the compiled data (lanes.json, worded by the compile from the runs' own fields)
 * as the pages use them: the line a page states, a hardware key's display name, and what
 * throughput is divided by. The hardware key itself stays in URLs and filters (configurations and
 * result paths are named by it); only what a reader sees changes.
 */
import type { Lane } from '../../harness/contract/site-data.ts';
import { lanes } from './data.ts';

const BY_HARDWARE = new Map(lanes().map((lane) => [lane.hardware, lane]));

/** The lanes of these hardware keys, in the compiled order; every lane when none are named. */
export function lanesOf(hardware?: readonly string[]): Lane[] {
  return hardware === undefined ? [...BY_HARDWARE.values()] : [...BY_HARDWARE.values()].filter((lane) => hardware.includes(lane.hardware));
}

/** "2 vCPU AMD EPYC (KVM)" for the key cpu-2x-AMD EPYC; the key itself when no lane names it. */
export function hardwareName(hardware: string): string {
  return BY_HARDWARE.get(hardware)?.hardware_label ?? hardware;
}

/** "GPU" or "host": per GPU only where the lane has GPUs; a key without a lane has none known. */
export function throughputPer(hardware: string): 'GPU' | 'host' {
  return BY_HARDWARE.get(hardware)?.throughput_per ?? 'host';
}
