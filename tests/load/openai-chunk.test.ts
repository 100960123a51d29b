import { describe, expect, it } from 'vitest';
import { readChunk, type ChunkReading } from '../../harness/measure/load/openai-chunk.ts';
import * as streams from '../fixtures/streams.ts';

const { LLAMACPP_CHAT_EVENTS, VLLM_CHAT_EVENTS } = streams;

/** What a client makes of a whole stream: its text, finish reasons and the usage it was told. */
function readStream(events: readonly string[]): { text: string; finishReasons: string[]; usage: unknown[]; done: boolean } {
  const readings = events.map(readChunk).filter((r): r is Extract<ChunkReading, { kind: 'chunk' }> => r.kind === 'chunk');
  return {
    text: readings.map((r) => r.text).join(''),
    finishReasons: readings.flatMap((r) => (r.finishReason === null ? [] : [r.finishReason])),
    usage: readings.flatMap((r) => (r.usage === null ? [] : [r.usage])),
    done: readChunk(events.at(-1)!).kind === 'done',
  };
}

describe('readChunk', () => {
  // Every engine's stream (recorded or derived from its serving code): nulls where another engine
  // has no field at all (SGLang's "content": null, "usage": null; TensorRT-LLM's trailing space)
  // read as no text and no usage, and the one usage-bearing event gives the counts.
  it.each([
    ['vLLM chat', streams.VLLM_CHAT_EVENTS, ' café 日本語 🙂', { promptTokens: 12, completionTokens: 3, cachedTokens: null }],
    ['vLLM completions', streams.VLLM_COMPLETIONS_EVENTS, ' café 日本語 🙂', { promptTokens: 6, completionTokens: 3, cachedTokens: null }],
    ['SGLang chat', streams.SGLANG_CHAT_EVENTS, ' café 日本語 🙂', { promptTokens: 12, completionTokens: 3, cachedTokens: null }],
    ['SGLang completions', streams.SGLANG_COMPLETIONS_EVENTS, ' café 日本語 🙂', { promptTokens: 6, completionTokens: 3, cachedTokens: null }],
    ['TensorRT-LLM chat', streams.TRTLLM_CHAT_EVENTS, ' café 日本語 🙂', { promptTokens: 12, completionTokens: 3, cachedTokens: 0 }],
    ['TensorRT-LLM completions', streams.TRTLLM_COMPLETIONS_EVENTS, ' café 日本語 🙂', { promptTokens: 6, completionTokens: 3, cachedTokens: 0 }],
    ['llama.cpp v0.4.0 chat (recorded)', streams.LLAMACPP_V040_CHAT_EVENTS, ' amell', { promptTokens: 43, completionTokens: 3, cachedTokens: 0 }],
    ['llama.cpp v0.4.0 completions (recorded)', streams.LLAMACPP_V040_COMPLETIONS_EVENTS, 'lll', { promptTokens: 20, completionTokens: 3, cachedTokens: 1 }],
    ['llama.cpp b4753 chat (recorded)', streams.LLAMACPP_CHAT_EVENTS, ' amell', { promptTokens: 43, completionTokens: 3, cachedTokens: null }],
  ] as const)('%s: the text, one finish reason, one usage, [DONE]', (_name, events, text, usage) => {
    expect(readStream(events)).toEqual({ text, finishReasons: ['length'], usage: [usage], done: true });
  });

  it('reads a vLLM chat stream: the role chunk carries no text, the finish rides on the last token, usage arrives in its own chunk', () => {
    const readings = VLLM_CHAT_EVENTS.map(readChunk);
    expect(readings[0]).toEqual({ kind: 'chunk', text: '', finishReason: null, usage: null, timings: null });
    expect(readings.slice(1, 4).map((r) => (r.kind === 'chunk' ? r.text : null))).toEqual([' café', ' 日本語', ' 🙂']);
    expect(readings[3]).toMatchObject({ kind: 'chunk', text: ' 🙂', finishReason: 'length' });
    expect(readings[4]).toEqual({ kind: 'chunk', text: '', finishReason: null, usage: { promptTokens: 12, completionTokens: 3, cachedTokens: null }, timings: null });
    expect(readings[5]).toEqual({ kind: 'done' });
  });

  it('reads llama.cpp b4753 usage and timings inside the final choice chunk (recorded)', () => {
    expect(readChunk(LLAMACPP_CHAT_EVENTS[3]!)).toEqual({
      kind: 'chunk',
      text: '',
      finishReason: 'length',
      usage: { promptTokens: 43, completionTokens: 3, cachedTokens: null },
      timings: { promptN: 43, promptMs: 0.731, predictedN: 3, predictedMs: 3.297, cacheN: null },
    });
  });

  it('reads completions text and reasoning deltas', () => {
    expect(readChunk('{"choices":[{"index":0,"text":" hi","finish_reason":null}]}')).toMatchObject({ text: ' hi' });
    expect(readChunk('{"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}')).toMatchObject({ text: 'think' });
  });

  it('classifies malformed events and server errors', () => {
    expect(readChunk('{"choices":[{"text":')).toMatchObject({ kind: 'malformed' });
    expect(readChunk('[1,2]')).toMatchObject({ kind: 'malformed' });
    expect(readChunk('{"choices":{}}')).toMatchObject({ kind: 'malformed' });
    expect(readChunk('{"error":{"message":"out of memory","code":500}}')).toMatchObject({ kind: 'error' });
  });

  it('ignores null or partial usage fields instead of inventing counts', () => {
    expect(readChunk('{"choices":[],"usage":null}')).toMatchObject({ usage: null });
    expect(readChunk('{"choices":[],"usage":{"prompt_tokens":5}}')).toMatchObject({ usage: { promptTokens: 5, completionTokens: null } });
  });
});
