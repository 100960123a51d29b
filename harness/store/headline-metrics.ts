/**
 * The metrics the leaderboard, deltas and regressions speak about, with the direction that is
 * better. Each is a column of the points table; per release the median over its runs is shown.
 */
export interface HeadlineMetric {
  readonly column: string;
  readonly label: string;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  /** Compared across releases (deltas, regressions); the others are shown only. */
  readonly compared: boolean;
}

export const HEADLINE_METRICS: readonly HeadlineMetric[] = [
  { column: 'output_throughput', label: 'Output throughput', unit: 'tok/s', better: 'higher', compared: true },
  { column: 'output_throughput_per_gpu', label: 'Throughput per GPU', unit: 'tok/s/GPU', better: 'higher', compared: false },
  { column: 'request_throughput', label: 'Request throughput', unit: 'req/s', better: 'higher', compared: true },
  { column: 'interactivity_tok_s_p50', label: 'Interactivity p50', unit: 'tok/s/user', better: 'higher', compared: true },
  { column: 'ttft_ms_p50', label: 'TTFT p50', unit: 'ms', better: 'lower', compared: true },
  { column: 'ttft_ms_p99', label: 'TTFT p99', unit: 'ms', better: 'lower', compared: true },
  { column: 'tpot_ms_p50', label: 'TPOT p50', unit: 'ms', better: 'lower', compared: true },
  { column: 'tpot_ms_p95', label: 'TPOT p95', unit: 'ms', better: 'lower', compared: true },
  { column: 'itl_ms_p99', label: 'ITL p99', unit: 'ms', better: 'lower', compared: true },
  { column: 'e2el_ms_p50', label: 'E2E latency p50', unit: 'ms', better: 'lower', compared: true },
  { column: 'cost_per_1m_output_tokens', label: 'Cost per 1M output tokens', unit: 'USD', better: 'lower', compared: false },
  { column: 'gpu_peak_memory_mib', label: 'GPU memory peak', unit: 'MiB', better: 'lower', compared: false },
  { column: 'energy_per_output_token_j', label: 'Energy per output token', unit: 'J/token', better: 'lower', compared: false },
];

export const COMPARED_METRICS = HEADLINE_METRICS.filter((m) => m.compared);
