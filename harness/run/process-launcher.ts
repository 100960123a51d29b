/**
 * The `process` launcher: a local command (llama-server on PATH, vllm in a virtualenv, the sim) in
 * its own process group, logging to a file, stopped with its whole group (TERM, then KILL after a
 * grace period) so that no child it started survives the run.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LaunchedServer } from './launched-server.ts';

export interface ProcessLaunch {
  readonly argv: readonly string[];
  readonly endpoint: string;
  readonly logFile: string;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** How long the group gets to exit after SIGTERM before SIGKILL. */
  readonly graceMs?: number;
}

export class LaunchError extends Error {}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

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
        if (status === null) killGroup(pid, 'SIGTERM');
        const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), launch.graceMs ?? 10_000);
        await exited;
        clearTimeout(timer);
        // The leader is gone; make sure nothing it started outlives it.
        killGroup(pid, 'SIGKILL');
      })();
      return stopping;
    },
  };
}
