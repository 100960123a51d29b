/**
 * A static file server on 127.0.0.1 for the built site: files as they are, and the precompressed
 * copy next to a file (`<file>.br`, `<file>.gz`, written by scripts/precompress.ts after the build)
 * when the request's Accept-Encoding takes it, with Content-Encoding, Vary: Accept-Encoding, the
 * original's Content-Type and the sent bytes' Content-Length. A client that did not ask for an
 * encoding gets the original bytes. A single byte range (`Range: bytes=…`) is answered with 206
 * from the original bytes, as GitHub Pages answers it: DuckDB and other Parquet readers over HTTP
 * read a file's footer, then its row groups, by range. `npm run preview` serves dist/site with it.
 *
 * Usage: tsx scripts/static-server.ts [DIR (default dist/site)] [--port N (default 4321, or a free one)]
 */
import { createReadStream, statSync, type Stats } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm', '.arrow': 'application/vnd.apache.arrow.stream', '.parquet': 'application/octet-stream', '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8', '.csv': 'text/csv; charset=utf-8', '.png': 'image/png', '.ico': 'image/x-icon', '.xml': 'application/xml',
  '.gz': 'application/gzip', '.br': 'application/octet-stream',
};

/** The Content-Type of a file by its name. */
export function contentType(path: string): string {
  return TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/** The encodings served from precompressed files, most preferred first, with their file suffix. */
const ENCODINGS = [
  { coding: 'br', suffix: '.br' },
  { coding: 'gzip', suffix: '.gz' },
] as const;

/**
 * The q-value the Accept-Encoding header gives a coding (RFC 9110 §12.5.3): its own entry, else
 * `*`'s, else 0 (not acceptable). Names are case-insensitive; `x-gzip` is gzip.
 */
export function acceptQ(header: string | undefined, coding: string): number {
  if (header === undefined) return 0;
  let star: number | null = null;
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName!.trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=').map((s) => s.trim().toLowerCase());
      if (key === 'q') q = Number.isFinite(Number(value)) ? Math.min(1, Math.max(0, Number(value))) : 0;
    }
    if (name === coding || (coding === 'gzip' && name === 'x-gzip')) return q;
    if (name === '*') star = q;
  }
  return star ?? 0;
}

function fileStat(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The file to send for a request path: inside root, a folder's index.html; null when there is none. */
function locate(root: string, urlPath: string): { file: string; stat: Stats } | null {
  let path: string;
  try {
    path = normalize(decodeURIComponent(urlPath));
  } catch {
    return null;
  }
  let file = join(root, path);
  if (file !== root && !file.startsWith(root + sep)) return null;
  let stat = fileStat(file);
  if (stat?.isDirectory()) {
    file = join(file, 'index.html');
    stat = fileStat(file);
  }
  return stat?.isFile() ? { file, stat } : null;
}

/**
 * The one byte range a Range header asks of a `size`-byte file, as [first, last] inclusive;
 * 'unsatisfiable' when it starts past the end; null to send the whole file (no header, another
 * unit, several ranges or a malformed one: RFC 9110 lets a server ignore those).
 */
export function byteRange(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | null {
  const m = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (m === null || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    // A suffix: the last N bytes.
    const n = Number(m[2]);
    return n === 0 ? 'unsatisfiable' : [Math.max(0, size - n), size - 1];
  }
  const first = Number(m[1]);
  const last = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < first) return null;
  return first >= size ? 'unsatisfiable' : [first, last];
}

function handle(root: string, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
  const found = locate(root, new URL(req.url ?? '/', 'http://x').pathname);
  if (!found) return void res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found');
  const headers: Record<string, string | number> = { 'content-type': contentType(found.file) };
  // A range is of the original bytes (If-Range would need validators this server does not send: the whole file then).
  const range = req.headers['if-range'] === undefined ? byteRange(req.headers.range, found.stat.size) : null;
  if (range === 'unsatisfiable') return void res.writeHead(416, { 'content-range': `bytes */${found.stat.size}`, 'accept-ranges': 'bytes' }).end();
  if (range !== null) {
    const [first, last] = range;
    res.writeHead(206, { ...headers, 'accept-ranges': 'bytes', 'content-range': `bytes ${first}-${last}/${found.stat.size}`, 'content-length': last - first + 1 });
    if (req.method === 'HEAD') return void res.end();
    return void createReadStream(found.file, { start: first, end: last }).on('error', () => res.destroy()).pipe(res);
  }
  let send = found.file;
  let size = found.stat.size;
  let varies = false;
  // The most preferred acceptable coding with a precompressed copy at least as new as the file
  // (a copy older than the file is stale: the file was rewritten after the build).
  const choices = ENCODINGS.map((e, rank) => ({ ...e, rank, q: acceptQ(req.headers['accept-encoding'], e.coding), stat: fileStat(found.file + e.suffix) }))
    .filter((e) => e.stat?.isFile() && e.stat.mtimeMs >= found.stat.mtimeMs);
  if (choices.length > 0) varies = true;
  const chosen = choices.filter((e) => e.q > 0).sort((a, b) => b.q - a.q || a.rank - b.rank)[0];
  if (chosen) {
    send = found.file + chosen.suffix;
    size = chosen.stat!.size;
    headers['content-encoding'] = chosen.coding;
  }
  if (varies) headers.vary = 'Accept-Encoding';
  // Ranges are served of the original bytes only.
  if (!chosen) headers['accept-ranges'] = 'bytes';
  headers['content-length'] = size;
  res.writeHead(200, headers);
  if (req.method === 'HEAD') return void res.end();
  createReadStream(send).on('error', () => res.destroy()).pipe(res);
}

export async function serveStatic(root: string, port = 0): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const base = resolve(root);
  const server = createServer((req, res) => handle(base, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const bound = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    server,
    close: () => new Promise((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { port: { type: 'string' } } });
  const dir = positionals[0] ?? process.env.SERVEBENCH_SITE_OUT ?? 'dist/site';
  if (!fileStat(join(dir, 'index.html'))?.isFile()) {
    process.stderr.write(`static-server: no built site in ${dir} (npm run build first)\n`);
    process.exit(2);
  }
  const site = values.port !== undefined ? await serveStatic(dir, Number(values.port)) : await serveStatic(dir, 4321).catch(() => serveStatic(dir));
  process.stdout.write(`Serving ${dir} at ${site.url}/ (Ctrl-C stops it)\n`);
  const stop = () => void site.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
