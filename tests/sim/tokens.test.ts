/** The sim tokenizer and deterministic output, and the fault draw, without a server. */
import { describe, expect, it } from 'vitest';
import { decideFault, parseFaultSpec, planGeneration } from '../../harness/engines/sim/faults.ts';
import {
  SIM_VOCABULARY,
  countChatTokens,
  countSimTokens,
  naturalLength,
  outputText,
  promptHash,
} from '../../harness/engines/sim/tokens.ts';

describe('tokens', () => {
  it('counts whitespace-separated words', () => {
    expect(countSimTokens('')).toBe(0);
    expect(countSimTokens('   ')).toBe(0);
    expect(countSimTokens('hello')).toBe(1);
    expect(countSimTokens(' a  b\tc\nd ')).toBe(4);
    expect(countSimTokens(' café 日本語 🙂')).toBe(3);
  });

  it('counts chat prompts as words + 4 per message + 3', () => {
    expect(countChatTokens([{ role: 'user', content: 'hi there' }])).toBe(2 + 4 + 3);
    expect(countChatTokens([{ role: 'system', content: '' }, { role: 'user', content: 'a b c' }])).toBe(0 + 4 + 3 + 4 + 3);
  });

  it('has ~200 distinct whitespace-free words, several of them multi-byte', () => {
    expect(SIM_VOCABULARY.length).toBeGreaterThanOrEqual(200);
    expect(new Set(SIM_VOCABULARY).size).toBe(SIM_VOCABULARY.length);
    for (const word of SIM_VOCABULARY) expect(countSimTokens(word)).toBe(1);
    const multiByte = SIM_VOCABULARY.filter((word) => Buffer.byteLength(word) > word.length);
    expect(multiByte.length).toBeGreaterThanOrEqual(5);
    expect(multiByte.some((word) => Buffer.byteLength(word) / [...word].length === 4)).toBe(true); // emoji
  });

  it('generates deterministic text whose sim token count is the token count', () => {
    const hash = promptHash('some prompt', 0);
    expect(outputText(hash, 50)).toBe(outputText(hash, 50));
    expect(outputText(promptHash('some prompt', 1), 50)).not.toBe(outputText(hash, 50));
    for (const n of [0, 1, 7, 300]) expect(countSimTokens(outputText(hash, n))).toBe(n);
  });

  it('stops naturally within [max(1, min_tokens), max_tokens]', () => {
    const lengths = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const length = naturalLength(promptHash(`prompt ${i}`, 0), 20, 0);
      expect(length).toBeGreaterThanOrEqual(1);
      expect(length).toBeLessThanOrEqual(20);
      lengths.add(length);
      expect(naturalLength(promptHash(`prompt ${i}`, 0), 20, 15)).toBeGreaterThanOrEqual(15);
    }
    expect(lengths.size).toBe(20);
  });
});

describe('fault draws', () => {
  it('are deterministic per (seed, arrival index) and follow the rates', () => {
    const rates = { http500: 0.1, reset: 0.2 };
    const draws = Array.from({ length: 10_000 }, (_, i) => decideFault(rates, 7, i));
    expect(Array.from({ length: 10_000 }, (_, i) => decideFault(rates, 7, i))).toEqual(draws);
    expect(Array.from({ length: 100 }, (_, i) => decideFault(rates, 8, i))).not.toEqual(draws.slice(0, 100));
    expect(draws.filter((kind) => kind === 'http500').length / 10_000).toBeCloseTo(0.1, 1);
    expect(draws.filter((kind) => kind === 'reset').length / 10_000).toBeCloseTo(0.2, 1);
    expect(draws.filter((kind) => kind === null).length / 10_000).toBeCloseTo(0.7, 1);
    expect(decideFault({ stall: 1 }, 0, 123)).toBe('stall');
    expect(decideFault({}, 0, 123)).toBeNull();
  });

  it('parses --faults and rejects bad specs', () => {
    expect(parseFaultSpec('http500=0.02, reset=0.5')).toEqual({ http500: 0.02, reset: 0.5 });
    expect(() => parseFaultSpec('bogus=0.1')).toThrow(/unknown fault "bogus"/);
    expect(() => parseFaultSpec('reset=2')).toThrow(/probability/);
    expect(() => parseFaultSpec('reset')).toThrow(/fault=probability/);
    expect(() => parseFaultSpec('reset=0.6,stall=0.6')).toThrow(/≤ 1/);
  });

  it('cut generation at about half', () => {
    expect(planGeneration('reset', 10, 10, 'length')).toMatchObject({ outputTokens: 5, finishReason: null });
    expect(planGeneration('early_stop', 10, 10, 'length')).toMatchObject({ outputTokens: 5, finishReason: 'stop' });
    expect(planGeneration('malformed', 10, 10, 'length')).toMatchObject({ outputTokens: 10, malformedAt: 5 });
    expect(planGeneration('stall', 10, 10, 'length')).toMatchObject({ outputTokens: 10, stallAfter: 5 });
    expect(planGeneration(null, 10, 10, 'length')).toEqual({ outputTokens: 10, finishReason: 'length', stallAfter: -1, malformedAt: -1 });
  });
});
