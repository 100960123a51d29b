/**
 * The run files of a results folder: every regular *.json below it but under comparisons/, with the
 * size and mtime that the incremental compile keys on. Links and other oddities are reported, never followed.
 */
import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync, statSync, type Dirent, type Stats } from 'node:fs';
import { sep } from 'node:path';
import { COMPARISONS_DIR } from '../contract/comparison.ts';
import type { ResultProblem } from './check-result.ts';
import { MAX_RESULT_BYTES } from './store-limits.ts';
import { isSignatureFile, orphanSignatureProblem, resultPathOfSignature, signaturePathOf } from './signature-sidecar.ts';

export interface ResultFile {
  /** Path under the results folder with forward slashes, e.g. "2026-11-29/vllm/…/chat-0123abcd4567.json". */
  readonly relativePath: string;
  readonly absolutePath: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** Its signature sidecar (`<file>.sigstore.json`), when it has one: a new or changed sidecar makes the file new to the incremental compile. */
  readonly signature?: { readonly size: number; readonly mtimeMs: number };
}

/** Defined with the store's other limits (store-limits.ts); exported here too, where files are read. */
export { MAX_RESULT_BYTES };

/** Files the root of a results folder may hold besides results (a README deeper down is not one of them). */
export const NON_RESULT_FILES: ReadonlySet<string> = new Set(['.gitkeep', 'README.md']);

/** What a directory entry is, as readdir's file types say: directory, regular file, symbolic link, other. */
export type EntryKind = 'd' | 'f' | 'l' | 'o';

/** A directory's entries as read when its mtime was `mtimeMs`. */
export interface CachedDirectory {
  readonly mtimeMs: number;
  readonly entries: ReadonlyArray<readonly [name: string, kind: EntryKind]>;
}

/**
 * Listings of directories from an earlier walk, by path relative to the root ("" for the root,
 * "2026-11-29/vllm/" below it). Creating, removing or renaming an entry changes its directory's
 * mtime, so a directory whose mtime is what it was when it was read still holds those entries and
 * is not read again: at 100,000 files in 33,000 folders, reading every folder took 0.3–0.4 s of
 * each compile and stat-ing them 0.1 s. Files are still stat-ed one by one (an edit in place
 * changes no directory).
 */
export interface ListingCache {
  readonly known: ReadonlyMap<string, CachedDirectory>;
  /** Filled by the walk: the listings read this time that may be kept. */
  readonly fresh: Map<string, CachedDirectory>;
  /** Filled by the walk: every directory it went through (a known one not among them is gone). */
  readonly seen: Set<string>;
}

/**
 * A listing read within this long of its directory's mtime is not kept: an entry added in the
 * same clock tick, after the read, would leave the mtime as it was (git's "racy" entries).
 */
const RACY_LISTING_MS = 2000;

/** The kind of a directory entry or of an lstat: both answer the same three questions. */
function kindOf(entry: Dirent | Stats): EntryKind {
  return entry.isDirectory() ? 'd' : entry.isFile() ? 'f' : entry.isSymbolicLink() ? 'l' : 'o';
}

/** A cached listing disagreed with what is on disk (an entry gone or of another kind): walk again without the cache. */
class StaleListing extends Error {}

export function listResultFiles(root: string, cache?: ListingCache): { files: ResultFile[]; problems: ResultProblem[] } {
  if (cache === undefined) return walkResults(root, undefined);
  try {
    return walkResults(root, cache);
  } catch (error) {
    if (!(error instanceof StaleListing)) throw error;
    // Every directory read again; what that walk reads may be kept as usual.
    cache.fresh.clear();
    cache.seen.clear();
    return walkResults(root, { known: new Map(), fresh: cache.fresh, seen: cache.seen });
  }
}

