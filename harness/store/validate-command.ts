/**
 * `servebench validate [FILES or FOLDERS…] [--results DIR] [--base REF] [--json]`: every problem of
 * every result file and comparison, one line each (file, JSON path, fix), as GitHub annotations
 * inside Actions; exit 1 when there is any. A folder stands for every result file under it, recursively.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { booleanOption, parseCommandLine, stringOption, type CommandSpec, type Command } from '../lib/cli/options.ts';
import { EXIT } from '../lib/errors.ts';
import type { ResultProblem } from './check-result.ts';
import { diffAgainstBase } from './immutability.ts';
import type { BatchFile } from './parse-batch.ts';
import { formatProblemLine, githubAnnotation } from './problem-output.ts';
import { listResultFiles, readRunId } from './result-files.ts';
import { expandPositionals, resultsOfAdded } from './result-targets.ts';
import { parseFiles } from './store.ts';
import { RESULTS_OPTION } from './store-options.ts';
import { checkComparisonFiles, isComparisonPath } from './comparisons.ts';
import { checkComparisonText } from './comparison-check.ts';
import { isInRepositoryResults } from './repository-results.ts';

/**
 * The comparisons to check: every one in the folder (null), or those named, each checked with the
 * folder's (a named file outside the folder is checked on its own).
 */
async function checkComparisonsNamed(resultsDir: string, named: readonly BatchFile[] | null): Promise<{ files: number; problems: ResultProblem[] }> {
  if (named !== null && named.length === 0) return { files: 0, problems: [] };
  const publishedStore = isInRepositoryResults(resultsDir);
  const all = await checkComparisonFiles(resultsDir, { publishedStore });
  if (named === null) return { files: all.checked.size, problems: all.problems };
  const problems: ResultProblem[] = [];
  for (const file of named) {
    const checked = all.checked.get(file.relativePath) ?? (await checkComparisonText(file.relativePath, readFileSync(file.absolutePath, 'utf8'), file.relativePath, { publishedStore }));
    problems.push(...checked.problems);
  }
  return { files: named.length, problems };
}

const spec: CommandSpec = {
  name: 'validate',
  summary: 'check result files: schema, consistency, provenance, path, duplicates, and (with --base) immutability',
  usage: 'servebench validate [FILES or FOLDERS…] [--results DIR] [--base GIT_REF] [--json]',
  options: [
    RESULTS_OPTION,
    { name: 'base', value: 'GIT_REF', help: 'Also check immutability against this commit: no result that exists there is modified, deleted or renamed. Without FILES, checks the files added since it.' },
    { name: 'json', help: 'Machine-readable output: {files, problems}.' },
  ],
  epilog: 'A folder (e.g. results/2026-12-01/) stands for every result file under it, recursively; a folder without one is bad usage. Without FILES and --base, checks every file in --results. Inside GitHub Actions, problems are also printed as ::error annotations.\nExit status: 0 all valid, 1 problems found (one line each), 2 bad usage.',
};

