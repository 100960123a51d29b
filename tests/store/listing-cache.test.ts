/**
 * The results folder's listing, kept between compiles: a directory whose mtime is unchanged is not
 * read again, and the walk must still list exactly what an uncached walk lists. Real folders and a
 * real DuckDB store; the file contents are placeholders (listing reads no content).
 */
import { mkdirSync, mkdtempSync, readdirSync, lutimesSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { listResultFiles, type ListingCache } from '../../harness/store/result-files.ts';
import { loadListingCache, saveListingCache } from '../../harness/store/listing-store.ts';
import { openStore, type Store } from '../../harness/store/store.ts';

const temp = mkdtempSync(join(tmpdir(), 'servebench-listing-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** An hour ago: far past the window in which a listing is too fresh to keep. */
const HOUR_AGO = (Date.now() - 3_600_000) / 1000;

function ageAll(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) ageAll(join(dir, entry.name));
  utimesSync(dir, HOUR_AGO, HOUR_AGO);
}

function put(root: string, path: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), '{}\n');
}

/** What is listed, as compile keys it. */
const listed = (listing: ReturnType<typeof listResultFiles>) => ({ files: listing.files.map((f) => [f.relativePath, f.size]), problems: listing.problems.map((p) => [p.file, p.message]) });

let root: string;
let store: Store;

/** One compile's walk: the kept listings loaded, used, and saved back. */
async function cachedWalk(): Promise<{ listing: ReturnType<typeof listResultFiles>; cache: ListingCache }> {
  const cache = await loadListingCache(store.connection, root);
  const listing = listResultFiles(root, cache);
  await saveListingCache(store.connection, cache);
  return { listing, cache };
}

beforeEach(async () => {
  root = mkdtempSync(join(temp, 'results-'));
  for (const day of ['2026-11-01', '2026-11-02']) for (const engine of ['vllm', 'sglang']) for (const n of [1, 2]) put(root, `${day}/${engine}/m/run-${n}.json`);
  put(root, 'README.md');
  ageAll(root);
  store?.close();
  store = await openStore(':memory:');
});
afterAll(() => store?.close());

describe('the kept listing', () => {
  it('keeps every directory it read, and a second walk reads none of them again yet lists the same', async () => {
    const first = await cachedWalk();
    // The root, two days, two engines each, one model each: 1 + 2 + 4 + 4.
    expect(first.cache.fresh.size).toBe(11);
    const second = await cachedWalk();
    expect(second.cache.known.size).toBe(11);
    expect(second.cache.fresh.size).toBe(0);
    expect(listed(second.listing)).toEqual(listed(listResultFiles(root)));
    expect(second.listing.files).toHaveLength(8);
  });

  it('sees a file added, one removed, one renamed and a folder added: each changes its directory\'s mtime', async () => {
    await cachedWalk();
    put(root, '2026-11-01/vllm/m/run-3.json');
    rmSync(join(root, '2026-11-02/sglang/m/run-1.json'));
    renameSync(join(root, '2026-11-01/sglang/m/run-2.json'), join(root, '2026-11-01/sglang/m/run-9.json'));
    put(root, '2026-11-03/trtllm/m/run-1.json');
    const { listing } = await cachedWalk();
    expect(listed(listing)).toEqual(listed(listResultFiles(root)));
    const paths = listing.files.map((f) => f.relativePath);
    expect(paths).toContain('2026-11-01/vllm/m/run-3.json');
    expect(paths).toContain('2026-11-01/sglang/m/run-9.json');
    expect(paths).toContain('2026-11-03/trtllm/m/run-1.json');
    expect(paths).not.toContain('2026-11-02/sglang/m/run-1.json');
    expect(paths).not.toContain('2026-11-01/sglang/m/run-2.json');
  });

  it('sees an edit in place (no directory changes): files are still stat-ed one by one', async () => {
    await cachedWalk();
    writeFileSync(join(root, '2026-11-01/vllm/m/run-1.json'), '{"edited": true}\n');
    const { listing } = await cachedWalk();
    expect(listing.files.find((f) => f.relativePath === '2026-11-01/vllm/m/run-1.json')!.size).toBe(17);
  });

  it('does not keep a listing read within two seconds of its directory\'s last change (an entry added in the same clock tick would go unseen)', async () => {
    await cachedWalk();
    put(root, '2026-11-01/vllm/m/run-3.json');
    const { cache } = await cachedWalk();
    expect([...cache.fresh.keys()]).toEqual([]);
    // Read again until it is old enough to keep.
    utimesSync(join(root, '2026-11-01/vllm/m'), HOUR_AGO + 60, HOUR_AGO + 60);
    const later = await cachedWalk();
    expect([...later.cache.fresh.keys()]).toEqual(['2026-11-01/vllm/m/']);
    expect(later.listing.files.map((f) => f.relativePath)).toContain('2026-11-01/vllm/m/run-3.json');
  });

  it('walks again from the disk when a kept listing disagrees with it under an unchanged mtime (an entry gone, or of another kind)', async () => {
    await cachedWalk();
    const model = join(root, '2026-11-02/vllm/m');
    const { mtimeMs } = statSync(model);
    rmSync(join(model, 'run-1.json'));
    rmSync(join(model, 'run-2.json'));
    mkdirSync(join(model, 'run-2.json'));
    // The mtime put back as it was: only the entries' own stat can tell.
    utimesSync(model, mtimeMs / 1000, mtimeMs / 1000);
    const { listing, cache } = await cachedWalk();
    expect(listed(listing)).toEqual(listed(listResultFiles(root)));
    expect(listing.files.map((f) => f.relativePath).filter((p) => p.startsWith('2026-11-02/vllm/'))).toEqual([]);
    // That walk read every directory, and what it read is kept in place of the stale listing.
    expect(cache.fresh.size).toBeGreaterThan(0);
    const next = await cachedWalk();
    expect(listed(next.listing)).toEqual(listed(listResultFiles(root)));
  });

  it('follows a results folder given as a link: a day added under it is seen (the link\'s own mtime never moves)', async () => {
    const link = join(temp, `link-${Date.now()}`);
    symlinkSync(root, link);
    lutimesSync(link, HOUR_AGO, HOUR_AGO);
    const viaLink = async () => {
      const cache = await loadListingCache(store.connection, link);
      const listing = listResultFiles(link, cache);
      await saveListingCache(store.connection, cache);
      return listing;
    };
    await viaLink();
    put(root, '2026-11-03/vllm/m/run-1.json');
    utimesSync(root, HOUR_AGO + 60, HOUR_AGO + 60);
    expect((await viaLink()).files.map((f) => f.relativePath)).toContain('2026-11-03/vllm/m/run-1.json');
  });

  it('forgets directories removed, and every listing when another results folder is compiled into the same store', async () => {
    await cachedWalk();
    rmSync(join(root, '2026-11-02'), { recursive: true });
    const { listing } = await cachedWalk();
    expect(listing.files).toHaveLength(4);
    const kept = await loadListingCache(store.connection, root);
    expect([...kept.known.keys()].filter((path) => path.startsWith('2026-11-02/'))).toEqual([]);
    // A copy elsewhere (same relative paths): nothing of the first folder is trusted for it.
    const other = mkdtempSync(join(temp, 'other-'));
    put(other, '2026-11-01/vllm/m/run-1.json');
    const elsewhere = await loadListingCache(store.connection, other);
    expect(elsewhere.known.size).toBe(0);
  });
});
