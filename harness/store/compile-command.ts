/** `servebench compile`: results/ → Parquet snapshots, manifest, dictionary and the site's data. */
import { resolve } from 'node:path';
import { booleanOption, parseCommandArgs, stringOption, type CommandSpec, type Command } from '../lib/cli/options.ts';
import { EXIT } from '../lib/errors.ts';
import { compile } from './compile.ts';
import { prepareOutFolder } from './out-folder.ts';
import { lockOutFolder } from './out-lock.ts';
import { loadPrices } from './prices.ts';
import { formatProblemLine } from './problem-output.ts';
import { OUT_OPTION, PRICES_OPTION, RESULTS_OPTION } from './store-options.ts';

const spec: CommandSpec = {
  name: 'compile',
  summary: 'compile results/ with DuckDB into Parquet snapshots, a manifest, a data dictionary and the site data',
  usage: 'servebench compile [--results DIR] [--out DIR] [--prices FILE] [--allow-invalid] [--json]',
  options: [
    RESULTS_OPTION,
    OUT_OPTION,
    PRICES_OPTION,
    { name: 'allow-invalid', help: 'Exit 0 even when some files were invalid (they are still reported and left out).' },
    { name: 'json', help: 'Print the compile report as JSON.' },
  ],
  epilog: 'Outputs: parquet/snapshots/<day>-<inputs hash>/ (immutable), parquet/latest/, MANIFEST.json, dictionary.json, DICTIONARY.md, site/.\nExit status: 0 compiled, 1 some result files were invalid (left out; see the lines printed), 2 bad usage, 75 busy: another compile is writing the same --out (try again when it has finished).',
};

export const compileCommand: Command = {
  spec,
  async run(argv) {
    const raw = parseCommandArgs(spec, argv);
    const prices = loadPrices(resolve(stringOption(spec, raw, 'prices')!));
    const started = performance.now();
    const outDir = resolve(stringOption(spec, raw, 'out')!);
    // The folder is claimed first (the lock file lives in it), then locked for the whole compile.
    prepareOutFolder(outDir);
    const lock = lockOutFolder(outDir, 'servebench compile');
    let report;
    try {
      report = await compile({ resultsDir: resolve(stringOption(spec, raw, 'results')!), outDir, prices });
    } finally {
      lock.release();
    }
    const seconds = (performance.now() - started) / 1000;
    for (const problem of report.problems) process.stderr.write(`${formatProblemLine(problem)}\n`);
    if (booleanOption(raw, 'json')) {
      process.stdout.write(`${JSON.stringify({ ...report, seconds, max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024), out: outDir, deltas: report.deltas.length }, null, 2)}\n`);
    } else {
      const { ingest } = report;
      process.stderr.write(
        [
          `${ingest.files} result files: ${ingest.parsed} read, ${ingest.files - ingest.parsed} unchanged, ${ingest.removed} dropped; ${ingest.valid} valid runs`,
          `tables: ${Object.entries(report.tables).map(([t, n]) => `${t} ${n}`).join(', ')}`,
          ...(report.llmd === null ? [] : [`llm-d benchmark reports: ${report.llmd.reports} from ${report.llmd.runs} official runs (${report.llmd.skipped_runs} without points skipped)`]),
          `snapshot ${report.snapshot}${report.snapshotWritten ? '' : ' (unchanged inputs: already written)'} → ${outDir} in ${seconds.toFixed(1)} s`,
          '',
        ].join('\n'),
      );
    }
    return report.problems.length > 0 && !booleanOption(raw, 'allow-invalid') ? EXIT.thresholdExceeded : EXIT.ok;
  },
};
