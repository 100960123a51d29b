/**
 * duckdb-wasm, loaded only when a reader asks for SQL: the bundles are self-hosted (Vite copies
 * the eh build and its worker next to the pages; no CDN), the data arrives as Arrow IPC, which
 * duckdb-wasm ingests natively (no extension to fetch). Works without COOP/COEP headers.
 */
import type { AsyncDuckDBConnection } from '@duckdb/duckdb-wasm';

let connection: Promise<AsyncDuckDBConnection> | null = null;

/** A database holding one Arrow IPC file as `table` (the page's one query source). */
export function pointsDatabase(dataUrl: string, table = 'points'): Promise<AsyncDuckDBConnection> {
  connection ??= (async () => {
    const [duckdb, wasm, worker] = await Promise.all([
      import('@duckdb/duckdb-wasm'),
      import('@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url'),
      import('@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url'),
    ]);
    const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), new Worker(worker.default));
    await db.instantiate(wasm.default);
    const conn = await db.connect();
    const response = await fetch(dataUrl);
    if (!response.ok) throw new Error(`${dataUrl}: HTTP ${response.status}`);
    await conn.insertArrowFromIPCStream(new Uint8Array(await response.arrayBuffer()), { name: table, create: true });
    return conn;
  })();
  return connection;
}
