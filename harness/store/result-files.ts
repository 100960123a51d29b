/**
 * The files of a results folder: every regular *.json below it, with the size and mtime that
 * the incremental compile keys on. Links and other oddities are reported, never followed.
 */
import { closeSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { sep } from 'node:path';
import type { ResultProblem } from './check-result.ts';

export interface ResultFile {
  /** Path under the results folder with forward slashes, e.g. "2026-11-29/vllm/…/chat-0123abcd4567.json". */
  readonly relativePath: string;
  readonly absolutePath: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Files a results folder may hold besides results. */
export const NON_RESULT_FILES: ReadonlySet<string> = new Set(['.gitkeep', 'README.md']);

export function listResultFiles(root: string): { files: ResultFile[]; problems: ResultProblem[] } {
  const files: ResultFile[] = [];
  const problems: ResultProblem[] = [];
  // A hand-rolled walk with plain string paths: readdirSync's recursive mode plus path.join and
  // path.relative per entry cost three times as much, and a compile lists every file each time.
  const walk = (dir: string, prefix: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const absolutePath = `${dir}${sep}${entry.name}`;
      const relativePath = `${prefix}${entry.name}`;
      if (entry.isDirectory()) {
        walk(absolutePath, `${relativePath}/`);
        continue;
      }
      if (NON_RESULT_FILES.has(entry.name)) continue;
      if (!entry.isFile() || !entry.name.endsWith('.json')) {
        problems.push({ file: relativePath, path: '', message: entry.isSymbolicLink() ? 'a symbolic link' : 'not a result file', fix: 'results/ holds only the .json files `servebench run` writes' });
        continue;
      }
      const stat = lstatSync(absolutePath);
      files.push({ relativePath, absolutePath, size: stat.size, mtimeMs: stat.mtimeMs });
    }
  };
  try {
    walk(root.endsWith(sep) && root.length > 1 ? root.slice(0, -1) : root, '');
  } catch (error) {
    return { files: [], problems: [{ file: root, path: '', message: `cannot read the results folder: ${(error as Error).message}`, fix: 'pass an existing folder with --results' }] };
  }
  files.sort((a, b) => (a.relativePath < b.relativePath ? -1 : a.relativePath > b.relativePath ? 1 : 0));
  return { files, problems };
}

const RUN_ID = /"run_id"\s*:\s*"([^"]{1,64})"/;

/** The run_id near the top of a result file (the harness writes it second), without parsing the whole file. */
export function peekRunId(path: string): string | null {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(1024);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, n).toString('utf8').match(RUN_ID)?.[1] ?? null;
  } finally {
    closeSync(fd);
  }
}
