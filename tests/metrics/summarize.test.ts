import { describe, expect, it } from 'vitest';
import { emptyRecord, type RequestRecord } from '../../harness/measure/metrics/request-record.ts';
import { requestTimings, summarizePoint, tokensPerEvent } from '../../harness/measure/metrics/summarize.ts';
import { createRng } from '../../harness/lib/rng.ts';

function record(partial: Partial<RequestRecord> & Pick<RequestRecord, 'sendMs' | 'endMs'>): RequestRecord {
  return { ...emptyRecord(0, 'r', partial.sendMs, false), finishReason: 'length', ...partial };
}

// One token per event, counts from usage (vLLM-like).
const perToken = record({
  index: 0,
  scheduledMs: 95,
  sendMs: 100,
  endMs: 185,
  contentTimesMs: [150, 160, 175, 180],
  contentChars: [3, 4, 5, 6],
  inputTokens: 20,
  inputTokensSource: 'usage',
  outputTokens: 4,
  outputTokensSource: 'usage',
});
// Several tokens per event, 6 tokens over 3 events (llama.cpp-like).
const multiToken = record({
  index: 1,
  scheduledMs: 0,
  sendMs: 0,
  endMs: 105,
  contentTimesMs: [40, 70, 100],
  contentChars: [5, 10, 5],
  inputTokens: 30,
  inputTokensSource: 'usage',
  outputTokens: 6,
  outputTokensSource: 'usage',
});
const timedOut = record({
  index: 2,
  scheduledMs: 10,
  sendMs: 10,
  endMs: 300,
  failure: { class: 'timeout', status: null, message: 'no complete response' },
});

describe('requestTimings', () => {
  it('derives TTFT, E2EL, TPOT and ITL by hand (one token per event)', () => {
    const t = requestTimings(perToken);
    expect(t.ttftMs).toBe(50);
    expect(t.e2elMs).toBe(80);
    expect(t.tpotMs).toBe(10);
    expect(t.itlTokenMs).toEqual([10, 15, 5]);
    expect(t.itlEventMs).toEqual([10, 15, 5]);
    expect(t.queueMs).toBe(5);
    expect(t.itlSplit).toBe('exact');
  });

  it('splits an event gap over the tokens it carries; tokens of the first event have no gap', () => {
    const t = requestTimings(multiToken);
    expect(tokensPerEvent(multiToken)).toEqual({ tokens: [2, 2, 2], split: 'estimated' });
    expect(t.ttftMs).toBe(40);
    expect(t.tpotMs).toBe(12); // (100 − 40) / (6 − 1)
    expect(t.itlTokenMs).toEqual([15, 15, 15, 15]);
    expect(t.itlEventMs).toEqual([30, 30]);
  });

  it('uses tokenizer counts per event when present, carrying the gap of a zero-token event forward', () => {
    const t = requestTimings({ ...multiToken, contentTokens: [1, 0, 3], outputTokens: 4 });
    expect(t.itlTokenMs).toEqual([20, 20, 20]);
    expect(t.itlSplit).toBe('exact');
  });

  it('has no TPOT for a single-token output', () => {
    const t = requestTimings({ ...perToken, contentTimesMs: [150], contentChars: [3], outputTokens: 1 });
    expect(t.tpotMs).toBeNull();
    expect(t.itlTokenMs).toEqual([]);
  });

  it('keeps the identity sum(itl) = E2EL − TTFT on random streams', () => {
    const rng = createRng(7, 'identity');
    for (let trial = 0; trial < 200; trial++) {
      const events = 1 + rng.int(40);
      const times: number[] = [];
      let t = 5 + rng.next() * 100;
      for (let i = 0; i < events; i++) {
        times.push(t);
        t += rng.next() * 30;
      }
      const chars = times.map(() => 1 + rng.int(12));
      const outputTokens = events + rng.int(3 * events);
      const r = record({ sendMs: 0, endMs: t, contentTimesMs: times, contentChars: chars, outputTokens, outputTokensSource: 'usage' });
      const timings = requestTimings(r);
      const sum = timings.itlTokenMs.reduce((a, b) => a + b, 0);
      expect(sum).toBeCloseTo(timings.e2elMs - timings.ttftMs, 6);
      expect(tokensPerEvent(r).tokens.reduce((a, b) => a + b, 0)).toBe(outputTokens);
    }
  });
});

describe('summarizePoint', () => {
  // Inside each test, not once for the block: mutation testing credits a test only with the code that runs inside it.
  const summarize = () => summarizePoint([perToken, multiToken, timedOut], { ttft_ms: 45 });

  it('counts completed and failed, and sums tokens of completed requests only', () => {
    const summary = summarize();
    const m = summary.metrics;
    expect(m.completed).toBe(2);
    expect(m.failed).toBe(1);
    expect(m.input_tokens).toBe(50);
    expect(m.output_tokens).toBe(10);
    expect(summary.failures.timeout).toBe(1);
    expect(summary.token_count_sources.output.usage).toBe(2);
    expect(summary.itl_split).toEqual({ exact: 1, estimated: 1 });
  });

  it('measures duration from the first send to the last end, failed requests included', () => {
    const m = summarize().metrics;
    expect(m.duration_s).toBeCloseTo(0.3, 12);
    expect(m.request_throughput).toBeCloseTo(2 / 0.3, 9);
    expect(m.output_throughput).toBeCloseTo(10 / 0.3, 9);
    expect(m.total_throughput).toBeCloseTo(60 / 0.3, 9);
  });

  it('counts goodput as completed requests meeting every SLO', () => {
    const m = summarize().metrics;
    expect(m.goodput).toBeCloseTo(1 / 0.3, 9); // only the 40 ms TTFT request meets ttft_ms=45
    expect(summarizePoint([perToken], null).metrics.goodput).toBeNull();
  });

  it('builds distributions over requests (TPOT, interactivity) and tokens (ITL)', () => {
    const m = summarize().metrics;
    expect(m.ttft_ms!.mean).toBe(45);
    expect(m.tpot_ms!.p50).toBe(11);
    expect(m.interactivity_tok_s!.max).toBe(100);
    expect(m.itl_ms!.max).toBe(15);
    expect(m.itl_event_ms!.max).toBe(30);
    expect(m.queue_ms!.max).toBe(5);
  });

  it('reports no data as null, not zero', () => {
    const empty = summarizePoint([timedOut], null).metrics;
    expect(empty.completed).toBe(0);
    expect(empty.ttft_ms).toBeNull();
    expect(empty.tpot_ms).toBeNull();
    expect(empty.output_throughput).toBe(0);
    expect(summarizePoint([], null).metrics.request_throughput).toBeNull();
  });
});
