import { describe, expect, it } from 'vitest';
import { readChunk } from '../../harness/measure/load/openai-chunk.ts';
import { LLAMACPP_CHAT_EVENTS, VLLM_CHAT_EVENTS } from '../fixtures/streams.ts';

describe('readChunk', () => {
  it('reads a vLLM chat stream: the role chunk carries no text, usage arrives in its own chunk', () => {
    const readings = VLLM_CHAT_EVENTS.map(readChunk);
    expect(readings[0]).toEqual({ kind: 'chunk', text: '', finishReason: null, usage: null, timings: null });
    expect(readings.slice(1, 4).map((r) => (r.kind === 'chunk' ? r.text : null))).toEqual([' café', ' 日本語', ' 🙂']);
    expect(readings[4]).toMatchObject({ kind: 'chunk', text: '', finishReason: 'length' });
    expect(readings[5]).toEqual({ kind: 'chunk', text: '', finishReason: null, usage: { promptTokens: 12, completionTokens: 3 }, timings: null });
    expect(readings[6]).toEqual({ kind: 'done' });
  });

  it('reads llama.cpp usage inside the final choice chunk', () => {
    expect(readChunk(LLAMACPP_CHAT_EVENTS[2]!)).toEqual({
      kind: 'chunk',
      text: '',
      finishReason: 'length',
      usage: { promptTokens: 9, completionTokens: 3 },
      timings: { promptN: 9, promptMs: 0.47, predictedN: 3, predictedMs: 2.9 },
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
