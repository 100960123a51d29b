/**
 * Pinning processes to CPUs (Linux taskset), so a benchmark or timing test measures the load
 * generator rather than the scheduler moving it and the server onto one core.
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

/** Pins a running process; returns false where taskset is unavailable (then nothing changed). */
export function pinProcess(pid: number, cpuList: string): boolean {
  try {
    execFileSync('taskset', ['-cp', cpuList, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** All CPUs, as taskset writes them (to undo a pin). */
export function allCpus(): string {
  return `0-${cpus().length - 1}`;
}
