/**
 * The repository's own results/ (the published store, next to this checkout's harness/), as
 * opposed to any other folder a command is pointed at: tests and benchmarks compile SYNTHETIC
 * files from temporary folders, which must keep working, while the store refuses them.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { basename, dirname, join, resolve, sep } from 'node:path';

export const REPOSITORY_RESULTS_DIR = fileURLToPath(new URL('../../results', import.meta.url));

/**
 * The real path of its deepest existing folder, with the rest appended: a link or a relative path
 * to results/ is still results/, also for a file not written yet.
 */
function canonical(path: string): string {
  const absolute = resolve(path);
  try {
    // The native call is one system call; the JS one lstat()s every component, per file of a compile.
    return realpathSync.native(absolute);
  } catch {
    const parent = dirname(absolute);
    return parent === absolute ? absolute : join(canonical(parent), basename(absolute));
  }
}

/** Whether a file or folder lies in the repository's results/ (the folder itself included). */
const roots = new Map<string, string>();

export function isInRepositoryResults(path: string, resultsDir: string = REPOSITORY_RESULTS_DIR): boolean {
  const root = roots.get(resultsDir) ?? canonical(resultsDir);
  roots.set(resultsDir, root);
  const target = canonical(path);
  return target === root || target.startsWith(root + sep);
}
