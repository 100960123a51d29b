/**
 * The one listener that stops every request in flight (harness/measure/load/abort-fanout.ts): each
 * subscriber is called once when the signal aborts, one that left first is not, and a closed
 * fan-out leaves the signal as it found it; and streams in flight on a real sim end, as aborted, at
 * the abort, not when the sim would have finished them.
 */
import { Pool } from 'undici';
import { describe, expect, it } from 'vitest';
import { abortFanout } from '../../harness/measure/load/abort-fanout.ts';
import { sendRequest, type LiveCounters } from '../../harness/measure/load/send-request.ts';
import { startSimServer } from '../../harness/engines/sim/server.ts';

describe('the abort fan-out', () => {
  it('calls each request still subscribed once when the signal aborts, and none that unsubscribed', () => {
    const controller = new AbortController();
    const fanout = abortFanout(controller.signal);
    const calls: string[] = [];
    fanout.subscribe(() => calls.push('a'));
    const leave = fanout.subscribe(() => calls.push('b'));
    // A subscriber that unsubscribes another while the abort is delivered: every one still subscribed at the abort is called.
    fanout.subscribe(() => (calls.push('c'), leave()));
    fanout.subscribe(() => calls.push('d'));
    leave();
    fanout.subscribe(() => calls.push('b2'));
    controller.abort();
    controller.abort();
    expect(calls).toEqual(['a', 'c', 'd', 'b2']);
    expect(fanout.signal.aborted).toBe(true);
  });

  it('after close, an abort calls nobody: the run\'s signal outlives each point', () => {
    const controller = new AbortController();
    const first = abortFanout(controller.signal);
    const calls: string[] = [];
    first.subscribe(() => calls.push('first'));
    first.close();
    const second = abortFanout(controller.signal);
    second.subscribe(() => calls.push('second'));
    controller.abort();
    expect(calls).toEqual(['second']);
  });
});

describe('requests in flight', () => {
  it('end as aborted at the abort, each of them, and a request sent after it is not sent', { timeout: 30_000 }, async () => {
    // 400 tokens at 20 ms a step: each stream would take 8 s, and none may end on its own.
    const sim = await startSimServer({ port: 0, decodeBaseMs: 20, decodePerSeqMs: 0 });
    const pool = new Pool(sim.url, { connections: 4, pipelining: 1 });
    const controller = new AbortController();
    const abort = abortFanout(controller.signal);
    const counters: LiveCounters = { contentEvents: 0, requestsDone: 0, requestsFailed: 0, retries: 0 };
    const ctx = { dispatcher: pool, path: '/v1/completions', headers: { 'content-type': 'application/json' }, timeoutMs: 30_000, keepTexts: false, abort, counters };
    const body = Buffer.from(JSON.stringify({ model: 'sim-model', prompt: 'hello '.repeat(16), max_tokens: 400, stream: true, ignore_eos: true }));
    try {
      const inFlight = [0, 1, 2, 3].map((index) => sendRequest(ctx, { index, body, declaredInputTokens: 16, maxTokens: 400 }, performance.now(), `abort-${index}`));
      // Aborted once every stream has sent a few tokens: the abort, not a refusal, ends them.
      const poll = setInterval(() => counters.contentEvents >= 16 && controller.abort(), 5);
      const records = await Promise.all(inFlight).finally(() => clearInterval(poll));
      expect(records.map((r) => r.failure?.class)).toEqual(['aborted', 'aborted', 'aborted', 'aborted']);
      expect(records.every((r) => r.contentTimesMs.length > 0 && r.contentTimesMs.length < 400)).toBe(true);
      const late = await sendRequest(ctx, { index: 4, body, declaredInputTokens: 16, maxTokens: 400 }, performance.now(), 'abort-late');
      expect(late.failure?.class).toBe('aborted');
      expect(late.firstByteMs).toBeNull();
    } finally {
      abort.close();
      await pool.destroy();
      await sim.close();
    }
  });
});
