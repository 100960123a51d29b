/**
 * Test helpers: a real sim on 127.0.0.1:0 and a raw SSE reader. The reader decodes bytes itself
 * (streaming TextDecoder) instead of using a client library, so tests see the exact wire format.
 */
import { afterEach } from 'vitest';
import type { SimConfig } from '../../harness/engines/sim/config.ts';
import { startSimServer, type SimServer } from '../../harness/engines/sim/server.ts';

const open: SimServer[] = [];

/** Starts a sim that is closed after the current test. */
export async function sim(config: Partial<SimConfig> = {}): Promise<SimServer> {
  const server = await startSimServer({ port: 0, ...config });
  open.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

export interface SseResult {
  readonly status: number;
  readonly headers: Headers;
  readonly raw: string;
  /** data: payloads in order (including "[DONE]"). */
  readonly data: string[];
  /** Comment lines (": keep-alive"). */
  readonly comments: string[];
  /** Arrival time (performance.now()) of the read that completed each data event. */
  readonly arrivals: number[];
  /** Set when the body ended with an error (connection dropped). */
  readonly error: Error | null;
}

export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** POSTs and reads the whole SSE body, splitting events on blank lines (LF or CRLF). */
export async function readSse(url: string, body: unknown, headers: Record<string, string> = {}): Promise<SseResult> {
  const response = await post(url, body, headers);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let raw = '';
  let buffer = '';
  const data: string[] = [];
  const comments: string[] = [];
  const arrivals: number[] = [];
  let error: Error | null = null;
  const drain = (now: number): void => {
    for (;;) {
      const match = /\r?\n\r?\n/.exec(buffer);
      if (match === null) return;
      const block = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(':')) comments.push(line);
        else if (line.startsWith('data:')) {
          data.push(line.slice(5).replace(/^ /, ''));
          arrivals.push(now);
        }
      }
    }
  };
  try {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      const now = performance.now();
      const text = decoder.decode(chunk, { stream: true });
      raw += text;
      buffer += text;
      drain(now);
    }
    raw += decoder.decode();
  } catch (caught) {
    error = caught as Error;
  }
  return { status: response.status, headers: response.headers, raw, data, comments, arrivals, error };
}

/** Parsed JSON events, without [DONE]. */
export function jsonEvents(result: SseResult): Record<string, any>[] {
  return result.data.filter((payload) => payload !== '[DONE]').map((payload) => JSON.parse(payload) as Record<string, any>);
}

/** Concatenated generated text of chat (delta.content) or completion (text) events. */
export function streamedText(events: readonly Record<string, any>[]): string {
  return events.map((event) => event['choices']?.[0]?.delta?.content ?? event['choices']?.[0]?.text ?? '').join('');
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const chatBody = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'sim-model',
  messages: [{ role: 'user', content: 'tell me a story about a river' }],
  max_tokens: 12,
  stream: true,
  ...extra,
});

export const completionBody = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'sim-model',
  prompt: 'once upon a time there was',
  max_tokens: 12,
  stream: true,
  ...extra,
});
