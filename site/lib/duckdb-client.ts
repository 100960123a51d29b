/**
 * duckdb-wasm, loaded only when a reader asks for SQL: the bundles are self-hosted (Vite copies
 * the eh build and its worker next to the pages; no CDN), the data arrives as Arrow IPC, which
 * duckdb-wasm ingests natively (no extension to fetch). Works without COOP/COEP headers.
 *
 * The first answer waits on DuckDB-Wasm, so everything it needs starts at once, in parallel: the
 * data file's download, the worker's script (its URL is in this module: no round trip for it), the
 * duckdb-wasm module; the worker then compiles the wasm while it streams in
 * (WebAssembly.instantiateStreaming: the server sends it as application/wasm, compressed).
 * The eh bundle: measured in Chromium it instantiates as fast as the mvp bundle and is smaller
 * (34.2 MB raw, 5.1 MB brotli, 7.7 MB gzip, against 39.4, 5.7 and 8.7 MB); the coi bundle needs
 * cross-origin isolation, which GitHub Pages cannot send.
 */
import type { AsyncDuckDBConnection } from '@duckdb/duckdb-wasm';
import wasmUrl from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import workerUrl from '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url';

let database: Promise<AsyncDuckDBConnection> | null = null;
const tables = new Map<string, Promise<AsyncDuckDBConnection>>();

/** Starts DuckDB-Wasm (once per page): the worker, the module, the wasm; resolves with a connection. */
export function startDatabase(): Promise<AsyncDuckDBConnection> {
  database ??= (async () => {
    const worker = new Worker(workerUrl);
    try {
      const duckdb = await import('@duckdb/duckdb-wasm');
      const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
      await db.instantiate(wasmUrl);
      return await db.connect();
    } catch (error) {
      worker.terminate();
      database = null; // a later call tries again
      throw error;
    }
  })();
  return database;
}

async function download(dataUrl: string): Promise<Uint8Array> {
  const response = await fetch(dataUrl);
  if (!response.ok) throw new Error(`${dataUrl}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * A connection to the page's database holding one Arrow IPC file as `table`. Each URL and table
 * is loaded once; the file downloads while DuckDB-Wasm starts, not after.
 */
export function pointsDatabase(dataUrl: string, table = 'points'): Promise<AsyncDuckDBConnection> {
  const key = `${table}\n${new URL(dataUrl, document.baseURI).href}`;
  let loaded = tables.get(key);
  if (!loaded) {
    const data = download(dataUrl);
    // The download's failure is reported through `loaded`, never as an unhandled rejection.
    data.catch(() => undefined);
    loaded = (async () => {
      const conn = await startDatabase();
      await conn.insertArrowFromIPCStream(await data, { name: table, create: true });
      return conn;
    })();
    loaded.catch(() => tables.delete(key));
    tables.set(key, loaded);
  }
  return loaded;
}
