/**
 * The embedded engine evaluates what llama-server evaluates for the same GGUF file: the file's own
 * chat template (here ChatML, not the dummy models' default), and ChatML when the file has none, as
 * llama.cpp does. The harness builds the prompts with the GGUF's tokenizer (as for llama-server), so
 * the server's /tokenize and every usage.prompt_tokens must be the built length. When the harness's
 * tokenizer has another template than the server renders, the result says approximate and why.
 *
 * The models are dummy weights over a SYNTHETIC vocabulary (harness/engines/embedded/dummy-model.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDummyTokenizer, SHAPES, writeDummyModel } from '../../harness/engines/embedded/dummy-model.ts';
import { startEmbeddedServer, type EmbeddedServer } from '../../harness/engines/embedded/server.ts';
import { loadGgufTokenizer } from '../../harness/measure/tokenizer/gguf-tokenizer.ts';
import { checkPlausibility, LENGTHS_RULE_SINCE } from '../../harness/store/plausibility.ts';
import { loadAgainst } from '../load/run-sim.ts';

/** llama.cpp's ChatML (common/chat.cpp, CHATML_TEMPLATE_SRC): what llama-server renders for a GGUF without a template. */
const CHATML =
  "{%- for message in messages -%}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' -}}{%- endfor -%}{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}";

const dir = mkdtempSync(join(tmpdir(), 'sb-chat-template-'));
const chatmlModel = join(dir, 'micro-chatml.gguf');
const bareModel = join(dir, 'micro-no-template.gguf');
writeDummyModel(chatmlModel, SHAPES['micro']!, 0, CHATML);
writeDummyModel(bareModel, SHAPES['micro']!, 0, null);

const start = (modelPath: string, modelName: string): Promise<EmbeddedServer> =>
  startEmbeddedServer({ modelPath, modelName, host: '127.0.0.1', port: 0, parallel: 2, contextPerSequence: 512, threads: 1 });

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('embedded engine: the GGUF chat template', () => {
  let chatml: EmbeddedServer;
  let bare: EmbeddedServer;
  beforeAll(async () => {
    [chatml, bare] = await Promise.all([start(chatmlModel, 'chatml'), start(bareModel, 'bare')]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([chatml?.close(), bare?.close()]);
  });

  it("chat prompts built with the GGUF's own tokenizer are exact by the server's /tokenize and usage", { timeout: 60_000 }, async () => {
    const { result } = await loadAgainst(chatml.url, { model: 'chatml', api: 'chat', tokenizer: chatmlModel, 'input-len': '96', 'output-len': '8', 'num-prompts': '6', concurrency: '2', warmup: '0', 'save-requests': true });
    expect(result.workload.tokenizer).toMatchObject({ source: 'flag' });
    expect(result.workload.lengths).toBe('exact');
    expect(result.workload.lengths_reason).toBeUndefined();
    expect(result.workload.length_check).toMatchObject({ endpoint: '/tokenize (vllm style)', checked: 6, mismatched: 0 });
    for (const point of result.points) {
      expect(point.metrics.completed).toBe(6);
      expect(point.input_tokens_mismatched).toBe(0);
      expect(point.requests!.map((r) => r.server_prompt_tokens)).toEqual(Array(6).fill(96));
    }
  });

  it('a GGUF without a template is served as ChatML, as llama-server does', async () => {
    const counter = await loadGgufTokenizer(chatmlModel);
    const messages = [
      { role: 'system' as const, content: 'You are terse.' },
      { role: 'user' as const, content: 'Summarize: the quick brown fox, 42 times.' },
    ];
    const expected = counter.countChat(messages)!;
    const counted = await post(`${bare.url}/tokenize`, { model: 'bare', messages });
    expect(counted['count']).toBe(expected);
    const reply = await post(`${bare.url}/v1/chat/completions`, { model: 'bare', messages, max_tokens: 2, ignore_eos: true });
    expect((reply['usage'] as { prompt_tokens: number }).prompt_tokens).toBe(expected);
  });

  it('a harness tokenizer with another template than the server: approximate, with the reason; validate refuses a fresh file that says exact', { timeout: 60_000 }, async () => {
    // The dummy tokenizer folder carries the dummy models' "role: content" template, not ChatML.
    const other = ensureDummyTokenizer(chatmlModel, 'micro');
    const { result } = await loadAgainst(chatml.url, { model: 'chatml', api: 'chat', tokenizer: other, 'input-len': '96', 'output-len': '8', 'num-prompts': '6', concurrency: '2', warmup: '0', 'save-requests': true });
    expect(result.workload.length_check).toMatchObject({ checked: 6, mismatched: 6 });
    expect(result.points[0]!.input_tokens_mismatched).toBe(6);
    expect(result.points[0]!.requests!.every((r) => r.server_prompt_tokens !== 96)).toBe(true);
    expect(result.workload.lengths).toBe('approximate');
    expect(result.workload.lengths_reason).toMatch(/^the server's tokenizer counted 6 of 6 checked prompts otherwise \(built→counted: 96→\d+.*\); its usage\.prompt_tokens differed from the built length on 6 completed requests$/);

    const problems = (r: typeof result): string[] => {
      const found: string[] = [];
      checkPlausibility(r, (_path, message) => found.push(message));
      return found.filter((m) => m.startsWith('[lengths-exact]'));
    };
    // The rule judges files created from the moment it shipped on (older ones are compiled by it instead).
    const fresh = { ...result, created_at: LENGTHS_RULE_SINCE };
    expect(problems(fresh)).toEqual([]);
    const { lengths_reason: _dropped, ...claimed } = result.workload;
    expect(problems({ ...fresh, workload: { ...claimed, lengths: 'exact' } })).toEqual([
      `[lengths-exact] lengths is exact, but ${result.workload.lengths_reason}`,
    ]);
  });
});
