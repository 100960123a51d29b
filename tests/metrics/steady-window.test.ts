/**
 * The steady window and the overload verdict on hand-made request sets whose ramp, drain and
 * schedule are known by construction (SYNTHETIC records: no server). The same functions on a real
 * sim: tests/load/steady-window.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { emptyRecord, type RequestRecord } from '../../harness/measure/metrics/request-record.ts';
import { steadyWindow } from '../../harness/measure/metrics/steady-window.ts';
import { judgeOverload, keptFraction, resistantSlope } from '../../harness/measure/metrics/overload.ts';
import type { Load } from '../../harness/contract/result.ts';

/** A completed request: one token per content event, `gapMs` apart from `firstMs`, ending 1 ms after its last token. */
function request(index: number, sendMs: number, firstMs: number, tokens: number, gapMs = 10, inputTokens = 10 * (index + 1)): RequestRecord {
  const contentTimesMs = Array.from({ length: tokens }, (_, k) => firstMs + k * gapMs);
  return {
    ...emptyRecord(index, `r${index}`, sendMs, false),
    sendMs,
    contentTimesMs,
    contentChars: contentTimesMs.map(() => 4),
    endMs: contentTimesMs.at(-1)! + 1,
    inputTokens,
    inputTokensSource: 'usage',
    outputTokens: tokens,
    outputTokensSource: 'usage',
    finishReason: 'length',
  };
}

const closed = (concurrency: number): Load => ({ mode: 'closed', concurrency });
const open = (rate: number | 'inf', maxConcurrency: number | null = null): Load => ({ mode: 'open', rate, arrival: 'poisson', burstiness: 1, max_concurrency: maxConcurrency });

/**
 * Two workers from t = 1000 ms: the second starts 4 ms late (the ramp), each sends its next request
 * when its previous one ends; the last send is at 1096 ms, and the last two requests end at 1117 ms
 * and 1133 ms (the drain tail).
 */
const twoWorkers: RequestRecord[] = [
  request(0, 1000, 1010, 4), // ends 1041
  request(1, 1004, 1014, 6), // ends 1065
  request(2, 1041, 1051, 4), // ends 1082
  request(3, 1065, 1075, 3), // ends 1096, and its worker sends the last request then
  request(4, 1082, 1092, 5), // ends 1133: tokens at 1122 and 1132 fall in the drain
  request(5, 1096, 1106, 2), // ends 1117: the first end after the last send
];

describe('the steady window of a closed loop', () => {
  it('runs from the moment both requests are in flight to the first end after the last send', () => {
    const { steady, reason } = steadyWindow(twoWorkers, closed(2));
    expect(reason).toBeNull();
    // 1004 ms (the second send) and 1117 ms, from the first send at 1000 ms.
    expect(steady!.start_s).toBeCloseTo(0.004, 12);
    expect(steady!.end_s).toBeCloseTo(0.117, 12);
    expect(steady!.duration_s).toBeCloseTo(0.113, 12);
    // Requests ending in (1004, 1117]: all but request 4.
    expect(steady!.completed).toBe(5);
    // Every first token arrives inside: 10 + 20 + … + 60.
    expect(steady!.input_tokens).toBe(210);
    // 4 + 6 + 4 + 3 + 3 (of request 4's 5) + 2.
    expect(steady!.output_tokens).toBe(22);
    expect(steady!.request_throughput).toBeCloseTo(5 / 0.113, 9);
    expect(steady!.output_throughput).toBeCloseTo(22 / 0.113, 9);
    expect(steady!.total_throughput).toBeCloseTo(232 / 0.113, 9);
    // The whole point (24 tokens over 133 ms) understates the rate the two streams sustained.
    expect(steady!.output_throughput).toBeGreaterThan(24 / 0.133);
  });

  it('counts a failed request as an end (it frees its slot) but none of its tokens', () => {
    const records = twoWorkers.map((r) => ({ ...r }));
    // Request 5 fails at 1110 ms after one token: the drain now begins there.
    Object.assign(records[5]!, { contentTimesMs: [1106], contentChars: [4], endMs: 1110, outputTokens: null, failure: { class: 'connection_reset', status: null, message: 'reset' } });
    const { steady } = steadyWindow(records, closed(2));
    expect(steady!.end_s).toBeCloseTo(0.11, 12);
    expect(steady!.completed).toBe(4);
    expect(steady!.output_tokens).toBe(4 + 6 + 4 + 3 + 2); // request 4's tokens at 1092 and 1102
    expect(steady!.input_tokens).toBe(10 + 20 + 30 + 40 + 50);
  });

  it('has none when the concurrency is never reached, and says so', () => {
    const { steady, reason } = steadyWindow(twoWorkers.slice(0, 3), closed(4));
    expect(steady).toBeNull();
    expect(reason).toBe('4 requests were never in flight together (at most 2 of 3 sent): too short for a steady window');
  });

  it('has none for a point without requests', () => {
    expect(steadyWindow([], closed(1))).toEqual({ steady: null, reason: 'no request was sent' });
  });

  it('counts an end and a send at the same moment as a slot freed, then refilled', () => {
    // One request at a time, except that request 0 ends at the moment request 1 goes out.
    const records = [request(0, 0, 5, 1), request(1, 6, 10, 1), request(2, 20, 25, 1)];
    expect(records[0]!.endMs).toBe(6);
    const { steady, reason } = steadyWindow(records, closed(2));
    expect(steady).toBeNull();
    expect(reason).toMatch(/^2 requests were never in flight together \(at most 1 of 3 sent\)/);
  });
});

