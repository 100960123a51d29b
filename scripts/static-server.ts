/** A static file server on 127.0.0.1 for the built site (what GitHub Pages does: files, no headers). */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm', '.arrow': 'application/vnd.apache.arrow.stream', '.parquet': 'application/octet-stream', '.md': 'text/markdown; charset=utf-8',
};

export async function serveStatic(root: string, port = 0): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const base = resolve(root);
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    let file = join(base, path);
    if (!file.startsWith(base)) return void res.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const bound = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${bound}`, server, close: () => new Promise((r) => server.close(() => r())) };
}
