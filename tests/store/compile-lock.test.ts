/**
 * Two compiles of one output folder, for real: the second is told the folder is busy (exit 75,
 * who holds it, since when, and the fix), not "internal error"; the first finishes untouched. A
 * lock left by a compile that is gone (killed, or a pid now used by another process) is taken over.
 * Results: the SYNTHETIC fixture of tests/store/fixture-results.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../harness/lib/errors.ts';
import { LOCK_FILE } from '../../harness/store/out-lock.ts';
import { CLI_PATH, runCli } from '../cli/run-cli.ts';
import { writeFixture, writeFixturePrices } from './fixture-results.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function fixture(): { results: string; out: string; prices: string } {
  const root = mkdtempSync(join(tmpdir(), 'sb-lock-'));
  const results = join(root, 'results');
  mkdirSync(results);
  writeFixture(results);
  return { results, out: join(root, 'out'), prices: writeFixturePrices(root) };
}

describe('compile: one at a time per output folder', () => {
  it('a second compile while the first runs: exit 75 "busy" naming the folder, the pid, the start and the fix; the first completes', { timeout: 180_000 }, async () => {
    const { results, out, prices } = fixture();
    const args = ['compile', '--results', results, '--out', out, '--prices', prices];
    const first = spawn(process.execPath, ['--import', 'tsx', CLI_PATH, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let firstErr = '';
    first.stderr.on('data', (chunk: Buffer) => (firstErr += chunk.toString()));
    const firstExit = new Promise<number | null>((resolve) => first.once('exit', resolve));
    const lock = join(out, LOCK_FILE);
    try {
      const deadline = Date.now() + 60_000;
      while (!existsSync(lock) && first.exitCode === null && Date.now() < deadline) await sleep(10);
      expect(existsSync(lock), firstErr).toBe(true);
      // Held still mid-compile (SIGSTOP): the second compile meets the lock whatever the machine's speed.
      first.kill('SIGSTOP');
      const holder = JSON.parse(readFileSync(lock, 'utf8')) as { pid: number; started_at: string };
      expect(holder.pid).toBe(first.pid);
      const second = await runCli(args, 120_000);
      expect(second.code, second.stderr).toBe(EXIT.busy);
      expect(second.stderr).not.toMatch(/internal error/);
      expect(second.stderr.trim()).toBe(
        `servebench: --out ${out} is busy: another servebench compile (pid ${first.pid}, started ${holder.started_at}) is writing it; wait for it to finish and run this again, or give another --out. If no such process runs any more, remove ${lock}`,
      );
    } finally {
      first.kill('SIGCONT');
    }
    expect(await firstExit, firstErr).toBe(0);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(join(out, 'MANIFEST.json'))).toBe(true);
  });

  it('a lock left by a compile that is gone (its pid exited, or reused by another process) is stale: the next compile takes it over', { timeout: 180_000 }, async () => {
    const { results, out, prices } = fixture();
    expect((await runCli(['compile', '--results', results, '--out', out, '--prices', prices], 120_000)).code).toBe(0);
    const lock = join(out, LOCK_FILE);
    // A pid that has exited: a short-lived child's.
    const gone = spawnSync('true').pid!;
    const stale = [
      { pid: gone, start_ticks: null },
      // This test's own pid, alive, with another start time: the pid was reused.
      { pid: process.pid, start_ticks: '1' },
    ];
    for (const holder of stale) {
      writeFileSync(join(out, LOCK_FILE), JSON.stringify({ ...holder, host: hostname(), started_at: '2026-01-01T00:00:00.000Z', command: 'servebench compile' }));
      const outcome = await runCli(['compile', '--results', results, '--out', out, '--prices', prices], 120_000);
      expect(outcome.code, outcome.stderr).toBe(0);
      expect(existsSync(lock)).toBe(false);
    }
  });

  it('a lock held by a live process is not taken over, even when nothing else is running', { timeout: 120_000 }, async () => {
    const { results, out, prices } = fixture();
    mkdirSync(out);
    writeFileSync(join(out, '.servebench-compile'), 'marker\n');
    // This test process, as itself: alive, same start time.
    const ticks = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
    const start = ticks.slice(ticks.lastIndexOf(')') + 2).split(' ')[19]!;
    writeFileSync(join(out, LOCK_FILE), JSON.stringify({ pid: process.pid, start_ticks: start, host: hostname(), started_at: '2026-01-01T00:00:00.000Z', command: 'servebench compile' }));
    const outcome = await runCli(['compile', '--results', results, '--out', out, '--prices', prices], 120_000);
    expect(outcome.code, outcome.stderr).toBe(EXIT.busy);
    expect(outcome.stderr).toContain(`another servebench compile (pid ${process.pid}, started 2026-01-01T00:00:00.000Z)`);
    expect(existsSync(join(out, LOCK_FILE))).toBe(true);
  });

  it('regress and summarize read and write the same store: they take the same lock', { timeout: 120_000 }, async () => {
    const { results, out, prices } = fixture();
    expect((await runCli(['compile', '--results', results, '--out', out, '--prices', prices], 120_000)).code).toBe(0);
    const ticks = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
    const start = ticks.slice(ticks.lastIndexOf(')') + 2).split(' ')[19]!;
    writeFileSync(join(out, LOCK_FILE), JSON.stringify({ pid: process.pid, start_ticks: start, host: hostname(), started_at: '2026-01-01T00:00:00.000Z', command: 'servebench compile' }));
    for (const args of [['regress', '--results', results, '--out', out, '--prices', prices], ['summarize', '--base', 'HEAD', '--results', results, '--out', out, '--prices', prices]]) {
      const outcome = await runCli(args, 120_000);
      expect(outcome.code, `${args[0]}: ${outcome.stderr}`).toBe(EXIT.busy);
      expect(outcome.stderr).toContain(`is busy: another servebench compile (pid ${process.pid}`);
    }
    expect(existsSync(join(out, LOCK_FILE))).toBe(true);
  });
});
