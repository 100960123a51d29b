/**
 * One signal that stops every request in flight, with one listener on it. Each request used to add
 * its own listener and remove it when done, and Node's EventTarget walks its list of listeners on
 * both: at 2,000 streams in flight that walk cost each request about 40 µs of the client's CPU.
 * Here a request registers in a Set (constant time each way), and the one listener calls them all.
 */
export interface AbortFanout {
  readonly signal: AbortSignal;
  /** Calls `onAbort` once when the signal aborts, unless the returned function is called first. */
  subscribe(onAbort: () => void): () => void;
  /** Removes the listener from the signal (the signal may outlive this fan-out: a run's points share it). */
  close(): void;
}

export function abortFanout(signal: AbortSignal): AbortFanout {
  const subscribers = new Set<() => void>();
  const fire = (): void => {
    const waiting = [...subscribers];
    subscribers.clear();
    for (const onAbort of waiting) onAbort();
  };
  signal.addEventListener('abort', fire, { once: true });
  return {
    signal,
    subscribe(onAbort) {
      subscribers.add(onAbort);
      return () => subscribers.delete(onAbort);
    },
    close() {
      signal.removeEventListener('abort', fire);
      subscribers.clear();
    },
  };
}
