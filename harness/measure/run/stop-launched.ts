/**
 * How a command that launches engines takes a stop signal (run, ab): the first SIGINT, SIGTERM or
 * SIGHUP aborts the work and the engine gets STOP_GRACE_MS to stop, a second one kills it at once.
 * A second signal does not skip the teardown: it only takes away the engine's grace period.
 */
import { killOwnedGroups } from '../../lib/process/owned-groups.ts';
import { stopOnSignal, type StopOnSignal } from '../../lib/process/stop-signals.ts';
import { STOP_GRACE_MS } from './process-launcher.ts';

/** `stopping`: what the first signal starts, for its line on stderr ("stopping the run and the server"). */
export function stopLaunchedOnSignal(stopping: string): StopOnSignal {
  const stop = stopOnSignal({
    stopping,
    again: { hint: 'again to kill the server at once', notice: 'killing the server at once', act: () => killOwnedGroups('SIGKILL') },
  });
  // Some steps do not heed the abort (the probe's requests wait up to minutes on a slow server):
  // the engine gets the same grace from the signal whatever the run was doing, then is killed,
  // which fails whatever still waits on it, so the result is written inside a scheduler's grace.
  let deadline: NodeJS.Timeout | undefined;
  stop.signal.addEventListener('abort', () => {
    deadline = setTimeout(() => killOwnedGroups('SIGKILL'), STOP_GRACE_MS).unref();
  });
  return {
    signal: stop.signal,
    exitCode: () => stop.exitCode(),
    dispose: () => {
      clearTimeout(deadline);
      stop.dispose();
    },
  };
}
