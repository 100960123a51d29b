/**
 * The metrics the leaderboard, deltas, regressions, the SLA filter and the compare page speak
 * about: the one place their labels, units and better direction are written. Each is a column of
 * the points table; per release the geometric mean over its runs is shown. Plain data with no imports, so
 * the site's browser code may take it as it is.
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
  // Shown, not compared (the SLA tiers' limit; deltas and regressions count the compared ones only).
  { column: 'ttft_ms_p95', label: 'TTFT p95', unit: 'ms', better: 'lower', compared: false },
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

const byColumn = (column: string): HeadlineMetric => HEADLINE_METRICS.find((m) => m.column === column)!;

/** The limits the SLA filter offers (each a release value, lower is better). */
export const SLA_METRICS = (['ttft_ms_p99', 'ttft_ms_p95', 'ttft_ms_p50', 'tpot_ms_p95', 'itl_ms_p99', 'e2el_ms_p50'] as const).map((column) => ({ ...byColumn(column), column }));
export type SlaColumn = (typeof SLA_METRICS)[number]['column'];

/** The columns of the compare page. */
export const COMPARE_METRICS = (['output_throughput', 'ttft_ms_p50', 'tpot_ms_p50', 'itl_ms_p99'] as const).map((column) => ({ ...byColumn(column), column }));

/** A regression is a significant change for the worse of at least this many percent (regress's default --threshold, the regressions page). */
export const DEFAULT_REGRESSION_THRESHOLD_PCT = 10;
