/** The load generator against each stream shape real engines send (via the sim's personalities). */
import { describe, expect, it } from 'vitest';
import { requestTimings, tokensPerEvent } from '../../harness/measure/metrics/summarize.ts';
import { loadAgainst } from './run-sim.ts';
import { fastSim } from './sim-fixture.ts';

const flags = { 'input-len': '20', 'output-len': '12', 'num-prompts': '6', concurrency: '2', warmup: '1' };

describe('stream shapes', () => {
  it('vLLM chat: the role-only chunk is not the first token; usage-only chunk gives the counts', async () => {
    const sim = await fastSim({ personality: 'vllm' });
    const run = await loadAgainst(sim.url, { ...flags, api: 'chat' });
    const point = run.result.points[0]!;
    expect(point.metrics.completed).toBe(6);
    for (const record of run.records[0]!) {
      expect(record.contentTimesMs).toHaveLength(12); // 12 tokens, the role chunk not among them
      expect(record.outputTokensSource).toBe('usage');
      expect(record.inputTokensSource).toBe('usage');
      const truth = sim.groundTruth().find((t) => t.request_id === record.requestId)!;
      expect(record.serverPromptTokens).toBe(truth.prompt_tokens);
    }
    expect(point.itl_split).toEqual({ exact: 6, estimated: 0 });
  });

  it('llama.cpp: several tokens per chunk, usage in the final choice chunk; per-token ITL estimated', async () => {
    const sim = await fastSim({ personality: 'llamacpp' });
    const run = await loadAgainst(sim.url, { ...flags, api: 'chat' });
    expect(run.result.points[0]!.metrics.completed).toBe(6);
    for (const record of run.records[0]!) {
      expect(record.outputTokens).toBe(12);
      expect(record.outputTokensSource).toBe('usage');
      expect(record.contentTimesMs.length).toBeLessThan(12);
      const timings = requestTimings(record);
      expect(tokensPerEvent(record).tokens.reduce((a, b) => a + b, 0)).toBe(12);
      expect(timings.tpotMs).toBeCloseTo((timings.e2elMs - timings.ttftMs) / 11, 9);
    }
    expect(run.result.points[0]!.itl_split.estimated).toBe(6);
  });

  it('SGLang chat: every field null when unset, the finish reason in its own chunk; usage because servebench asks for it', async () => {
    const sim = await fastSim({ personality: 'sglang' });
    const run = await loadAgainst(sim.url, { ...flags, api: 'chat' });
    const point = run.result.points[0]!;
    expect(point.metrics.completed).toBe(6);
    for (const record of run.records[0]!) {
      expect(record.contentTimesMs).toHaveLength(12);
      expect(record.outputTokensSource).toBe('usage');
      expect(record.finishReason).toBe('length');
    }
    expect(point.itl_split).toEqual({ exact: 6, estimated: 0 });
  });

  it('TensorRT-LLM chat: the role chunk\'s "data: {…} " line, reasoning_content "" on every text chunk, usage in its own chunk', async () => {
    const sim = await fastSim({ personality: 'trtllm' });
    const run = await loadAgainst(sim.url, { ...flags, api: 'chat' });
    expect(run.result.points[0]!.metrics.completed).toBe(6);
    for (const record of run.records[0]!) {
      expect(record.contentTimesMs).toHaveLength(12);
      expect(record.outputTokensSource).toBe('usage');
      expect(record.inputTokensSource).toBe('usage');
    }
  });

  it('TensorRT-LLM failing mid-stream sends no error event, it cuts the response: every such request fails, none counts as complete', async () => {
    const sim = await fastSim({ personality: 'trtllm', faults: { error_event: 1 } });
    const run = await loadAgainst(sim.url, flags);
    const point = run.result.points[0]!;
    expect(point.metrics.completed).toBe(0);
    expect(Object.values(point.failures).reduce((a, b) => a + b, 0)).toBe(6);
    expect(point.failures.stream_error ?? 0).toBe(0);
  });

  it('a server without usage: output counted from events, input as declared, and the sources say so', async () => {
    const sim = await fastSim({ personality: 'no-usage' });
    const run = await loadAgainst(sim.url, flags);
    const sources = run.result.points[0]!.token_count_sources;
    expect(sources.output.events).toBe(6);
    expect(sources.input.declared).toBe(6);
    expect(run.result.points[0]!.metrics.output_tokens).toBe(72);
  });

  it('a server without usage, with a tokenizer: counts come from the tokenizer and the ITL split is exact', async () => {
    const sim = await fastSim({ personality: 'no-usage' });
    const run = await loadAgainst(sim.url, { ...flags, tokenizer: 'tests/fixtures/tokenizer-words' });
    const point = run.result.points[0]!;
    expect(point.token_count_sources.output.tokenizer).toBe(6);
    expect(point.token_count_sources.input.tokenizer).toBe(6);
    expect(point.metrics.input_tokens).toBe(6 * 20);
    expect(point.itl_split.exact).toBe(6);
  });

  it('TensorRT-LLM rejects unknown fields: every request fails as http_error 400, none hang', async () => {
    const sim = await fastSim({ personality: 'trtllm' });
    const ok = await loadAgainst(sim.url, flags);
    expect(ok.result.points[0]!.metrics.completed).toBe(6);
    const run = await loadAgainst(sim.url, { ...flags, 'extra-body': '{"not_a_trtllm_field":1}' });
    const point = run.result.points[0]!;
    expect(point.failures.http_error).toBe(6);
    expect(run.records[0]!.every((r) => r.failure?.status === 400 && /not_a_trtllm_field/.test(r.failure.message))).toBe(true);
    expect(run.result.outcome.exceeded_max_failure_rate).toBe(true);
  });

  it('SSE framing variants (CRLF, no space, keep-alive comments) measure the same', async () => {
    const sim = await fastSim({ sseCrlf: true, sseNoSpace: true, keepaliveMs: 1 });
    const run = await loadAgainst(sim.url, flags);
    expect(run.result.points[0]!.metrics.completed).toBe(6);
    expect(run.result.points[0]!.metrics.output_tokens).toBe(72);
  });

  it('without ignore_eos, natural stops are successes and counts are what the server produced', async () => {
    const sim = await fastSim();
    const run = await loadAgainst(sim.url, { ...flags, 'output-len': '64', 'no-ignore-eos': true });
    const point = run.result.points[0]!;
    expect(point.metrics.completed).toBe(6);
    const produced = run.records[0]!.map((r) => r.outputTokens!);
    const truth = run.records[0]!.map((r) => sim.groundTruth().find((t) => t.request_id === r.requestId)!.completion_tokens);
    expect(produced).toEqual(truth);
    expect(produced.some((n) => n < 64)).toBe(true);
  });
});

describe('--tokenizer', () => {
  it('a Hugging Face tokenizer.json counts tokens when the server sends no usage, off the clock', async () => {
    const sim = await fastSim({ personality: 'no-usage' });
    const run = await loadAgainst(sim.url, { ...flags, api: 'chat', tokenizer: 'tests/fixtures/tokenizer-words' });
    const point = run.result.points[0]!;
    expect(point.token_count_sources.output.tokenizer).toBe(6);
    expect(point.metrics.output_tokens).toBe(72);
    expect(point.itl_split.exact).toBe(6);
    expect(run.result.workload.tokenizer).toEqual({ name: 'tokenizer-words/tokenizer.json', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), source: 'flag' });
  });

  it('a missing tokenizer is a usage error naming the path', async () => {
    const sim = await fastSim();
    await expect(loadAgainst(sim.url, { ...flags, tokenizer: 'tests/fixtures/nope' })).rejects.toThrow(/--tokenizer: tests\/fixtures\/nope does not exist/);
  });
});
