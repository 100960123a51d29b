/**
 * The process groups servebench started (launched engines) and must not leave behind. The
 * launcher stops each one itself; this list is for the two ways that can be cut short: a second
 * stop signal asks for the engine to go at once (no grace), and an exit before the launcher got
 * to it (process.exit, a crash) would otherwise orphan the engine — on a GPU host, with the GPU.
 * Only SIGKILL of servebench itself can still leave a group; nothing runs then.
 */

/** Each group we own, with what to call once it has been sent SIGKILL from here. */
const groups = new Map<number, () => void>();
let exitHookInstalled = false;

/** Sends `signal` to a whole group; a group that is already gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  // kill(-0) and kill(-1) mean our own group and every process we may signal: never a mistake to make.
  if (!Number.isInteger(pgid) || pgid <= 1) throw new Error(`not a process group id: ${pgid}`);
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

export interface OwnedGroup {
  /** Settles when killOwnedGroups sent the group SIGKILL: its owner need not wait out a grace any more. */
  readonly killed: Promise<void>;
  /** No longer ours (it has been stopped). */
  disown(): void;
}

/** Records a group as ours until it is disowned. */
export function ownGroup(pgid: number): OwnedGroup {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // 'exit' listeners run synchronously and last: a kill is all that can be done there.
    process.on('exit', () => killOwnedGroups('SIGKILL'));
  }
  let onKilled = (): void => {};
  const killed = new Promise<void>((resolve) => (onKilled = resolve));
  groups.set(pgid, onKilled);
  return {
    killed,
    disown: () => {
      groups.delete(pgid);
    },
  };
}

/** Signals every group still ours (best effort: one that cannot be signalled is skipped). */
export function killOwnedGroups(signal: NodeJS.Signals): void {
  for (const [pgid, onKilled] of groups) {
    try {
      signalGroup(pgid, signal);
    } catch {
      continue; // EPERM: not ours to signal any more (the id was reused); nothing else to try
    }
    if (signal === 'SIGKILL') onKilled();
  }
}
