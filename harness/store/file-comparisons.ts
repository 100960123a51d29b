/**
 * Files what `servebench ab --out` and `servebench bisect --out` wrote into results/comparisons/, at
 * the path each one's content dictates. An A/B is copied byte for byte. A bisection's steps name
 * their A/Bs beside it (FILE.ab/…); filed, each step names its A/B by its path in results/ and its
 * sha256, so the evidence cannot change under the verdict. Everything is checked
 * (comparison-check.ts, with the comparisons already filed) before a byte is written, and nothing
 * is ever overwritten: a file already filed with the same content is left as it is. One function
 * for `servebench file-comparison` and the pipeline's filing of confirm's evidence.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { comparisonRelativePath, type Bisection } from '../contract/comparison.ts';
import { usageError } from '../lib/errors.ts';
import { writeNewFileAtomic } from '../lib/io/atomic-write.ts';
import type { ResultProblem } from './check-result.ts';
import { checkComparisonText } from './comparison-check.ts';
import { checkComparisonFiles } from './comparisons.ts';
import { isInRepositoryResults } from './repository-results.ts';

interface Planned {
  readonly from: string;
  readonly path: string;
  readonly sha256: string;
  readonly already: boolean;
  readonly text: string;
  /** The host label and the model its path carries (an A/B's own; a bisection's, its first A/B's). */
  readonly hardware: string | null;
  readonly model?: string;
}

function readJson(path: string): { text: string; data: { kind?: unknown } } {
  if (!existsSync(path)) throw usageError(`file-comparison: no file "${path}"`);
  const text = readFileSync(path, 'utf8');
  try {
    return { text, data: JSON.parse(text) as { kind?: unknown } };
  } catch (error) {
    throw usageError(`file-comparison: ${path} is not JSON (${(error as Error).message.slice(0, 120)}): give the file \`servebench ab\` or \`servebench bisect\` wrote`);
  }
}

/** An A/B as filed: its own bytes at the path they dictate. */
async function planAb(from: string, text: string, problems: ResultProblem[], options: { publishedStore: boolean }): Promise<Planned | null> {
  const checked = await checkComparisonText(from, text, null, options);
  problems.push(...checked.problems);
  if (checked.ab === null || checked.hardware === null) return null;
  return { from, path: comparisonRelativePath(checked.ab, text, checked.hardware, checked.sha256), sha256: checked.sha256, already: false, text, hardware: checked.hardware, model: checked.ab.model };
}

async function planBisection(from: string, bisection: Bisection, problems: ResultProblem[], options: { publishedStore: boolean }): Promise<Planned[]> {
  const abs: Planned[] = [];
  const steps = [];
  for (const [index, step] of bisection.steps.entries()) {
    const abPath = resolve(dirname(from), step.ab_file);
    if (!existsSync(abPath)) {
      problems.push({ file: from, path: `steps[${index}].ab_file`, message: `[bisect-evidence] its A/B ${abPath} is not there`, fix: 'file a bisection from the folder bisect wrote it in, with its .ab/ folder beside it' });
      return [];
    }
    const filed = await planAb(abPath, readFileSync(abPath, 'utf8'), problems, options);
    if (filed === null) return [];
    abs.push(filed);
    steps.push({ ...step, ab_file: filed.path, ab_sha256: filed.sha256 });
  }
  const text = `${JSON.stringify({ ...bisection, steps }, null, 2)}\n`;
  return [...abs, { from, path: '', sha256: '', already: false, text, hardware: null }];
}

/** One file as filed: where it came from, its path under the results folder, its sha256, whether it was there already. */
export interface FiledComparison {
  readonly from: string;
  readonly path: string;
  readonly sha256: string;
  readonly already: boolean;
}

export interface FilingOutcome {
  /** Empty when there are problems: then nothing was written. */
  readonly filed: FiledComparison[];
  readonly problems: ResultProblem[];
}

/** Files each A/B or bisection file (absolute or relative paths) into resultsDir, all or nothing. */
export async function fileComparisons(paths: readonly string[], resultsDir: string): Promise<FilingOutcome> {
  const publishedStore = isInRepositoryResults(join(resultsDir, 'comparisons'));
  const problems: ResultProblem[] = [];
  const planned: Planned[] = [];
  for (const given of paths) {
    const from = resolve(given);
    const { text, data } = readJson(from);
    if (data?.kind === 'bisection') planned.push(...(await planBisection(from, data as Bisection, problems, { publishedStore })));
    else if (data?.kind === 'ab') {
      const filed = await planAb(from, text, problems, { publishedStore });
      if (filed !== null) planned.push(filed);
    } else throw usageError(`file-comparison: ${given} is not an A/B or a bisection (kind ${JSON.stringify(data?.kind) ?? 'missing'}); runs go into results/ with \`servebench run --results-dir\``);
  }
  // A bisection's path carries its A/Bs' host; then everything is checked with the folder's comparisons.
  const files = planned.map((filed) => {
    if (filed.path !== '') return filed;
    const bisection = JSON.parse(filed.text) as Bisection;
    const first = planned.find((f) => f.path === bisection.steps[0]?.ab_file);
    const hardware = first?.hardware ?? null;
    const sha256 = createHash('sha256').update(filed.text).digest('hex');
    return { ...filed, sha256, hardware, path: hardware === null || first?.model == null ? '' : comparisonRelativePath(bisection, filed.text, hardware, sha256, first.model) };
  });
  for (const filed of files.filter((f) => f.path === '')) problems.push({ file: filed.from, path: 'steps', message: '[bisect-evidence] a bisection without an A/B has no host to file it under', fix: 'file a bisection that made at least one comparison' });
  if (problems.length === 0) {
    const checked = await checkComparisonFiles(resultsDir, { publishedStore }, new Map(files.map((f) => [f.path, f.text])));
    for (const filed of files) problems.push(...(checked.checked.get(filed.path)?.problems ?? []));
  }
  if (problems.length === 0) {
    for (const [index, filed] of files.entries()) {
      const target = join(resultsDir, filed.path);
      if (existsSync(target)) {
        if (readFileSync(target, 'utf8') !== filed.text) throw usageError(`file-comparison: ${target} exists with other content; results are immutable`);
        files[index] = { ...filed, already: true };
        continue;
      }
      mkdirSync(dirname(target), { recursive: true });
      await writeNewFileAtomic(target, filed.text);
    }
  }
  return { filed: problems.length > 0 ? [] : files.map(({ from, path, sha256, already }) => ({ from, path, sha256, already })), problems };
}
