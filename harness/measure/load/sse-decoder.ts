/**
 * Bytes → SSE events. UTF-8 is decoded in streaming mode so a multi-byte character split across
 * TCP reads survives; event framing (CRLF/CR/LF, "data:" with or without a space, comments,
 * multi-line data) is eventsource-parser's, a well-kept spec-compliant parser. Benchmarked in
 * bench/client.ts: it is not the client's bottleneck.
 */
import { createParser } from 'eventsource-parser';

/** An event larger than this is a broken server, not a token; stop buffering. */
export const MAX_SSE_BUFFER_BYTES = 16 * 1024 * 1024;

export interface SseSink {
  onData(data: string): void;
  /** The stream cannot be decoded any further (an event over MAX_SSE_BUFFER_BYTES). */
  onError(message: string): void;
}

export interface SseDecoder {
  push(chunk: Uint8Array): void;
  /** Flushes the decoder; an incomplete trailing event is dropped, as the SSE spec requires. */
  end(): void;
}

export function createSseDecoder(sink: SseSink): SseDecoder {
  const decoder = new TextDecoder('utf-8');
  let failed = false;
  const parser = createParser({
    maxBufferSize: MAX_SSE_BUFFER_BYTES,
    onEvent: (event) => sink.onData(event.data),
    // The spec says to ignore unknown fields and a bad retry value; failing on them would also
    // depend on where TCP happened to split the line. Only an overflow ends decoding.
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') sink.onError(error.message);
    },
  });
  const feed = (text: string): void => {
    if (failed || text === '') return;
    try {
      parser.feed(text);
    } catch (error) {
      failed = true;
      sink.onError(error instanceof Error ? error.message : String(error));
    }
  };
  return {
    push: (chunk) => feed(decoder.decode(chunk, { stream: true })),
    end: () => feed(decoder.decode()),
  };
}
