/**
 * Precompresses the built site for a server that sends files as they are (scripts/static-server.ts,
 * nginx's gzip_static/brotli_static): `<file>.gz` and `<file>.br` next to every text-like file
 * (.js, .wasm, .arrow, .json, .html, .css, .svg, .md) over MIN_BYTES; a copy that is not smaller
 * than the file (or, for brotli, than the gzip copy) is not kept.
 *
 * Brotli's quality by what the file is: the bundles (`_astro/`, content-hashed, the same from one
 * build to the next) at 11, the best (DuckDB-Wasm: 34.2 MB raw, 7.7 MB gzip, 5.1 MB brotli 11);
 * pages and data (new each build) at 6, as fast as gzip -9 and about 30% smaller. Brotli 11 takes
 * about 70 s on DuckDB-Wasm, so the large bundles' copies are kept in the cache folder
 * ($SERVEBENCH_CACHE or ~/.cache/servebench, `precompressed/<sha256 of the content>.<br|gz>`): a
 * rebuild with the same bundle copies them (a copy unused for 30 days is removed). Runs after
 * `astro build` (astro.config.mjs), or by hand: tsx scripts/precompress.ts [DIR (default dist/site)].
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { extname, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as Z, gzip } from 'node:zlib';
import { servebenchCacheDir } from '../harness/lib/io/cache-dir.ts';

/** The files compressed: text and WebAssembly (Parquet, images and fonts are compressed already). */
export const COMPRESSED_EXTENSIONS: ReadonlySet<string> = new Set(['.js', '.mjs', '.wasm', '.arrow', '.json', '.html', '.css', '.svg', '.md', '.txt', '.xml', '.csv']);
/** Smaller files fit in one packet either way. */
export const MIN_BYTES = 1024;
/** From this size on a bundle's compressed copies are cached by content. */
export const LARGE_BYTES = 64 * 1024;
/** Brotli's quality for the bundles (compressed once per content), and for everything else. */
export const BROTLI_BUNDLE_QUALITY = 11;
export const BROTLI_QUALITY = 6;

/** The build's bundles: content-hashed under _astro/ (and any WebAssembly), the same bytes across builds. */
function isBundle(dir: string, file: string): boolean {
  return relative(dir, file).startsWith(`_astro${sep}`) || file.endsWith('.wasm');
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export interface PrecompressReport {
  readonly files: number;
  readonly gz: number;
  readonly br: number;
  readonly bytes: number;
  readonly gzBytes: number;
  /** Brotli where written, else gzip, else the file: what a browser that takes br downloads. */
  readonly bestBytes: number;
  readonly cached: number;
  readonly seconds: number;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && COMPRESSED_EXTENSIONS.has(extname(e.name).toLowerCase()))
    .map((e) => join(e.parentPath, e.name));
}

/** Writes atomically (a server never sees half a copy). */
function writeCopy(path: string, bytes: Uint8Array): void {
  const partial = `${path}.partial-${process.pid}`;
  writeFileSync(partial, bytes);
  renameSync(partial, path);
}

async function encode(kind: 'gz' | 'br', input: Buffer, quality = BROTLI_QUALITY): Promise<Buffer> {
  if (kind === 'gz') return gzipAsync(input, { level: 9 });
  return brotliAsync(input, { params: { [Z.BROTLI_PARAM_QUALITY]: quality, [Z.BROTLI_PARAM_LGWIN]: 24, [Z.BROTLI_PARAM_SIZE_HINT]: input.length } });
}

/** The compressed bytes of a large file: from the cache when the same content was compressed before. */
async function cachedEncode(kind: 'gz' | 'br', input: Buffer, cacheDir: string): Promise<{ bytes: Buffer; cached: boolean }> {
  const key = createHash('sha256').update(input).digest('hex');
  const path = join(cacheDir, `${key}.${kind}`);
  try {
    const bytes = readFileSync(path);
    const now = new Date();
    utimesSync(path, now, now); // used: kept by pruneCache
    return { bytes, cached: true };
  } catch {
    const bytes = await encode(kind, input, BROTLI_BUNDLE_QUALITY);
    try {
      mkdirSync(cacheDir, { recursive: true });
      writeCopy(path, bytes);
    } catch {
      // A read-only cache only costs the next build the time.
    }
    return { bytes, cached: false };
  }
}

