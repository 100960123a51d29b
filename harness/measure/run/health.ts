/**
 * Waiting for a launched server to become healthy, bounded: its health endpoint answers with the
 * expected status, or the run fails because the time ran out, the server exited, or its log
 * showed a fatal line — whichever comes first, with the reason.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { requestBounded, type ReadLimits } from '../../lib/io/bounded-body.ts';
import type { LaunchedServer } from './launched-server.ts';

export class HealthError extends Error {}

const POLL_MS = 250;

/** An engine's log can reach gigabytes (a debug log, a loop of warnings): its tail is only this much. */
const LOG_TAIL_BYTES = 256 * 1024;

function readTail(file: string, bytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const size = statSync(file).size;
    const chunk = Buffer.alloc(Math.min(size, bytes));
    readSync(fd, chunk, 0, chunk.length, size - chunk.length);
    return chunk.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export function logTail(file: string | null, lines = 40): string[] {
  if (file === null || !existsSync(file)) return [];
  return readTail(file, LOG_TAIL_BYTES).split('\n').filter((line) => line !== '').slice(-lines);
}

/** The first fatal line anywhere in the log, read in bounded chunks (the log may be gigabytes). */
export function fatalLine(file: string | null, patterns: readonly RegExp[]): string | null {
  const found = fatalLineWatcher(file, patterns)();
  if (found !== null || file === null || patterns.length === 0 || !existsSync(file)) return found;
  // The last line may have no line end yet (a process that died mid-write).
  const last = readTail(file, LOG_TAIL_BYTES).split('\n').pop() ?? '';
  return patterns.some((p) => p.test(last)) ? last : null;
}

/** Read at a time: every line is scanned, but memory stays bounded however much the log grew. */
const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * Watches a growing log for fatal lines, reading only what was appended since the last look
 * (engine logs reach megabytes while they load; the health wait polls four times a second).
 */
export function fatalLineWatcher(file: string | null, patterns: readonly RegExp[]): () => string | null {
  let offset = 0;
  let partial = '';
  const decoder = new StringDecoder('utf8');
  return () => {
    if (file === null || patterns.length === 0 || !existsSync(file)) return null;
    const size = statSync(file).size;
    if (size <= offset) return null;
    const fd = openSync(file, 'r');
    const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, size - offset));
    try {
      while (offset < size) {
        const n = readSync(fd, chunk, 0, Math.min(chunk.length, size - offset), offset);
        if (n <= 0) break;
        offset += n;
        const lines = (partial + decoder.write(chunk.subarray(0, n))).split('\n');
        // A line that never ends (a progress bar redrawn with \r) is kept only as far as a line can matter.
        partial = lines.pop()!.slice(-LOG_TAIL_BYTES);
        const fatal = lines.find((line) => patterns.some((p) => p.test(line)));
        if (fatal !== undefined) return fatal;
      }
    } finally {
      closeSync(fd);
    }
    return null;
  };
}

/**
 * Only the status counts, so the body is read just far enough to keep the connection for the next
 * poll (64 KiB, then cut). 2 s for the whole answer: a server that cannot say it is healthy in 2 s
 * is asked again on the next poll, not waited for.
 */
export const HEALTH_LIMITS: ReadLimits = { maxBytes: 64 * 1024, timeoutMs: 2000 };

async function probeOnce(url: string, expected: number): Promise<boolean> {
  try {
    const response = await requestBounded(url, { overflow: 'truncate' }, HEALTH_LIMITS);
    return response.status === expected;
  } catch {
    return false;
  }
}

export async function waitHealthy(
  server: LaunchedServer,
  health: { path: string; status: number; timeout_s: number },
  fatalPatterns: readonly RegExp[],
  signal: AbortSignal,
): Promise<number> {
  const started = performance.now();
  const deadline = started + health.timeout_s * 1000;
  const nextFatal = fatalLineWatcher(server.logFile, fatalPatterns);
  for (;;) {
    if (signal.aborted) throw new HealthError('interrupted while waiting for the server');
    const exit = server.exitStatus();
    if (exit) throw new HealthError(`the server exited during startup (${exit.signal ?? `code ${exit.code}`})`);
    const fatal = nextFatal();
    if (fatal) throw new HealthError(`the server log shows a fatal error: ${fatal.slice(0, 300)}`);
    if (await probeOnce(`${server.endpoint}${health.path}`, health.status)) return (performance.now() - started) / 1000;
    if (performance.now() > deadline) throw new HealthError(`not healthy after ${health.timeout_s} s (GET ${health.path} never answered ${health.status})`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
