/**
 * The signals that ask servebench to stop, and the one way every command takes them:
 *
 * - SIGINT: Ctrl-C in the terminal.
 * - SIGTERM: `kill`, and schedulers ending a job (SLURM at the time limit or on scancel,
 *   Kubernetes deleting a pod, systemd), each sending SIGKILL after a grace period (SLURM's
 *   KillWait and Kubernetes' terminationGracePeriodSeconds: 30 s by default).
 * - SIGHUP: the terminal went away (an SSH session dropped). Its default action kills Node at
 *   once, which left a launched engine's process group running — on a GPU host, holding the GPU.
 *
 * Each one aborts what is running, tears the engine down and keeps what was measured; the command
 * then exits 128 + the signal's number, as a shell reports a process that signal killed.
 */
import { EXIT } from '../errors.ts';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

const EXIT_CODES: Readonly<Record<StopSignal, number>> = {
  SIGINT: EXIT.interrupted,
  SIGTERM: EXIT.terminated,
  SIGHUP: EXIT.hangup,
};

export function exitCodeFor(signal: StopSignal): number {
  return EXIT_CODES[signal];
}

let outputGuarded = false;
/** The first stop signal any handler of this process took, or null while none has arrived. */
let firstReceived: StopSignal | null = null;

/** The first stop signal this process's handlers took (null: none yet, or no command handles them). */
export function stopSignalReceived(): StopSignal | null {
  return firstReceived;
}

/**
 * After a hang-up every write to the terminal fails with EIO, and a closed pipe fails with EPIPE;
 * unhandled, either error crashes Node (exit 1) in the middle of tearing the engine down, before
 * the result is written. Nobody is left to read that output, so those two errors are dropped.
 */
function guardOutput(): void {
  if (outputGuarded) return;
  outputGuarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EIO' && error.code !== 'EPIPE') throw error;
    });
  }
}

/**
 * Calls `handler` on each stop signal with how many have arrived (1 for the first). Returns the
 * function that removes the handlers, after which a signal has its default action again.
 */
export function onStopSignal(handler: (signal: StopSignal, count: number) => void): () => void {
  guardOutput();
  let count = 0;
  const listener = (signal: NodeJS.Signals): void => {
    firstReceived ??= signal as StopSignal;
    count += 1;
    handler(signal as StopSignal, count);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, listener);
  return () => {
    for (const signal of STOP_SIGNALS) process.off(signal, listener);
  };
}

/**
 * Resolves with the first stop signal: for a server that runs until asked to stop. A second
 * signal while it closes has its default action (it ends the process at once).
 */
export function untilStopSignal(): Promise<StopSignal> {
  return new Promise((resolve) => {
    const remove = onStopSignal((signal) => {
      remove();
      resolve(signal);
    });
  });
}

export interface StopOnSignal {
  /** Aborted by the first stop signal. */
  readonly signal: AbortSignal;
  /** The first signal's exit code, or null while none has arrived. */
  exitCode(): number | null;
  /** Removes the handlers. */
  dispose(): void;
}

export interface StopOnSignalOptions {
  /** What the first signal starts, for the line on stderr: "stopping the run and the server". */
  readonly stopping: string;
  /**
   * What a further signal does while the first one's teardown runs: the hint on the first line
   * ("again to quit now"), the line it prints, and the action, given the first signal's exit
   * code (that signal is the one that stopped the command).
   */
  readonly again: { readonly hint: string; readonly notice: string; readonly act: (exitCode: number) => void };
}

/** An abort signal for a command's work that the first stop signal fires. */
export function stopOnSignal(options: StopOnSignalOptions): StopOnSignal {
  const controller = new AbortController();
  let first: StopSignal | null = null;
  const dispose = onStopSignal((signal, count) => {
    if (count === 1) {
      first = signal;
      process.stderr.write(`\nservebench: ${signal}; ${options.stopping} (${options.again.hint})\n`);
      controller.abort();
      return;
    }
    process.stderr.write(`servebench: ${signal} again; ${options.again.notice}\n`);
    options.again.act(exitCodeFor(first!));
  });
  return {
    signal: controller.signal,
    exitCode: () => (first === null ? null : exitCodeFor(first)),
    dispose,
  };
}
