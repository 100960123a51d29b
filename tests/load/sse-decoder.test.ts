import { describe, expect, it } from 'vitest';
import { createSseDecoder } from '../../harness/measure/load/sse-decoder.ts';
import { FRAMINGS, LLAMACPP_CHAT_EVENTS, VLLM_CHAT_EVENTS, frame } from '../fixtures/streams.ts';

function decodeInPieces(bytes: Uint8Array, cuts: readonly number[]): { data: string[]; errors: string[] } {
  const data: string[] = [];
  const errors: string[] = [];
  const decoder = createSseDecoder({ onData: (d) => data.push(d), onError: (e) => errors.push(e) });
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    decoder.push(bytes.subarray(start, cut));
    start = cut;
  }
  decoder.end();
  return { data, errors };
}

describe('SSE decoder', () => {
  for (const [name, events] of [
    ['vLLM chat', VLLM_CHAT_EVENTS],
    ['llama.cpp chat', LLAMACPP_CHAT_EVENTS],
  ] as const) {
    for (const framing of FRAMINGS) {
      const label = `${name}, newline ${JSON.stringify(framing.newline)}, space ${framing.space}, comments ${framing.comments}`;
      const bytes = new TextEncoder().encode(frame(events, framing));

      it(`${label}: same events at every split point`, () => {
        for (let cut = 0; cut <= bytes.length; cut++) {
          expect(decodeInPieces(bytes, [cut])).toEqual({ data: events, errors: [] });
        }
      });

      it(`${label}: same events one byte at a time (UTF-8 split inside characters)`, () => {
        const cuts = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
        expect(decodeInPieces(bytes, cuts)).toEqual({ data: events, errors: [] });
      });
    }
  }

  it('ignores unknown fields and a bad retry value wherever the reads split them, as the spec says', () => {
    const bytes = new TextEncoder().encode(`foo: bar\nretry: soon\n${frame(VLLM_CHAT_EVENTS, FRAMINGS[0]!)}`);
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(decodeInPieces(bytes, [cut])).toEqual({ data: VLLM_CHAT_EVENTS, errors: [] });
    }
  });

  it('delivers several events from one read', () => {
    const bytes = new TextEncoder().encode(frame(VLLM_CHAT_EVENTS, FRAMINGS[0]!));
    expect(decodeInPieces(bytes, []).data).toEqual(VLLM_CHAT_EVENTS);
  });

  it('joins multi-line data fields with a newline, as the spec requires', () => {
    const bytes = new TextEncoder().encode('data: a\ndata: b\n\n');
    expect(decodeInPieces(bytes, []).data).toEqual(['a\nb']);
  });

  it('drops an unterminated trailing event (the stream was cut)', () => {
    const bytes = new TextEncoder().encode('data: {"a":1}\n\ndata: {"b"');
    expect(decodeInPieces(bytes, []).data).toEqual(['{"a":1}']);
  });
});
