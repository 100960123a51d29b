/**
 * scripts/precompress.ts and scripts/static-server.ts over real HTTP on 127.0.0.1: the
 * precompressed copy is sent only to a client whose Accept-Encoding takes it, with the original's
 * Content-Type, the sent bytes' Content-Length and Vary, and it decompresses to the original bytes.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LARGE_BYTES, precompress } from '../../scripts/precompress.ts';
import { acceptQ, serveStatic } from '../../scripts/static-server.ts';

const root = mkdtempSync(join(tmpdir(), 'servebench-static-'));
const site = join(root, 'site');
const cacheDir = join(root, 'cache');
let server: Awaited<ReturnType<typeof serveStatic>>;

/** Compressible text of a given size (repeated words with some variety). */
function text(bytes: number, seed: string): string {
  let out = '';
  for (let i = 0; out.length < bytes; i++) out += `${seed} line ${i} value ${(i * 7919) % 1000} `;
  return out.slice(0, bytes);
}

const FILES: Record<string, string | Buffer> = {
  'index.html': `<!doctype html><title>t</title>${text(4000, 'home')}`,
  'scenario/abc/index.html': `<!doctype html>${text(3000, 'scenario')}`,
  '_astro/app.js': text(20_000, 'const x ='),
  '_astro/duckdb.wasm': Buffer.concat([Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), Buffer.from(text(LARGE_BYTES * 3, 'wasm'))]),
  'data/site/releases/abc.arrow': Buffer.from(text(LARGE_BYTES + 10, 'arrow')),
  'data/site/meta.json': JSON.stringify({ rows: text(2000, 'json') }),
  'style.css': text(1500, 'body{}'),
  'tiny.js': 'export const a = 1;\n',
  'random.json': randomBytes(5000), // incompressible: no copy is kept
  'data/x.parquet': text(5000, 'parquet'), // not compressed: Parquet compresses itself
};

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  for (const [path, content] of Object.entries(FILES)) {
    mkdirSync(join(site, path, '..'), { recursive: true });
    writeFileSync(join(site, path), content);
  }
  await precompress(site, { cacheDir });
  server = await serveStatic(site);
});

afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('precompress', () => {
  it('writes .gz and .br next to text files over 1 KB, only when smaller', () => {
    const has = (p: string) => existsSync(join(site, p));
    const compressible = ['index.html', 'scenario/abc/index.html', '_astro/app.js', '_astro/duckdb.wasm', 'data/site/releases/abc.arrow', 'data/site/meta.json', 'style.css'];
    expect(compressible.filter((p) => !has(`${p}.gz`) || !has(`${p}.br`))).toEqual([]);
    for (const p of compressible) expect(statSync(join(site, `${p}.br`)).size).toBeLessThan(statSync(join(site, `${p}.gz`)).size);
    expect(['tiny.js', 'data/x.parquet', 'random.json'].flatMap((p) => [`${p}.gz`, `${p}.br`]).filter(has)).toEqual([]);
    for (const p of compressible) {
      const original = readFileSync(join(site, p));
      expect(gunzipSync(readFileSync(join(site, `${p}.gz`)))).toEqual(original);
      expect(brotliDecompressSync(readFileSync(join(site, `${p}.br`)))).toEqual(original);
    }
  });

  it('keeps the large bundles\' copies in the cache by content sha256 and reuses them', async () => {
    const names = readdirSync(cacheDir).sort();
    expect(names.length).toBe(2); // the wasm's br and gz (the arrow is data: new each build)
    for (const name of names) expect(name).toMatch(/^[0-9a-f]{64}\.(br|gz)$/);
    const copy = join(root, 'again');
    mkdirSync(copy);
    writeFileSync(join(copy, 'duckdb.wasm'), FILES['_astro/duckdb.wasm']!);
    const report = await precompress(copy, { cacheDir });
    expect([report.files, report.cached, report.br, report.gz]).toEqual([1, 2, 1, 1]);
    expect(readFileSync(join(copy, 'duckdb.wasm.br'))).toEqual(readFileSync(join(site, '_astro/duckdb.wasm.br')));
    // A copy no build used for 30 days is removed; one in use is kept.
    const stale = join(cacheDir, `${'0'.repeat(64)}.br`);
    writeFileSync(stale, 'old');
    const monthAgo = new Date(Date.now() - 31 * 86_400_000);
    utimesSync(stale, monthAgo, monthAgo);
    for (const name of names) utimesSync(join(cacheDir, name), monthAgo, monthAgo);
    await precompress(copy, { cacheDir });
    expect(readdirSync(cacheDir).sort()).toEqual(names);
  });
});

