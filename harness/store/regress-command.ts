/**
 * `servebench regress`: the regressions of each engine's newest release vs its previous one, as
 * Markdown (an issue body) and JSON, noise-aware, each with a stable key for alerting.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { booleanOption, numberOption, parseCommandArgs, stringOption, type CommandSpec, type Command } from '../lib/cli/options.ts';
import { DEFAULT_REGRESSION_THRESHOLD_PCT } from '../contract/metric-catalog.ts';
import { repositoryUrlFromEnv } from '../contract/repository-url.ts';
import { EXIT, usageError } from '../lib/errors.ts';
import { analyze, storePath } from './compile.ts';
import { diffAgainstBase } from './immutability.ts';
import { loadPrices } from './prices.ts';
import { OFFICIAL_RUN_SQL } from './official.ts';
import { filesOfDeltaRuns, findRegressions, regressionsMarkdown } from './regress.ts';
import { prepareOutFolder } from './out-folder.ts';
import { lockOutFolder } from './out-lock.ts';
import { openStore } from './store.ts';
import { OUT_OPTION, PRICES_OPTION, RESULTS_OPTION } from './store-options.ts';

const spec: CommandSpec = {
  name: 'regress',
  summary: "find regressions of each engine's newest release vs its previous release (noise-aware)",
  usage: 'servebench regress [--latest | --base GIT_REF] [--threshold PCT] [--results DIR] [--out DIR] [--json] [--markdown FILE]',
  options: [
    { name: 'latest', help: "Every engine's newest release on every configuration (the default)." },
    { name: 'base', value: 'GIT_REF', help: 'Only comparisons that involve runs added since this commit (what a nightly or a pull request brought).' },
    { name: 'threshold', value: 'PCT', help: 'Smallest change for the worse that counts, in percent (the regressions page uses the default).', default: String(DEFAULT_REGRESSION_THRESHOLD_PCT) },
    RESULTS_OPTION,
    OUT_OPTION,
    PRICES_OPTION,
    { name: 'repo-url', value: 'URL', help: 'Repository the run links point into (default: $SERVEBENCH_REPO_URL, else from GITHUB_SERVER_URL/GITHUB_REPOSITORY, else relative paths).' },
    { name: 'ref', value: 'REF', help: 'Branch or commit for the links.', default: 'main' },
    { name: 'markdown', value: 'FILE', help: 'Also write the Markdown report to FILE.' },
    { name: 'json', help: 'Print the regressions as JSON instead of Markdown.' },
  ],
  epilog: 'A change is a regression when it is worse by at least --threshold and significant: Welch t-test on log values when both releases were repeated, else the noise band pooled from the same engine\'s repeated runs on the same hardware at the same load (see docs/metrics.md). Across a methodology, workload or hardware change there is no comparison.\nExit status: 0 no regressions, 1 regressions found, 2 bad usage.',
};

export const regressCommand: Command = {
  spec,
  async run(argv) {
    const raw = parseCommandArgs(spec, argv);
    const base = stringOption(spec, raw, 'base');
    if (base !== undefined && booleanOption(raw, 'latest')) throw usageError('regress: give --latest or --base, not both');
    const threshold = numberOption(spec, raw, 'threshold', { min: 0 })!;
    const resultsDir = resolve(stringOption(spec, raw, 'results')!);
    const outDir = resolve(stringOption(spec, raw, 'out')!);
    prepareOutFolder(outDir);
    // The same store compile writes: one command at a time per --out (exit 75 "busy" otherwise).
    const lock = lockOutFolder(outDir, 'servebench regress');
    const store = await openStore(storePath(outDir)).catch((error: unknown) => {
      lock.release();
      throw error;
    });
    try {
      const { deltas } = await analyze(store, resultsDir, loadPrices(resolve(stringOption(spec, raw, 'prices')!)));
      let scoped = deltas;
      if (base !== undefined) {
        const added = new Set(diffAgainstBase(resultsDir, base).added);
        // Only official runs bring a comparison into scope: a community file never puts an official release in a report.
        const rows = (await store.connection.runAndReadAll(`SELECT DISTINCT p.config_id, p.engine, p.engine_version, r.file FROM (SELECT * FROM priced_points WHERE ${OFFICIAL_RUN_SQL}) p JOIN valid_runs r USING (run_id)`)).getRowsJS() as Array<[string, string, string, string]>;
        const touched = new Set(rows.filter(([, , , file]) => added.has(file)).map(([config, engine, version]) => `${config}|${engine}|${version}`));
        scoped = deltas.filter((d) => touched.has(`${d.config_id}|${d.engine}|${d.version}`));
      }
      const files = await filesOfDeltaRuns(store.connection, scoped);
      const regressions = findRegressions(scoped, threshold, files);
      const repo = stringOption(spec, raw, 'repo-url') ?? repositoryUrlFromEnv(process.env);
      const ref = stringOption(spec, raw, 'ref')!;
      const link = (file: string | null, runId: string) => (file === null ? `#${runId}` : repo ? `${repo}/blob/${ref}/results/${file}` : `results/${file}`);
      const markdown = regressionsMarkdown(regressions, link);
      const markdownFile = stringOption(spec, raw, 'markdown');
      if (markdownFile !== undefined) writeFileSync(markdownFile, markdown);
      if (booleanOption(raw, 'json')) {
        // Every comparison in scope, regressions or not: alert closes an issue only when it sees its
        // configuration measured again without the regression (a missing regression alone proves nothing).
        const withLinks = <T extends { previous_run_id: string; run_id: string }>(d: T) => {
          const previousFile = files.get(d.previous_run_id) ?? null;
          const file = files.get(d.run_id) ?? null;
          return { ...d, previous_file: previousFile, file, previous_url: link(previousFile, d.previous_run_id), url: link(file, d.run_id) };
        };
        process.stdout.write(`${JSON.stringify({ threshold_pct: threshold, compared: scoped.length, regressions: regressions.map(withLinks), comparisons: scoped.map(withLinks) }, null, 2)}\n`);
      }
      else process.stdout.write(markdown);
      return regressions.length > 0 ? EXIT.thresholdExceeded : EXIT.ok;
    } finally {
      store.close();
      lock.release();
    }
  },
};
