/**
 * One name map for the engines' own Prometheus metrics: for each engine, which of its metrics
 * is requests running, requests waiting, KV-cache usage, prefix-cache hits, preemptions and
 * prompt and generation tokens. Each engine names these differently (and renames them between
 * releases), so a result records the raw metrics under the engine's names and, beside them,
 * these common quantities under one name (`telemetry.engine_metrics.gauges`, docs/metrics.md#engine-gauges).
 *
 * Every name is the exposed one: prometheus_client appends `_total` to a Counter's name, so
 * vLLM's Counter("vllm:prompt_tokens") is scraped as vllm:prompt_tokens_total. Where a list holds
 * several names, the first one the server exposes is read (a renamed metric, newest name first).
 */
import { z } from 'zod';

/** Names of one quantity, newest first; the first the server exposes is read. */
type Names = readonly string[];

/**
 * Prefix-cache reuse as the engine counts it: any two of hits, misses and queries (cumulative
 * counters; the third follows). `unit` is what they count: prompt tokens, or KV blocks.
 */
export interface PrefixCounters {
  readonly hits?: Names;
  readonly misses?: Names;
  readonly queries?: Names;
  readonly unit: 'tokens' | 'blocks';
}

export interface EngineGaugeMap {
  /** Gauge: requests being decoded or prefilled now. */
  readonly running?: Names;
  /** Gauge: requests queued for admission. */
  readonly waiting?: Names;
  /** Gauge: fraction (0–1) of the KV cache in use. */
  readonly kvUsage?: Names;
  /** Counter: prompt tokens, as the engine counts them (`promptTokensNote` says how where it differs). */
  readonly promptTokens?: Names;
  readonly promptTokensNote?: string;
  readonly generationTokens?: Names;
  /** Counter: requests preempted (vLLM), retracted (SGLang): sent back to the queue, their KV freed. */
  readonly preemptions?: Names;
  readonly prefix?: PrefixCounters;
  /** Quantities the engine does not export, with the reason (shown in docs and by the map's test). */
  readonly missing?: Readonly<Record<string, string>>;
}

/**
 * The map. Sources (repository, path, symbol; the version each was read at):
 */