/** A cached copy no build used for this long is removed (the bundles change with each release). */
export const CACHE_KEEP_DAYS = 30;

function pruneCache(cacheDir: string): void {
  const oldest = Date.now() - CACHE_KEEP_DAYS * 86_400_000;
  try {
    for (const name of readdirSync(cacheDir)) {
      const path = join(cacheDir, name);
      if (statSync(path).mtimeMs < oldest) rmSync(path, { force: true });
    }
  } catch {
    // No cache folder yet, or one that cannot be written: nothing to prune.
  }
}

/** Runs tasks with at most `limit` at a time (zlib's async calls run on libuv's thread pool). */
async function pool<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await task(items[next++]!);
  }));
}

export async function precompress(dir: string, options: { cacheDir?: string; concurrency?: number } = {}): Promise<PrecompressReport> {
  const started = performance.now();
  const cacheDir = options.cacheDir ?? join(servebenchCacheDir(), 'precompressed');
  const root = resolve(dir);
  const files = listFiles(root).filter((f) => statSync(f).size > MIN_BYTES);
  // The largest first: the slow brotli runs start at once while the small files fill the other threads.
  const sized = files.map((file) => ({ file, size: statSync(file).size })).sort((a, b) => b.size - a.size);
  let gz = 0;
  let br = 0;
  let cached = 0;
  let bytes = 0;
  let gzBytes = 0;
  let bestBytes = 0;
  await pool(sized, options.concurrency ?? Math.max(2, availableParallelism()), async ({ file, size }) => {
    const input = readFileSync(file);
    const bundle = isBundle(root, file);
    const [gzOut, brOut] = await Promise.all(
      (['gz', 'br'] as const).map((kind) => (bundle && size >= LARGE_BYTES ? cachedEncode(kind, input, cacheDir) : encode(kind, input, bundle ? BROTLI_BUNDLE_QUALITY : BROTLI_QUALITY).then((b) => ({ bytes: b, cached: false })))),
    );
    bytes += size;
    cached += Number(gzOut!.cached) + Number(brOut!.cached);
    const keepGz = gzOut!.bytes.length < size;
    const keepBr = brOut!.bytes.length < (keepGz ? gzOut!.bytes.length : size);
    for (const [kind, out, keep] of [['gz', gzOut!, keepGz], ['br', brOut!, keepBr]] as const) {
      if (keep) writeCopy(`${file}.${kind}`, out.bytes);
      else rmSync(`${file}.${kind}`, { force: true });
    }
    if (keepGz) {
      gz++;
      gzBytes += gzOut!.bytes.length;
    }
    if (keepBr) br++;
    bestBytes += keepBr ? brOut!.bytes.length : keepGz ? gzOut!.bytes.length : size;
  });
  pruneCache(cacheDir);
  return { files: sized.length, gz, br, bytes, gzBytes, bestBytes, cached, seconds: Number(((performance.now() - started) / 1000).toFixed(2)) };
}

export function formatReport(r: PrecompressReport): string {
  const mb = (n: number) => (n / 1e6).toFixed(1);
  return `precompressed ${r.files} files (${mb(r.bytes)} MB): ${r.gz} .gz, ${r.br} .br (${r.cached} from the cache), ${mb(r.bestBytes)} MB to send at best, in ${r.seconds} s`;
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href) {
  const dir = process.argv[2] ?? process.env.SERVEBENCH_SITE_OUT ?? 'dist/site';
  process.stdout.write(`${formatReport(await precompress(dir))}\n`);
}
