/** `servebench load`: flags → run → result file → summary table (or JSON) → exit status. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, usageError } from '../../lib/errors.ts';
import { parseCommandArgs } from '../../lib/cli/options.ts';
import { writeNewFileAtomic } from '../../lib/io/atomic-write.ts';
import { stopOnSignal } from '../../lib/process/stop-signals.ts';
import { redactArgv } from '../../contract/credentials.ts';
import { loadSpec, normalizeLoadOptions } from './load-options.ts';
import { createProgressReporter } from './progress.ts';
import { runLoad } from './run-load.ts';
import { formatSummaryTable } from './summary-table.ts';

function outputPath(out: string, runId: string): string {
  return out.endsWith('/') ? join(out, `${runId}.json`) : out;
}

export const loadCommand = {
  spec: loadSpec,
  async run(argv: readonly string[]): Promise<number> {
    const config = normalizeLoadOptions(parseCommandArgs(loadSpec, argv));
    // Fail before measuring, not after: results are never overwritten.
    if (config.out !== null && !config.out.endsWith('/') && existsSync(config.out)) {
      throw usageError(`--out: ${config.out} already exists; results are never overwritten`);
    }
    // There is no engine to tear down here: a second signal gives up the result and quits.
    const stop = stopOnSignal({
      stopping: 'keeping the points completed so far',
      again: { hint: 'again to quit now', notice: 'quitting now', act: (code) => process.exit(code) },
    });
    const progress = createProgressReporter(process.stderr, config.loads.length, {
      count: config.numPrompts,
      durationS: config.durationS,
      warmup: config.workload.requests.warmup,
    });
    try {
      const { result } = await runLoad(config, {
        signal: stop.signal,
        argv: ['servebench', 'load', ...redactArgv(argv)],
        onProgress: config.progress ? (i, state) => progress.update(i, config.loads[i]!, state) : undefined,
        onPointDone: () => progress.finishPoint(),
      });
      const json = `${JSON.stringify(result, null, 2)}\n`;
      let writeError: string | null = null;
      if (config.out !== null) {
        const path = outputPath(config.out, result.run_id);
        try {
          await writeNewFileAtomic(path, json);
          if (!config.json) process.stderr.write(`servebench: wrote ${path}\n`);
        } catch (error) {
          writeError = `cannot write ${path}: ${(error as Error).message}`;
        }
      }
      // A measured result is never lost: if it could not be saved, it goes to stdout.
      process.stdout.write(config.json || writeError !== null ? json : formatSummaryTable(result.points));
      if (writeError !== null) {
        process.stderr.write(`servebench: ${writeError}; the result was printed to stdout instead\n`);
        return EXIT.outputFailed;
      }
      if (result.outcome.interrupted) return stop.exitCode() ?? EXIT.interrupted;
      if (result.outcome.exceeded_max_failure_rate) {
        process.stderr.write(
          `servebench: ${(result.outcome.failure_rate * 100).toFixed(1)}% of requests failed, above --max-failure-rate ${(config.maxFailureRate * 100).toFixed(1)}%\n`,
        );
        return EXIT.thresholdExceeded;
      }
      return EXIT.ok;
    } finally {
      stop.dispose();
    }
  },
};
