/**
 * SYNTHETIC /metrics texts, one per engine, reconstructed from each engine's exporter source at the
 * version named (the names, types, labels and layout are the engine's; every value is invented and
 * given by the test). Sources: harness/contract/engine-gauges.ts, which cites each file and symbol.
 */
export interface Values {
  running: number;
  waiting: number;
  kv: number;
  prompt: number;
  generation: number;
  hits: number;
  /** Prefix-cache lookups (vLLM, SGLang), or misses (TensorRT-LLM blocks, MLC prefilled tokens). */
  other: number;
  preempted: number;
}

const help = (name: string, type: string, text: string): string => `# HELP ${name} ${text}\n# TYPE ${name} ${type}\n`;

export const METRICS_TEXT: Record<string, (v: Values) => string> = {
  // vLLM v1 (vllm/v1/metrics/loggers.py at 005a810): labels model_name and engine; prometheus_client adds
  // _total and a _created timestamp to each counter.
  vllm: (v) => {
    const l = '{engine="0",model_name="m"}';
    return [
      help('vllm:num_requests_running', 'gauge', 'Number of requests in model execution batches.') + `vllm:num_requests_running${l} ${v.running}.0`,
      help('vllm:num_requests_waiting', 'gauge', 'Number of requests waiting to be processed.') + `vllm:num_requests_waiting${l} ${v.waiting}.0`,
      help('vllm:kv_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.') + `vllm:kv_cache_usage_perc${l} ${v.kv}`,
      help('vllm:prefix_cache_queries', 'counter', 'Prefix cache queries, in terms of number of queried tokens.') + `vllm:prefix_cache_queries_total${l} ${v.other}.0\nvllm:prefix_cache_queries_created${l} 1.7649e+09`,
      help('vllm:prefix_cache_hits', 'counter', 'Prefix cache hits, in terms of number of cached tokens.') + `vllm:prefix_cache_hits_total${l} ${v.hits}.0\nvllm:prefix_cache_hits_created${l} 1.7649e+09`,
      help('vllm:num_preemptions', 'counter', 'Cumulative number of preemption from the engine.') + `vllm:num_preemptions_total${l} ${v.preempted}.0`,
      help('vllm:prompt_tokens', 'counter', 'Number of prefill tokens processed.') + `vllm:prompt_tokens_total${l} ${v.prompt}.0`,
      help('vllm:generation_tokens', 'counter', 'Number of generation tokens processed.') + `vllm:generation_tokens_total${l} ${v.generation}.0`,
      help('vllm:time_to_first_token_seconds', 'histogram', 'Histogram of time to first token in seconds.') + `vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="m"} 3.0`,
    ].join('\n') + '\n';
  },
  // SGLang (python/sglang/srt/metrics/collector.py at 00ae9c1), --enable-metrics; labels model_name, tp_rank…
  sglang: (v) => {
    const l = '{engine_type="unified",model_name="m",pp_rank="0",tp_rank="0"}';
    return [
      help('sglang:num_running_reqs', 'gauge', 'The number of running requests.') + `sglang:num_running_reqs${l} ${v.running}.0`,
      help('sglang:num_queue_reqs', 'gauge', 'The number of requests in the waiting queue.') + `sglang:num_queue_reqs${l} ${v.waiting}.0`,
      help('sglang:token_usage', 'gauge', 'The token usage.') + `sglang:token_usage${l} ${v.kv}`,
      help('sglang:cache_hit_rate', 'gauge', 'The prefix cache hit rate.') + `sglang:cache_hit_rate${l} 0.5`,
      help('sglang:num_retracted_requests_total', 'counter', 'Total number of retracted requests.') + `sglang:num_retracted_requests_total${l} ${v.preempted}.0`,
      help('sglang:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.') + `sglang:prompt_tokens_total${l} ${v.other}.0`,
      help('sglang:generation_tokens_total', 'counter', 'Number of generation tokens processed.') + `sglang:generation_tokens_total${l} ${v.generation}.0`,
      // Split by cache_source: the parser sums the labels.
      help('sglang:cached_tokens_total', 'counter', 'Number of cached prompt tokens by source.') +
        `sglang:cached_tokens_total{cache_source="device",model_name="m"} ${v.hits - 1}.0\nsglang:cached_tokens_total{cache_source="host",model_name="m"} 1.0`,
    ].join('\n') + '\n';
  },
  // TensorRT-LLM (tensorrt_llm/metrics/collector.py at 050f80d) at /prometheus/metrics: prefix "trtllm_".
  trtllm: (v) => {
    const l = '{engine_type="trtllm",model_name="m"}';
    return [
      help('trtllm_num_requests_running', 'gauge', 'Number of active requests') + `trtllm_num_requests_running${l} ${v.running}.0`,
      help('trtllm_num_requests_waiting', 'gauge', 'Number of queued requests') + `trtllm_num_requests_waiting${l} ${v.waiting}.0`,
      help('trtllm_kv_cache_utilization', 'gauge', 'KV cache utilization') + `trtllm_kv_cache_utilization${l} ${v.kv}`,
      help('trtllm_kv_cache_hit_rate', 'gauge', 'KV cache hit rate') + `trtllm_kv_cache_hit_rate${l} 0.5`,
      help('trtllm_kv_cache_reused_blocks', 'counter', 'Cumulative number of KV cache blocks reused (cache hits)') + `trtllm_kv_cache_reused_blocks_total${l} ${v.hits}.0`,
      help('trtllm_kv_cache_missed_blocks', 'counter', 'Cumulative number of KV cache blocks missed (cache misses)') + `trtllm_kv_cache_missed_blocks_total${l} ${v.other}.0`,
      help('trtllm_prompt_tokens_total', 'counter', 'Cumulative number of prompt (input) tokens processed.') + `trtllm_prompt_tokens_total${l} ${v.prompt}.0`,
      help('trtllm_generation_tokens_total', 'counter', 'Cumulative number of generation (output) tokens produced.') + `trtllm_generation_tokens_total${l} ${v.generation}.0`,
    ].join('\n') + '\n';
  },
  // LMDeploy 0.12 (lmdeploy/metrics/loggers.py): labels model_name and engine (the DP rank); created metrics disabled.
  lmdeploy: (v) => {
    const l = '{engine="0",model_name="m"}';
    return [
      help('lmdeploy:num_requests_running', 'gauge', 'Number of requests in model execution batches.') + `lmdeploy:num_requests_running${l} ${v.running}.0`,
      help('lmdeploy:num_requests_waiting', 'gauge', 'Number of requests waiting to be processed.') + `lmdeploy:num_requests_waiting${l} ${v.waiting}.0`,
      help('lmdeploy:gpu_cache_usage_perc', 'gauge', 'GPU KV-cache usage. 1 means 100 percent usage.') + `lmdeploy:gpu_cache_usage_perc${l} ${v.kv}`,
      help('lmdeploy:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.') + `lmdeploy:prompt_tokens_total${l} ${v.prompt}.0`,
      help('lmdeploy:generation_tokens_total', 'counter', 'Number of generation tokens processed.') + `lmdeploy:generation_tokens_total${l} ${v.generation}.0`,
    ].join('\n') + '\n';
  },
  // MLC (engine_base.py EngineMetrics.prometheus_text): a NOTE header, bare keys, a tab before each value,
  // nested scopes as "# /scope" comments with the scope prefixed to the key.
  mlc: (v) =>
    [
      "# NOTE: these metrics count token in the unit of serving model's tokenization",
      '# be careful when comparing them to client-side metrics that may use',
      '# different tokenization to standardize across models.\n',
      'sum_engine_prefill_time\t1.25',
      'sum_engine_decode_time\t3.5',
      `sum_num_input_tokens\t${v.prompt}`,
      `sum_num_prefill_tokens\t${v.other}`,
      `sum_num_output_tokens\t${v.generation}`,
      '\n# /decode_time_by_batch_size',
      'decode_time_by_batch_size_mean_decode_time{batch_size=1}\t0.012',
    ].join('\n'),
  // llama.cpp v0.4.0 (tools/server metrics handler; --metrics): "llamacpp:" prefix, no labels.
  llamacpp: (v) =>
    [
      help('llamacpp:prompt_tokens_total', 'counter', 'Number of prompt tokens processed.') + `llamacpp:prompt_tokens_total ${v.prompt}`,
      help('llamacpp:prompt_seconds_total', 'counter', 'Prompt process time') + 'llamacpp:prompt_seconds_total 2',
      help('llamacpp:tokens_predicted_total', 'counter', 'Number of generation tokens processed.') + `llamacpp:tokens_predicted_total ${v.generation}`,
      help('llamacpp:tokens_predicted_seconds_total', 'counter', 'Predict process time') + 'llamacpp:tokens_predicted_seconds_total 9',
      help('llamacpp:n_decode_total', 'counter', 'Total number of llama_decode() calls') + 'llamacpp:n_decode_total 300',
      help('llamacpp:n_busy_slots_per_decode', 'counter', 'Average number of busy slots per llama_decode() call') + 'llamacpp:n_busy_slots_per_decode 1.5',
      help('llamacpp:prompt_tokens_seconds', 'gauge', 'Average prompt throughput in tokens/s.') + 'llamacpp:prompt_tokens_seconds 900',
      help('llamacpp:predicted_tokens_seconds', 'gauge', 'Average generation throughput in tokens/s.') + 'llamacpp:predicted_tokens_seconds 40',
      help('llamacpp:requests_processing', 'gauge', 'Number of requests processing.') + `llamacpp:requests_processing ${v.running}`,
      help('llamacpp:requests_deferred', 'gauge', 'Number of requests deferred.') + `llamacpp:requests_deferred ${v.waiting}`,
    ].join('\n') + '\n',
};
