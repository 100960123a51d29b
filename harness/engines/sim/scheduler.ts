/**
 * The pure continuous-batching model: what is admitted, prefilled and decoded in a step, and how
 * long the step takes. No timers and no I/O, so it can be driven with made-up clocks in tests;
 * engine-loop.ts drives it with real time.
 */
import type { CostParams } from './config.ts';
import { kvReservation, fitsKvBudget, stepDurationMs } from './cost-model.ts';

export interface SequenceInit<T> {
  readonly promptTokens: number;
  /** Prompt tokens found in the prefix cache: not prefilled again (< promptTokens). */
  readonly cachedTokens?: number;
  /** The client's max_tokens: what is reserved in the KV budget. */
  readonly maxTokens: number;
  /** How many tokens this request will actually produce (≤ maxTokens). */
  readonly outputTokens: number;
  /** Pause for stallMs once this many tokens were produced (0: before prefill); absent: never. */
  readonly stallAfter?: number;
  readonly stallMs?: number;
  readonly payload: T;
}

export type SequenceState = 'waiting' | 'running' | 'finished' | 'aborted';

export class Sequence<T> {
  readonly id: number;
  readonly payload: T;
  readonly promptTokens: number;
  readonly kvReserve: number;
  readonly outputTokens: number;
  readonly stallAfter: number;
  readonly stallMs: number;
  state: SequenceState = 'waiting';
  prefilled = 0;
  generated = 0;
  admittedMs = Number.NaN;
  /** The sequence takes no part in steps before this time (a stall fault). */
  resumeMs = 0;
  /** Prefill tokens scheduled for it in the step in flight. */
  scheduledPrefill = 0;

  constructor(id: number, init: SequenceInit<T>) {
    this.id = id;
    this.payload = init.payload;
    this.promptTokens = init.promptTokens;
    this.kvReserve = kvReservation(init.promptTokens, init.maxTokens);
    this.outputTokens = init.outputTokens;
    this.stallAfter = init.stallAfter ?? -1;
    this.stallMs = init.stallMs ?? 0;
    this.prefilled = init.cachedTokens ?? 0;
  }
}

export interface StepPlan<T> {
  readonly startMs: number;
  readonly admitted: readonly Sequence<T>[];
  /** Sequences that prefill or decode in this step. */
  readonly batch: readonly Sequence<T>[];
  readonly prefillTokens: number;
  readonly decodingSeqs: number;
  readonly durationMs: number;
}

export interface StepOutcome<T> {
  /** Sequences that produced a token at the end of the step, in batch order. */
  readonly emitted: readonly Sequence<T>[];
  /** The subset of emitted that reached their outputTokens (their KV is already freed). */
  readonly finished: readonly Sequence<T>[];
}

export class Scheduler<T> {
  readonly cost: CostParams;
  private readonly waiting: Sequence<T>[] = [];
  private waitingHead = 0;
  private running: Sequence<T>[] = [];
  private nextId = 0;
  private kvUsedTokens = 0;

  constructor(cost: CostParams) {
    this.cost = cost;
  }

  get numRunning(): number {
    return this.running.length;
  }

  get numWaiting(): number {
    return this.waiting.length - this.waitingHead;
  }

  get kvUsed(): number {
    return this.kvUsedTokens;
  }

  /** Queues a request (FIFO). Throws if it could never fit; callers check fitsKvBudget first. */
  enqueue(init: SequenceInit<T>): Sequence<T> {
    if (!fitsKvBudget(this.cost, init.promptTokens, init.maxTokens)) {
      throw new RangeError(`request needs ${kvReservation(init.promptTokens, init.maxTokens)} KV tokens; the budget is ${this.cost.kvTokens}`);
    }
    if (init.outputTokens < 1 || init.outputTokens > init.maxTokens) throw new RangeError('outputTokens must be in [1, maxTokens]');
    const sequence = new Sequence(this.nextId++, init);
    this.waiting.push(sequence);
    return sequence;
  }

  /** Drops a sequence (client went away); its KV is freed at once. */
  abort(sequence: Sequence<T>): void {
    if (sequence.state === 'waiting') {
      const index = this.waiting.indexOf(sequence, this.waitingHead);
      if (index >= 0) this.waiting.splice(index, 1);
    } else if (sequence.state === 'running') {
      this.running = this.running.filter((other) => other !== sequence);
      this.kvUsedTokens -= sequence.kvReserve;
    }
    if (sequence.state === 'waiting' || sequence.state === 'running') sequence.state = 'aborted';
  }

  /** Admits what fits, then schedules prefill chunks and decodes. null when there is no work. */
  planStep(nowMs: number): StepPlan<T> | null {
    const admitted: Sequence<T>[] = [];
    // Strict FIFO: a head that does not fit blocks the queue, as in vLLM, so ordering stays fair.
    while (this.waitingHead < this.waiting.length && this.running.length < this.cost.maxNumSeqs) {
      const head = this.waiting[this.waitingHead]!;
      if (this.kvUsedTokens + head.kvReserve > this.cost.kvTokens) break;
      this.waitingHead++;
      head.state = 'running';
      head.admittedMs = nowMs;
      if (head.stallAfter === 0) head.resumeMs = nowMs + head.stallMs;
      this.kvUsedTokens += head.kvReserve;
      this.running.push(head);
      admitted.push(head);
    }
    if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
      this.waiting.splice(0, this.waitingHead);
      this.waitingHead = 0;
    }

    const batch: Sequence<T>[] = [];
    let budget = this.cost.maxBatchedTokens;
    let prefillTokens = 0;
    let decodingSeqs = 0;
    for (const sequence of this.running) {
      if (sequence.resumeMs > nowMs) continue;
      const remaining = sequence.promptTokens - sequence.prefilled;
      if (remaining > 0) {
        if (budget === 0) continue;
        const chunk = Math.min(budget, remaining);
        sequence.scheduledPrefill = chunk;
        budget -= chunk;
        prefillTokens += chunk;
      } else {
        decodingSeqs++;
      }
      batch.push(sequence);
    }
    if (batch.length === 0) return null;
    return { startMs: nowMs, admitted, batch, prefillTokens, decodingSeqs, durationMs: stepDurationMs(this.cost, decodingSeqs, prefillTokens) };
  }

  /** Applies a planned step at its end: prefill progress, one token per ready sequence, frees. */
  completeStep(plan: StepPlan<T>, nowMs: number): StepOutcome<T> {
    const emitted: Sequence<T>[] = [];
    const finished: Sequence<T>[] = [];
    for (const sequence of plan.batch) {
      if (sequence.state !== 'running') continue;
      if (sequence.scheduledPrefill > 0) {
        sequence.prefilled += sequence.scheduledPrefill;
        sequence.scheduledPrefill = 0;
        if (sequence.prefilled < sequence.promptTokens) continue;
      }
      sequence.generated++;
      emitted.push(sequence);
      if (sequence.generated >= sequence.outputTokens) {
        sequence.state = 'finished';
        this.kvUsedTokens -= sequence.kvReserve;
        finished.push(sequence);
      } else if (sequence.generated === sequence.stallAfter) {
        sequence.resumeMs = nowMs + sequence.stallMs;
      }
    }
    if (finished.length > 0) this.running = this.running.filter((sequence) => sequence.state === 'running');
    return { emitted, finished };
  }

  /** Earliest time a paused sequence resumes, for sleeping when planStep found nothing to do. */
  nextResumeMs(): number | null {
    let earliest: number | null = null;
    for (const sequence of this.running) {
      if (earliest === null || sequence.resumeMs < earliest) earliest = sequence.resumeMs;
    }
    return earliest;
  }
}
