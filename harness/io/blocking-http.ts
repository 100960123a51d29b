/**
 * Synchronous JSON POSTs, for the few set-up steps whose algorithm is synchronous but whose answer
 * lives on a server (building a prompt of an exact length with the server's own tokenizer: each
 * resize depends on the last count). A worker thread makes the request while the calling thread
 * waits on an Atomics flag, then takes the reply from a message port. Never used while measuring.
 * Every reply is bounded: its size, and its time.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

export interface BlockingReply {
  /** HTTP status, or 0 when no answer came (connection error, timeout, oversized body). */
  readonly status: number;
  readonly json: unknown;
  readonly error: string | null;
}

export interface BlockingClient {
  postJson(path: string, body: unknown): BlockingReply;
  close(): void;
}

/** The worker: one request at a time, answer on the port, then raise the flag. */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { flag, port, origin, headers, timeoutMs, maxBytes } = workerData;
port.on('message', async ({ path, body }) => {
  let reply;
  try {
    const response = await fetch(origin + path, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const reader = response.body.getReader();
    const chunks = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxBytes) { await reader.cancel(); throw new Error('reply larger than ' + maxBytes + ' bytes'); }
      chunks.push(value);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let json = null;
    try { json = JSON.parse(text); } catch {}
    reply = { status: response.status, json, error: null };
  } catch (error) {
    reply = { status: 0, json: null, error: String(error && error.message || error) };
  }
  port.postMessage(reply);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
`;

export interface BlockingClientOptions {
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
}

export function createBlockingClient(origin: string, headers: Record<string, string>, options: BlockingClientOptions = {}): BlockingClient {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { flag, port: port2, origin, headers, timeoutMs, maxBytes: options.maxBytes ?? 64 * 1024 * 1024 },
    transferList: [port2 as unknown as MessagePort],
  });
  worker.unref();
  let closed = false;
  return {
    postJson(path, body) {
      if (closed) throw new Error('blocking client is closed');
      Atomics.store(flag, 0, 0);
      port1.postMessage({ path, body });
      // The worker's own timeout answers first; this bound only catches a worker that died.
      const waited = Atomics.wait(flag, 0, 0, timeoutMs + 5000);
      const message = receiveMessageOnPort(port1);
      if (waited === 'timed-out' || message === undefined) return { status: 0, json: null, error: `no reply from ${origin}${path} within ${timeoutMs} ms` };
      return message.message as BlockingReply;
    },
    close() {
      if (closed) return;
      closed = true;
      port1.close();
      void worker.terminate();
    },
  };
}
