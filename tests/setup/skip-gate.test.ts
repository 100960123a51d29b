/**
 * The skip gate: under CI=true a skipped test fails the run unless tests/skips.ts gives the reason
 * it can never run on CI's machine. Judged directly (judgeSkips) and end to end: a real vitest run
 * of a synthetic project (tests/fixtures/skip-gate/) exits 1 for an unlisted skip under CI=true.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALLOWED_SKIPS } from '../skips.ts';
import { judgeSkips } from './skip-gate.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const FIXTURE = join(ROOT, 'tests/fixtures/skip-gate');
const ENTRY = { file: 'tests/a.test.ts', test: 'needs a GPU', reason: 'CI has none' };

describe('judgeSkips', () => {
  it('allows a listed skip (the whole describe block by its name), refuses an unlisted one', () => {
    const verdict = judgeSkips(
      [
        { file: 'tests/a.test.ts', name: 'needs a GPU > runs vLLM', skipped: true },
        { file: 'tests/a.test.ts', name: 'needs a GPUs list', skipped: true },
        { file: 'tests/a.test.ts', name: 'plain', skipped: false },
        { file: 'tests/b.test.ts', name: 'needs a GPU', skipped: true },
      ],
      [ENTRY],
    );
    expect(verdict.allowed).toEqual([{ test: 'tests/a.test.ts > needs a GPU > runs vLLM', reason: 'CI has none' }]);
    // A name that only starts like the entry, or the same name in another file, is not covered.
    expect(verdict.refused).toEqual(['tests/a.test.ts > needs a GPUs list', 'tests/b.test.ts > needs a GPU']);
    expect(verdict.staleEntries).toEqual([]);
  });

  it('an entry naming no test of a file that ran is stale (a renamed test keeps no pass); a file that did not run is not judged', () => {
    expect(judgeSkips([{ file: 'tests/a.test.ts', name: 'renamed', skipped: false }], [ENTRY]).staleEntries).toEqual([ENTRY]);
    expect(judgeSkips([{ file: 'tests/c.test.ts', name: 'x', skipped: false }], [ENTRY]).staleEntries).toEqual([]);
  });

  it('every entry of tests/skips.ts gives a reason and names a test file that exists', () => {
    for (const entry of ALLOWED_SKIPS) {
      expect(entry.reason.length, entry.test).toBeGreaterThan(40);
      expect(spawnSync('test', ['-f', join(ROOT, entry.file)]).status, entry.file).toBe(0);
    }
  });
});

function vitestRun(env: NodeJS.ProcessEnv): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', FIXTURE, '--config', join(FIXTURE, 'vitest.config.ts')], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('a vitest run with the gate (synthetic project)', () => {
  it('CI=true: an unlisted skip fails the run and is named; the listed one is printed with its reason', { timeout: 150_000 }, () => {
    const run = vitestRun({ CI: 'true', SKIP_GATE_FIXTURE_UNLISTED: '1' });
    expect(run.status, run.output).toBe(1);
    expect(run.output).toContain('1 test(s) skipped without a reason in tests/skips.ts');
    expect(run.output).toContain('gate.spec.ts > unlisted: skipped without one');
    expect(run.output).toContain('gate.spec.ts > listed > is skipped with a reason\n    why: needs a machine CI never is');
  });

  it('CI=true with only listed skips passes; without CI the gate stays out of the way', { timeout: 150_000 }, () => {
    const listedOnly = vitestRun({ CI: 'true', SKIP_GATE_FIXTURE_UNLISTED: '' });
    expect(listedOnly.status, listedOnly.output).toBe(0);
    const local = vitestRun({ CI: '', SKIP_GATE_FIXTURE_UNLISTED: '1' });
    expect(local.status, local.output).toBe(0);
    expect(local.output).not.toContain('tests/skips.ts');
  });
});
