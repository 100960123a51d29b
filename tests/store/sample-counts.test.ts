/**
 * The sample counts behind each distribution of a point (harness/store/sample-counts.ts), called on
 * their own: recorded or derived as docs/metrics.md#sample-sufficiency says, the order-statistic
 * interval from the saved requests, and validate's [sample-count] check, on SYNTHETIC points
 * (bench/lib/synthetic-results.ts: measured nothing) whose requests and counts are set by hand, so
 * every expected count is read off the rule. tests/store/sufficiency.test.ts compiles stores with
 * them (the committed lane and synthetic runs).
 */
import { describe, expect, it } from 'vitest';
import type { Point } from '../../harness/contract/result.ts';
import { SAMPLED_DISTRIBUTIONS } from '../../harness/contract/sufficiency.ts';
import { checkSampleCounts, insufficientPercentiles, percentileIntervalOf, sampleCounts, type SampleCounts } from '../../harness/store/sample-counts.ts';
import { synthetic } from './claim-fixtures.ts';

type SavedRequest = NonNullable<Point['requests']>[number];

/** A completed request as --save-requests writes it; `changes` override its facts. */
const saved = (index: number, changes: Partial<SavedRequest> = {}): SavedRequest => ({
  index, ok: true, failure: null, status: 200, queue_ms: 0.1, ttft_ms: 50, e2el_ms: 50 + 3 * 10, tpot_ms: 10,
  input_tokens: 512, output_tokens: 4, server_prompt_tokens: 512, content_events: 4, finish_reason: 'length', ...changes,
});

/**
 * The synthetic fixture's first point (64 requests sent, all completed, 8192 output tokens) with
 * `requests` saved (none: not saved) and, unless `recorded`, no distribution's count (an older file).
 */
function point(options: { requests?: SavedRequest[]; recorded?: boolean; edit?: (p: Point) => void } = {}): Point {
  const p = structuredClone(synthetic().points[0]!);
  if (options.recorded !== true) for (const d of SAMPLED_DISTRIBUTIONS) if (p.metrics[d] !== null) delete p.metrics[d]!.count;
  if (options.requests !== undefined) p.requests = options.requests;
  options.edit?.(p);
  return p;
}

/**
 * 64 saved requests: 4 failed (their streams cut short after 5 events with a TPOT: none of it
 * counts), 4 with no TPOT (one output token), 2 with a TPOT of 0, 6 with 0 or 1 content events.
 */
function mixedRequests(): SavedRequest[] {
  return Array.from({ length: 64 }, (_, index) => {
    if (index < 4) return saved(index, { ok: false, failure: 'truncated_stream', e2el_ms: null, tpot_ms: 12, output_tokens: 5, content_events: 5 });
    if (index < 8) return saved(index, { tpot_ms: null, output_tokens: 1, content_events: 1, e2el_ms: 50 });
    if (index < 10) return saved(index, { tpot_ms: 0, content_events: 2 });
    if (index < 12) return saved(index, { content_events: 0 });
    return saved(index, { content_events: 4 + (index % 3) });
  });
}

describe('sample counts of an older file (none recorded): derived from what the point says', () => {
  it('without saved requests: TTFT, E2EL, TPOT and interactivity one per completed request, queue one per sent, ITL per token and per event output − completed', () => {
    const p = point({ edit: (q) => Object.assign(q.metrics, { completed: 60, output_tokens: 8000 }) });
    expect(sampleCounts(p)).toEqual({ source: 'derived', counts: { ttft_ms: 60, tpot_ms: 60, itl_ms: 7940, itl_event_ms: 7940, e2el_ms: 60, queue_ms: 64, interactivity_tok_s: 60 } });
  });

  it('from saved requests: TPOT one per completed request with a TPOT, interactivity one per positive TPOT, ITL per event the gaps between each request’s events', () => {
    const requests = mixedRequests();
    const completed = requests.filter((r) => r.ok);
    // Events − 1 per completed request, none below 0: 4 × 0 (one event), 2 × 1, 2 × 0 (no event), 52 × (3 + index mod 3).
    const gaps = 2 * 1 + completed.slice(8).reduce((sum, r) => sum + (r.index % 3) + 3, 0);
    expect(gaps).toBe(2 + 52 * 3 + 17 * (0 + 1 + 2));
    const p = point({ requests, edit: (q) => Object.assign(q.metrics, { completed: 60, failed: 4, output_tokens: 8000 }) });
    expect(sampleCounts(p)).toEqual({ source: 'derived', counts: { ttft_ms: 60, tpot_ms: 56, itl_ms: 7940, itl_event_ms: gaps, e2el_ms: 60, queue_ms: 64, interactivity_tok_s: 54 } });
  });

  it('reads saved requests only when they are every request of the point', () => {
    const p = point({ requests: mixedRequests().slice(0, 63), edit: (q) => Object.assign(q.metrics, { completed: 60, output_tokens: 8000 }) });
    expect(sampleCounts(p).counts).toMatchObject({ tpot_ms: 60, interactivity_tok_s: 60, itl_event_ms: 7940 });
  });

  it('counts never go below 0 (output tokens fewer than completed requests), and an empty distribution has no count', () => {
    const p = point({ edit: (q) => Object.assign(q.metrics, { output_tokens: 10, itl_ms: null, interactivity_tok_s: null }) });
    expect(sampleCounts(p).counts).toEqual({ ttft_ms: 64, tpot_ms: 64, itl_ms: null, itl_event_ms: 0, e2el_ms: 64, queue_ms: 64, interactivity_tok_s: null });
  });

  it('derives every count when any distribution lacks its own (a file half recorded is judged as an older one)', () => {
    const p = point({ recorded: true, edit: (q) => delete q.metrics.queue_ms!.count });
    expect(sampleCounts(p)).toMatchObject({ source: 'derived', counts: { queue_ms: 64, itl_ms: 8192 - 64 } });
  });
});

