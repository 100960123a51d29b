/**
 * Every metric of summarizePoint on one SYNTHETIC, hand-computed set of five requests, each value
 * worked out below from the definitions in docs/metrics.md (not from the code), with the
 * percentiles by numpy's linear method (index (n − 1)·q/100) and the population std (ddof 0).
 *
 *   request  scheduled  send  content events (ms)       tokens per event      end   outcome
 *   A        0          10    110, 120, 140, 170        1, 1, 1, 1 (usage 4)  180   ok
 *   B        10         20    70, 100, 130              1, 2, 0 (tokenizer)   140   ok: the last event counts no token
 *   C        30         30    70                        1 (events)            75    ok: one token, no TPOT
 *   D        0          0     —                         —                     800   timeout (failed)
 *   E        100        100   150, 180, 240             by characters 2:6:2   500   ok: usage 6, usage trailer at 500
 *
 *   A: TTFT 100, E2EL 160, TPOT 60/3 = 20, ITL per token 10, 20, 30
 *   B: TTFT 50, E2EL 110, TPOT 60/2 = 30; the 30 ms gap of event 2 is split over its 2 tokens and
 *      the trailing zero-token event's 30 ms is shared by the same tokens: ITL 30, 30 (sum 60)
 *   C: TTFT = E2EL = 40, no TPOT, no ITL
 *   E: 6 tokens over 3 events, 3 extra shared by characters (0.6, 1.8, 0.6 → floors 0, 1, 0, then
 *      the largest remainders 0.8 and the first 0.6): 2, 3, 1 tokens; ITL 30/3 ×3, 60/1;
 *      TTFT 50, E2EL 140 (the trailer does not extend it), TPOT 90/5 = 18
 *   duration: first send (D, 0) → last end (D, 800) = 0.8 s, the failed request included
 */
import { describe, expect, it } from 'vitest';
import { emptyRecord, type RequestRecord } from '../../harness/measure/metrics/request-record.ts';
import { meetsSlo, requestTimings, summarizePoint, tokensPerEvent, type Slo } from '../../harness/measure/metrics/summarize.ts';

function record(partial: Partial<RequestRecord> & Pick<RequestRecord, 'scheduledMs' | 'sendMs' | 'endMs'>): RequestRecord {
  return { ...emptyRecord(0, 'r', partial.scheduledMs, false), finishReason: 'length', ...partial };
}

const A = record({ index: 0, scheduledMs: 0, sendMs: 10, endMs: 180, contentTimesMs: [110, 120, 140, 170], contentChars: [4, 4, 4, 4], inputTokens: 10, inputTokensSource: 'usage', outputTokens: 4, outputTokensSource: 'usage' });
const B = record({ index: 1, scheduledMs: 10, sendMs: 20, endMs: 140, contentTimesMs: [70, 100, 130], contentChars: [3, 5, 1], contentTokens: [1, 2, 0], inputTokens: 20, inputTokensSource: 'tokenizer', outputTokens: 3, outputTokensSource: 'tokenizer' });
const C = record({ index: 2, scheduledMs: 30, sendMs: 30, endMs: 75, contentTimesMs: [70], contentChars: [2], inputTokens: 5, inputTokensSource: 'declared', outputTokens: 1, outputTokensSource: 'events' });
const D = record({ index: 3, scheduledMs: 0, sendMs: 0, endMs: 800, failure: { class: 'timeout', status: null, message: 'no complete response' } });
const E = record({ index: 4, scheduledMs: 100, sendMs: 100, endMs: 500, contentTimesMs: [150, 180, 240], contentChars: [2, 6, 2], inputTokens: 30, inputTokensSource: 'usage', outputTokens: 6, outputTokensSource: 'usage' });
const REQUESTS = [A, B, C, D, E];

