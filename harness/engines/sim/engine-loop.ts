/**
 * Drives the pure Scheduler with real time. Step deadlines are absolute and drift-free, so a late
 * timer shortens the next wait instead of slowing the simulated engine down. In zero-cost mode
 * steps run back to back, several per event-loop turn, with writes flushed once per turn.
 */
import { nextDeadline } from './cost-model.ts';
import type { Scheduler, Sequence, StepPlan } from './scheduler.ts';

export interface EngineSink<T> {
  admitted(sequence: Sequence<T>, nowMs: number): void;
  /** One token was produced for the sequence (sequence.generated is its new count). */
  token(sequence: Sequence<T>): void;
  finished(sequence: Sequence<T>): void;
  /** Prefill tokens processed by a completed step (for counters). */
  prefilled(tokens: number): void;
  /** Write everything buffered since the last flush. */
  flush(): void;
}

/**
 * libuv timers have millisecond granularity and can fire up to ~1 ms before a fractional
 * deadline; firing earlier than this is treated as spurious and re-armed.
 */
const EARLY_FIRE_TOLERANCE_MS = 0.2;

export class EngineLoop<T> {
  private readonly scheduler: Scheduler<T>;
  private readonly sink: EngineSink<T>;
  private readonly stepsPerFlush: number;
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private inflight: StepPlan<T> | null = null;
  private deadlineMs = 0;
  private previousDeadline: number | null = null;
  private stopped = false;

  constructor(scheduler: Scheduler<T>, sink: EngineSink<T>, stepsPerFlush: number) {
    this.scheduler = scheduler;
    this.sink = sink;
    this.stepsPerFlush = stepsPerFlush;
  }

  /** A request arrived: start a step now if the engine is idle or only waiting on a stall. */
  wake(): void {
    if (this.stopped || this.inflight !== null || this.immediate !== null) return;
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.immediate = setImmediate(this.turn);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.immediate !== null) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
    this.inflight = null;
  }

  private readonly turn = (): void => {
    this.timer = null;
    this.immediate = null;
    if (this.stopped) return;
    let now = performance.now();
    let steps = 0;
    if (this.inflight !== null) {
      if (now < this.deadlineMs - EARLY_FIRE_TOLERANCE_MS) {
        this.timer = setTimeout(this.turn, this.deadlineMs - now);
        return;
      }
      this.complete(this.inflight, now);
      this.inflight = null;
      // Flush before planning the next step so the recorded write times sit on the deadline.
      this.sink.flush();
      steps = 1;
      now = performance.now();
    }
    for (;;) {
      const plan = this.scheduler.planStep(now);
      if (plan === null) {
        this.goIdle(now);
        break;
      }
      for (const sequence of plan.admitted) this.sink.admitted(sequence, now);
      const deadline = nextDeadline(this.previousDeadline, now, plan.durationMs);
      this.previousDeadline = deadline;
      if (deadline > now) {
        this.inflight = plan;
        this.deadlineMs = deadline;
        this.timer = setTimeout(this.turn, deadline - now);
        break;
      }
      this.complete(plan, now);
      if (++steps >= this.stepsPerFlush) {
        // Yield so sockets, new requests and other timers get a turn between batches of steps.
        this.immediate = setImmediate(this.turn);
        break;
      }
    }
    this.sink.flush();
  };

  private complete(plan: StepPlan<T>, now: number): void {
    const outcome = this.scheduler.completeStep(plan, now);
    if (plan.prefillTokens > 0) this.sink.prefilled(plan.prefillTokens);
    for (const sequence of outcome.emitted) this.sink.token(sequence);
    for (const sequence of outcome.finished) this.sink.finished(sequence);
  }

  private goIdle(now: number): void {
    // The next step after idling starts from its own arrival, not from a stale deadline.
    this.previousDeadline = null;
    const resume = this.scheduler.nextResumeMs();
    if (resume !== null) this.timer = setTimeout(this.turn, Math.max(0, resume - now));
  }
}
