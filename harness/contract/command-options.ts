/**
 * The option tables of the two commands that write results, `run` and `load`: what each flag of
 * a result's recorded harness.command means. They are part of the contract, not kept beside the
 * commands, because `validate` (the store) checks a recorded command line against them and the
 * store may not import the measuring tool. The commands build their parser and --help from these
 * same tables (harness/measure/run/command.ts, harness/measure/load/load-options.ts).
 */
import type { OptionSpec } from '../lib/cli/options.ts';
import { APIS, ARRIVALS } from './common.ts';
import { WorkloadSchema } from './workload.ts';

export const DEFAULT_NUM_PROMPTS = 200;

/**
 * The scenario `load` measures without --workload: declared once, so the help text and the
 * scenario say the same thing. Seed, temperature and burstiness are the workload schema's defaults.
 */
export const COMMAND_LINE = { api: 'completions', inputTokens: 1024, outputTokens: 128, warmup: 2 } as const;
const SCHEMA_DEFAULTS = WorkloadSchema.parse({ name: 'defaults', description: 'schema defaults', api: COMMAND_LINE.api, input: { dist: 'fixed', tokens: 1 }, output: { dist: 'fixed', tokens: 1 }, requests: { count: 1 }, load: { rates: [1] }, prefix_caching: 'irrelevant' });
const DEFAULT_BURSTINESS = 'burstiness' in SCHEMA_DEFAULTS.load ? SCHEMA_DEFAULTS.load.burstiness : 1;

export const LOAD_OPTIONS: readonly OptionSpec[] = [
  { name: 'endpoint', value: 'URL', help: 'Server base URL, e.g. http://127.0.0.1:8000 (a trailing /v1 is accepted).' },
  { name: 'model', value: 'NAME', help: 'Model name to send (as the server serves it).' },
  { name: 'workload', value: 'NAME', help: 'A scenario from workloads/ (or a path to a spec); the flags below override its fields.' },
  { name: 'tokenizer', value: 'PATH|ID', help: "The model's tokenizer: tokenizer.json, its folder, a Hugging Face id (the local cache, else fetched from the Hub once) or a GGUF file; \"none\" for approximate lengths. Default: the GGUF model's vocabulary, else the server's /tokenize, else the Hugging Face cache." },
  { name: 'dataset', value: 'PATH', help: "The file of a dataset scenario (e.g. --workload sharegpt --dataset ./ShareGPT.json); replaces the spec's dataset.path." },
  { name: 'api', value: 'API', help: `Which API: ${APIS.join(' | ')} (without --workload: ${COMMAND_LINE.api}).` },
  { name: 'input-len', value: 'N', type: 'integer', help: `Prompt tokens per request, fixed (without --workload: ${COMMAND_LINE.inputTokens}).` },
  { name: 'output-len', value: 'N', type: 'integer', help: `max_tokens per request, fixed (without --workload: ${COMMAND_LINE.outputTokens}).` },
  { name: 'num-prompts', value: 'N', type: 'integer', help: `Measured requests per point (without --workload: ${DEFAULT_NUM_PROMPTS} unless --duration is given).` },
  { name: 'duration', value: 'S', type: 'number', help: "Stop sending new requests after S seconds per point (with a count from the scenario or --num-prompts: whichever comes first)." },
  { name: 'concurrency', value: 'LIST', type: 'integer-list', help: 'Closed loop at fixed concurrency; a list (1,4,16) is a sweep.' },
  { name: 'rate', value: 'LIST', type: 'number-list', help: 'Open loop at R requests/s ("inf": all at once); a list is a sweep.' },
  { name: 'arrival', value: 'KIND', help: `Open-loop arrivals: ${ARRIVALS.join(' | ')} (gamma is implied by --burstiness ≠ 1).` },
  { name: 'burstiness', value: 'B', type: 'number', help: `Gamma shape for open-loop arrivals: 1 = Poisson, < 1 burstier (default ${DEFAULT_BURSTINESS}).` },
  { name: 'max-concurrency', value: 'C', type: 'integer', help: 'Cap on requests in flight in open loop; waiting is reported as queue_ms.' },
  { name: 'warmup', value: 'N', type: 'integer', help: `Warmup requests before each point (own prompts, excluded from statistics; without --workload: ${COMMAND_LINE.warmup}).` },
  { name: 'seed', value: 'S', type: 'integer', help: `Seed for lengths, prompts and arrival times (without --workload: ${SCHEMA_DEFAULTS.seed}).` },
  { name: 'slo', value: 'K=V,…', help: "SLOs for goodput: ttft_ms, tpot_ms, e2el_ms (e.g. ttft_ms=2000,tpot_ms=50); each replaces the scenario's." },
  { name: 'temperature', value: 'T', type: 'number', help: `Sampling temperature (without --workload: ${SCHEMA_DEFAULTS.sampling.temperature}).` },
  { name: 'no-ignore-eos', help: 'Do not send ignore_eos (outputs may then stop early; not judged as short).' },
  { name: 'extra-body', value: 'JSON', type: 'json-object', help: 'JSON object merged into every request body (engine-specific fields).' },
  { name: 'header', value: 'K:V', help: 'Extra request header; repeatable.', multiple: true },
  { name: 'api-key', value: 'KEY', help: 'Sent as "Authorization: Bearer KEY" (default: $OPENAI_API_KEY if set); never recorded.' },
  { name: 'timeout', value: 'S', type: 'number', help: 'Per-request timeout in seconds.', default: '600' },
  { name: 'max-failure-rate', value: 'F', type: 'number', help: 'Exit with status 1 if more than this fraction of all requests of the run failed.', default: '0.05' },
  { name: 'out', value: 'FILE', machineLocal: true, help: 'Write the result JSON here (a path ending in / is a directory: <run_id>.json). Never overwrites.' },
  { name: 'save-requests', help: 'Also record per-request facts in the result.' },
  { name: 'json', machineLocal: true, help: 'Print the result JSON to stdout instead of the summary table.' },
  { name: 'no-progress', machineLocal: true, help: 'Do not draw the progress bar (it is drawn on stderr only when it is a terminal).' },
];

