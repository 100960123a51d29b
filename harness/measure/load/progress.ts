/**
 * A progress bar on stderr while a sweep runs (only when stderr is a terminal, so logs and pipes
 * stay clean). Redraws at most ten times a second from the live counters.
 */
import type { Load } from '../../contract/result.ts';
import { describeLoad } from './describe-load.ts';
import type { PointProgress } from './run-point.ts';

const BAR_WIDTH = 24;

export interface ProgressReporter {
  update(pointIndex: number, load: Load, progress: PointProgress): void;
  finishPoint(): void;
}

export function createProgressReporter(
  stream: NodeJS.WriteStream,
  totalPoints: number,
  requestTarget: { count: number | null; durationS: number | null; warmup: number },
): ProgressReporter {
  const enabled = stream.isTTY === true;
  let drawn = false;
  return {
    update(pointIndex, load, progress) {
      if (!enabled) return;
      const elapsedS = (performance.now() - progress.startedMs) / 1000;
      const { requestsDone, requestsFailed, contentEvents } = progress.counters;
      let fraction: number;
      let amount: string;
      if (progress.phase === 'warmup') {
        fraction = requestTarget.warmup > 0 ? requestsDone / requestTarget.warmup : 1;
        amount = `warmup ${requestsDone}/${requestTarget.warmup}`;
      } else if (requestTarget.count !== null && (requestTarget.durationS === null || requestsDone / requestTarget.count > elapsedS / requestTarget.durationS)) {
        fraction = requestsDone / requestTarget.count;
        amount = `${requestsDone}/${requestTarget.count} req`;
      } else {
        fraction = requestTarget.durationS ? elapsedS / requestTarget.durationS : 0;
        amount = `${requestsDone} req`;
      }
      const filled = Math.max(0, Math.min(BAR_WIDTH, Math.round(fraction * BAR_WIDTH)));
      const bar = '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled);
      const rate = elapsedS > 0 ? Math.round(contentEvents / elapsedS) : 0;
      const line = `[${pointIndex + 1}/${totalPoints}] ${describeLoad(load)} ${bar} ${amount}  failed ${requestsFailed}  ${rate} ev/s  ${elapsedS.toFixed(1)}s`;
      stream.write(`\r\x1b[2K${line}`);
      drawn = true;
    },
    finishPoint() {
      if (enabled && drawn) stream.write('\n');
      drawn = false;
    },
  };
}
