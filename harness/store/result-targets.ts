/**
 * The result files a command line names (validate, verify, sign): a file as given; a folder as
 * every result file under it, recursively, with what else it holds reported as listing the results
 * folder reports it; a signature sidecar as the result it signs (a sidecar is checked with its
 * result, and one without a result is reported). A link is kept as given (reported as a link,
 * never followed by the checks); each file is named once.
 */
import { existsSync, lstatSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { usageError } from '../lib/errors.ts';
import type { ResultProblem } from './check-result.ts';
import type { BatchFile } from './parse-batch.ts';
import { listResultFiles, NON_RESULT_FILES } from './result-files.ts';
import { isSignatureFile, orphanSignatureProblem, resultPathOfSignature } from './signature-sidecar.ts';

export function toBatchFile(resultsDir: string, given: string): BatchFile {
  const absolutePath = resolve(given);
  const inside = relative(resultsDir, absolutePath);
  const placed = !inside.startsWith('..') && !inside.startsWith(sep) && inside !== '';
  return { relativePath: placed ? inside.split(sep).join('/') : given, absolutePath, placed };
}

/** Paths relative to the results folder (as `--base` lists the added files): sidecars become their results. */
export function resultsOfAdded(resultsDir: string, added: readonly string[]): { files: string[]; problems: ResultProblem[] } {
  const files = new Set<string>();
  const problems: ResultProblem[] = [];
  for (const file of added) {
    if (!isSignatureFile(file)) {
      files.add(file);
      continue;
    }
    const result = resultPathOfSignature(file);
    if (existsSync(resolve(resultsDir, result))) files.add(result);
    else problems.push(orphanSignatureProblem(file));
  }
  return { files: [...files].sort(), problems };
}

export function expandPositionals(command: string, resultsDir: string, positionals: readonly string[]): { targets: BatchFile[]; problems: ResultProblem[] } {
  const targets = new Map<string, BatchFile>();
  const problems: ResultProblem[] = [];
  for (const given of positionals) {
    const stat = lstatSync(given, { throwIfNoEntry: false });
    if (stat?.isDirectory()) {
      const listing = listResultFiles(given);
      if (listing.files.length === 0) throw usageError(`${command}: no result files (*.json) under the folder "${given}"${listing.problems.length > 0 ? ` (${listing.problems.length} other entr${listing.problems.length === 1 ? 'y' : 'ies'}: ${listing.problems.slice(0, 3).map((p) => p.file).join(', ')})` : ''}`);
      const named = (inside: string): string => toBatchFile(resultsDir, join(given, inside)).relativePath;
      for (const problem of listing.problems) problems.push({ ...problem, file: named(problem.file) });
      // A README or .gitkeep is allowed at the results folder's root only, as when listing --results.
      if (resolve(given) !== resultsDir) {
        for (const name of NON_RESULT_FILES) if (lstatSync(join(given, name), { throwIfNoEntry: false }) !== undefined) problems.push({ file: named(name), path: '', message: '[not-a-result] not a result file', fix: 'results/ holds only the .json files `servebench run` writes' });
      }
      for (const file of listing.files) targets.set(file.absolutePath, toBatchFile(resultsDir, file.absolutePath));
    } else if (stat?.isFile() || (stat?.isSymbolicLink() && existsSync(given) && statSync(given).isFile())) {
      if (isSignatureFile(given) && stat.isFile()) {
        const result = resultPathOfSignature(given);
        if (existsSync(result)) targets.set(resolve(result), toBatchFile(resultsDir, result));
        else problems.push(orphanSignatureProblem(toBatchFile(resultsDir, given).relativePath));
        continue;
      }
      targets.set(resolve(given), toBatchFile(resultsDir, given));
    } else {
      throw usageError(`${command}: no file or folder "${given}"`);
    }
  }
  return { targets: [...targets.values()], problems };
}