describe('sample counts of a file that records them', () => {
  it('are the recorded ones, null for an empty distribution, computed once per point', () => {
    const p = point({ recorded: true, edit: (q) => Object.assign(q.metrics, { itl_event_ms: null }) });
    p.metrics.tpot_ms!.count = 61;
    const first = sampleCounts(p);
    expect(first).toEqual({ source: 'recorded', counts: { ttft_ms: 64, tpot_ms: 61, itl_ms: 64, itl_event_ms: null, e2el_ms: 64, queue_ms: 64, interactivity_tok_s: 64 } });
    expect(sampleCounts(p)).toBe(first);
  });
});

describe('the percentiles a sample cannot support', () => {
  it('are those below each minimum, per distribution in column order; a count at a minimum supports it; an empty distribution has none', () => {
    const counts: SampleCounts = { ttft_ms: 100, tpot_ms: 99, itl_ms: 1000, itl_event_ms: null, e2el_ms: 20, queue_ms: 1, interactivity_tok_s: 10 };
    expect(insufficientPercentiles(counts)).toEqual([
      'ttft_ms_p999', 'tpot_ms_p99', 'tpot_ms_p999', 'e2el_ms_p99', 'e2el_ms_p999',
      'queue_ms_p50', 'queue_ms_p90', 'queue_ms_p95', 'queue_ms_p99', 'queue_ms_p999', 'interactivity_tok_s_p95', 'interactivity_tok_s_p99', 'interactivity_tok_s_p999',
    ]);
  });
});

describe('the order-statistic interval of a percentile from the saved requests', () => {
  // Ten completed TTFTs, saved out of order, and a failed request's (none counts): the median of 10
  // is bounded by the 2nd and 9th order statistics (Conover 1999, Table A3: coverage 97.85%).
  const ttfts = [90, 10, 80, 20, 70, 30, 60, 40, 50, 100];
  const requests = (): SavedRequest[] => [
    ...ttfts.map((ttft, index) => saved(index, { ttft_ms: ttft, e2el_ms: ttft + 30, tpot_ms: index < 2 ? null : ttft / 10 })),
    saved(10, { ok: false, failure: 'http_error', ttft_ms: 1, e2el_ms: 1000, tpot_ms: 0.5 }),
  ];
  const of = (p: Point, distribution: 'ttft_ms' | 'tpot_ms' | 'e2el_ms' | 'itl_ms') => percentileIntervalOf(p, distribution, 'p50');
  const withRequests = () => point({ requests: requests(), edit: (q) => (q.requests_sent = 11) });

  it('sorts the completed requests’ values and takes the ranks from the rule', () => {
    expect(of(withRequests(), 'ttft_ms')).toEqual([20, 90]);
    expect(of(withRequests(), 'e2el_ms')).toEqual([50, 120]);
  });

  it('leaves out the requests without the value (no TPOT), so fewer values may support no interval', () => {
    // Eight TPOTs: the median of 8 is bounded by the 1st and 8th (P(B ≤ 0) = 1/256 ≤ 2.5% < P(B ≤ 1) = 9/256).
    expect(of(withRequests(), 'tpot_ms')).toEqual([2, 10]);
    const five = point({ requests: requests().slice(5), edit: (q) => (q.requests_sent = 6) });
    expect(of(five, 'ttft_ms')).toBeNull();
  });

  it('is null for a distribution the saved requests do not hold, or when not every request was saved', () => {
    expect(of(withRequests(), 'itl_ms')).toBeNull();
    expect(of(point({ requests: requests() }), 'ttft_ms')).toBeNull();
    expect(of(point(), 'ttft_ms')).toBeNull();
  });
});