describe('static server', () => {
  it('sends brotli to a client that takes it: Content-Encoding, Vary, the original Content-Type, Content-Length of the sent bytes', async () => {
    const reply = await get('/_astro/duckdb.wasm', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-encoding']).toBe('br');
    expect(reply.headers['content-type']).toBe('application/wasm');
    expect(reply.headers.vary).toBe('Accept-Encoding');
    expect(Number(reply.headers['content-length'])).toBe(reply.body.length);
    expect(reply.body.length).toBe(statSync(join(site, '_astro/duckdb.wasm.br')).size);
    expect(brotliDecompressSync(reply.body)).toEqual(readFileSync(join(site, '_astro/duckdb.wasm')));
  });

  it('sends gzip to a client that takes gzip only (as Chromium over plain HTTP to another host)', async () => {
    for (const path of ['/_astro/duckdb.wasm', '/_astro/app.js', '/data/site/releases/abc.arrow', '/data/site/meta.json', '/style.css', '/scenario/abc/']) {
      const reply = await get(path, { 'accept-encoding': 'gzip, deflate' });
      expect([path, reply.headers['content-encoding']]).toEqual([path, 'gzip']);
      expect(Number(reply.headers['content-length'])).toBe(reply.body.length);
      const original = readFileSync(join(site, path.endsWith('/') ? `${path}index.html` : path));
      expect(gunzipSync(reply.body)).toEqual(original);
    }
    const html = await get('/', { 'accept-encoding': 'gzip' });
    expect([html.headers['content-type'], html.headers['content-encoding']]).toEqual(['text/html; charset=utf-8', 'gzip']);
    const arrow = await get('/data/site/releases/abc.arrow', { 'accept-encoding': 'gzip' });
    expect(arrow.headers['content-type']).toBe('application/vnd.apache.arrow.stream');
  });

  it('never sends an encoding the client did not ask for', async () => {
    const original = readFileSync(join(site, '_astro/duckdb.wasm'));
    for (const acceptEncoding of [undefined, '', 'identity', 'deflate', 'gzip;q=0, br;q=0', 'zstd', '*;q=0', 'br;q=0, gzip;q=0.0']) {
      const reply = await get('/_astro/duckdb.wasm', acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding });
      expect([acceptEncoding, reply.headers['content-encoding']]).toEqual([acceptEncoding, undefined]);
      expect(reply.headers.vary).toBe('Accept-Encoding');
      expect(Number(reply.headers['content-length'])).toBe(original.length);
      expect(reply.body.equals(original)).toBe(true);
    }
  });

  it('follows the q-values and *', async () => {
    expect((await get('/_astro/duckdb.wasm', { 'accept-encoding': 'br;q=0.5, gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await get('/_astro/duckdb.wasm', { 'accept-encoding': 'gzip;q=0.5, br;q=0.5' })).headers['content-encoding']).toBe('br');
    expect((await get('/_astro/duckdb.wasm', { 'accept-encoding': '*' })).headers['content-encoding']).toBe('br');
    expect((await get('/_astro/duckdb.wasm', { 'accept-encoding': 'br;q=0, *' })).headers['content-encoding']).toBe('gzip');
    expect((await get('/_astro/duckdb.wasm', { 'accept-encoding': 'x-gzip' })).headers['content-encoding']).toBe('gzip');
    expect(acceptQ('gzip;q=0.3, BR', 'br')).toBe(1);
    expect(acceptQ('gzip;q=0.3, br', 'gzip')).toBe(0.3);
    expect(acceptQ(undefined, 'gzip')).toBe(0);
  });

  it('sends a file without a copy as it is, without Vary; HEAD, 404, folders and the outside', async () => {
    const tiny = await get('/tiny.js', { 'accept-encoding': 'gzip, br' });
    expect([tiny.headers['content-encoding'], tiny.headers.vary, tiny.headers['content-type'], tiny.body.toString()]).toEqual([undefined, undefined, 'text/javascript', FILES['tiny.js']]);
    const head = await get('/_astro/duckdb.wasm', { 'accept-encoding': 'gzip' }, 'HEAD');
    expect([head.status, head.headers['content-encoding'], Number(head.headers['content-length']), head.body.length]).toEqual([200, 'gzip', statSync(join(site, '_astro/duckdb.wasm.gz')).size, 0]);
    expect((await get('/nope.js', { 'accept-encoding': 'gzip' })).status).toBe(404);
    expect((await get('/%2e%2e/%2e%2e/etc/passwd')).status).toBe(404);
    expect((await get('/_astro/app.js', {}, 'POST')).status).toBe(405);
    const folder = await get('/scenario/abc/', {});
    expect(folder.body.toString()).toBe(FILES['scenario/abc/index.html']);
  });

  it('answers one byte range with 206 from the original bytes, as GitHub Pages does (Parquet readers over HTTP read by range)', async () => {
    const parquet = readFileSync(join(site, 'data/x.parquet'));
    const size = parquet.length;
    const cases: Array<[string, number, number]> = [['bytes=10-19', 10, 19], ['bytes=0-0', 0, 0], [`bytes=${size - 8}-`, size - 8, size - 1], ['bytes=-8', size - 8, size - 1], [`bytes=100-${size + 50}`, 100, size - 1], [`bytes=-${size + 9}`, 0, size - 1]];
    for (const [range, first, last] of cases) {
      const reply = await get('/data/x.parquet', { range });
      expect([range, reply.status, reply.headers['content-range'], Number(reply.headers['content-length'])]).toEqual([range, 206, `bytes ${first}-${last}/${size}`, last - first + 1]);
      expect(reply.body.equals(parquet.subarray(first, last + 1)), range).toBe(true);
    }
    // A file with precompressed copies: a range is of its original bytes, never of a copy, whatever Accept-Encoding says.
    const wasm = readFileSync(join(site, '_astro/duckdb.wasm'));
    const ranged = await get('/_astro/duckdb.wasm', { range: 'bytes=0-3', 'accept-encoding': 'br, gzip' });
    expect([ranged.status, ranged.headers['content-encoding'], ranged.body.equals(wasm.subarray(0, 4))]).toEqual([206, undefined, true]);
    // Past the end: 416 with the size; several ranges, another unit, a malformed one or If-Range: the whole file.
    const past = await get('/data/x.parquet', { range: `bytes=${size}-` });
    expect([past.status, past.headers['content-range']]).toEqual([416, `bytes */${size}`]);
    const wholeFile: Array<Record<string, string>> = [{ range: 'bytes=0-1,5-6' }, { range: 'items=0-1' }, { range: 'bytes=9-2' }, { range: 'bytes=-' }, { range: 'bytes=0-3', 'if-range': '"x"' }];
    for (const headers of wholeFile) {
      const whole = await get('/data/x.parquet', headers);
      expect([JSON.stringify(headers), whole.status, whole.body.equals(parquet)]).toEqual([JSON.stringify(headers), 200, true]);
    }
    // Without a Range, the original bytes say they take ranges; an encoded copy does not.
    const plain = await get('/data/x.parquet', {}, 'HEAD');
    expect([plain.status, plain.headers['accept-ranges'], Number(plain.headers['content-length'])]).toEqual([200, 'bytes', size]);
    expect((await get('/_astro/duckdb.wasm', { 'accept-encoding': 'br' }, 'HEAD')).headers['accept-ranges']).toBeUndefined();
  });

  it('does not send a copy older than its file (the file was rewritten after the build)', async () => {
    const path = join(site, 'data/site/meta.json');
    writeFileSync(path, JSON.stringify({ rewritten: text(3000, 'new') }));
    const future = new Date(Date.now() + 60_000);
    utimesSync(path, future, future);
    const reply = await get('/data/site/meta.json', { 'accept-encoding': 'gzip, br' });
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect(reply.body).toEqual(readFileSync(path));
  });
});
