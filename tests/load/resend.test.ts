/**
 * A request whose connection closes before a single response byte was never started by the
 * server: servebench sends it again (at most MAX_RESENDS times), counts each re-send, and times
 * it from the re-send. A request that got any byte is never re-sent: the server worked on it.
 * A raw TCP server on 127.0.0.1 plays each case exactly.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RESENDS, sendRequest, type LiveCounters } from '../../harness/measure/load/send-request.ts';
import { abortFanout } from '../../harness/measure/load/abort-fanout.ts';

const SSE_RESPONSE = [
  'HTTP/1.1 200 OK',
  'Content-Type: text/event-stream',
  'Transfer-Encoding: chunked',
  'Keep-Alive: timeout=5, max=100',
  '',
  '',
].join('\r\n');
const EVENTS = ['data: {"choices":[{"text":" hi","index":0,"finish_reason":null}]}\n\n', 'data: {"choices":[{"text":"","index":0,"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}\n\ndata: [DONE]\n\n'];

function chunked(text: string): string {
  return `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** Each connection does what `behaviour(n)` says, n counting connections from 0. */
async function rawServer(behaviour: (n: number) => 'close-before-answer' | 'close-after-headers' | 'answer'): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  const server = createServer((socket: Socket) => {
    const mine = behaviour(n++);
    socket.once('data', () => {
      if (mine === 'close-before-answer') return void socket.destroy();
      if (mine === 'close-after-headers') {
        socket.write(SSE_RESPONSE);
        return void setTimeout(() => socket.destroy(), 5);
      }
      socket.write(SSE_RESPONSE + EVENTS.map(chunked).join('') + '0\r\n\r\n');
      socket.end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, connections: () => n };
}

async function send(url: string) {
  const pool = new Pool(url, { connections: 1, pipelining: 1 });
  const counters: LiveCounters = { contentEvents: 0, requestsDone: 0, requestsFailed: 0, retries: 0 };
  const scheduled = performance.now();
  const record = await sendRequest(
    { dispatcher: pool, path: '/v1/completions', headers: { 'content-type': 'application/json' }, timeoutMs: 5000, keepTexts: false, abort: abortFanout(new AbortController().signal), counters },
    { index: 0, body: Buffer.from('{}'), declaredInputTokens: 3, maxTokens: 1 },
    scheduled,
    'req-0',
  );
  await pool.destroy();
  return { record, counters, scheduled };
}

describe('re-sending requests the server never started', () => {
  it('closed before any response byte: re-sent on a new connection, counted, timed from the re-send', async () => {
    const server = await rawServer((n) => (n < 2 ? 'close-before-answer' : 'answer'));
    const { record, counters, scheduled } = await send(server.url);
    expect(record.failure).toBeNull();
    expect(record.retries).toBe(2);
    expect(counters.retries).toBe(2);
    expect(server.connections()).toBe(3);
    expect(record.sendMs).toBeGreaterThan(scheduled);
    expect(record.contentTimesMs[0]!).toBeGreaterThan(record.sendMs);
  });

  it('a server that never answers: a connection_reset failure after MAX_RESENDS re-sends, not a loop', async () => {
    const server = await rawServer(() => 'close-before-answer');
    const { record } = await send(server.url);
    expect(record.failure?.class).toBe('connection_reset');
    expect(record.retries).toBe(MAX_RESENDS);
    expect(server.connections()).toBe(MAX_RESENDS + 1);
  });

  it('closed after the server answered headers: a failure, never re-sent (the server had started it)', async () => {
    const server = await rawServer(() => 'close-after-headers');
    const { record } = await send(server.url);
    expect(record.failure?.class).toMatch(/connection_reset|truncated_stream/);
    expect(record.retries).toBe(0);
    expect(server.connections()).toBe(1);
  });
});
