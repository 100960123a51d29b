/**
 * A SYNTHETIC run (bench/lib/synthetic-results.ts) scaled to another number of requests per point,
 * for the tests of sample sufficiency: a percentile is published only from enough samples
 * (docs/metrics.md#sample-sufficiency), and the fixture's 64 requests support no p99.
 */
import type { RunResult } from '../../harness/contract/result.ts';

/** `result` with `n` requests at every point (sums, rates and counts kept consistent), changed in place. */
export function withRequests(result: RunResult, n: number): RunResult {
  for (const point of result.points) {
    const m = point.metrics;
    const scale = n / m.completed;
    point.requests_sent = m.completed = n;
    m.input_tokens *= scale;
    m.output_tokens *= scale;
    m.duration_s *= scale;
    for (const d of [m.ttft_ms, m.tpot_ms, m.e2el_ms, m.queue_ms, m.interactivity_tok_s]) d!.count = n;
    point.token_count_sources.input.usage = point.token_count_sources.output.usage = n;
    point.itl_split.exact = n;
  }
  return result;
}
