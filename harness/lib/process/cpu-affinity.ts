/**
 * Pinning processes to CPUs (Linux taskset), so a benchmark or timing test measures the load
 * generator rather than the scheduler moving it and the server onto one core.
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

/**
 * Pins a running process, all its threads included (V8's and libuv's helper threads exist from
 * the start); returns false where taskset or the CPU is unavailable, and then nothing changed.
 */
export function pinProcess(pid: number, cpuList: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-cp', cpuList, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** All CPUs, as taskset writes them (to undo a pin). */
export function allCpus(): string {
  return `0-${cpus().length - 1}`;
}
