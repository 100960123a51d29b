/**
 * `servebench accuracy`: flags → reachable server with the model → not dummy weights → the problems,
 * asked → the block (summary or JSON, and --out) → exit status.
 */
import { existsSync } from 'node:fs';
import { EXIT, usageError } from '../../lib/errors.ts';
import { parseCommandArgs, type Command } from '../../lib/cli/options.ts';
import { stopOnSignal } from '../../lib/process/stop-signals.ts';
import type { AccuracyScored } from '../../contract/accuracy.ts';
import { deliverResult } from '../load/deliver-result.ts';
import { preflight } from '../load/endpoint.ts';
import type { LiveCounters } from '../load/send-request.ts';
import { accuracySpec, normalizeAccuracyOptions } from './accuracy-options.ts';
import { runAccuracy, skippedForDummyWeights } from './run-accuracy.ts';

const PROGRESS_INTERVAL_MS = 200;

function formatSummary(block: AccuracyScored): string {
  const row = (filter: 'flexible' | 'strict', label: string): string => {
    const accuracy = block.accuracy[filter];
    const interval = block.interval[filter];
    const shown = accuracy === null || interval === null ? 'n/a (nothing answered)' : `${accuracy.toFixed(4)}  95% [${interval[0].toFixed(4)}, ${interval[1].toFixed(4)}]`;
    return `  ${label.padEnd(17)}${shown}  (${block.correct[filter]}/${block.answered})${block.headline === filter ? '  headline' : ''}`;
  };
  const failures = Object.entries(block.failures).map(([cls, n]) => `${n} ${cls}`).join(', ');
  return [
    `gsm8k (lm-eval's gsm8k setting), ${block.shots}-shot, ${block.api}, seed ${block.seed}: ${block.problems} problems, ${block.answered} answered, ${block.failed} failed${failures ? ` (${failures})` : ''}, ${block.duration_s.toFixed(1)} s`,
    row('flexible', 'flexible-extract'),
    row('strict', 'strict-match'),
    '',
  ].join('\n');
}

/** The failure message most records share, with its class: what to fix first. */
function commonestFailure(block: AccuracyScored): string {
  const counts = new Map<string, number>();
  for (const record of block.records) {
    if (record.failure === null) continue;
    const key = `${record.failure}: ${record.failure_message}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
}

/** A one-line count on stderr while the problems are asked (only on a terminal, so pipes stay clean). */
function startProgress(total: number, counters: LiveCounters): () => void {
  if (process.stderr.isTTY !== true) return () => {};
  const draw = (): void => void process.stderr.write(`\r\x1b[2Kgsm8k ${counters.requestsDone}/${total} asked, ${counters.requestsFailed} without an answer`);
  const timer = setInterval(draw, PROGRESS_INTERVAL_MS);
  return () => {
    clearInterval(timer);
    draw();
    process.stderr.write('\n');
  };
}

/** The embedded engine's dummy shape names come from the CLI: measure does not import the engines. */
export function createAccuracyCommand(embeddedShapes: readonly string[]): Command {
  return {
    spec: accuracySpec,
    async run(argv) {
      const config = normalizeAccuracyOptions(parseCommandArgs(accuracySpec, argv));
      if (config.out !== null && existsSync(config.out)) throw usageError(`--out: ${config.out} already exists; results are never overwritten`);
      // Before the preflight: a model known dummy is skipped whether or not its server is up.
      const block = await skippedForDummyWeights(config, { flag: config.modelWeights, embeddedShapes });
      if (block !== null) {
        if (config.json || config.out !== null) {
          const delivered = await deliverResult({ text: `${JSON.stringify(block, null, 2)}\n`, path: config.out, json: config.json, summary: () => '' });
          if (delivered.exitCode !== null) return delivered.exitCode;
        }
        process.stderr.write(`servebench: accuracy skipped: ${block.skipped}\n`);
        return EXIT.usage;
      }
      await preflight(config.endpoint, config.model, config.headers);
      const stop = stopOnSignal({
        stopping: 'keeping the problems answered so far',
        again: { hint: 'again to quit now', notice: 'quitting now', act: (code) => process.exit(code) },
      });
      const counters: LiveCounters = { contentEvents: 0, requestsDone: 0, requestsFailed: 0, retries: 0 };
      const endProgress = startProgress(config.problems, counters);
      try {
        const block = await runAccuracy(config, stop.signal, counters).finally(endProgress);
        const delivered = await deliverResult({ text: `${JSON.stringify(block, null, 2)}\n`, path: config.out, json: config.json, summary: () => formatSummary(block) });
        if (delivered.exitCode !== null) return delivered.exitCode;
        const interrupted = stop.exitCode();
        if (interrupted !== null) return interrupted;
        if (block.failed > 0) {
          process.stderr.write(`servebench: ${block.failed} of ${block.problems} requests failed (${Object.entries(block.failures).map(([cls, n]) => `${n} ${cls}`).join(', ')}); they are not scored. Most said: ${commonestFailure(block)}\n`);
          return EXIT.thresholdExceeded;
        }
        return EXIT.ok;
      } finally {
        stop.dispose();
      }
    },
  };
}