export const ENGINE_GAUGES: Readonly<Record<string, EngineGaugeMap>> = {
  // vllm-project/vllm vllm/v1/metrics/loggers.py PrometheusStatLogger.__init__ (commit 005a810):
  // gauge_scheduler_running/_waiting, gauge_kv_cache_usage ("1 means 100 percent usage": a fraction
  // despite _perc), counter_prefix_cache_hits/_queries (tokens), counter_num_preempted_reqs,
  // counter_prompt_tokens, counter_generation_tokens. vllm:gpu_cache_usage_perc and
  // vllm:gpu_prefix_cache_* are the names deprecated in 0.9, kept for older releases.
  vllm: {
    running: ['vllm:num_requests_running'],
    waiting: ['vllm:num_requests_waiting'],
    kvUsage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'],
    promptTokens: ['vllm:prompt_tokens_total'],
    generationTokens: ['vllm:generation_tokens_total'],
    preemptions: ['vllm:num_preemptions_total'],
    prefix: { hits: ['vllm:prefix_cache_hits_total', 'vllm:gpu_prefix_cache_hits_total'], queries: ['vllm:prefix_cache_queries_total', 'vllm:gpu_prefix_cache_queries_total'], unit: 'tokens' },
  },
  // sgl-project/sglang python/sglang/srt/metrics/collector.py (commit 00ae9c1): SchedulerMetricsCollector
  // num_running_reqs, num_queue_reqs, token_usage (used / total KV-pool tokens), num_retracted_reqs_total
  // (exposed sglang:num_retracted_requests_total: "reques[ts] instead of reqs to avoid dup name error");
  // TokenizerMetricsCollector prompt_tokens_total, generation_tokens_total, cached_tokens_total
  // (prompt tokens taken from the cache, summed over its cache_source label). Needs --enable-metrics.
  sglang: {
    running: ['sglang:num_running_reqs'],
    waiting: ['sglang:num_queue_reqs'],
    kvUsage: ['sglang:token_usage'],
    promptTokens: ['sglang:prompt_tokens_total'],
    generationTokens: ['sglang:generation_tokens_total'],
    preemptions: ['sglang:num_retracted_requests_total'],
    prefix: { hits: ['sglang:cached_tokens_total'], queries: ['sglang:prompt_tokens_total'], unit: 'tokens' },
  },
  // NVIDIA/TensorRT-LLM tensorrt_llm/metrics/collector.py MetricsCollector (commit 050f80d, main):
  // log_iteration_stats sets num_requests_running (numActiveRequests), num_requests_waiting
  // (numQueuedRequests), kv_cache_utilization (usedNumBlocks / maxNumBlocks) and counts
  // kv_cache_reused_blocks / kv_cache_missed_blocks (blocks, not tokens); log_request_metrics_dict counts
  // prompt_tokens_total and generation_tokens_total. Served at /prometheus/metrics, filled only with
  // enable_iter_perf_stats and return_perf_metrics (engines/trtllm.yaml writes both).
  trtllm: {
    running: ['trtllm_num_requests_running'],
    waiting: ['trtllm_num_requests_waiting'],
    kvUsage: ['trtllm_kv_cache_utilization'],
    promptTokens: ['trtllm_prompt_tokens_total'],
    generationTokens: ['trtllm_generation_tokens_total'],
    prefix: { hits: ['trtllm_kv_cache_reused_blocks_total'], misses: ['trtllm_kv_cache_missed_blocks_total'], unit: 'blocks' },
    missing: { preemptions: 'no preemption counter (paused requests are a gauge, trtllm_num_paused_requests)' },
  },
  // InternLM/lmdeploy lmdeploy/metrics/loggers.py PrometheusStatLogger (0.12 line): gauge_scheduler_running,
  // gauge_scheduler_waiting, gauge_gpu_cache_usage ("1 means 100 percent usage"), counter_prompt_tokens,
  // counter_generation_tokens. At commit 0168eed record() incremented the generation counter twice per
  // iteration (2x the tokens); the later record_iteration counts them once.
  lmdeploy: {
    running: ['lmdeploy:num_requests_running'],
    waiting: ['lmdeploy:num_requests_waiting'],
    kvUsage: ['lmdeploy:gpu_cache_usage_perc'],
    promptTokens: ['lmdeploy:prompt_tokens_total'],
    generationTokens: ['lmdeploy:generation_tokens_total'],
    missing: { prefix: 'no prefix-cache counters', preemptions: 'no preemption counter' },
  },
  // mlc-ai/mlc-llm python/mlc_llm/serve/engine_base.py EngineMetrics.prometheus_text (bare keys of the
  // engine's metrics JSON, tab-separated, no prefix) over cpp/serve/metrics.cc EngineMetrics::AsJSON:
  // sum_num_input_tokens (prompt tokens), sum_num_prefill_tokens ("excluding the prefix-cached length"),
  // sum_num_output_tokens. The engine keeps no queue or KV gauges in these metrics.
  mlc: {
    promptTokens: ['sum_num_input_tokens'],
    generationTokens: ['sum_num_output_tokens'],
    prefix: { queries: ['sum_num_input_tokens'], misses: ['sum_num_prefill_tokens'], unit: 'tokens' },
    missing: { running: 'not in its metrics', waiting: 'not in its metrics', kv_usage: 'not in its metrics', preemptions: 'not in its metrics' },
  },
  // ggml-org/llama.cpp tools/server (server.cpp, later server-context.cpp) metrics handler: counters
  // prompt_tokens_total (n_prompt_tokens_processed_total: evaluated tokens, cache reuse excluded),
  // tokens_predicted_total; gauges requests_processing (slots busy), requests_deferred (tasks waiting
  // for a slot). kv_cache_usage_ratio (kv_cache_used_cells / n_ctx) is exposed by older builds only
  // (b5415 has it, recorded in results/2026-12-03; b8095 and v0.4.0 do not). Needs --metrics.
  llamacpp: {
    running: ['llamacpp:requests_processing'],
    waiting: ['llamacpp:requests_deferred'],
    kvUsage: ['llamacpp:kv_cache_usage_ratio'],
    promptTokens: ['llamacpp:prompt_tokens_total'],
    promptTokensNote: 'evaluated tokens: prompt tokens reused from a slot are not counted',
    generationTokens: ['llamacpp:tokens_predicted_total'],
    missing: { prefix: 'no prefix-cache counter in v0.4.0 (the per-request timings.cache_n is what the cache audit reads)', preemptions: 'slots are never preempted' },
  },
  // harness/engines/embedded/server.ts metrics(): node-llama-cpp sequences behind servebench's own server.
  embedded: {
    running: ['servebench_embedded_num_requests_running'],
    waiting: ['servebench_embedded_num_requests_waiting'],
    kvUsage: ['servebench_embedded_kv_cache_usage_ratio'],
    promptTokens: ['servebench_embedded_prompt_tokens_total'],
    generationTokens: ['servebench_embedded_generation_tokens_total'],
    missing: { prefix: 'no prefix cache across requests', preemptions: 'a request keeps its sequence to the end' },
  },
  // harness/engines/sim/prometheus.ts SimMetrics.render, whatever personality the sim plays.
  sim: {
    running: ['sim_num_requests_running'],
    waiting: ['sim_num_requests_waiting'],
    kvUsage: ['sim_kv_cache_usage_ratio'],
    promptTokens: ['sim_prompt_tokens_total'],
    promptTokensNote: 'prefilled tokens: prompt tokens found in the prefix cache are not counted',
    generationTokens: ['sim_generation_tokens_total'],
    prefix: { hits: ['sim_prefix_cache_hits_total'], queries: ['sim_prefix_cache_queries_total'], unit: 'tokens' },
    missing: { preemptions: 'the sim reserves a request’s whole KV at admission and never preempts' },
  },
};

