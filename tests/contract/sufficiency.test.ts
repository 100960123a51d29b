/**
 * The sample-sufficiency rule's column helpers (harness/contract/sufficiency.ts) on their own:
 * which columns are percentiles of a sampled distribution, the count column each rests on, and the
 * minimum n of each statistic taken exactly (n ≥ ⌈1/(1−p)⌉, docs/metrics.md#sample-sufficiency).
 * tests/store/sufficiency.test.ts checks the rule against the interpolation it guards and in compile.
 */
import { describe, expect, it } from 'vitest';
import { percentileColumn, percentileSupported, sampleCountColumn } from '../../harness/contract/sufficiency.ts';

describe('a percentile column', () => {
  const cases: Array<[string, ReturnType<typeof percentileColumn>]> = [
    ['ttft_ms_p95', { distribution: 'ttft_ms', stat: 'p95' }],
    ['ttft_ms_p99', { distribution: 'ttft_ms', stat: 'p99' }],
    // p999, not p99 followed by a stray 9: the statistic runs to the end of the name.
    ['ttft_ms_p999', { distribution: 'ttft_ms', stat: 'p999' }],
    ['interactivity_tok_s_p50', { distribution: 'interactivity_tok_s', stat: 'p50' }],
    ['itl_event_ms_p90', { distribution: 'itl_event_ms', stat: 'p90' }],
    // A column after the statistic (the interval's end) is no percentile column.
    ['ttft_ms_p95_ci_low', null],
    ['ttft_ms_p95__samples_max', null],
    ['ttft_ms_mean', null],
    ['output_throughput', null],
    // A percentile of something that is not a sampled distribution.
    ['prompt_tokens_p95', null],
    ['xttft_ms_p95', null],
    ['_p95', null],
  ];
  it.each(cases)('%s', (column, expected) => {
    expect(percentileColumn(column)).toEqual(expected);
  });

  it('rests on its distribution’s count column; any other column on none', () => {
    expect([sampleCountColumn('tpot_ms_p99'), sampleCountColumn('queue_ms_p50'), sampleCountColumn('output_throughput'), sampleCountColumn('ttft_ms_p95_ci_low')]).toEqual(['tpot_ms_n', 'queue_ms_n', null, null]);
  });
});

describe('a statistic is supported', () => {
  // n ≥ ⌈1/(1−p)⌉: one sample short of each minimum is not enough.
  const cases: Array<[string, number, boolean]> = [
    ['p50', 1, false], ['p50', 2, true],
    ['p90', 9, false], ['p90', 10, true],
    ['p95', 19, false], ['p95', 20, true],
    ['p99', 99, false], ['p99', 100, true],
    ['p999', 999, false], ['p999', 1000, true],
    // Any other statistic needs one value.
    ['max', 0, false], ['max', 1, true], ['mean', 1, true],
  ];
  it.each(cases)('%s of %i samples: %s', (stat, n, supported) => {
    expect(percentileSupported(stat, n)).toBe(supported);
  });
});
