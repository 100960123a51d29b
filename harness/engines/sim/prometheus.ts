/**
 * /metrics in Prometheus text exposition format, with names modelled on vLLM's so dashboards and
 * scrapers written against a real engine can be pointed at the sim.
 */
import { FAULT_KINDS, type FaultKind } from './config.ts';

/** Why a request did not end with a finish chunk; the label of sim_request_failure_total. */
export const FAILURE_REASONS = ['http500', 'http429', 'reset', 'truncate', 'bad_request', 'not_found', 'client_abort', 'server_shutdown', 'endless', 'http500_endless', 'error_event'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

const TTFT_BUCKETS_S = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80] as const;

export interface EngineGauges {
  readonly running: number;
  readonly waiting: number;
  readonly kvUsageRatio: number;
}

export class SimMetrics {
  promptTokens = 0;
  generationTokens = 0;
  /** Prompt tokens looked up in the prefix cache, and those found there (vLLM's prefix_cache_queries/hits). */
  prefixQueries = 0;
  prefixHits = 0;
  success = 0;
  private readonly failures = new Map<FailureReason, number>(FAILURE_REASONS.map((reason) => [reason, 0]));
  private readonly faults = new Map<FaultKind, number>(FAULT_KINDS.map((kind) => [kind, 0]));
  private readonly ttftBuckets = new Array<number>(TTFT_BUCKETS_S.length).fill(0);
  private ttftCount = 0;
  private ttftSum = 0;

  fail(reason: FailureReason): void {
    this.failures.set(reason, (this.failures.get(reason) ?? 0) + 1);
  }

  fault(kind: FaultKind): void {
    this.faults.set(kind, (this.faults.get(kind) ?? 0) + 1);
  }

  observeTtft(seconds: number): void {
    this.ttftCount++;
    this.ttftSum += seconds;
    for (let i = 0; i < TTFT_BUCKETS_S.length; i++) {
      if (seconds <= TTFT_BUCKETS_S[i]!) this.ttftBuckets[i]!++;
    }
  }

  render(gauges: EngineGauges): string {
    const lines: string[] = [];
    const family = (name: string, type: string, help: string, samples: readonly string[]): void => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples);
    };
    family('sim_num_requests_running', 'gauge', 'Requests in the running batch.', [`sim_num_requests_running ${gauges.running}`]);
    family('sim_num_requests_waiting', 'gauge', 'Requests queued for admission.', [`sim_num_requests_waiting ${gauges.waiting}`]);
    family('sim_kv_cache_usage_ratio', 'gauge', 'Fraction of the KV token budget reserved by running requests.', [
      `sim_kv_cache_usage_ratio ${gauges.kvUsageRatio}`,
    ]);
    family('sim_prompt_tokens_total', 'counter', 'Prompt tokens prefilled.', [`sim_prompt_tokens_total ${this.promptTokens}`]);
    family('sim_generation_tokens_total', 'counter', 'Tokens generated.', [`sim_generation_tokens_total ${this.generationTokens}`]);
    family('sim_prefix_cache_queries_total', 'counter', 'Prompt tokens looked up in the prefix cache.', [`sim_prefix_cache_queries_total ${this.prefixQueries}`]);
    family('sim_prefix_cache_hits_total', 'counter', 'Prompt tokens found in the prefix cache (not prefilled again).', [`sim_prefix_cache_hits_total ${this.prefixHits}`]);
    family('sim_request_success_total', 'counter', 'Requests that ended with a finish reason.', [`sim_request_success_total ${this.success}`]);
    family(
      'sim_request_failure_total',
      'counter',
      'Requests that ended without a finish reason, by reason.',
      [...this.failures].map(([reason, count]) => `sim_request_failure_total{reason="${reason}"} ${count}`),
    );
    family(
      'sim_faults_injected_total',
      'counter',
      'Faults injected by --faults, by kind (stall, malformed and early_stop requests can still succeed).',
      [...this.faults].map(([kind, count]) => `sim_faults_injected_total{fault="${kind}"} ${count}`),
    );
    family('sim_time_to_first_token_seconds', 'histogram', 'Time from request received to the write of the first token.', [
      ...TTFT_BUCKETS_S.map((le, i) => `sim_time_to_first_token_seconds_bucket{le="${le}"} ${this.ttftBuckets[i]}`),
      `sim_time_to_first_token_seconds_bucket{le="+Inf"} ${this.ttftCount}`,
      `sim_time_to_first_token_seconds_sum ${this.ttftSum}`,
      `sim_time_to_first_token_seconds_count ${this.ttftCount}`,
    ]);
    return `${lines.join('\n')}\n`;
  }
}