function walkResults(root: string, cache: ListingCache | undefined): { files: ResultFile[]; problems: ResultProblem[] } {
  const files: ResultFile[] = [];
  const problems: ResultProblem[] = [];
  // Sidecars are listed with their results, not as results; one without its result is reported.
  const signatures = new Map<string, { size: number; mtimeMs: number }>();
  // With a cache, an entry is stat-ed before it is trusted: one that is gone or changed kind means
  // the listing is stale. (Without one, a file gone since readdir fails the listing as it always did.)
  const statAs = (path: string, kind: EntryKind): Stats => {
    if (cache === undefined || cache.known.size === 0) return lstatSync(path);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat === undefined || kindOf(stat) !== kind) throw new StaleListing(path);
    return stat;
  };
  const entriesOf = (dir: string, prefix: string, mtimeMs: number | null): CachedDirectory['entries'] => {
    cache?.seen.add(prefix);
    const known = cache?.known.get(prefix);
    if (known !== undefined && known.mtimeMs === mtimeMs) return known.entries;
    const readAt = Date.now();
    const entries = readdirSync(dir, { withFileTypes: true }).map((entry) => [entry.name, kindOf(entry)] as const);
    if (cache !== undefined && mtimeMs !== null && readAt - mtimeMs > RACY_LISTING_MS) cache.fresh.set(prefix, { mtimeMs, entries });
    return entries;
  };
  // A hand-rolled walk with plain string paths: readdirSync's recursive mode plus path.join and
  // path.relative per entry cost three times as much, and a compile lists every file each time.
  const walk = (dir: string, prefix: string, mtimeMs: number | null): void => {
    for (const [name, kind] of entriesOf(dir, prefix, mtimeMs)) {
      const absolutePath = `${dir}${sep}${name}`;
      const relativePath = `${prefix}${name}`;
      if (kind === 'd') {
        // Comparisons (A/Bs, bisections) are not runs: comparisons.ts lists and checks them.
        if (prefix === '' && name === COMPARISONS_DIR) continue;
        walk(absolutePath, `${relativePath}/`, cache === undefined ? null : statAs(absolutePath, 'd').mtimeMs);
        continue;
      }
      if (prefix === '' && NON_RESULT_FILES.has(name)) continue;
      if (isSignatureFile(name) && kind === 'f') {
        const stat = statAs(absolutePath, 'f');
        signatures.set(relativePath, { size: stat.size, mtimeMs: stat.mtimeMs });
        continue;
      }
      if (kind !== 'f' || !name.endsWith('.json')) {
        problems.push({ file: relativePath, path: '', message: kind === 'l' ? '[not-a-result] a symbolic link' : '[not-a-result] not a result file', fix: 'results/ holds only the .json files `servebench run` writes' });
        continue;
      }
      const stat = statAs(absolutePath, 'f');
      files.push({ relativePath, absolutePath, size: stat.size, mtimeMs: stat.mtimeMs });
    }
  };
  try {
    const top = root.endsWith(sep) && root.length > 1 ? root.slice(0, -1) : root;
    // The root is followed when it is a link (readdir follows it too): the link's own mtime never moves.
    walk(top, '', cache === undefined ? null : statSync(top).mtimeMs);
  } catch (error) {
    if (error instanceof StaleListing) throw error;
    return { files: [], problems: [{ file: root, path: '', message: `cannot read the results folder: ${(error as Error).message}`, fix: 'pass an existing folder with --results' }] };
  }
  const signed = files.map((file) => {
    const signature = signatures.get(signaturePathOf(file.relativePath));
    return signature === undefined ? file : { ...file, signature };
  });
  const results = new Set(files.map((file) => file.relativePath));
  for (const sidecar of signatures.keys()) if (!results.has(resultPathOfSignature(sidecar))) problems.push(orphanSignatureProblem(sidecar));
  signed.sort((a, b) => (a.relativePath < b.relativePath ? -1 : a.relativePath > b.relativePath ? 1 : 0));
  return { files: signed, problems };
}

/**
 * A result file's text, or why it was not read: the size is checked on the open descriptor
 * before a byte is read (a 1 GB sparse file costs nothing), and the read never goes past the limit
 * even if the file grows meanwhile.
 */
export function readResultText(path: string, limit = MAX_RESULT_BYTES): { text: string } | { tooLarge: number } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size > limit) return { tooLarge: size };
    // One byte more than the file had: a file that grew past the limit since fstat is still caught.
    const buffer = Buffer.allocUnsafe(Math.min(size, limit) + 1);
    let length = 0;
    for (let n = 1; n > 0 && length <= limit; length += n) n = readSync(fd, buffer, length, buffer.length - length, length);
    if (length > limit) return { tooLarge: length };
    return { text: buffer.toString('utf8', 0, length) };
  } finally {
    closeSync(fd);
  }
}

/** The run_id of a result file (parsed, bounded by the result size limit); null when it has none or is not a result. */
export function readRunId(path: string): string | null {
  try {
    const read = readResultText(path);
    if (!('text' in read)) return null;
    const runId = (JSON.parse(read.text) as { run_id?: unknown } | null)?.run_id;
    return typeof runId === 'string' ? runId : null;
  } catch {
    return null;
  }
}
