/**
 * The compile's output folder is its own: compile replaces parquet/latest/ and site/ in it, so it
 * refuses a folder that holds anything else (`--out .` in a checkout would replace the site's
 * sources), and the kernel's pseudo-filesystems, where writes may block or mean something else.
 */
import { existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { usageError } from '../lib/errors.ts';

/** Left in every output folder by the first compile; its presence makes the folder safe to rewrite. */
const OUT_MARKER = '.servebench-compile';
const PSEUDO_FILESYSTEMS = ['/proc', '/sys', '/dev'];

function nearestExisting(path: string): string {
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return realpathSync(at);
}

/**
 * Makes `outDir` the store's folder (compile, regress and summarize all keep their store there):
 * refused unless it is new, empty or already ours; then created and marked.
 */
export function prepareOutFolder(outDir: string): void {
  claimOutFolder(outDir);
  mkdirSync(outDir, { recursive: true });
  markOutFolder(outDir);
}

function claimOutFolder(outDir: string): void {
  const real = nearestExisting(outDir);
  const pseudo = PSEUDO_FILESYSTEMS.find((root) => real === root || real.startsWith(`${root}${sep}`));
  if (pseudo !== undefined) throw usageError(`--out ${outDir}: ${pseudo} is a kernel pseudo-filesystem, not a place for compiled data; choose a folder such as build/data`);
  if (existsSync(outDir)) {
    const entries = readdirSync(outDir);
    // Output of a compile older than the marker: its manifest and its store say what it is.
    const earlierOutput = entries.includes('MANIFEST.json') && existsSync(join(outDir, '.cache', 'store.duckdb'));
    if (entries.length > 0 && !entries.includes(OUT_MARKER) && !earlierOutput) {
      throw usageError(`--out ${outDir}: the folder holds other files (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}) and no ${OUT_MARKER} marker, so it is not compile output; compile replaces site/ and parquet/ in its folder: give a new or empty folder (default build/data)`);
    }
  }
}

function markOutFolder(outDir: string): void {
  writeFileSync(join(outDir, OUT_MARKER), 'This folder is servebench compile output: `servebench compile --out` rewrites site/ and parquet/latest/ here.\n');
}
