/**
 * A SYNTHETIC regression of the simulated engine for confirm's tests, measured for real: the sim
 * (engines/sim.yaml, so that validate, compile and regress take its results) plays releases 1.1.0
 * and 1.3.0 with a planted change of speed from 1.2.0 on (every cost ×1.5, output throughput
 * ×1/1.5, −33%), given through $SERVEBENCH_SIM_PERFORMANCE_CHANGES as engines/sim.yaml has no flag
 * for it. Two official runs of each release go into a temp results folder, whose made-up versions a
 * synthetic release list makes "known" (so regress compares them); regress then reports the change.
 * The same environment makes every A/B of confirm launch the same planted sim; without the
 * variable, the two releases are alike (the "noise-only" change a report can still claim).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { runCli } from '../cli/run-cli.ts';

export const PLANTED_AT = '1.2.0';
export const PLANTED_FACTOR = 1.5;
/** The releases regress compares (the two measured), and every release from 1.0.0 on, for --releases. */
export const MEASURED = ['1.1.0', '1.3.0'] as const;
export const ALL_RELEASES = '1.0.0,1.1.0,1.2.0,1.3.0';
/** One load point of the smoke scenario, exact lengths from the word tokenizer. */
export const RUN_POINT = ['--model', 'sim-model', '--workload', 'smoke', '--concurrency', '2', '--tokenizer', 'tests/fixtures/tokenizer-words'];

export interface Planted {
  readonly dir: string;
  readonly resultsDir: string;
  /** regress --json's output over the runs. */
  readonly reportFile: string;
  /** The environment of every command: the synthetic release list, and (planted: true) the planted change. */
  readonly env: (planted: boolean) => NodeJS.ProcessEnv;
}

function releaseList(dir: string): string {
  const file = join(dir, 'synthetic-sim-releases.json');
  const releases = MEASURED.map((version) => ({ version, tag: null, published_at: null, release_url: null, source: 'SYNTHETIC test fixture (tests/confirm/planted-regression.ts)' }));
  writeFileSync(file, JSON.stringify({ schema_version: 1, description: 'SYNTHETIC: the sim releases of confirm\'s tests; never a real release', engines: { sim: { sources: ['SYNTHETIC'], releases } } }));
  return file;
}

export async function measurePlantedRegression(): Promise<Planted> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-confirm-'));
  const extra = [process.env['SERVEBENCH_EXTRA_RELEASES'], releaseList(dir)].filter(Boolean).join(delimiter);
  const env = (planted: boolean): NodeJS.ProcessEnv => ({ SERVEBENCH_EXTRA_RELEASES: extra, SERVEBENCH_SIM_PERFORMANCE_CHANGES: planted ? `${PLANTED_AT}:${PLANTED_FACTOR}` : '' });
  const resultsDir = join(dir, 'results');
  for (const version of MEASURED) {
    for (let repeat = 0; repeat < 2; repeat++) {
      const run = await runCli(['run', '--engine', 'sim', '--engine-version', version, ...RUN_POINT, '--source', 'official', '--results-dir', resultsDir, '--no-progress'], 60_000, env(true));
      if (run.code !== 0) throw new Error(`the planted run of ${version} failed (exit ${run.code}): ${run.stderr}`);
    }
  }
  const regress = await runCli(['regress', '--results', resultsDir, '--out', join(dir, 'store'), '--json'], 60_000, env(true));
  if (regress.code !== 1) throw new Error(`regress found no regression (exit ${regress.code}): ${regress.stderr}`);
  const reportFile = join(dir, 'regressions.json');
  writeFileSync(reportFile, regress.stdout);
  return { dir, resultsDir, reportFile, env };
}
