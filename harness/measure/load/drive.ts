/**
 * The two ways of offering load. Both only decide *when* to send; sending and recording is
 * sendRequest's job.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestRecord } from '../metrics/request-record.ts';
import type { PreparedRequest } from './prepared-request.ts';

export type StopReason = 'count' | 'duration';

export interface DriveOptions {
  /** The i-th request to send (prepared ahead when the count is known; a promise when built on demand). */
  readonly requestAt: (i: number) => PreparedRequest | Promise<PreparedRequest>;
  /** Stop after this many requests (null: only the deadline stops). */
  readonly count: number | null;
  /** performance.now() after which no new request is sent (null: only the count stops). */
  readonly deadlineMs: number | null;
  readonly send: (prepared: PreparedRequest, scheduledMs: number) => Promise<RequestRecord>;
  readonly signal: AbortSignal;
}

export interface DriveOutcome {
  readonly records: RequestRecord[];
  readonly stop: StopReason;
}

function pastDeadline(options: DriveOptions): boolean {
  return options.deadlineMs !== null && performance.now() >= options.deadlineMs;
}

/** Closed loop: `concurrency` workers, each sending its next request when the previous one ends. */
export async function driveClosedLoop(options: DriveOptions, concurrency: number): Promise<DriveOutcome> {
  const records: RequestRecord[] = [];
  let next = 0;
  let stop: StopReason = 'count';
  const worker = async (): Promise<void> => {
    for (;;) {
      if (options.signal.aborted) return;
      if (options.count !== null && next >= options.count) return;
      if (pastDeadline(options)) {
        stop = 'duration';
        return;
      }
      const i = next++;
      const request = options.requestAt(i);
      records.push(await options.send(request instanceof Promise ? await request : request, performance.now()));
    }
  };
  const workers = options.count === null ? concurrency : Math.min(concurrency, options.count);
  await Promise.all(Array.from({ length: workers }, worker));
  return { records, stop };
}

/**
 * Open loop: each request is sent at its absolute scheduled time (start + offset), so a late timer
 * never shifts the rest. With a concurrency cap, a due request waits for a free slot; that wait is
 * client-side queueing, recorded as scheduled vs actual send time rather than hidden.
 */
export async function driveOpenLoop(
  options: DriveOptions,
  offsetsMs: Float64Array,
  maxConcurrency: number | null,
  startMs: number,
): Promise<DriveOutcome> {
  const records: RequestRecord[] = [];
  const pending = new Set<Promise<void>>();
  // One waiter for a free slot, woken by whichever request ends first (racing every in-flight
  // promise on each wait would cost O(in flight) per request).
  let slotFreed: (() => void) | null = null;
  let sent = 0;
  for (let i = 0; i < offsetsMs.length; i++) {
    if (options.count !== null && i >= options.count) break;
    const scheduledMs = startMs + offsetsMs[i]!;
    // Timers are millisecond-grained and may fire a fraction early: sleep again rather than send
    // before the scheduled time. Lateness (under ~1 ms) shows up in queue_ms.
    while (!options.signal.aborted && performance.now() < scheduledMs) {
      await sleep(Math.max(1, scheduledMs - performance.now()), undefined, { signal: options.signal }).catch(() => undefined);
    }
    if (options.signal.aborted) break;
    if (pastDeadline(options)) break;
    while (maxConcurrency !== null && pending.size >= maxConcurrency) {
      await new Promise<void>((resolve) => (slotFreed = resolve));
    }
    const request = options.requestAt(i);
    const task: Promise<void> = options.send(request instanceof Promise ? await request : request, scheduledMs).then((record) => {
      records.push(record);
      pending.delete(task);
      const wake = slotFreed;
      slotFreed = null;
      wake?.();
    });
    pending.add(task);
    sent += 1;
  }
  await Promise.all(pending);
  // The schedule itself ends at the duration, so "fewer than the count" means the duration stopped it.
  const stop: StopReason = options.count !== null && sent >= options.count ? 'count' : 'duration';
  return { records, stop };
}
