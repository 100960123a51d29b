/**
 * The comparison files of a results folder (results/comparisons/: A/Bs and bisections), listed and
 * checked together: a bisection is checked against the A/Bs filed beside it, so every A/B is
 * checked first. Few files (a bisection a week at most), read whole on every compile and validate.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { COMPARISONS_DIR, MAX_COMPARISON_BYTES } from '../contract/comparison.ts';
import type { CheckOptions, ResultProblem } from './check-result.ts';
import { checkComparisonText, type AbLookup, type CheckedComparison } from './comparison-check.ts';
import { listResultFiles, readResultText } from './result-files.ts';
import { limitRule, LIMIT_RULES } from './store-limits.ts';

export interface ComparisonFile {
  /** Under the results folder: comparisons/<day>/…json. */
  readonly relativePath: string;
  readonly absolutePath: string;
}

export function listComparisonFiles(resultsDir: string): { files: ComparisonFile[]; problems: ResultProblem[] } {
  const root = join(resultsDir, COMPARISONS_DIR);
  if (!existsSync(root)) return { files: [], problems: [] };
  const listing = listResultFiles(root);
  const under = (path: string) => `${COMPARISONS_DIR}/${path}`;
  return {
    files: listing.files.map((file) => ({ relativePath: under(file.relativePath), absolutePath: file.absolutePath })),
    problems: listing.problems.map((problem) => ({ ...problem, file: problem.file === root ? problem.file : under(problem.file) })),
  };
}

/** Whether a results-relative path is a comparison's (validate splits what it is given by this). */
export function isComparisonPath(relativePath: string): boolean {
  return relativePath.startsWith(`${COMPARISONS_DIR}/`);
}

export interface CheckedComparisons {
  /** Every comparison file, checked, by its path under the results folder. */
  readonly checked: ReadonlyMap<string, CheckedComparison>;
  readonly problems: ResultProblem[];
}

function readComparison(file: ComparisonFile): { text: string } | { problem: ResultProblem } {
  try {
    const read = readResultText(file.absolutePath, MAX_COMPARISON_BYTES);
    if ('text' in read) return read;
    return { problem: { file: file.relativePath, path: '', message: limitRule(LIMIT_RULES.fileSize, `the file is ${read.tooLarge} bytes, over the ${MAX_COMPARISON_BYTES} a comparison may have`), fix: 'an A/B holds at most its planned blocks\' runs: write it with `servebench ab`' } };
  } catch (error) {
    return { problem: { file: file.relativePath, path: '', message: `cannot read: ${(error as Error).message}`, fix: 'results/ holds readable regular files' } };
  }
}

/**
 * Checks every comparison file of the folder: the A/Bs, then the bisections against them.
 * `extra`: files not (yet) in the folder, by the path they would have: filing checks them with the
 * folder's before it writes a byte.
 */
export async function checkComparisonFiles(resultsDir: string, options: CheckOptions = {}, extra: ReadonlyMap<string, string> = new Map()): Promise<CheckedComparisons> {
  const listing = listComparisonFiles(resultsDir);
  const problems = [...listing.problems];
  const texts = new Map<string, string>();
  for (const file of listing.files) {
    const read = readComparison(file);
    if ('problem' in read) problems.push(read.problem);
    else texts.set(file.relativePath, read.text);
  }
  for (const [path, text] of extra) texts.set(path, text);
  const checked = new Map<string, CheckedComparison>();
  const kindOf = (text: string): unknown => {
    try {
      return (JSON.parse(text) as { kind?: unknown } | null)?.kind;
    } catch {
      return undefined;
    }
  };
  // A/Bs first: a bisection is checked against them.
  for (const [path, text] of [...texts].filter(([, text]) => kindOf(text) !== 'bisection')) checked.set(path, await checkComparisonText(path, text, path, options));
  const lookup: AbLookup = (path) => {
    const found = checked.get(path);
    return found === undefined || found.kind !== 'ab' ? null : { sha256: found.sha256, ab: found.ab, hardware: found.hardware };
  };
  for (const [path, text] of [...texts].filter(([, text]) => kindOf(text) === 'bisection')) checked.set(path, await checkComparisonText(path, text, path, options, lookup));
  for (const result of checked.values()) problems.push(...result.problems);
  return { checked, problems };
}
