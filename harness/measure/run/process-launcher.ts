/**
 * The `process` launcher: a local command (llama-server on PATH, vllm in a virtualenv, the sim) in
 * its own process group, logging to a file, stopped with its whole group (TERM, then KILL after a
 * grace period) so that no child it started survives the run, nor servebench's own death by
 * SIGKILL (a watchdog, lib/process/watchdog.ts, ends the group then).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ownGroup, signalGroup } from '../../lib/process/owned-groups.ts';
import { startWatchdog } from '../../lib/process/watchdog.ts';
import type { LaunchedServer } from './launched-server.ts';

/**
 * How long the engine gets to exit after SIGTERM (freeing GPU memory, flushing logs) before
 * SIGKILL, and how long its leader may then take to be reaped. A leader stuck in the kernel (a
 * GPU driver call) can outlive SIGKILL for minutes: stop() gives up after KILL_WAIT_MS. With
 * `servebench run` killing the engine STOP_GRACE_MS after a stop signal whatever the run is doing,
 * a stopped run writes its result at most STOP_GRACE_MS + KILL_WAIT_MS (15 s) after the signal:
 * well inside the 30 s SLURM (KillWait) and Kubernetes (terminationGracePeriodSeconds) give by
 * default before they SIGKILL servebench itself.
 */
export const STOP_GRACE_MS = 10_000;
export const KILL_WAIT_MS = 5_000;

export interface ProcessLaunch {
  readonly argv: readonly string[];
  readonly endpoint: string;
  readonly logFile: string;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** How long the group gets to exit after SIGTERM before SIGKILL (default STOP_GRACE_MS). */
  readonly graceMs?: number;
}

export class LaunchError extends Error {}

export async function launchProcess(launch: ProcessLaunch): Promise<LaunchedServer> {
  mkdirSync(dirname(launch.logFile), { recursive: true });
  const log = openSync(launch.logFile, 'a');
  const [program, ...args] = launch.argv;
  const child = spawn(program!, args, {
    cwd: launch.cwd,
    env: launch.env ?? process.env,
    stdio: ['ignore', log, log],
    detached: true, // its own process group: stop() kills the group, grandchildren included
  });
  closeSync(log);
  let status: { code: number | null; signal: string | null } | null = null;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      status = { code, signal };
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(new LaunchError(error.code === 'ENOENT' ? `cannot start ${program}: not found (is it installed and on PATH?)` : `cannot start ${program}: ${error.message}`)),
    );
  });
  const pid = child.pid!;
  // Until stop() has seen it go: a second stop signal, the run's deadline or servebench's own exit kills it then.
  const owned = ownGroup(pid);
  const graceMs = launch.graceMs ?? STOP_GRACE_MS;
  // Until stop() has seen it go: servebench killed with SIGKILL, which no exit hook survives.
  const watchdog = startWatchdog({ group: pid, graceMs });
  let stopping: Promise<void> | null = null;
  return {
    endpoint: launch.endpoint,
    logFile: launch.logFile,
    launcher: 'process',
    command: [...launch.argv],
    image: null,
    imageDigest: null,
    pid,
    exitStatus: () => status,
    stop() {
      stopping ??= (async () => {
        if (status === null) signalGroup(pid, 'SIGTERM');
        const settled = new AbortController();
        const gone = await Promise.race([
          exited.then(() => true),
          (async () => {
            // A kill from elsewhere (a second signal, the run's deadline) ends the grace early:
            // the bound on the whole stop counts from the signal, not from this call.
            await Promise.race([delay(graceMs, undefined, { signal: settled.signal }), owned.killed]);
            signalGroup(pid, 'SIGKILL');
            await delay(KILL_WAIT_MS, undefined, { signal: settled.signal });
            return false;
          })().catch(() => true), // the leader exited first and the waits were cancelled
        ]);
        settled.abort();
        // Whatever the leader started must not outlive it; a leader still there gets another kill.
        signalGroup(pid, 'SIGKILL');
        if (!gone) throw new Error(`the server (process group ${pid}) was still there ${KILL_WAIT_MS / 1000} s after SIGKILL (stuck in the kernel, e.g. in a GPU driver call?)`);
        owned.disown();
        watchdog.disarm();
      })();
      return stopping;
    },
  };
}
