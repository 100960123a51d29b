/**
 * What ends a launched engine when servebench dies without stopping it. A stop signal tears the
 * engine down (runner, stop-signals.ts) and an exit or a crash kills its group (owned-groups.ts),
 * but nothing runs in a process killed with SIGKILL: a scheduler whose grace ran out, the OOM
 * killer, `kill -9`. The engine then ran on, on a GPU host holding the GPU, and a docker
 * container was never removed.
 *
 * The watchdog is a tiny second process (sh) holding the read end of a pipe whose write end only
 * servebench has; the kernel closes that end when servebench dies, however it dies. At end of file
 * the watchdog ends the engine: SIGTERM to its process group, SIGKILL after the grace if it is
 * still there; or `docker rm --force` of its container. A normal stop disarms it first (a line on
 * the pipe), so it never acts on a group that is gone and whose id the kernel may give out again.
 * It runs in a session of its own, so a terminal's Ctrl-C or hang-up, meant for servebench, does
 * not end it before servebench has stopped the engine.
 */
import { spawn } from 'node:child_process';

/** The watchdog's name in `ps` (its $0), so that it can be told from the engine it watches. */
export const WATCHDOG_NAME = 'servebench-watchdog';

export type WatchdogTarget =
  | { readonly group: number; readonly graceMs: number }
  | { readonly container: string };

// `read` returns 0 on a line (disarmed) and non-zero at end of file (servebench is gone).
// Arguments are positional ($1, $2), never spliced into the script.
const END_GROUP = `
if read -r _; then exit 0; fi
kill -TERM "-$1" 2>/dev/null || exit 0
i=0
while [ "$i" -lt "$2" ]; do
  kill -0 "-$1" 2>/dev/null || exit 0
  sleep 0.1
  i=$((i + 1))
done
kill -KILL "-$1" 2>/dev/null
exit 0
`;

const REMOVE_CONTAINER = `
if read -r _; then exit 0; fi
exec docker rm --force "$1" >/dev/null 2>&1
`;

export interface Watchdog {
  /** The watchdog's pid. */
  readonly pid: number;
  /** Tells it the engine was stopped: it exits without acting. Safe to call twice. */
  disarm(): void;
}

export function startWatchdog(target: WatchdogTarget): Watchdog {
  if ('group' in target && !(Number.isInteger(target.group) && target.group > 1)) throw new Error(`not a process group id: ${target.group}`);
  const [script, args] = 'group' in target ? [END_GROUP, [String(target.group), String(Math.ceil(target.graceMs / 100))]] : [REMOVE_CONTAINER, [target.container]];
  const child = spawn('sh', ['-c', script, WATCHDOG_NAME, ...args], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  // Neither the watchdog nor its pipe keeps servebench's event loop alive.
  child.unref();
  const pipe = child.stdin!;
  (pipe as unknown as { unref(): void }).unref();
  // It may be gone already (killed by hand): a write to a closed pipe is nothing to report.
  pipe.on('error', () => {});
  child.on('error', () => {});
  let disarmed = false;
  return {
    pid: child.pid ?? -1,
    disarm() {
      if (disarmed) return;
      disarmed = true;
      pipe.end('disarm\n');
    },
  };
}