export const validateCommand: Command = {
  spec,
  async run(argv) {
    const { options, positionals } = parseCommandLine(spec, argv);
    const resultsDir = resolve(stringOption(spec, options, 'results')!);
    const base = stringOption(spec, options, 'base');
    const problems: ResultProblem[] = [];
    let targets: BatchFile[];
    if (positionals.length > 0) {
      const named = expandPositionals('validate', resultsDir, positionals);
      problems.push(...named.problems);
      targets = named.targets;
    } else if (base !== undefined) {
      targets = [];
    } else {
      const listing = listResultFiles(resultsDir);
      problems.push(...listing.problems);
      targets = listing.files.map((f) => ({ relativePath: f.relativePath, absolutePath: f.absolutePath }));
    }
    if (base !== undefined) {
      const diff = diffAgainstBase(resultsDir, base);
      problems.push(...diff.problems);
      if (positionals.length === 0) {
        // An added signature is checked with its result (which may be older than the base).
        const added = resultsOfAdded(resultsDir, [...diff.added, ...diff.addedSignatures]);
        problems.push(...added.problems);
        targets = added.files.map((file) => ({ relativePath: file, absolutePath: resolve(resultsDir, file) }));
      }
    }
    // A link is never followed: it could point anywhere on the machine, and the problems are
    // printed in public logs. (Files listed from the folder are lstat-ed by listResultFiles.)
    const links = targets.filter((t) => lstatSync(t.absolutePath, { throwIfNoEntry: false })?.isSymbolicLink() === true);
    for (const link of links) problems.push({ file: link.relativePath, path: '', message: '[not-a-result] a symbolic link', fix: 'results/ holds only the .json files `servebench run` writes, as regular files' });
    targets = targets.filter((t) => !links.includes(t));
    // Comparisons (results/comparisons/) are checked as a set: a bisection against the A/Bs filed with it.
    const everyComparison = positionals.length === 0 && base === undefined ? true : positionals.some((given) => resolve(given) === resultsDir);
    const comparisonTargets = targets.filter((t) => t.placed !== false && isComparisonPath(t.relativePath));
    targets = targets.filter((t) => !comparisonTargets.includes(t));
    const comparisons = await checkComparisonsNamed(resultsDir, everyComparison ? null : comparisonTargets);
    problems.push(...comparisons.problems);
    const { verdicts } = await parseFiles(targets, null);
    for (const verdict of verdicts) problems.push(...verdict.problems);
    // A run is submitted once: the checked files against each other and against the folder.
    const owners = new Map<string, string>();
    const checked = new Set(targets.map((t) => t.absolutePath));
    for (const verdict of verdicts) {
      if (verdict.runId === null) continue;
      const other = owners.get(verdict.runId);
      if (other !== undefined) problems.push({ file: verdict.relativePath, path: 'run_id', message: `[duplicate-run] run_id ${verdict.runId} is also in ${other}`, fix: 'a run is submitted once; remove the copy' });
      else owners.set(verdict.runId, verdict.relativePath);
    }
    if (positionals.length > 0 || base !== undefined) {
      for (const file of listResultFiles(resultsDir).files) {
        if (checked.has(file.absolutePath)) continue;
        const runId = readRunId(file.absolutePath);
        const owner = runId === null ? undefined : owners.get(runId);
        if (owner !== undefined) problems.push({ file: owner, path: 'run_id', message: `[duplicate-run] run_id ${runId} is already in ${file.relativePath}`, fix: 'a run is submitted once; remove the copy' });
      }
    }
    if (booleanOption(options, 'json')) {
      process.stdout.write(`${JSON.stringify({ files: targets.length, comparisons: comparisons.files, problems }, null, 2)}\n`);
    } else {
      for (const problem of problems) process.stderr.write(`${formatProblemLine(problem)}\n`);
      const bad = new Set(problems.map((p) => p.file)).size;
      const also = comparisons.files > 0 ? ` and ${comparisons.files} comparison${comparisons.files === 1 ? '' : 's'}` : '';
      process.stderr.write(problems.length === 0 ? `${targets.length} result file${targets.length === 1 ? '' : 's'}${also} valid\n` : `${problems.length} problem${problems.length === 1 ? '' : 's'} in ${bad} file${bad === 1 ? '' : 's'} (${targets.length + comparisons.files} checked)\n`);
    }
    if (process.env.GITHUB_ACTIONS === 'true') {
      // Annotations name files from the checkout's root: results-folder paths get the folder in front;
      // files given from outside it are already named as given.
      const prefix = `${relative(process.cwd(), resultsDir).split(sep).join('/')}/`;
      const outside = new Set(targets.filter((t) => t.placed === false).map((t) => t.relativePath));
      for (const problem of problems) process.stdout.write(`${githubAnnotation(problem, outside.has(problem.file) ? '' : prefix)}\n`);
    }
    return problems.length > 0 ? EXIT.thresholdExceeded : EXIT.ok;
  },
};
