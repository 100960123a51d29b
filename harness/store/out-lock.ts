/**
 * One compile at a time per output folder. Two compiles of the same --out (a nightly job and a
 * maintainer's rebuild, two CI steps) met in DuckDB's own file lock on the store and the second
 * died with "internal error, please report"; had they not, both would have replaced parquet/latest/
 * and site/ under each other. The lock is a file in the folder, created whole and atomically (a
 * hard link, which fails if the lock exists), naming who holds it; it is stale, and taken over,
 * once that process is gone.
 */
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { EXIT, ServebenchError } from '../lib/errors.ts';
import { processStartTicks, sameProcessAlive } from '../lib/process/process-identity.ts';

export const LOCK_FILE = '.servebench-compile.lock';

interface LockHolder {
  readonly pid: number;
  /** /proc start time of the holder, so a reused pid is not taken for it. */
  readonly start_ticks: string | null;
  readonly host: string;
  readonly started_at: string;
  readonly command: string;
}

export interface OutLock {
  /** Removes the lock file if it is still this process's; safe to call twice. */
  release(): void;
}

function readHolder(path: string): LockHolder | null {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    return typeof holder.pid === 'number' && typeof holder.host === 'string' ? (holder as LockHolder) : null;
  } catch {
    return null; // gone meanwhile, or not a lock of ours (edited by hand)
  }
}

/** A holder on this host whose process is gone; one on another host (a shared folder) cannot be checked and counts as live. */
function isStale(holder: LockHolder | null): boolean {
  if (holder === null) return true;
  return holder.host === hostname() && !sameProcessAlive(holder.pid, holder.start_ticks ?? null);
}

/** Creates the lock whole or not at all: written under a temporary name, then linked (link fails if the lock exists). */
function tryCreate(path: string, holder: LockHolder): boolean {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(holder, null, 2)}\n`);
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * Moves a stale lock aside (rename is atomic: of two processes that both found it stale, one
 * moves it) and checks that what was moved is the stale holder read before, not a lock another
 * process took meanwhile.
 */
function removeStale(path: string, stale: LockHolder | null): void {
  const aside = `${path}.stale-${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else moved it first
  }
  const moved = readHolder(aside);
  if (moved !== null && stale !== null && (moved.pid !== stale.pid || moved.started_at !== stale.started_at)) {
    // A live holder's lock: put it back (unless yet another one was created meanwhile).
    try {
      renameSync(aside, path);
      return;
    } catch {
      // fall through: nothing more can be done safely
    }
  }
  rmSync(aside, { force: true });
}

function busyError(outDir: string, path: string, holder: LockHolder | null): ServebenchError {
  const who = holder === null ? 'another compile' : `another ${holder.command} (pid ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`}, started ${holder.started_at})`;
  return new ServebenchError(
    `--out ${outDir} is busy: ${who} is writing it; wait for it to finish and run this again, or give another --out. If no such process runs any more, remove ${path}`,
    EXIT.busy,
  );
}

/** Takes the output folder's lock for `command`, or throws the "busy" error (exit 75) naming who holds it. */
export function lockOutFolder(outDir: string, command: string): OutLock {
  const path = join(outDir, LOCK_FILE);
  const holder: LockHolder = { pid: process.pid, start_ticks: processStartTicks(process.pid), host: hostname(), started_at: new Date().toISOString(), command };
  // Twice at most: once as found, once after moving a stale lock aside.
  for (let attempt = 0; ; attempt++) {
    if (tryCreate(path, holder)) break;
    const current = readHolder(path);
    if (attempt > 0 || !isStale(current)) throw busyError(outDir, path, current);
    removeStale(path, current);
  }
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.off('exit', release);
    const current = readHolder(path);
    if (current?.pid === holder.pid && current.started_at === holder.started_at) rmSync(path, { force: true });
  };
  // A compile that ends by an uncaught error or process.exit leaves no lock; one killed by a signal leaves a stale one.
  process.on('exit', release);
  return { release };
}