/** The load generator's flags that `run` takes too, and hands to it unchanged. */
export const RUN_LOAD_FLAGS = ['workload', 'tokenizer', 'dataset', 'num-prompts', 'duration', 'concurrency', 'rate', 'warmup', 'max-failure-rate', 'timeout', 'save-requests', 'extra-body', 'no-ignore-eos'] as const;

export const RUN_OPTIONS: readonly OptionSpec[] = [
  { name: 'engine', value: 'NAME', help: 'An engine from engines/ (servebench engines list).' },
  { name: 'model', value: 'ID|PATH', help: 'Model id or path, as the engine takes it; or dummy:<shape>:<quantization> (dummy:qwen3-0.6b:Q4_K_M, dummy:llama-3.2-1b:Q8_0): a GGUF of that real model\'s shape and tokenizer with random weights, made in the cache on first use.' },
  { name: 'launcher', value: 'KIND', help: 'process (a local command), docker (the official image) or external (an already running --endpoint).', default: 'process' },
  { name: 'gpu', value: 'LIST', type: 'integer-list', help: 'GPU indices this run owns, e.g. 0 or 0,1 (docker: --gpus device=…; process: CUDA_VISIBLE_DEVICES).' },
  { name: 'image', value: 'IMAGE', help: "Container image (default: the engine's official image at --engine-version)." },
  { name: 'engine-version', value: 'V', help: "Release to run: the official image's tag (docker), or the servebench build of llama.cpp (process: a tag such as b4753, a node-llama-cpp release or a commit; default: the installed node-llama-cpp's build), or the engine's serve flag for it (process: an engine whose spec has serve.flags.engine_version, the sim); refused for any other process launch, which could not honour it." },
  { name: 'hf-cache', value: 'DIR', machineLocal: true, help: 'Hugging Face cache to mount into the container (default: $HF_HOME/hub or ~/.cache/huggingface/hub when it exists).' },
  { name: 'endpoint', value: 'URL', help: 'With --launcher external: the running server.' },
  { name: 'served-name', value: 'NAME', help: 'Name the server serves the model under (default: the model id).' },
  { name: 'port', value: 'N', type: 'integer', help: 'Port for a launched server (default: a free one).' },
  { name: 'tp', value: 'N', type: 'integer', help: 'Tensor-parallel size.' },
  { name: 'pp', value: 'N', type: 'integer', help: 'Pipeline-parallel size.' },
  { name: 'dp', value: 'N', type: 'integer', help: 'Data-parallel size.' },
  { name: 'dtype', value: 'T', help: 'Weights dtype (auto, bfloat16, float16, …).' },
  { name: 'quantization', value: 'Q', help: 'Quantization, as the engine names it.' },
  { name: 'max-model-len', value: 'N', type: 'integer', help: 'Context length.' },
  { name: 'kv-cache-dtype', value: 'T', help: 'KV-cache dtype: bf16, fp16, fp8 (every engine that has it, by its own name), auto (the engine\'s own rule), or an engine\'s own: fp8_e5m2, int8, q8_0, …' },
  { name: 'max-num-seqs', value: 'N', type: 'integer', help: 'Most concurrent sequences (batch size, parallel slots).' },
  { name: 'gpu-memory-utilization', value: 'F', type: 'number', help: 'GPU memory fraction, as the engine defines it (each defines it differently: --kv-budget-tokens is the same for every engine).' },
  { name: 'kv-budget-tokens', value: 'N', type: 'integer', help: "The KV cache's size in tokens, translated to the engine's own knob (vLLM blocks, SGLang and TensorRT-LLM token caps, LMDeploy blocks, llama.cpp's pool, MLC's total sequence length; servebench engines show NAME)." },
  { name: 'prefix-caching', value: 'on|off', help: "Prefix caching (default: the engine's default)." },
  { name: 'sampling', value: 'neutral', help: "neutral: the model's generation_config.json does not change the engine's sampling defaults (default: the engine's default)." },
  // The load generator's own flags, with its own help text.
  ...LOAD_OPTIONS.filter((option) => (RUN_LOAD_FLAGS as readonly string[]).includes(option.name)),
  { name: 'results-dir', value: 'DIR', machineLocal: true, help: 'Where results go (a path per result is derived from its content).', default: 'results' },
  { name: 'source', value: 'KIND', help: 'community (a result you submit by pull request) or official (only the servebench fleet pipeline says so).', default: 'community' },
  { name: 'repeats', value: 'N|auto', help: 'Run the whole configuration N times, each repeat its own launch, run and result (grouped by run.repeat); auto: repeat until the 95% interval of output throughput, TTFT p50 and TPOT p50 at every load point is within --repeat-target (at least 3 repeats, at most --max-repeats and --max-repeat-time).', default: '1' },
  { name: 'repeat-target', value: 'F', type: 'number', help: 'With --repeats auto: the relative half-width of the 95% CI of the geometric mean that counts as converged (0.05: within 5%).', default: '0.05' },
  { name: 'max-repeats', value: 'N', type: 'integer', help: 'With --repeats auto: the most repeats (at least 3).', default: '10' },
  { name: 'max-repeat-time', value: 'DURATION', help: 'With --repeats auto: no repeat starts that would end past this since the first began, judged by the repeats so far (90s, 30m, 2h, 1h30m).', default: '30m' },
  { name: 'dry-run', help: 'Print the rendered launch command and the plan; launch nothing.' },
  { name: 'json', machineLocal: true, help: 'Print the result JSON instead of the summary table.' },
  { name: 'no-progress', machineLocal: true, help: 'Do not draw the progress bar.' },
];

/** The option table of the command that wrote each kind of result (a result's `kind`). */
export const RESULT_COMMAND_OPTIONS: Readonly<Record<'run' | 'load', readonly OptionSpec[]>> = { run: RUN_OPTIONS, load: LOAD_OPTIONS };
