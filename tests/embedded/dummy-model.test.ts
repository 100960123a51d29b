/**
 * The GGUF writer and the dummy-weight llama models, checked by the real consumer: node-llama-cpp
 * (llama.cpp's CPU build) reads the metadata, loads the model, tokenizes with byte fallback and
 * generates.
 */
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama, readGgufFileInfo } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { dummyVocabulary, ensureDummyModel, ensureDummyTokenizer, parameterCount, SHAPES, TOKEN_TYPE } from '../../harness/engines/embedded/dummy-model.ts';
import { loadModelTokenizer } from '../../harness/measure/tokenizer/hf-tokenizer.ts';
import { corpusText } from '../../harness/measure/workloads/corpus.ts';
import { toHalf } from '../../harness/measure/models/gguf-writer.ts';

describe('half precision', () => {
  it('rounds to nearest even, with subnormals, infinities and NaN', () => {
    expect(toHalf(1)).toBe(0x3c00);
    expect(toHalf(-2)).toBe(0xc000);
    expect(toHalf(65504)).toBe(0x7bff);
    expect(toHalf(65520)).toBe(0x7c00); // rounds up past the largest half: infinity
    expect(toHalf(2 ** -24)).toBe(0x0001); // smallest subnormal
    expect(toHalf(2 ** -26)).toBe(0x0000);
    expect(toHalf(1 + 2 ** -11)).toBe(0x3c00); // a tie rounds to even
    expect(toHalf(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(toHalf(Infinity)).toBe(0x7c00);
    expect(toHalf(Number.NaN) & 0x7e00).toBe(0x7e00);
  });

  it('agrees with the native Float16Array the writer uses, on values like the weights', () => {
    const values = Float32Array.from({ length: 20_000 }, (_, i) => Math.sin(i * 12.9898) * 0.05 * (1 + (i % 7)));
    const native = new Uint16Array(new Float16Array(values).buffer);
    values.forEach((v, i) => expect(native[i]).toBe(toHalf(v)));
  });
});

describe('dummy llama model', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-models-'));
  const path = ensureDummyModel(dir, 'micro');

  it('is a GGUF file llama.cpp reads: llama architecture with the requested shape', async () => {
    const info = await readGgufFileInfo(path);
    const shape = SHAPES['micro']!;
    expect(info.metadata.general.architecture).toBe('llama');
    const llamaMeta = (info.metadata as unknown as { llama: Record<string, unknown> }).llama;
    expect(llamaMeta['block_count']).toBe(shape.layers);
    expect(llamaMeta['embedding_length']).toBe(shape.embedding);
    expect(info.tensorInfo).toHaveLength(2 + 9 * shape.layers + 1);
    const vocab = dummyVocabulary(shape.vocabWords).tokens.length;
    // F16 matrices + F32 norms, 32-byte aligned: the file holds at least 2 bytes per parameter.
    expect(statSync(path).size).toBeGreaterThan(2 * parameterCount(shape, vocab) * 0.99);
  });

  it('loads in llama.cpp, tokenizes any text (byte fallback) and generates on the CPU', { timeout: 60_000 }, async () => {
    const llama = await getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: 'error' as never });
    const model = await llama.loadModel({ modelPath: path });
    for (const text of ['the state of the union', 'café 🙂 — 日本語']) {
      expect(model.detokenize(model.tokenize(text))).toBe(text);
    }
    expect(model.tokenize('the').length).toBe(1); // whole-word pieces merge
    const context = await model.createContext({ contextSize: 256, sequences: 1, threads: 1 });
    let generated = 0;
    for await (const token of context.getSequence().evaluate(model.tokenize('the state of the union'), { temperature: 0 })) {
      expect(typeof token).toBe('number');
      if (++generated >= 16) break;
    }
    expect(generated).toBe(16);
    await context.dispose();
    await model.dispose();
  });

  it('never generates a control, unknown or byte token, greedy or sampled from the whole vocabulary (real servers refuse or swallow them)', { timeout: 120_000 }, async () => {
    const { types } = dummyVocabulary(SHAPES['micro']!.vocabWords);
    const llama = await getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: 'error' as never });
    const model = await llama.loadModel({ modelPath: path });
    const context = await model.createContext({ contextSize: 512, sequences: 1, threads: 1 });
    const sequence = context.getSequence();
    const seen = new Map<number, number>();
    for (const [prompt, temperature] of [['the state of the union', 0], ['café 🙂 — 日本語', 1], ['<s> 0x00 ', 1.5]] as const) {
      await sequence.clearHistory();
      let generated = 0;
      for await (const token of sequence.evaluate(model.tokenize(prompt), { temperature, topK: 0, topP: 1, minP: 0 })) {
        const type = types[token]!;
        seen.set(type, (seen.get(type) ?? 0) + 1);
        if (++generated >= 400) break;
      }
    }
    // 1,200 sampled tokens, all normal words: under the masking, a control token's logit is about
    // 70 below the best word's, so even one would mean the masking is broken.
    expect([...seen.keys()]).toEqual([TOKEN_TYPE.normal]);
    expect(seen.get(TOKEN_TYPE.normal)).toBe(1200);
    await context.dispose();
    await model.dispose();
  });

  it('its tokenizer.json tokenizes exactly as llama.cpp does (BOS included), on corpus text and edge cases', { timeout: 60_000 }, async () => {
    const tokenizer = loadModelTokenizer(ensureDummyTokenizer(path, 'micro'));
    const llama = await getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: 'error' as never });
    const model = await llama.loadModel({ modelPath: path });
    const text = corpusText();
    const samples = Array.from({ length: 200 }, (_, i) => text.slice((i * 7919) % (text.length - 400), ((i * 7919) % (text.length - 400)) + 20 + (i % 300)));
    for (const sample of [...samples, 'café 🙂 — 日本語', '  two  spaces', 'Hello World 2024!', '']) {
      expect(tokenizer.encode(sample, true)).toEqual([1, ...model.tokenize(sample, true)]);
    }
    await model.dispose();
  });

  it('is written once per shape and seed, then reused', () => {
    const before = statSync(path).mtimeMs;
    expect(ensureDummyModel(dir, 'micro')).toBe(path);
    expect(statSync(path).mtimeMs).toBe(before);
    expect(() => ensureDummyModel(dir, 'huge')).toThrow(/unknown model shape huge; known: tiny, micro/);
  });
});
