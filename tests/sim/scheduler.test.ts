/** The pure continuous-batching model on hand-computed cases, driven with made-up clocks. */
import { describe, expect, it } from 'vitest';
import type { CostParams } from '../../harness/engines/sim/config.ts';
import { nextDeadline, stepDurationMs } from '../../harness/engines/sim/cost-model.ts';
import { Scheduler, type Sequence } from '../../harness/engines/sim/scheduler.ts';

const COST: CostParams = {
  prefillTokensPerS: 20_000,
  decodeBaseMs: 8,
  decodePerSeqMs: 0.06,
  maxNumSeqs: 256,
  kvTokens: 1_000_000,
  maxBatchedTokens: 8192,
};

function add(scheduler: Scheduler<string>, name: string, promptTokens: number, outputTokens: number, maxTokens = outputTokens): Sequence<string> {
  return scheduler.enqueue({ promptTokens, maxTokens, outputTokens, payload: name });
}

/** Runs steps back to back on a virtual clock; returns each step's summary. */
function run(scheduler: Scheduler<string>, maxSteps = 1000) {
  const steps: { start: number; duration: number; prefill: number; decoding: number; admitted: string[]; emitted: string[]; finished: string[] }[] = [];
  let now = 0;
  for (let i = 0; i < maxSteps; i++) {
    const plan = scheduler.planStep(now);
    if (plan === null) break;
    now += plan.durationMs;
    const outcome = scheduler.completeStep(plan, now);
    steps.push({
      start: plan.startMs,
      duration: plan.durationMs,
      prefill: plan.prefillTokens,
      decoding: plan.decodingSeqs,
      admitted: plan.admitted.map((s) => s.payload),
      emitted: outcome.emitted.map((s) => s.payload),
      finished: outcome.finished.map((s) => s.payload),
    });
  }
  return steps;
}

describe('stepDurationMs', () => {
  it('adds base, per-sequence decode and prefill throughput', () => {
    expect(stepDurationMs(COST, 0, 0)).toBe(8);
    expect(stepDurationMs(COST, 10, 0)).toBeCloseTo(8.6, 10);
    expect(stepDurationMs(COST, 10, 2000)).toBeCloseTo(108.6, 10); // 2000 / 20000 s = 100 ms
    expect(stepDurationMs({ ...COST, decodeBaseMs: 0, decodePerSeqMs: 0, prefillTokensPerS: Infinity }, 500, 9000)).toBe(0);
  });
});

describe('nextDeadline', () => {
  it('anchors on the previous deadline unless that is already past', () => {
    expect(nextDeadline(100, 101, 8)).toBe(108); // timer was 1 ms late: no drift
    expect(nextDeadline(100, 120, 8)).toBe(128); // fell behind: restart from now
    expect(nextDeadline(null, 50, 8)).toBe(58); // first step after idle
  });
});

