/**
 * The files of a results folder: every regular *.json below it, with the size and mtime that
 * the incremental compile keys on. Links and other oddities are reported, never followed.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { ResultProblem } from './check-result.ts';

export interface ResultFile {
  /** Path under the results folder with forward slashes, e.g. "2026-11-29/vllm/…/chat-0123abcd4567.json". */
  readonly relativePath: string;
  readonly absolutePath: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Files a results folder may hold besides results. */
const IGNORED = new Set(['.gitkeep', 'README.md']);

export function listResultFiles(root: string): { files: ResultFile[]; problems: ResultProblem[] } {
  const files: ResultFile[] = [];
  const problems: ResultProblem[] = [];
  let entries;
  try {
    entries = readdirSync(root, { recursive: true, withFileTypes: true });
  } catch (error) {
    return { files, problems: [{ file: root, path: '', message: `cannot read the results folder: ${(error as Error).message}`, fix: 'pass an existing folder with --results' }] };
  }
  for (const entry of entries) {
    const absolutePath = join(entry.parentPath, entry.name);
    const relativePath = relative(root, absolutePath).split(sep).join('/');
    if (entry.isDirectory() || IGNORED.has(entry.name)) continue;
    if (!entry.isFile() || !entry.name.endsWith('.json')) {
      problems.push({ file: relativePath, path: '', message: entry.isSymbolicLink() ? 'a symbolic link' : 'not a result file', fix: 'results/ holds only the .json files `servebench run` writes' });
      continue;
    }
    const stat = lstatSync(absolutePath);
    files.push({ relativePath, absolutePath, size: stat.size, mtimeMs: stat.mtimeMs });
  }
  files.sort((a, b) => (a.relativePath < b.relativePath ? -1 : a.relativePath > b.relativePath ? 1 : 0));
  return { files, problems };
}
