/**
 * Telling whether a process recorded earlier (in a lock file, a container label) is still the one
 * running under its pid. A pid alone is not enough: pids are reused, and a lock or container left
 * by a crashed servebench would then be kept for as long as some unrelated process held that number.
 * Linux gives each process a start time (clock ticks since boot, /proc/<pid>/stat field 22) that
 * with the pid names it for the life of the boot.
 */
import { readFileSync, readlinkSync } from 'node:fs';

/** The process's start time in clock ticks since boot, or null where /proc cannot tell (not Linux, gone). */
export function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether a process with this pid exists (one of another user's counts: EPERM means it is there). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process recorded as (pid, start ticks) still runs. Without a recorded start time (a
 * record from a system without /proc) the pid alone decides.
 */
export function sameProcessAlive(pid: number, startTicks: string | null): boolean {
  if (!pidAlive(pid)) return false;
  if (startTicks === null) return true;
  const now = processStartTicks(pid);
  return now === null || now === startTicks;
}

/** This kernel's boot: a random id (/proc/sys/kernel/random/boot_id), or null off Linux. */
export function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

/** This process's pid namespace (the inode in /proc/self/ns/pid), or null off Linux: a pid means something only inside it. */
export function pidNamespace(): string | null {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? null;
  } catch {
    return null;
  }
}
