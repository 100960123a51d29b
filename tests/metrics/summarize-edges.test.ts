/**
 * Corners of summarizePoint that mutation testing found no test for (docs/mutation-testing.md): a
 * point that does not start at 0 ms, a point with no requests, a request whose tokens all came in
 * one event (TPOT 0, no interactivity), and a completed request whose counts name no source.
 * SYNTHETIC request records, values computed by hand.
 */
import { describe, expect, it } from 'vitest';
import { emptyRecord, type RequestRecord } from '../../harness/measure/metrics/request-record.ts';
import { summarizePoint } from '../../harness/measure/metrics/summarize.ts';

function record(partial: Partial<RequestRecord> & Pick<RequestRecord, 'scheduledMs' | 'sendMs' | 'endMs'>): RequestRecord {
  return { ...emptyRecord(0, 'r', partial.scheduledMs, false), finishReason: 'length', ...partial };
}

describe('summarizePoint, corners', () => {
  it('measures the duration from the first send to the last end wherever the clock starts', () => {
    const late = [
      record({ scheduledMs: 1000, sendMs: 1000, endMs: 1300, contentTimesMs: [1100, 1200], contentChars: [1, 1], outputTokens: 2 }),
      record({ scheduledMs: 1100, sendMs: 1100, endMs: 1500, contentTimesMs: [1200, 1400], contentChars: [1, 1], outputTokens: 2 }),
    ];
    const m = summarizePoint(late, null).metrics;
    expect(m.duration_s).toBeCloseTo(0.5, 12);
    expect(m.request_throughput).toBeCloseTo(4, 9);
  });

  it('a point without requests lasted 0 s and has no rates', () => {
    const m = summarizePoint([], null).metrics;
    expect([m.duration_s, m.request_throughput, m.output_throughput, m.total_throughput]).toEqual([0, null, null, null]);
  });

  it('a request whose tokens all came in one event has TPOT 0 and no interactivity (1000 / 0 is none)', () => {
    const burst = record({ scheduledMs: 0, sendMs: 0, endMs: 60, contentTimesMs: [50], contentChars: [9], outputTokens: 3 });
    const m = summarizePoint([burst], null).metrics;
    expect(m.tpot_ms?.max).toBe(0);
    expect(m.interactivity_tok_s).toBeNull();
  });

  it('a completed request whose counts name no source is counted under none', () => {
    const unsourced = record({ scheduledMs: 0, sendMs: 0, endMs: 60, contentTimesMs: [50], contentChars: [1], inputTokens: 8, outputTokens: 1 });
    const summary = summarizePoint([unsourced], null);
    expect(summary.token_count_sources).toEqual({ input: { usage: 0, tokenizer: 0, events: 0, declared: 0 }, output: { usage: 0, tokenizer: 0, events: 0, declared: 0 } });
  });
});
