/**
 * The lane's model shapes are the real models': parameter counts equal the published ones, the
 * GGUF keys llama.cpp needs are there, Llama 3's rope factors are the converter's, and the BPE
 * vocabulary keys follow llama.cpp's converter (token types, merges, padding rows). The counts
 * are the model cards': Qwen3-0.6B "0.6B, 0.44B non-embedding" (596,049,920 with the 151,936 ×
 * 1,024 embedding tied), Llama-3.2-1B 1,235,814,400 (the safetensors total, tied).
 */
import { describe, expect, it } from 'vitest';
import { architecture, llama3RopeFactors } from '../../harness/measure/models/architectures.ts';
import { bpeVocabulary, decodesToText, maskedTokens, TOKEN_TYPE } from '../../harness/measure/models/bpe-vocabulary.ts';
import { architectureMetadata, dummyTensors, parameterCount } from '../../harness/measure/models/dummy-weights.ts';
import { parseDummyModelRef, weightShapeOf } from '../../harness/measure/models/real-shape-model.ts';

describe('real model shapes', () => {
  it('Qwen3-0.6B has its published parameter count, 0.44 B of it outside the embedding', () => {
    const shape = weightShapeOf(architecture('qwen3-0.6b'));
    expect(parameterCount(shape)).toBe(596_049_920);
    expect(parameterCount(shape) - 151_936 * 1024).toBe(440_467_456);
  });

  it('Llama-3.2-1B has its published parameter count', () => {
    expect(parameterCount(weightShapeOf(architecture('llama-3.2-1b')))).toBe(1_235_814_400);
  });

  it('writes the tensors llama.cpp loads for each architecture, tied (no output.weight)', () => {
    const qwen = dummyTensors(weightShapeOf(architecture('qwen3-0.6b')), [], 0);
    const names = new Map(qwen.map((t) => [t.name, t.dims]));
    expect(names.get('blk.0.attn_q.weight')).toEqual([1024, 2048]);
    expect(names.get('blk.0.attn_k.weight')).toEqual([1024, 1024]);
    expect(names.get('blk.0.attn_output.weight')).toEqual([2048, 1024]);
    expect(names.get('blk.27.attn_q_norm.weight')).toEqual([128]);
    expect(names.get('blk.0.ffn_down.weight')).toEqual([3072, 1024]);
    expect(names.has('output.weight')).toBe(false);
    const llama = new Map(dummyTensors(weightShapeOf(architecture('llama-3.2-1b')), [], 0).map((t) => [t.name, t.dims]));
    expect(llama.get('rope_freqs.weight')).toEqual([32]);
    expect(llama.get('blk.15.attn_k.weight')).toEqual([2048, 512]);
    expect(llama.has('blk.0.attn_q_norm.weight')).toBe(false);
  });

  it('gives qwen3 its 128-wide heads (not 1024/16) and its rope base', () => {
    const keys = new Map(architectureMetadata(weightShapeOf(architecture('qwen3-0.6b'))).map(([k, v]) => [k, v.value]));
    expect(keys.get('qwen3.attention.key_length')).toBe(128);
    expect(keys.get('qwen3.attention.value_length')).toBe(128);
    expect(keys.get('qwen3.rope.freq_base')).toBe(1_000_000);
    const llama = new Map(architectureMetadata(weightShapeOf(architecture('llama-3.2-1b'))).map(([k, v]) => [k, v.value]));
    expect(llama.has('llama.attention.key_length')).toBe(false);
    expect(llama.get('llama.rope.dimension_count')).toBe(64);
  });

  it("computes Llama 3's rope factors as llama.cpp's converter does: 15 kept, 3 ramped, 14 × 32", () => {
    const factors = llama3RopeFactors(architecture('llama-3.2-1b'));
    expect(factors).toHaveLength(32);
    expect(factors.slice(0, 15)).toEqual(Array(15).fill(1));
    expect(factors.slice(15, 18).map((f) => Number(f.toFixed(4)))).toEqual([1.6513, 3.2923, 9.6667]);
    expect(factors.slice(18)).toEqual(Array(14).fill(32));
    expect(llama3RopeFactors(architecture('qwen3-0.6b'))).toEqual([]);
  });

  it('parses dummy model names and says what is wrong with a bad one', () => {
    expect(parseDummyModelRef('dummy:qwen3-0.6b:q4_k_m').quantization).toBe('Q4_K_M');
    expect(() => parseDummyModelRef('dummy:qwen9:Q4_K_M')).toThrow(/names no known shape.*qwen3-0\.6b, llama-3\.2-1b/);
    expect(() => parseDummyModelRef('dummy:qwen3-0.6b:Q3')).toThrow(/F16, Q8_0, Q4_K_M/);
  });
});

describe('BPE vocabulary as llama.cpp GGUF keys', () => {
  const tokenizer = {
    added_tokens: [
      { id: 5, content: '<|end|>', special: true },
      { id: 6, content: '<think>', special: false },
    ],
    model: { type: 'BPE', vocab: { h: 0, i: 1, hi: 2, 'Ġ': 3, 'Ã': 4 }, merges: [['h', 'i']] },
  };
  const vocabulary = bpeVocabulary(tokenizer, { chat_template: '{{ messages }}' }, { size: 9, pre: 'qwen2', bosId: 5, eosId: 5, padId: null, addBos: false });

  it('types tokens as the converter does and pads to the model rows', () => {
    expect(vocabulary.tokens).toEqual(['h', 'i', 'hi', 'Ġ', 'Ã', '<|end|>', '<think>', '[PAD7]', '[PAD8]']);
    expect(vocabulary.types).toEqual([1, 1, 1, 1, 1, TOKEN_TYPE.control, TOKEN_TYPE.userDefined, TOKEN_TYPE.unused, TOKEN_TYPE.unused]);
    expect(vocabulary.merges).toEqual(['h i']);
    const keys = new Map(vocabulary.metadata.map(([k, v]) => [k, v]));
    expect(keys.get('tokenizer.ggml.model')).toEqual({ type: 'string', value: 'gpt2' });
    expect(keys.get('tokenizer.ggml.token_type')?.type).toBe('i32[]');
    expect(keys.get('tokenizer.chat_template')).toEqual({ type: 'string', value: '{{ messages }}' });
    expect(keys.has('tokenizer.ggml.padding_token_id')).toBe(false);
  });

  it('masks every token that is not whole text: special, user-defined, padding, and pieces of a UTF-8 character', () => {
    expect(decodesToText('Ġhello')).toBe(true);
    expect(decodesToText('Ã')).toBe(false); // 0xC3 alone: the first byte of a two-byte character
    expect(decodesToText('Ã©')).toBe(true); // 0xC3 0xA9: é
    expect(maskedTokens(vocabulary)).toEqual([false, false, false, false, true, true, true, true, true]);
  });

  it('refuses a tokenizer that is not BPE', () => {
    expect(() => bpeVocabulary({ added_tokens: [], model: { type: 'Unigram', vocab: {}, merges: [] } }, {}, { size: 1, pre: 'x', bosId: 0, eosId: 0, padId: null, addBos: false })).toThrow(/not BPE/);
  });
});