describe('Scheduler', () => {
  it('prefills, then emits one token per step until outputTokens', () => {
    const scheduler = new Scheduler<string>(COST);
    add(scheduler, 'a', 100, 3);
    const steps = run(scheduler);
    expect(steps.map((s) => s.duration)).toEqual([8 + 5, 8.06, 8.06].map((d) => expect.closeTo(d, 10)));
    expect(steps.map((s) => s.prefill)).toEqual([100, 0, 0]);
    expect(steps.map((s) => s.decoding)).toEqual([0, 1, 1]);
    expect(steps.map((s) => s.emitted)).toEqual([['a'], ['a'], ['a']]);
    expect(steps.map((s) => s.finished)).toEqual([[], [], ['a']]);
    expect(scheduler.kvUsed).toBe(0);
    expect(scheduler.numRunning).toBe(0);
  });

  it('chunks a long prompt over several steps (chunked prefill)', () => {
    const scheduler = new Scheduler<string>(COST);
    add(scheduler, 'long', 20_000, 2);
    const steps = run(scheduler);
    expect(steps.map((s) => s.prefill)).toEqual([8192, 8192, 3616, 0]);
    expect(steps.map((s) => s.duration)).toEqual([8 + 409.6, 8 + 409.6, 8 + 180.8, 8.06].map((d) => expect.closeTo(d, 9)));
    // The first token comes only at the end of the step that completed the prefill.
    expect(steps.map((s) => s.emitted.length)).toEqual([0, 0, 1, 1]);
  });

  it('shares the prefill budget first-come first-served and decodes alongside prefill', () => {
    const scheduler = new Scheduler<string>(COST);
    add(scheduler, 'a', 6000, 3);
    add(scheduler, 'b', 6000, 1);
    const steps = run(scheduler);
    expect(steps[0]).toMatchObject({ prefill: 8192, decoding: 0, admitted: ['a', 'b'], emitted: ['a'] });
    expect(steps[0]!.duration).toBeCloseTo(8 + 409.6, 9);
    // b's remaining 3808 tokens are prefilled while a decodes.
    expect(steps[1]).toMatchObject({ prefill: 3808, decoding: 1, emitted: ['a', 'b'], finished: ['b'] });
    expect(steps[1]!.duration).toBeCloseTo(8 + 0.06 + 190.4, 9);
    expect(steps[2]).toMatchObject({ prefill: 0, decoding: 1, emitted: ['a'], finished: ['a'] });
  });

  it('admits at most maxNumSeqs and admits the next one when a slot frees', () => {
    const scheduler = new Scheduler<string>({ ...COST, maxNumSeqs: 2 });
    add(scheduler, 'a', 10, 1);
    add(scheduler, 'b', 10, 3);
    add(scheduler, 'c', 10, 1);
    const steps = run(scheduler);
    expect(steps[0]).toMatchObject({ admitted: ['a', 'b'], finished: ['a'] });
    expect(steps[1]).toMatchObject({ admitted: ['c'], prefill: 10, decoding: 1, emitted: ['b', 'c'], finished: ['c'] });
    expect(steps[1]!.duration).toBeCloseTo(8 + 0.06 + 0.5, 10);
    expect(steps[2]).toMatchObject({ admitted: [], finished: ['b'] });
  });

  it('reserves prompt + max_tokens of KV at admission and keeps strict FIFO order', () => {
    const scheduler = new Scheduler<string>({ ...COST, kvTokens: 100 });
    add(scheduler, 'a', 10, 2, 50); // reserves 60
    add(scheduler, 'b', 10, 1, 50); // 60 more does not fit next to a
    add(scheduler, 'c', 5, 1, 5); // would fit, but waits behind b
    let plan = scheduler.planStep(0)!;
    expect(plan.admitted.map((s) => s.payload)).toEqual(['a']);
    expect(scheduler.kvUsed).toBe(60);
    expect(scheduler.numWaiting).toBe(2);
    scheduler.completeStep(plan, 1);
    plan = scheduler.planStep(1)!;
    expect(plan.admitted).toEqual([]);
    scheduler.completeStep(plan, 2); // a finishes and frees its 60
    expect(scheduler.kvUsed).toBe(0);
    plan = scheduler.planStep(2)!;
    expect(plan.admitted.map((s) => s.payload)).toEqual(['b', 'c']);
    expect(scheduler.kvUsed).toBe(70);
  });

  it('rejects a request that could never fit', () => {
    const scheduler = new Scheduler<string>({ ...COST, kvTokens: 100 });
    expect(() => add(scheduler, 'x', 60, 1, 41)).toThrow(RangeError);
  });

  it('pauses a stalled sequence without holding up the others', () => {
    const scheduler = new Scheduler<string>(COST);
    scheduler.enqueue({ promptTokens: 10, maxTokens: 3, outputTokens: 3, stallAfter: 1, stallMs: 100, payload: 's' });
    add(scheduler, 'o', 10, 3);
    let plan = scheduler.planStep(0)!;
    let outcome = scheduler.completeStep(plan, 10);
    expect(outcome.emitted.map((s) => s.payload)).toEqual(['s', 'o']);
    plan = scheduler.planStep(10)!;
    expect(plan.batch.map((s) => s.payload)).toEqual(['o']); // s sits out until 110, keeping its slot
    expect(plan.decodingSeqs).toBe(1);
    expect(scheduler.numRunning).toBe(2);
    scheduler.completeStep(plan, 20);
    plan = scheduler.planStep(20)!;
    outcome = scheduler.completeStep(plan, 30);
    expect(outcome.finished.map((s) => s.payload)).toEqual(['o']);
    expect(scheduler.planStep(30)).toBeNull();
    expect(scheduler.nextResumeMs()).toBe(110);
    plan = scheduler.planStep(110)!;
    expect(plan.batch.map((s) => s.payload)).toEqual(['s']);
  });

  it('frees KV at once when a sequence is aborted', () => {
    const scheduler = new Scheduler<string>(COST);
    const a = add(scheduler, 'a', 10, 5);
    const b = add(scheduler, 'b', 10, 5);
    const plan = scheduler.planStep(0)!;
    scheduler.abort(a);
    expect(scheduler.kvUsed).toBe(15);
    expect(scheduler.completeStep(plan, 1).emitted.map((s) => s.payload)).toEqual(['b']);
    scheduler.abort(b);
    expect(scheduler.kvUsed).toBe(0);
    expect(scheduler.planStep(2)).toBeNull();
    expect(a.state).toBe('aborted');
  });
});