/** Every mapped metric name: the scraper keeps these whatever they are called. */
export const MAPPED_METRIC_NAMES: ReadonlySet<string> = new Set(
  Object.values(ENGINE_GAUGES).flatMap((map) => [
    ...(map.running ?? []),
    ...(map.waiting ?? []),
    ...(map.kvUsage ?? []),
    ...(map.promptTokens ?? []),
    ...(map.generationTokens ?? []),
    ...(map.preemptions ?? []),
    ...(map.prefix?.hits ?? []),
    ...(map.prefix?.misses ?? []),
    ...(map.prefix?.queries ?? []),
  ]),
);

const nonNegative = z.number().nonnegative();

const GaugeSummarySchema = z
  .object({ mean: nonNegative.describe('Mean of the samples taken during the point'), max: nonNegative.describe('Largest sample during the point') })
  .strict()
  .nullable();

/** What a result records under the common names, per point (null: the engine does not export it, or gave no sample). */
export const EngineGaugesSchema = z
  .object({
    samples: z.number().int().nonnegative().describe("Scrapes of the engine's metrics during the point (the gauges' means and maxima are over these)"),
    running: GaugeSummarySchema.describe('Requests running (in the batch), per scrape'),
    waiting: GaugeSummarySchema.describe('Requests queued for admission, per scrape'),
    kv_usage: GaugeSummarySchema.describe('Fraction of the KV cache in use (0–1), per scrape'),
    prompt_tokens: nonNegative.nullable().describe('Prompt tokens the engine counted over the point (after − before; llama.cpp and the sim count only the tokens they evaluated)'),
    generation_tokens: nonNegative.nullable().describe('Tokens the engine generated over the point (after − before)'),
    preemptions: nonNegative.nullable().describe('Requests preempted (SGLang: retracted) over the point'),
    prefix_hit_rate: z.number().min(0).max(1).nullable().describe("Prefix-cache hits / queries over the point, from the engine's own counters; null when it queried nothing or does not count"),
    prefix_unit: z.enum(['tokens', 'blocks']).nullable().describe('What the prefix counters count: prompt tokens, or KV blocks (TensorRT-LLM)'),
  })
  .strict();
export type EngineGauges = z.infer<typeof EngineGaugesSchema>;
