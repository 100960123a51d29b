/**
 * The run files of a results folder: every regular *.json below it but under comparisons/, with the
 * size and mtime that the incremental compile keys on. Links and other oddities are reported, never followed.
 */
import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
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

export function listResultFiles(root: string): { files: ResultFile[]; problems: ResultProblem[] } {
  const files: ResultFile[] = [];
  const problems: ResultProblem[] = [];
  // Sidecars are listed with their results, not as results; one without its result is reported.
  const signatures = new Map<string, { size: number; mtimeMs: number }>();
  // A hand-rolled walk with plain string paths: readdirSync's recursive mode plus path.join and
  // path.relative per entry cost three times as much, and a compile lists every file each time.
  const walk = (dir: string, prefix: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const absolutePath = `${dir}${sep}${entry.name}`;
      const relativePath = `${prefix}${entry.name}`;
      if (entry.isDirectory()) {
        // Comparisons (A/Bs, bisections) are not runs: comparisons.ts lists and checks them.
        if (prefix === '' && entry.name === COMPARISONS_DIR) continue;
        walk(absolutePath, `${relativePath}/`);
        continue;
      }
      if (prefix === '' && NON_RESULT_FILES.has(entry.name)) continue;
      if (isSignatureFile(entry.name) && entry.isFile()) {
        const stat = lstatSync(absolutePath);
        signatures.set(relativePath, { size: stat.size, mtimeMs: stat.mtimeMs });
        continue;
      }
      if (!entry.isFile() || !entry.name.endsWith('.json')) {
        problems.push({ file: relativePath, path: '', message: entry.isSymbolicLink() ? '[not-a-result] a symbolic link' : '[not-a-result] not a result file', fix: 'results/ holds only the .json files `servebench run` writes' });
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
