/**
 * Results are immutable: against a git base, a file that existed there may not be modified,
 * deleted or renamed. Also lists the files added since the base (what a pull request submits).
 */
import { execFileSync } from 'node:child_process';
import { relative, resolve, sep } from 'node:path';
import { usageError } from '../lib/errors.ts';
import type { ResultProblem } from './check-result.ts';
import { NON_RESULT_FILES } from './result-files.ts';
import { isSignatureFile } from './signature-sidecar.ts';

export interface BaseDiff {
  /** Added result files, as paths relative to the results folder. */
  readonly added: string[];
  /** Added signature sidecars (<result>.json.sigstore.json): checked with their results, never taken for results. */
  readonly addedSignatures: string[];
  readonly problems: ResultProblem[];
}

function git(cwd: string, args: readonly string[]): string {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim() ?? (error as Error).message;
    throw usageError(`--base: git ${args.join(' ')} failed: ${stderr.split('\n')[0]}; give a commit, branch or tag this checkout has (e.g. origin/main, after git fetch)`);
  }
}

/** Compares the working tree (committed or not) with `base` inside the results folder. */
export function diffAgainstBase(resultsDir: string, base: string): BaseDiff {
  const absolute = resolve(resultsDir);
  const top = git(absolute, ['rev-parse', '--show-toplevel']).trim();
  const scope = relative(top, absolute).split(sep).join('/') || '.';
  git(top, ['rev-parse', '--verify', '--quiet', `${base}^{commit}`]);
  const output = git(top, ['diff', '--name-status', '-z', '--no-renames', base, '--', scope]);
  const fields = output.split('\0').filter((f) => f !== '');
  const added: string[] = [];
  const problems: ResultProblem[] = [];
  const inResults = (path: string) => relative(absolute, resolve(top, path)).split(sep).join('/');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i]!;
    const file = inResults(fields[i + 1]!);
    if (status === 'A') added.push(file);
    else if (status === 'D') problems.push({ file, path: '', message: `[immutable] deleted; it exists at ${base}`, fix: 'results are immutable: restore the file (git checkout BASE -- FILE)' });
    else problems.push({ file, path: '', message: `[immutable] ${status === 'M' ? 'modified' : `changed (${status})`}; the file at ${base} differs`, fix: 'results are immutable: restore it and add a new run as a new file' });
  }
  // Untracked new files are additions too (a contributor validating before committing).
  for (const path of git(top, ['ls-files', '--others', '--exclude-standard', '-z', '--', scope]).split('\0').filter((p) => p !== '')) added.push(inResults(path));
  // Only result files may be added; anything else in results/ is reported, not ignored.
  for (const file of added) {
    if (!file.endsWith('.json') && !NON_RESULT_FILES.has(file.split('/').pop()!)) problems.push({ file, path: '', message: '[not-a-result] not a result file', fix: 'results/ holds only the .json files `servebench run` writes; put anything else elsewhere' });
  }
  return { added: added.filter((f) => f.endsWith('.json') && !isSignatureFile(f)).sort(), addedSignatures: added.filter(isSignatureFile).sort(), problems };
}
