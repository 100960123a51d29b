/**
 * `npx servebench …` (and `npm exec servebench …`) runs servebench under a shell of npm's:
 * npm → sh -c 'servebench …' → node. npm forwards SIGINT and SIGTERM to that shell only
 * (@npmcli/run-script's signal manager), and the shell (dash) dies of the signal without passing
 * it on: npm exited while servebench and its engine ran on, detached, with no interrupted result.
 * Nothing makes that shell forward a signal, but its death shows: servebench's parent changes (the
 * kernel hands it to init or a subreaper). servebench then takes the signal the shell was sent:
 * SIGTERM, the one npm forwards for `kill` and schedulers. A Ctrl-C reaches servebench itself
 * (SIGINT to the terminal's whole foreground group) and is already being handled then; nothing
 * more is sent.
 */
import { readFileSync } from 'node:fs';
import { stopSignalReceived } from './stop-signals.ts';

/** How often the parent is looked at: a stop within a fraction of a second, for a syscall's cost. */
const POLL_MS = 200;
/** A Ctrl-C that also ended the shell is handled within this; only a signal that reached nobody else is sent. */
const SETTLE_MS = 100;

/** A process's command line as /proc shows it (npm writes its title there: "npm exec servebench …"), or null. */
function commandLine(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return null;
  }
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/**
 * Whether npm exec / npx started this process through its shell. npm sets npm_command for what it
 * runs, but every process below inherits it (a test run under `npx vitest`): where /proc can tell,
 * the parent's parent must also be that npm (its title: "npm exec …").
 */
export function startedByNpmExec(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['npm_command'] !== 'exec') return false;
  const grandparent = parentOf(process.ppid);
  const title = grandparent === null ? null : commandLine(grandparent);
  return title === null || title.startsWith('npm exec') || title.startsWith('npx');
}

/** Sends this process SIGTERM once the shell npm started it from has gone (only under npm exec). */
export function stopWhenLauncherShellDies(env: NodeJS.ProcessEnv = process.env): void {
  if (!startedByNpmExec(env)) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    setTimeout(() => {
      if (stopSignalReceived() === null) process.kill(process.pid, 'SIGTERM');
    }, SETTLE_MS).unref();
  }, POLL_MS);
  // Never what keeps servebench running.
  timer.unref();
}
