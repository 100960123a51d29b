/**
 * `servebench summarize`: what a pull request adds to results/ (each added run, the validation
 * verdict, how each run compares with the releases on its configurations) as Markdown for the
 * pull-request comment, or JSON. Exit 1 when the pull request cannot go in as it is.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { booleanOption, parseCommandArgs, stringOption, processIo, type CommandIo, type CommandSpec, type Command } from '../../lib/cli/options.ts';
import { EXIT, usageError } from '../../lib/errors.ts';
import { storePath } from '../../store/compile.ts';
import { prepareOutFolder } from '../../store/out-folder.ts';
import { loadPrices } from '../../store/prices.ts';
import { lockOutFolder } from '../../store/out-lock.ts';
import { openStore } from '../../store/store.ts';
import { OUT_OPTION, PRICES_OPTION, RESULTS_OPTION } from '../../store/store-options.ts';
import { SOURCES, summarizeSubmission, type Source } from './pr-summary.ts';
import { MAX_MARKDOWN_CHARS, summaryMarkdown } from './markdown.ts';

const spec: CommandSpec = {
  name: 'summarize',
  summary: 'what a pull request adds to results/: the added runs, the validation verdict, and how each compares with the releases on its configurations',
  usage: 'servebench summarize --base GIT_REF [--results DIR] [--expect-source community|official] [--markdown FILE] [--json] [--out DIR] [--prices FILE]',
  options: [
    { name: 'base', value: 'GIT_REF', help: 'The commit the pull request goes onto (e.g. origin/main): the result files added since it are summarized, and an existing one modified, deleted or renamed is a problem.' },
    RESULTS_OPTION,
    { name: 'expect-source', value: 'KIND', help: `Every added run must have this source (${SOURCES.join(' or ')}): a contributor's pull request adds community results, the nightly's official ones.` },
    OUT_OPTION,
    PRICES_OPTION,
    { name: 'markdown', value: 'FILE', help: 'Also write the Markdown to FILE.' },
    { name: 'json', help: 'Print the summary as JSON instead of Markdown.' },
  ],
  epilog: [
    'The comparison is read from the compiled store (as `servebench regress` reads it): per load point, the same engine\'s previous release and the newest official release of every engine on the same configuration, as the release values (geometric means over runs) the leaderboard shows.',
    `Everything quoted from the pull request is escaped for Markdown, with @-mentions and #-references defused; the Markdown stays under ${MAX_MARKDOWN_CHARS} characters (a GitHub comment's limit is 65,536).`,
    'Exit status: 0 nothing wrong; 1 problems (invalid or changed files, a source other than --expect-source): the summary lists them; 2 bad usage.',
  ].join('\n'),
};

export type SummarizeIo = Pick<CommandIo, 'stdout' | 'stderr'>;

export async function runSummarize(argv: readonly string[], io: SummarizeIo): Promise<number> {
  const raw = parseCommandArgs(spec, argv);
  const base = stringOption(spec, raw, 'base');
  if (base === undefined) throw usageError('summarize: --base GIT_REF is required (the commit the pull request goes onto, e.g. origin/main)');
  const expect = stringOption(spec, raw, 'expect-source');
  if (expect !== undefined && !(SOURCES as readonly string[]).includes(expect)) throw usageError(`--expect-source: "${expect}" is not one of ${SOURCES.join(', ')}`);
  const prices = loadPrices(resolve(stringOption(spec, raw, 'prices')!));
  const outDir = resolve(stringOption(spec, raw, 'out')!);
  prepareOutFolder(outDir);
  // The same store compile writes: one command at a time per --out (exit 75 "busy" otherwise).
  const lock = lockOutFolder(outDir, 'servebench summarize');
  const store = await openStore(storePath(outDir)).catch((error: unknown) => {
    lock.release();
    throw error;
  });
  try {
    const summary = await summarizeSubmission({
      store,
      resultsDir: resolve(stringOption(spec, raw, 'results')!),
      base,
      prices,
      expectSource: (expect as Source | undefined) ?? null,
    });
    const markdown = summaryMarkdown(summary);
    const markdownFile = stringOption(spec, raw, 'markdown');
    if (markdownFile !== undefined) writeFileSync(markdownFile, markdown);
    io.stdout(booleanOption(raw, 'json') ? `${JSON.stringify(summary, null, 2)}\n` : markdown);
    const bad = new Set(summary.problems.map((p) => p.file)).size;
    io.stderr(`summarize: ${summary.added.length} result file${summary.added.length === 1 ? '' : 's'} added against ${base}; ${summary.problems.length === 0 ? 'no problems' : `${summary.problems.length} problem${summary.problems.length === 1 ? '' : 's'} in ${bad} file${bad === 1 ? '' : 's'}`}\n`);
    return summary.problems.length > 0 ? EXIT.thresholdExceeded : EXIT.ok;
  } finally {
    store.close();
    lock.release();
  }
}

export const summarizeCommand: Command = {
  spec,
  run: (argv, io = processIo()) => runSummarize(argv, io),
};
