/**
 * The results folder's directory listings, kept in the store between compiles (result-files.ts
 * ListingCache says when one may be trusted). One row per directory: its path under the results
 * folder, its mtime as JavaScript wrote it (the exact double, round-tripped as text) and its
 * entries, each a kind letter then the name, joined by "/" (no name holds one).
 */
import { resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString, textRows } from './tables.ts';
import type { CachedDirectory, EntryKind, ListingCache } from './result-files.ts';

export async function createListingTable(connection: DuckDBConnection): Promise<void> {
  await connection.run('CREATE TABLE IF NOT EXISTS listings (path VARCHAR, mtime_ms VARCHAR, entries VARCHAR)');
}

function decode(entries: string): CachedDirectory['entries'] {
  return entries === '' ? [] : entries.split('/').map((entry) => [entry.slice(1), entry[0] as EntryKind] as const);
}

function encode(directory: CachedDirectory): string {
  return directory.entries.map(([name, kind]) => `${kind}${name}`).join('/');
}

/**
 * The kept listings of the results folder at `root`, ready for a walk to use and fill. Listings
 * of another folder compiled into the same store are forgotten: a copy with the same mtimes
 * (tar keeps them) need not hold the same entries.
 */
export async function loadListingCache(connection: DuckDBConnection, root: string): Promise<ListingCache> {
  const folder = resolve(root);
  const kept = (await connection.runAndReadAll(`SELECT value FROM meta WHERE key = 'listing_root'`)).getRowsJS()[0]?.[0];
  if (kept !== folder) {
    await connection.run('DELETE FROM listings');
    await connection.run(`INSERT OR REPLACE INTO meta VALUES ('listing_root', ${sqlString(folder)})`);
  }
  const rows = await textRows(connection, 'listings', ['path', 'mtime_ms', 'entries']);
  const known = new Map(rows.map(([path, mtimeMs, entries]) => [path!, { mtimeMs: Number(mtimeMs), entries: decode(entries!) }]));
  return { known, fresh: new Map(), seen: new Set() };
}

async function append(connection: DuckDBConnection, table: string, rows: Iterable<readonly [string, CachedDirectory]>): Promise<void> {
  const appender = await connection.createAppender(table);
  for (const [path, directory] of rows) {
    appender.appendVarchar(path);
    appender.appendVarchar(String(directory.mtimeMs));
    appender.appendVarchar(encode(directory));
    appender.endRow();
  }
  appender.closeSync();
}

/** Keeps what the walk read; forgets directories it no longer went through. */
export async function saveListingCache(connection: DuckDBConnection, cache: ListingCache): Promise<void> {
  const gone = [...cache.known.keys()].some((path) => !cache.seen.has(path));
  if (gone) {
    // A directory was removed (rare): the table is written again from what this walk saw.
    await connection.run('DELETE FROM listings');
    const current = [...cache.seen].flatMap((path) => {
      const directory = cache.fresh.get(path) ?? cache.known.get(path);
      return directory === undefined ? [] : [[path, directory] as const];
    });
    await append(connection, 'listings', current);
    return;
  }
  if (cache.fresh.size === 0) return;
  await connection.run('CREATE OR REPLACE TEMP TABLE fresh_listings (path VARCHAR, mtime_ms VARCHAR, entries VARCHAR)');
  await append(connection, 'fresh_listings', cache.fresh);
  await connection.run('DELETE FROM listings WHERE path IN (SELECT path FROM fresh_listings)');
  await connection.run('INSERT INTO listings SELECT * FROM fresh_listings');
}