describe('the steady window of an open loop', () => {
  // Arrivals every 20 ms, each request served in 50 ms: about 2.5 in flight once the first has ended.
  const arrivals = Array.from({ length: 8 }, (_, i) => request(i, 20 * i, 20 * i + 9, 5, 10, 100));

  it('runs from the first end (departures begin) to the first end after the last send', () => {
    const { steady } = steadyWindow(arrivals, open(50));
    // First end 50 ms; last send 140 ms; the first end after it is request 5's at 150 ms.
    expect(steady!.start_s).toBeCloseTo(0.05, 12);
    expect(steady!.end_s).toBeCloseTo(0.15, 12);
    // Ends in (50, 150]: requests 1…5, one every 20 ms: the arrival rate, 50 requests/s.
    expect(steady!.completed).toBe(5);
    expect(steady!.request_throughput).toBeCloseTo(50, 9);
    // Tokens at 20i + 9 + 10k inside (50, 150]: 5 per 20 ms of arrivals once the pipeline is full.
    expect(steady!.output_tokens).toBe(25);
    expect(steady!.output_throughput).toBeCloseTo(250, 9);
  });

  it('has none when every request went out before the first one ended', () => {
    const burst = Array.from({ length: 4 }, (_, i) => request(i, i, 20, 3));
    const { steady, reason } = steadyWindow(burst, open('inf'));
    expect(steady).toBeNull();
    expect(reason).toBe('all 4 requests were sent before the first one ended: arrivals never ran beside departures, so no part of the point was steady');
  });
});

/** 30 requests scheduled every 100 ms (10/s): `delay(i)` after its schedule it ends; `lag(i)` it waited to go out. */
function scheduled(delay: (i: number) => number, lag: (i: number) => number = () => 0): RequestRecord[] {
  return Array.from({ length: 30 }, (_, i) => {
    const at = 100 * i;
    const record = request(i, at + lag(i), at + lag(i) + 10, 4);
    return { ...record, scheduledMs: at, endMs: at + delay(i) };
  });
}

describe('an overloaded open-loop point', () => {
  it("measures the slope through the medians of the first and last thirds, which one outlier does not tilt", () => {
    const line = Array.from({ length: 30 }, (_, i) => ({ x: 100 * i, y: 50 + 10 * i }));
    // Medians of x: 450 and 2450; of y: 95 and 295.
    expect(resistantSlope(line)).toBeCloseTo(0.1, 12);
    const flat = line.map((p, i) => ({ x: p.x, y: i === 29 ? 10_000 : 50 }));
    expect(resistantSlope(flat)).toBe(0);
    expect(resistantSlope(line.slice(0, 2))).toBeNull();
    expect(keptFraction(0.1)).toBeCloseTo(1 / 1.1, 12);
    expect(keptFraction(-0.5)).toBe(1);
  });

  it('is overloaded when completions fall behind the schedule (the backlog grows 10 ms per 100 ms)', () => {
    const verdict = judgeOverload(scheduled((i) => 50 + 10 * i), open(10));
    expect(verdict!.achieved_rate!.send_ratio).toBe(1);
    expect(verdict!.achieved_rate!.completion_ratio).toBeCloseTo(1 / 1.1, 12);
    expect(verdict!.overloaded).toBe(true);
    expect(verdict!.overload_reason).toBe('requests completed at 90.9% of the scheduled 10 requests/s (about 9.09 requests/s): the backlog grew');
  });

  it('is overloaded when the client queue grows (a full --max-concurrency)', () => {
    const verdict = judgeOverload(scheduled((i) => 60 + 5 * i, (i) => 5 * i), open(10, 4));
    expect(verdict!.achieved_rate!.send_ratio).toBeCloseTo(1 / 1.05, 12);
    expect(verdict!.overloaded).toBe(true);
    expect(verdict!.overload_reason).toMatch(/^requests went out at 95\.2% of the scheduled 10 requests\/s: the client queue grew \(--max-concurrency 4 was full\); requests completed at 95\.2%/);
  });

  it('kept its schedule when the delay stays level, whatever one slow request did', () => {
    const verdict = judgeOverload(scheduled((i) => (i === 29 ? 20_000 : 50 + (i % 3) * 5)), open(10));
    expect(verdict).toEqual({ achieved_rate: { send_ratio: 1, completion_ratio: 1 }, overloaded: false });
  });

  it('is kept at 1.9% growth and overloaded at 2.1%, the 0.98 boundary between them', () => {
    expect(judgeOverload(scheduled((i) => 50 + 1.9 * i), open(10))!.overloaded).toBe(false);
    expect(judgeOverload(scheduled((i) => 50 + 2.1 * i), open(10))!.overloaded).toBe(true);
  });

  it('is not judged with fewer than 15 completed requests, and says so', () => {
    const records = scheduled((i) => 50 + 10 * i).map((r, i) => (i >= 14 ? { ...r, failure: { class: 'timeout' as const, status: null, message: 'timed out' } } : r));
    expect(judgeOverload(records, open(10))).toEqual({
      achieved_rate: null,
      overloaded: null,
      overload_reason: '14 requests completed, fewer than 15: too few to tell whether the schedule was kept',
    });
  });

  it('is not a question for a closed loop, a trace or rate inf', () => {
    const records = scheduled((i) => 50 + 10 * i);
    expect(judgeOverload(records, closed(4))).toBeNull();
    expect(judgeOverload(records, open('inf'))).toBeNull();
    expect(judgeOverload(records, { mode: 'trace', time_scale: 1, max_concurrency: null })).toBeNull();
  });
});
