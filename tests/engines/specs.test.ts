/**
 * Engine definitions: every spec valid, and each renders the command line its engine's docs (cited
 * in the spec's source.docs) give for the same common parameters.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderConfigFile, renderServeCommand, shellQuote } from '../../harness/measure/engines/render.ts';
import { checkEngineFile, listEngineFiles, loadEngine } from '../../harness/measure/engines/spec-file.ts';
import { runCli } from '../cli/run-cli.ts';

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const COMMON = { model: MODEL, host: '127.0.0.1', port: 8000, max_num_seqs: 256, max_model_len: 8192 };

describe('engine specs', () => {
  it('every engine of the brief has a valid spec', () => {
    const files = listEngineFiles();
    for (const file of files) expect(checkEngineFile(file).problems).toEqual([]);
    expect(files.map((f) => f.split('/').pop())).toEqual(['embedded.yaml', 'llamacpp.yaml', 'lmdeploy.yaml', 'mlc.yaml', 'sglang.yaml', 'sim.yaml', 'trtllm.yaml', 'vllm.yaml']);
  });

  const expected: Record<string, string> = {
    vllm: `vllm serve ${MODEL} --generation-config vllm --served-model-name llama --host 127.0.0.1 --port 8000 --tensor-parallel-size 2 --dtype bfloat16 --max-model-len 8192 --kv-cache-dtype fp8_e4m3 --max-num-seqs 256 --gpu-memory-utilization 0.9 --no-enable-prefix-caching`,
    sglang: `python3 -m sglang.launch_server --model-path ${MODEL} --sampling-defaults openai --served-model-name llama --host 127.0.0.1 --port 8000 --tensor-parallel-size 2 --dtype bfloat16 --context-length 8192 --kv-cache-dtype fp8_e4m3 --max-running-requests 256 --mem-fraction-static 0.9 --disable-radix-cache --enable-metrics`,
    // The memory fraction is in the settings file (kv_cache_config there replaces the command line's).
    trtllm: `trtllm-serve ${MODEL} --backend pytorch --host 127.0.0.1 --port 8000 --tp_size 2 --max_seq_len 8192 --max_batch_size 256 --extra_llm_api_options '<engine-config.yaml>'`,
    lmdeploy: `lmdeploy serve api_server ${MODEL} --backend turbomind --model-name llama --server-name 127.0.0.1 --server-port 8000 --tp 2 --dtype bfloat16 --session-len 8192 --quant-policy 8 --max-batch-size 256 --cache-max-entry-count 0.9`,
    mlc: `mlc_llm serve ${MODEL} --mode server --enable-debug --host 127.0.0.1 --port 8000 --prefix-cache-mode disable --overrides 'tensor_parallel_shards=2;context_window_size=8192;max_num_sequence=256;gpu_memory_utilization=0.9'`,
    // --ctx-size is the KV pool of all slots: 8192 tokens for each of the 256 (a CPU run: no GPU arguments).
    llamacpp: `llama-server --model ${MODEL} --cont-batching --jinja --alias llama --host 127.0.0.1 --port 8000 --ctx-size 2097152 --cache-type-k q8_0 --cache-type-v q8_0 --parallel 256 --metrics`,
    sim: `npx tsx harness/cli.ts sim --model-name ${MODEL} --host 127.0.0.1 --port 8000 --max-num-seqs 256`,
  };
  const wanted = { served_name: 'llama', tensor_parallel: 2, dtype: 'bfloat16', kv_cache_dtype: 'fp8_e4m3', gpu_memory_utilization: 0.9, prefix_caching: false };

  for (const [name, command] of Object.entries(expected)) {
    it(`${name}: renders the documented flags for the parameters it supports`, () => {
      const engine = loadEngine(name);
      const supported = Object.fromEntries(Object.entries({ ...COMMON, ...wanted }).filter(([key]) => !(key in engine.serve.unsupported)));
      // fp8 KV caches exist only where the engine has them; the others are shown with their own.
      if (name === 'lmdeploy') supported['kv_cache_dtype'] = 'int8';
      if (name === 'llamacpp') supported['kv_cache_dtype'] = 'q8_0';
      expect(shellQuote(renderServeCommand(engine, supported))).toBe(command);
    });
  }

  it("TensorRT-LLM's settings file: Prometheus metrics, iteration stats and chunked prefill always; KV-cache dtype, block reuse and memory fraction where asked", () => {
    const trtllm = loadEngine('trtllm');
    const always = { return_perf_metrics: true, enable_iter_perf_stats: true, enable_chunked_prefill: true };
    expect(renderConfigFile(trtllm, COMMON)).toEqual(always);
    expect(renderConfigFile(trtllm, { ...COMMON, kv_cache_dtype: 'fp8_e4m3', prefix_caching: false, gpu_memory_utilization: 0.9 })).toEqual({
      ...always,
      kv_cache_config: { dtype: 'fp8', enable_block_reuse: false, free_gpu_memory_fraction: 0.9 },
    });
    expect(renderServeCommand(trtllm, COMMON, '/tmp/x.yaml').slice(-2)).toEqual(['--extra_llm_api_options', '/tmp/x.yaml']);
    expect(renderConfigFile(loadEngine('vllm'), COMMON)).toBeNull();
  });

  it('each engine spells KV-cache dtypes its own way, and refuses the ones it does not have', () => {
    expect(renderServeCommand(loadEngine('lmdeploy'), { ...COMMON, kv_cache_dtype: 'int8' })).toEqual(expect.arrayContaining(['--quant-policy', '8']));
    expect(renderServeCommand(loadEngine('llamacpp'), { ...COMMON, kv_cache_dtype: 'q8_0' })).toEqual(expect.arrayContaining(['--cache-type-k', 'q8_0', '--cache-type-v', 'q8_0']));
    expect(() => renderServeCommand(loadEngine('lmdeploy'), { ...COMMON, kv_cache_dtype: 'fp8_e4m3' })).toThrow(/lmdeploy has no kv_cache_dtype fp8_e4m3; it takes auto, bf16, fp16, int8, int4/);
    expect(() => renderServeCommand(loadEngine('vllm'), { ...COMMON, kv_cache_dtype: 'int8' })).toThrow(/it takes auto, bf16, fp16, fp8, fp8_e4m3, fp8_e5m2/);
  });

  it('a parameter an engine cannot take is an error with the reason, never dropped silently', () => {
    expect(() => renderServeCommand(loadEngine('trtllm'), { ...COMMON, kv_cache_dtype: 'int8' })).toThrow(/trtllm has no kv_cache_dtype int8; it takes auto, bf16, fp16, fp8, fp8_e4m3/);
    expect(() => renderServeCommand(loadEngine('trtllm'), { ...COMMON, data_parallel: 2 })).toThrow(/trtllm has no way to set data_parallel: attention data parallelism is set in the YAML config/);
    expect(() => renderServeCommand(loadEngine('llamacpp'), { ...COMMON, tensor_parallel: 2 })).toThrow(/splits layers or rows/);
    expect(() => renderServeCommand(loadEngine('vllm'), { ...COMMON, prefix_caching: 'yes' })).toThrow(/prefix_caching is on or off/);
    expect(() => renderServeCommand(loadEngine('vllm'), { host: '127.0.0.1' })).toThrow(/needs model/);
  });

  it('both prefix-caching states are explicit where the engine has flags for both', () => {
    expect(renderServeCommand(loadEngine('vllm'), { ...COMMON, prefix_caching: true })).toContain('--enable-prefix-caching');
    expect(renderServeCommand(loadEngine('sglang'), { ...COMMON, prefix_caching: true })).not.toContain('--disable-radix-cache');
  });

  it('CLI: engines validate names the file and field of a bad spec (exit 2); list and show work', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'servebench-engines-'));
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'name: bad\ndisplay_name: Bad\ndescription: x\nsource: { repository: nope, docs: [] }\nimage: null\nversion: { http: version, field: v }\nserve: { command: [], flags: { turbo: [--x] } }\nhealth: { path: /health, timeout_s: 5 }\nmetrics: null\nfatal_log_patterns: []\nquirks: { ignore_eos: body }\n');
    const outcome = await runCli(['engines', 'validate', bad]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/bad\.yaml: source\.repository: owner\/name on GitHub/);
    expect(outcome.stderr).toMatch(/bad\.yaml: version\.http/);
    const list = await runCli(['engines', 'list', '--json']);
    expect(JSON.parse(list.stdout).map((e: { name: string }) => e.name)).toContain('vllm');
    const show = await runCli(['engines', 'show', 'lmdeploy']);
    expect(show.stdout).toMatch(/explicit_body:\n\s+top_k: 0/);
  });
});
