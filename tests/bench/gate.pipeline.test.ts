/**
 * The self-benchmark gate end to end: `npm run bench` measures compile (real compiles of SYNTHETIC
 * result files, four repeats of 300 files) into a session, then again with a planted regression that makes
 * ingest take twice its time (bench/plant/slow-ingest.ts); `npm run bench:gate` must fail on that
 * session and name ingest. The sessions live in a temporary folder, never in bench/sessions/.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { GateReport } from '../../bench/gate/sessions.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'servebench-gate-sessions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tsx = (script: string, args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(REPO, script), ...args], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

describe('the self-benchmark gate', () => {
  it('fails on a planted 2× slower ingest, naming it, and passes the session before it', () => {
    const common = ['--only', 'compile', '--compile-sizes', '300', '--repeats', '4', '--sessions', dir];
    const baseline = tsx('bench/all.ts', [...common]);
    expect(baseline.status, baseline.stderr).toBe(0);
    const planted = tsx('bench/all.ts', [...common, '--plant', 'slow-ingest', '--no-gate']);
    expect(planted.status, planted.stderr).toBe(0);
    expect(readdirSync(dir)).toHaveLength(2);

    const verdict = tsx('bench/gate.ts', ['--sessions', dir, '--json']);
    expect(verdict.status, `${verdict.stderr}\n${verdict.stdout}`).toBe(1);
    const report = JSON.parse(verdict.stdout) as GateReport;
    const ingest = report.comparisons.find((c) => c.figure === 'compile@300 ingest_s')!;
    expect(ingest.verdict, JSON.stringify(ingest)).toBe('regressed');
    expect(ingest.candidate).toHaveLength(4);
    // Twice the time, give or take the noise of four runs a side.
    expect(ingest.ratio!).toBeGreaterThan(1.5);
    expect(ingest.ratio!).toBeLessThan(3);
    expect(report.regressions).toBeGreaterThanOrEqual(1);
    // 2 sessions × 4 runs × 6 compiles of 300 files: about three minutes on two quiet cores.
  }, 900_000);
});
