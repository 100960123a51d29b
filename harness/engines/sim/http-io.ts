/** node:http plumbing the sim's routes share: JSON replies, body reading, listening. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { usageError } from '../../lib/errors.ts';
import { RequestError } from './request.ts';

const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Large enough that thousands of clients connecting at once are not dropped by the listen queue. */
const LISTEN_BACKLOG = 4096;

export function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** The whole body as UTF-8; an oversized body is read to its end (so a 413 can be sent) and rejected. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) reject(new RequestError(413, `request body exceeds ${MAX_BODY_BYTES} bytes`));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

/** Listens and resolves to the bound port; a busy or forbidden port is a usage error. */
export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' || error.code === 'EACCES' || error.code === 'EADDRNOTAVAIL'
        ? usageError(`sim: cannot listen on ${host}:${port}: ${error.code}`)
        : error);
    });
    server.listen({ host, port, backlog: LISTEN_BACKLOG }, () => {
      server.removeAllListeners('error');
      resolve((server.address() as AddressInfo).port);
    });
  });
}
