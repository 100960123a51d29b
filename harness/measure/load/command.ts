/** `servebench load`: flags → run → result file → summary table (or JSON) → exit status. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, usageError } from '../../lib/errors.ts';
import { parseCommandArgs } from '../../lib/cli/options.ts';
import { stopOnSignal } from '../../lib/process/stop-signals.ts';
import { redactArgv } from '../../contract/credentials.ts';
import { loadSpec, normalizeLoadOptions } from './load-options.ts';
import { createProgressReporter } from './progress.ts';
import { runLoad } from './run-load.ts';
import { formatSummaryTable } from './summary-table.ts';
import { deliverResult } from './deliver-result.ts';

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
      const delivered = await deliverResult({
        text: `${JSON.stringify(result, null, 2)}\n`,
        path: config.out === null ? null : outputPath(config.out, result.run_id),
        json: config.json,
        summary: () => formatSummaryTable(result.points),
      });
      if (delivered.exitCode !== null) return delivered.exitCode;
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
