/**
 * Prompts built to exact token lengths with a real tokenizer.json (tests/fixtures/tokenizer-bpe: a
 * small byte-level BPE trained on the corpus, with BOS for plain prompts and a ChatML template).
 */
import { describe, expect, it } from 'vitest';
import { commandLineWorkload } from '../../harness/measure/load/load-options.ts';
import { pointPrompts } from '../../harness/measure/load/point-prompts.ts';
import { WorkloadSchema, type Workload } from '../../harness/contract/workload.ts';
import { loadModelTokenizer, type ChatMessage } from '../../harness/measure/tokenizer/hf-tokenizer.ts';
import { buildRequest } from '../../harness/measure/workloads/build-request.ts';
import { loadWorkload } from '../../harness/measure/workloads/spec-file.ts';

const tokenizer = loadModelTokenizer('tests/fixtures/tokenizer-bpe');
const body = { model: 'm', temperature: 0, ignoreEos: true, extraBody: {} };

function workload(overrides: Record<string, unknown>): Workload {
  return WorkloadSchema.parse({ ...commandLineWorkload(), ...overrides });
}

function measured(input: { prompt: string } | { messages: readonly ChatMessage[] }): number {
  return 'prompt' in input ? tokenizer.countPrompt(input.prompt) : tokenizer.countChat(input.messages)!;
}

describe('exact-length prompts', () => {
  it('completions: each prompt measures exactly its drawn length, BOS included, as the server counts it', () => {
    const w = workload({ api: 'completions', input: { dist: 'uniform', min: 5, max: 700 } });
    for (let i = 0; i < 60; i++) {
      const request = buildRequest({ workload: w, tokenizer }, 0, 'measure', i);
      expect(measured(request.input)).toBe(request.inputTokens);
      expect(tokenizer.encode((request.input as { prompt: string }).prompt, true)[0]).toBe(tokenizer.encode('<|bos|>')[0]);
    }
  });

  it('chat: the rendered chat template measures exactly the drawn length', () => {
    const w = workload({ api: 'chat', input: { dist: 'range_ratio', tokens: 400, ratio: 0.9, convention: 'vllm' } });
    for (let i = 0; i < 60; i++) {
      const request = buildRequest({ workload: w, tokenizer }, 0, 'measure', i);
      expect(measured(request.input)).toBe(request.inputTokens);
    }
  });

  it('every shipped single-turn scenario is exact for its first requests', () => {
    for (const name of ['smoke', 'chat', 'summarize', 'rag-shared-prefix', 'batch']) {
      const w = loadWorkload(name);
      for (let i = 0; i < 4; i++) {
        const request = buildRequest({ workload: w, tokenizer }, 0, 'measure', i);
        expect(measured(request.input), `${name} #${i}`).toBe(request.inputTokens);
      }
    }
  });

  it('text is natural corpus text, not token soup', () => {
    const request = buildRequest({ workload: workload({ input: { dist: 'fixed', tokens: 200 } }), tokenizer }, 0, 'measure', 0);
    const prompt = (request.input as { prompt: string }).prompt;
    const words = prompt.trim().split(/\s+/);
    const dictionaryLike = words.filter((word) => /^[A-Za-z,.;:'’()-]+$/.test(word));
    expect(dictionaryLike.length / words.length).toBeGreaterThan(0.9);
  });
});

describe('determinism', () => {
  it('same seed and tokenizer: byte-identical request set and hash; another seed differs; warmup differs', async () => {
    const w = workload({ input: { dist: 'uniform', min: 20, max: 200 } });
    const spec = { build: { workload: w, tokenizer }, body };
    const a = await pointPrompts(spec, 0, 'measure', 20);
    const b = await pointPrompts(spec, 0, 'measure', 20);
    expect(a.sha256(20)).toBe(b.sha256(20));
    expect(a.built(7).body.equals(b.built(7).body)).toBe(true);
    const other = await pointPrompts({ ...spec, build: { workload: { ...w, seed: 1 }, tokenizer } }, 0, 'measure', 20);
    expect(other.sha256(20)).not.toBe(a.sha256(20));
    expect((await pointPrompts(spec, 0, 'warmup', 20)).sha256(20)).not.toBe(a.sha256(20));
    expect((await pointPrompts(spec, 1, 'measure', 20)).sha256(20)).not.toBe(a.sha256(20));
  });
});

describe('shared prefixes', () => {
  it('requests of a group share their prefix token for token; groups differ', () => {
    const w = loadWorkload('rag-shared-prefix');
    const groups = w.shared_prefix!.groups;
    const tokensOf = (i: number): number[] => tokenizer.encode(tokenizer.renderChat((buildRequest({ workload: w, tokenizer }, 0, 'measure', i).input as { messages: ChatMessage[] }).messages)!);
    const a = tokensOf(0);
    const b = tokensOf(groups);
    const c = tokensOf(1);
    const shared = (x: number[], y: number[]): number => {
      let n = 0;
      while (n < x.length && x[n] === y[n]) n++;
      return n;
    };
    // The chat header plus the 3072-token prefix, identical token for token within a group.
    const header = tokenizer.encode('<|im_start|>user\n').length;
    expect(shared(a, b)).toBeGreaterThanOrEqual(header + w.shared_prefix!.tokens);
    expect(shared(a, c)).toBeLessThan(w.shared_prefix!.tokens / 2);
  });
});

describe('conversations', () => {
  it('each turn resends the previous turn as its prefix and adds exact-length messages', () => {
    const w = loadWorkload('multi-turn');
    const turns = w.multi_turn!.turns;
    const conversation = Array.from({ length: turns }, (_, t) => buildRequest({ workload: w, tokenizer }, 0, 'measure', t).input as { messages: ChatMessage[] });
    for (let t = 1; t < turns; t++) {
      const previous = conversation[t - 1]!.messages;
      expect(conversation[t]!.messages.slice(0, previous.length)).toEqual(previous);
      expect(conversation[t]!.messages).toHaveLength(previous.length + 2);
    }
    for (const message of conversation[turns - 1]!.messages) expect(tokenizer.count(message.content)).toBe(256);
    const next = buildRequest({ workload: w, tokenizer }, 0, 'measure', turns).input as { messages: ChatMessage[] };
    expect(next.messages).toHaveLength(1);
  });
});

describe('without a tokenizer', () => {
  it('falls back to corpus words (approximate lengths)', () => {
    const request = buildRequest({ workload: workload({ input: { dist: 'fixed', tokens: 50 } }), tokenizer: null }, 0, 'measure', 0);
    expect((request.input as { prompt: string }).prompt.split(' ')).toHaveLength(50);
    expect(request.inputTokens).toBe(50);
  });
});
