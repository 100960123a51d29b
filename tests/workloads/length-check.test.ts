/** Prompt lengths checked against the server's own tokenize endpoint before measuring. */
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { verifyPromptLengths } from '../../harness/measure/workloads/verify-lengths.ts';
import { loadAgainst } from '../load/run-sim.ts';
import { fastSim } from '../load/sim-fixture.ts';

describe('length check against the server tokenizer', () => {
  it('vLLM-style /tokenize: built lengths agree with the server, nothing mismatched', async () => {
    const sim = await fastSim();
    const { result } = await loadAgainst(sim.url, { workload: 'smoke', tokenizer: 'tests/fixtures/tokenizer-words', concurrency: '1' });
    expect(result.workload.length_check).toEqual({ endpoint: '/tokenize (vllm style)', checked: 8, mismatched: 0, examples: [] });
    expect(result.points[0]!.input_tokens_mismatched).toBe(0);
  });

  it('a tokenizer the server does not use: the mismatch is found before measuring and per request', async () => {
    const sim = await fastSim();
    const { result } = await loadAgainst(sim.url, { workload: 'smoke', tokenizer: 'tests/fixtures/tokenizer-bpe', concurrency: '1' });
    expect(result.workload.length_check.checked).toBe(8);
    expect(result.workload.length_check.mismatched).toBe(8);
    expect(result.workload.length_check.examples[0]!.expected).toBe(32);
    expect(result.points[0]!.input_tokens_mismatched).toBe(8);
  });

  it('chat prompts are checked as conversations (the server applies its chat template)', async () => {
    const sim = await fastSim();
    const { result } = await loadAgainst(sim.url, { workload: 'smoke', api: 'chat', concurrency: '1' });
    expect(result.workload.length_check.endpoint).toBe('/tokenize (vllm style)');
    expect(result.workload.length_check.checked).toBe(8);
  });

  it('llama.cpp-style /tokenize ({content} → {tokens})', async () => {
    const sim = await fastSim({ personality: 'llamacpp' });
    const { result } = await loadAgainst(sim.url, { workload: 'smoke', tokenizer: 'tests/fixtures/tokenizer-words', concurrency: '1' });
    expect(result.workload.length_check).toMatchObject({ endpoint: '/tokenize (llamacpp style)', checked: 8, mismatched: 0 });
  });

  it('a server without a tokenize endpoint: recorded as not checked', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(404).end('{"error":"not found"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const check = await verifyPromptLengths(`http://127.0.0.1:${port}/tokenize`, 'm', {}, [{ input: { prompt: 'a b' }, inputTokens: 2 }]);
      expect(check).toEqual({ style: null, checked: 0, mismatched: 0, examples: [] });
    } finally {
      server.close();
    }
  });
});