/** Population std of hand values (the test's own arithmetic). */
const std = (values: number[]) => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
};
function expectDistribution(actual: Record<string, number> | null, expected: Record<string, number>, what: string) {
  expect(actual, what).not.toBeNull();
  for (const [k, v] of Object.entries(expected)) expect(Math.abs(actual![k]! - v), `${what}.${k}: ${actual![k]} vs ${v}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(v)));
}

describe('per request, by hand', () => {
  it('A: one token per event', () => {
    expect(requestTimings(A)).toEqual({ ttftMs: 100, e2elMs: 160, tpotMs: 20, queueMs: 10, itlTokenMs: [10, 20, 30], itlEventMs: [10, 20, 30], itlSplit: 'exact' });
  });

  it('B: the trailing gap of an event that carries no token belongs to the tokens before it (ITL sums to E2EL − TTFT)', () => {
    const t = requestTimings(B);
    expect([t.ttftMs, t.e2elMs, t.tpotMs, t.itlSplit]).toEqual([50, 110, 30, 'exact']);
    expect(t.itlTokenMs).toEqual([30, 30]);
    expect(t.itlEventMs).toEqual([30, 30]);
  });

  it('C: a single token has no TPOT and no inter-token gap', () => {
    expect(requestTimings(C)).toEqual({ ttftMs: 40, e2elMs: 40, tpotMs: null, queueMs: 0, itlTokenMs: [], itlEventMs: [], itlSplit: 'exact' });
  });

  it('E: tokens shared out by characters (largest remainder), the usage trailer outside E2EL', () => {
    const t = requestTimings(E);
    expect([t.ttftMs, t.e2elMs, t.tpotMs, t.itlSplit]).toEqual([50, 140, 18, 'estimated']);
    expect(t.itlTokenMs).toEqual([10, 10, 10, 60]);
    expect(t.itlEventMs).toEqual([30, 60]);
  });
});

describe('summarizePoint over A–E, by hand', () => {
  // Inside each test, not once for the block: mutation testing credits a test only with the code that runs inside it.
  const summarize = () => summarizePoint(REQUESTS, null);

  it('counts, token sums of completed requests, sources and splits', () => {
    const summary = summarize();
    const m = summary.metrics;
    expect([m.completed, m.failed, m.input_tokens, m.output_tokens]).toEqual([4, 1, 65, 14]);
    expect(summary.failures.timeout).toBe(1);
    expect(Object.values(summary.failures).reduce((a, b) => a + b, 0)).toBe(1);
    expect(summary.token_count_sources).toEqual({ input: { usage: 2, tokenizer: 1, events: 0, declared: 1 }, output: { usage: 2, tokenizer: 1, events: 1, declared: 0 } });
    expect(summary.itl_split).toEqual({ exact: 3, estimated: 1 });
  });

  it('throughput over first send → last end (0.8 s, the failed request at both ends)', () => {
    const m = summarize().metrics;
    expect(m.duration_s).toBe(0.8);
    expect(m.request_throughput).toBe(5); // 4 / 0.8
    expect(m.output_throughput).toBe(17.5); // 14 / 0.8
    expect(m.total_throughput).toBe(98.75); // (65 + 14) / 0.8
    expect(m.goodput).toBeNull(); // no SLO given
  });

  it('TTFT over completed requests: 100, 50, 40, 50', () => {
    const m = summarize().metrics;
    // sorted 40, 50, 50, 100; p90 at index 2.7 → 50 + 0.7·50
    expectDistribution(m.ttft_ms as never, { mean: 60, std: Math.sqrt(550), min: 40, p50: 50, p90: 85, p95: 92.5, p99: 98.5, p999: 99.85, max: 100 }, 'ttft');
  });

  it('E2EL over completed requests: 160, 110, 40, 140', () => {
    const m = summarize().metrics;
    // sorted 40, 110, 140, 160; p50 at 1.5 → 125; p90 at 2.7 → 140 + 0.7·20
    expectDistribution(m.e2el_ms as never, { mean: 112.5, std: std([160, 110, 40, 140]), min: 40, p50: 125, p90: 154, p95: 157, p99: 159.4, max: 160 }, 'e2el');
  });

  it('TPOT over requests with more than one token: 20, 30, 18; interactivity 1000/TPOT', () => {
    const m = summarize().metrics;
    expectDistribution(m.tpot_ms as never, { mean: 68 / 3, std: std([20, 30, 18]), min: 18, p50: 20, p90: 28, max: 30 }, 'tpot');
    expectDistribution(m.interactivity_tok_s as never, { mean: (50 + 1000 / 30 + 1000 / 18) / 3, min: 1000 / 30, p50: 50, max: 1000 / 18 }, 'interactivity');
  });

  it('ITL per token pools every request’s tokens after the first event (A 3, B 2, E 4), summing to Σ(E2EL − TTFT)', () => {
    const m = summarize().metrics;
    const itl = [10, 20, 30, 30, 30, 10, 10, 10, 60];
    // sorted 10 10 10 10 20 30 30 30 60; p90 at index 7.2 → 30 + 0.2·30
    expectDistribution(m.itl_ms as never, { mean: 210 / 9, std: std(itl), min: 10, p50: 20, p90: 36, max: 60 }, 'itl');
    expectDistribution(m.itl_event_ms as never, { mean: 30, std: std([10, 20, 30, 30, 30, 30, 60]), min: 10, p50: 30, max: 60 }, 'itl_event');
  });

  it('queue over every measured request, the failed one included: 10, 10, 0, 0, 0', () => {
    const m = summarize().metrics;
    expectDistribution(m.queue_ms as never, { mean: 4, std: std([10, 10, 0, 0, 0]), min: 0, p50: 0, p90: 10, max: 10 }, 'queue');
  });
});

describe('goodput: completed requests meeting every SLO given, each bound inclusive (≤ meets it)', () => {
  const goodput = (slo: Slo) => summarizePoint(REQUESTS, slo).metrics.goodput;

  it('TTFT ≤ 50: B and E (exactly 50) and C meet it, A (100) does not', () => {
    expect(goodput({ ttft_ms: 50 })).toBe(3 / 0.8);
    expect(goodput({ ttft_ms: 49.999 })).toBe(1 / 0.8);
  });

  it('TPOT ≤ 20: A (exactly 20), E (18) and the single-token C meet it, B (30) does not', () => {
    expect(goodput({ tpot_ms: 20 })).toBe(3 / 0.8);
    expect(goodput({ tpot_ms: 19.999 })).toBe(2 / 0.8);
  });

  it('E2EL ≤ 110: B (exactly 110) and C meet it, A (160) and E (140) do not', () => {
    expect(goodput({ e2el_ms: 110 })).toBe(2 / 0.8);
    expect(goodput({ e2el_ms: 109.999 })).toBe(1 / 0.8);
  });

  it('every bound given is checked: A at all three limits meets them; each bound alone can fail a request', () => {
    expect(goodput({ ttft_ms: 100, tpot_ms: 20, e2el_ms: 160 })).toBe(3 / 0.8); // A, C, E; B fails TPOT
    expect(goodput({ ttft_ms: 1e9, tpot_ms: 1e9, e2el_ms: 139 })).toBe(2 / 0.8); // E's E2EL alone fails it (and A's)
    expect(goodput({ ttft_ms: 60, tpot_ms: 1e9, e2el_ms: 1e9 })).toBe(3 / 0.8); // A's TTFT alone
    expect(goodput({ ttft_ms: 1e9, tpot_ms: 25, e2el_ms: 1e9 })).toBe(3 / 0.8); // B's TPOT alone
    expect(goodput({})).toBe(4 / 0.8); // no bound: every completed request; never the failed one
  });

  it('meetsSlo on one request, bound by bound', () => {
    const a = requestTimings(A);
    expect([meetsSlo(a, { ttft_ms: 100 }), meetsSlo(a, { ttft_ms: 99 })]).toEqual([true, false]);
    expect([meetsSlo(a, { tpot_ms: 20 }), meetsSlo(a, { tpot_ms: 19 })]).toEqual([true, false]);
    expect([meetsSlo(a, { e2el_ms: 160 }), meetsSlo(a, { e2el_ms: 159 })]).toEqual([true, false]);
    expect(meetsSlo(requestTimings(C), { tpot_ms: 0.001 })).toBe(true);
  });
});

describe('tokens per event, the cases the request set above does not reach', () => {
  it('more events than tokens counted: one each, estimated', () => {
    expect(tokensPerEvent(record({ scheduledMs: 0, sendMs: 0, endMs: 9, contentTimesMs: [1, 2, 3], contentChars: [1, 1, 1], outputTokens: 2 }))).toEqual({ tokens: [1, 1, 1], split: 'estimated' });
  });

  it('no characters at all (empty fragments): the extra tokens shared evenly, remainders to the first events', () => {
    // 7 tokens over 3 events: 1 each, then 4 extra at 4/3 each: floors 1, 1, 1, one left for the first.
    expect(tokensPerEvent(record({ scheduledMs: 0, sendMs: 0, endMs: 9, contentTimesMs: [1, 2, 3], contentChars: [0, 0, 0], outputTokens: 7 }))).toEqual({ tokens: [3, 2, 2], split: 'estimated' });
  });

  it('tokenizer counts that do not add up to the server’s count are estimated; without a server count they are exact', () => {
    const base = { scheduledMs: 0, sendMs: 0, endMs: 9, contentTimesMs: [1, 2], contentChars: [1, 1], contentTokens: [2, 3] };
    expect(tokensPerEvent(record({ ...base, outputTokens: 6 }))).toEqual({ tokens: [2, 3], split: 'estimated' });
    expect(tokensPerEvent(record({ ...base, outputTokens: 5 }))).toEqual({ tokens: [2, 3], split: 'exact' });
    expect(tokensPerEvent(record({ ...base, outputTokens: null }))).toEqual({ tokens: [2, 3], split: 'exact' });
  });

  it('no output count at all: one token per event', () => {
    const r = record({ scheduledMs: 0, sendMs: 0, endMs: 9, contentTimesMs: [10, 14, 20], contentChars: [5, 1, 9], outputTokens: null });
    expect(tokensPerEvent(r)).toEqual({ tokens: [1, 1, 1], split: 'exact' });
    expect(requestTimings(r).tpotMs).toBe(5); // (20 − 10) / (3 − 1)
  });

  it('a single-token request passes the TPOT bound whatever its limit', () => {
    expect(meetsSlo(requestTimings(C), { tpot_ms: -1 })).toBe(true);
  });
});