describe('[sample-count]: a recorded count agrees with what the point says', () => {
  const AT = 'points[0]';
  const problems = (p: Point) => {
    const found: string[] = [];
    checkSampleCounts(p, AT, (path, message, fix) => found.push(`${path} | ${message} | ${fix}`));
    return found;
  };
  const problem = (name: string, count: number, says: string, what: string) => `${AT}.metrics.${name}.count | [sample-count] ${name} counts ${count} samples, the point says ${says} (${what}) | keep the count the harness wrote: ${name} has ${what}`;
  const recorded = (edit: (p: Point) => void, requests?: SavedRequest[]) => point({ recorded: true, requests, edit });
  const setCount = (p: Point, name: 'ttft_ms' | 'e2el_ms' | 'queue_ms' | 'tpot_ms' | 'interactivity_tok_s', count: number) => (p.metrics[name]!.count = count);
  /** 60 of the 64 sent requests completed, every count of a completed request 60. */
  const fourFailed = (p: Point) => {
    Object.assign(p.metrics, { completed: 60, failed: 4 });
    for (const d of ['ttft_ms', 'e2el_ms', 'tpot_ms', 'interactivity_tok_s'] as const) setCount(p, d, 60);
  };

  const cases: Array<[string, Point, string[]]> = [
    ['every count as the point says', recorded(() => {}), []],
    ['no count to check (an older file)', point(), []],
    ['TTFT one short', recorded((p) => setCount(p, 'ttft_ms', 63)), [problem('ttft_ms', 63, '64', 'one per completed request')]],
    ['E2EL one over', recorded((p) => setCount(p, 'e2el_ms', 65)), [problem('e2el_ms', 65, '64', 'one per completed request')]],
    ['queue one per sent request, failed ones too', recorded(fourFailed), []],
    ['queue counting completed requests only', recorded((p) => { fourFailed(p); setCount(p, 'queue_ms', 60); }), [problem('queue_ms', 60, '64', 'one per sent request')]],
    ['TPOT below completed (one-token requests have none)', recorded((p) => { setCount(p, 'tpot_ms', 50); setCount(p, 'interactivity_tok_s', 50); }), []],
    ['TPOT over completed', recorded((p) => setCount(p, 'tpot_ms', 65)), [problem('tpot_ms', 65, 'at most 64', 'one per completed request with more than one output token'), problem('interactivity_tok_s', 64, '65', 'one per request with a positive TPOT')]],
    ['interactivity below TPOT where every TPOT is positive', recorded((p) => setCount(p, 'interactivity_tok_s', 63)), [problem('interactivity_tok_s', 63, '64', 'one per request with a positive TPOT')]],
    ['interactivity below TPOT where a TPOT is 0', recorded((p) => { p.metrics.tpot_ms!.min = 0; setCount(p, 'interactivity_tok_s', 63); }), []],
    ['interactivity over TPOT where a TPOT is 0', recorded((p) => { p.metrics.tpot_ms!.min = 0; setCount(p, 'interactivity_tok_s', 65); }), [problem('interactivity_tok_s', 65, 'at most 64', 'one per request with a positive TPOT')]],
    ['interactivity with no TPOT distribution', recorded((p) => { p.metrics.tpot_ms = null; setCount(p, 'interactivity_tok_s', 65); }), []],
    ['interactivity recorded, TPOT not (nothing to compare it with)', recorded((p) => { delete p.metrics.tpot_ms!.count; setCount(p, 'interactivity_tok_s', 63); }), []],
    ['TPOT exactly the saved requests with one', recorded((p) => { setCount(p, 'tpot_ms', 60); setCount(p, 'interactivity_tok_s', 60); }, Array.from({ length: 64 }, (_, i) => saved(i, { tpot_ms: i < 4 ? null : 10 }))), []],
    ['TPOT not the saved requests with one', recorded(() => {}, Array.from({ length: 64 }, (_, i) => saved(i, { tpot_ms: i < 4 ? null : 10 }))), [problem('tpot_ms', 64, '60', 'one per saved request with a TPOT')]],
    ['TPOT counting a failed saved request', recorded((p) => { setCount(p, 'tpot_ms', 64); }, Array.from({ length: 64 }, (_, i) => saved(i, i === 0 ? { ok: false, failure: 'timeout' } : {}))), [problem('tpot_ms', 64, '63', 'one per saved request with a TPOT')]],
  ];
  it.each(cases)('%s', (_what, p, expected) => {
    expect(problems(p)).toEqual(expected);
  });
});
