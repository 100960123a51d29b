/**
 * A loopback HTTP server that composes fake third-party APIs (GitHub, container registries, webhooks).
 * Each fake is a handler that answers the requests it owns and returns false for the rest, so one
 * server can stand in for several hosts in an end-to-end test. Every request is recorded, so tests
 * can assert what was (and was not) sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** Answers a request it owns (and returns true), or returns false to let the next handler try. */
export type FakeHandler = (request: RecordedRequest, response: ServerResponse) => boolean | Promise<boolean>;

export interface FakeServer {
  /** e.g. http://127.0.0.1:40123 */
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeServer(handlers: readonly FakeHandler[]): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request: RecordedRequest = {
        method: incoming.method ?? 'GET',
        url: incoming.url ?? '/',
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      void (async () => {
        for (const handler of handlers) {
          if (await handler(request, response)) return;
        }
        sendJson(response, 404, { message: 'Not Found' });
      })().catch((error: unknown) => sendJson(response, 500, { message: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): true {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
  return true;
}
