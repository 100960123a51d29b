/**
 * The one gauge name map (harness/contract/engine-gauges.ts): each engine's /metrics text
 * (SYNTHETIC values in each engine's own format, engine-metrics-texts.ts) read into the common
 * quantities, and real runs against the sim and the embedded engine on 127.0.0.1 whose recorded
 * gauges are checked against what the client itself counted.
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE_GAUGES, MAPPED_METRIC_NAMES } from '../../harness/contract/engine-gauges.ts';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { EngineMetricsWatch, parsePrometheus } from '../../harness/measure/telemetry/engine-metrics.ts';
import { summarizeEngineGauges } from '../../harness/measure/telemetry/common-gauges.ts';
import { normalizeLoadOptions } from '../../harness/measure/load/load-options.ts';
import { runLoad } from '../../harness/measure/load/run-load.ts';
import { ensureDummyModel, ensureDummyTokenizer } from '../../harness/engines/embedded/dummy-model.ts';
import { startEmbeddedServer } from '../../harness/engines/embedded/server.ts';
import { fastSim } from '../load/sim-fixture.ts';
import { runCli } from '../cli/run-cli.ts';
import { METRICS_TEXT, type Values } from './engine-metrics-texts.ts';

const idle = { running: 0, waiting: 0, kv: 0 };
const BEFORE: Values = { ...idle, prompt: 1000, generation: 500, hits: 100, other: 400, preempted: 1 };
const AFTER: Values = { ...idle, prompt: 3000, generation: 2500, hits: 700, other: 1600, preempted: 3 };
const DURING: Values[] = [
  { ...BEFORE, running: 4, waiting: 2, kv: 0.5 },
  { ...BEFORE, running: 8, waiting: 0, kv: 0.7 },
];

function gaugesOf(engine: string) {
  const text = METRICS_TEXT[engine]!;
  return summarizeEngineGauges(engine, parsePrometheus(text(BEFORE)), parsePrometheus(text(AFTER)), DURING.map((v) => parsePrometheus(text(v))));
}

const busy = { samples: 2, running: { mean: 6, max: 8 }, waiting: { mean: 1, max: 2 } };
const kv = { mean: expect.closeTo(0.6, 12), max: 0.7 };

describe('each engine’s metrics under the common names', () => {
  it('vLLM: prefix hits / queries in tokens, preemptions, the KV fraction', () => {
    expect(gaugesOf('vllm')).toEqual({ ...busy, kv_usage: kv, prompt_tokens: 2000, generation_tokens: 2000, preemptions: 2, prefix_hit_rate: 0.5, prefix_unit: 'tokens' });
  });

  it('SGLang: its queue and token-usage gauges (dropped before), cached tokens summed over cache_source, retractions as preemptions', () => {
    // Prompt tokens are its prompt_tokens_total, which the prefix rate divides by: 1200 here.
    expect(gaugesOf('sglang')).toEqual({ ...busy, kv_usage: kv, prompt_tokens: 1200, generation_tokens: 2000, preemptions: 2, prefix_hit_rate: 0.5, prefix_unit: 'tokens' });
  });

  it('TensorRT-LLM: reused / (reused + missed) blocks; no preemption counter', () => {
    expect(gaugesOf('trtllm')).toEqual({ ...busy, kv_usage: kv, prompt_tokens: 2000, generation_tokens: 2000, preemptions: null, prefix_hit_rate: 600 / 1800, prefix_unit: 'blocks' });
  });

  it('LMDeploy: gauges and tokens, no prefix counters', () => {
    expect(gaugesOf('lmdeploy')).toEqual({ ...busy, kv_usage: kv, prompt_tokens: 2000, generation_tokens: 2000, preemptions: null, prefix_hit_rate: null, prefix_unit: null });
  });

  it('MLC (tab-separated, no prefix, all dropped before): hits = input − prefilled tokens; no gauges at all', () => {
    expect(gaugesOf('mlc')).toEqual({ samples: 2, running: null, waiting: null, kv_usage: null, prompt_tokens: 2000, generation_tokens: 2000, preemptions: null, prefix_hit_rate: (2000 - 1200) / 2000, prefix_unit: 'tokens' });
  });

  it('llama.cpp v0.4.0: processing / deferred (dropped before) as running / waiting; no KV gauge in this build', () => {
    expect(gaugesOf('llamacpp')).toEqual({ ...busy, kv_usage: null, prompt_tokens: 2000, generation_tokens: 2000, preemptions: null, prefix_hit_rate: null, prefix_unit: null });
  });

  it('keeps every mapped metric whatever its name, and no *_created timestamp', () => {
    for (const [engine, text] of Object.entries(METRICS_TEXT)) {
      const parsed = parsePrometheus(text(AFTER));
      const present = text(AFTER).split('\n').map((line) => /^[^#\s{]+/.exec(line)?.[0]).filter((name) => name !== undefined && MAPPED_METRIC_NAMES.has(name));
      expect(present.length, engine).toBeGreaterThan(0);
      for (const name of present) expect(parsed, `${engine} ${name}`).toHaveProperty([name!]);
    }
    expect(Object.keys(parsePrometheus(METRICS_TEXT['vllm']!(AFTER))).filter((name) => name.endsWith('_created'))).toEqual([]);
  });

  it('a counter that went down (the server restarted) gives no increase rather than a negative one', () => {
    const text = METRICS_TEXT['vllm']!;
    expect(summarizeEngineGauges('vllm', parsePrometheus(text(AFTER)), parsePrometheus(text(BEFORE)), [])).toMatchObject({ samples: 0, running: null, generation_tokens: null, prefix_hit_rate: null });
  });

  it('every engine file has a map entry (a new engine cannot skip it)', () => {
    const engines = readdirSync('engines').filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));
    expect(engines.filter((e) => ENGINE_GAUGES[e] === undefined)).toEqual([]);
  });
});

const SHARED_PREFIX = fileURLToPath(new URL('../cache/cache-shared-prefix.yaml', import.meta.url));

describe('recorded on real runs (127.0.0.1)', () => {
  it('the sim: the prefix hit rate from its counters equals the cached tokens its responses reported; tokens equal the client’s', { timeout: 60_000 }, async () => {
    const sim = await fastSim({ personality: 'llamacpp', decodeBaseMs: 4 });
    const watch = new EngineMetricsWatch(`${sim.url}/metrics`, 'sim', 5);
    const gauges: unknown[] = [];
    const config = normalizeLoadOptions({ endpoint: sim.url, model: 'sim-model', 'no-progress': true, 'save-requests': true, workload: SHARED_PREFIX }, {});
    const { result } = await runLoad(config, {
      signal: new AbortController().signal,
      keepRecords: true,
      notice: () => {},
      onPointStart: () => watch.start(),
      onPointDone: async () => void gauges.push((await watch.stop())!.gauges),
    });
    const point = result.points[0]!;
    const requests = point.requests!;
    expect(point.cache!.observed_hit_rate).toBeGreaterThan(0.3);
    expect(gauges[0]).toMatchObject({
      prefix_hit_rate: expect.closeTo(point.cache!.observed_hit_rate!, 12),
      prefix_unit: 'tokens',
      generation_tokens: requests.reduce((sum, r) => sum + r.output_tokens!, 0),
      // The sim counts the tokens it prefilled: the prompts less what its cache held.
      prompt_tokens: requests.reduce((sum, r) => sum + r.input_tokens! - r.cached_prompt_tokens!, 0),
      preemptions: null,
      running: { mean: expect.any(Number), max: 1 },
    });
    // Concurrency 1: at most one request is in the sim at a time. A sample can catch it arrived but
    // not yet admitted to the batch (the sim admits at its next step), so it may be waiting, never both.
    const { running, waiting, samples } = gauges[0] as { running: { mean: number }; waiting: { mean: number; max: number }; samples: number };
    expect(waiting.max).toBeLessThanOrEqual(1);
    expect(running.mean + waiting.mean).toBeLessThanOrEqual(1);
    expect(samples).toBeGreaterThan(0);
  });

  it('the embedded engine: batch, queue and KV use while it runs, tokens equal to the client’s', { timeout: 120_000 }, async () => {
    const cache = mkdtempSync(join(tmpdir(), 'sb-models-'));
    const model = ensureDummyModel(cache, 'micro');
    const server = await startEmbeddedServer({ modelPath: model, modelName: 'micro', host: '127.0.0.1', port: 0, parallel: 2, contextPerSequence: 256, threads: 1 });
    afterAll(() => server.close());
    const watch = new EngineMetricsWatch(`${server.url}/metrics`, 'embedded', 5);
    const config = normalizeLoadOptions(
      { endpoint: server.url, model: 'micro', tokenizer: ensureDummyTokenizer(model, 'micro'), 'input-len': '40', 'output-len': '24', 'num-prompts': '8', concurrency: '4', warmup: '0', 'no-progress': true, 'save-requests': true },
      {},
    );
    await watch.start();
    const { result } = await runLoad(config, { signal: new AbortController().signal, keepRecords: true, notice: () => {} });
    const recorded = (await watch.stop())!;
    const requests = result.points[0]!.requests!;
    expect(recorded.gauges).toMatchObject({
      prompt_tokens: requests.reduce((sum, r) => sum + r.input_tokens!, 0),
      generation_tokens: requests.reduce((sum, r) => sum + r.output_tokens!, 0),
      running: { max: 2 },
      prefix_hit_rate: null,
    });
    // 4 requests for 2 sequences: two waited, while up to 2 × (40 + 24) of the 512 context tokens were held.
    expect(recorded.gauges!.waiting!.max).toBeGreaterThanOrEqual(1);
    expect(recorded.gauges!.kv_usage!.max).toBeGreaterThan(0);
    expect(recorded.gauges!.kv_usage!.max).toBeLessThanOrEqual((2 * (40 + 24)) / 512 + 1e-9);
  });

  it('servebench run records the gauges in the result file', { timeout: 60_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(['run', '--engine', 'sim', '--model', 'sim-model', '--workload', 'smoke', '--num-prompts', '16', '--results-dir', results, '--no-progress'], 60_000);
    expect(outcome.code).toBe(0);
    const file = (readdirSync(results, { recursive: true }) as string[]).find((f) => f.endsWith('.json'))!;
    const result = RunResultSchema.parse(JSON.parse(readFileSync(join(results, file), 'utf8')));
    for (const point of result.points) {
      const gauges = point.telemetry!.engine_metrics!.gauges!;
      const sent = point.metrics.completed + point.warmup_requests;
      // smoke: 16 output tokens a request; the warmup is inside the scraped window.
      expect(gauges.generation_tokens).toBe(16 * sent);
      expect(gauges.samples).toBeGreaterThan(0);
      expect(point.load.mode).toBe('closed');
      expect(gauges.running!.max).toBeLessThanOrEqual((point.load as { concurrency: number }).concurrency);
      expect(gauges.prefix_unit).toBe('tokens');
    }
  });
});
