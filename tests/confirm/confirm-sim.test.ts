/**
 * regress → confirm → alert end to end on the real sim (a process on 127.0.0.1 per arm run), with the
 * SYNTHETIC planted regression of planted-regression.ts (every cost ×1.5 from 1.2.0 on; 1.1.0 and
 * 1.3.0 measured): regress reports it, confirm's paired A/B confirms it and the bisection names
 * 1.1.0 → 1.2.0, and alert's plan files one issue that says so. The same report confirmed against
 * releases that perform alike (the plant switched off: a change regress claimed that pairing does
 * not reproduce) is "not confirmed" and alert files nothing. Short A/Bs (2 pilot blocks, 3 blocks a
 * pass; the confirm pass always runs) keep it to a few minutes on two cores.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AbResult } from '../../harness/measure/ab/ab-result.ts';
import type { Bisection } from '../../harness/pipeline/bisect/bisection.ts';
import type { Confirmations } from '../../harness/pipeline/confirm/confirmations.ts';
import { CLI_PATH, runCli } from '../cli/run-cli.ts';
import { ALL_RELEASES, measurePlantedRegression, PLANTED_FACTOR, type Planted } from './planted-regression.ts';
import { expectPlantedEffect } from '../kit/planted-effect.ts';

const PLANTED_EFFECT = 1 / PLANTED_FACTOR - 1;
const SHORT_AB = ['--pilot-blocks', '2', '--blocks', '3'];
const read = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

interface AlertSummary {
  readonly regressions: number;
  readonly confirmed: number | null;
  readonly not_confirmed: ReadonlyArray<{ key: string; reason: string; verdict: string | null; interval: [number, number] | null }>;
  readonly actions: ReadonlyArray<{ action: string; key: string; body?: string; title?: string }>;
}

let planted: Planted;
let regressionKeys: string[];

beforeAll(async () => {
  planted = await measurePlantedRegression();
  regressionKeys = read<{ regressions: Array<{ key: string }> }>(planted.reportFile).regressions.map((r) => r.key);
}, 180_000);
afterAll(() => rmSync(planted.dir, { recursive: true, force: true }));

async function alertPlan(confirmations: string): Promise<AlertSummary> {
  const alert = await runCli(['alert', '--regressions', planted.reportFile, '--confirmations', confirmations, '--dry-run', '--offline', '--json'], 60_000, planted.env(false));
  expect(alert.code, alert.stderr).toBe(0);
  return JSON.parse(alert.stdout) as AlertSummary;
}

describe('servebench confirm on a planted regression of the sim', () => {
  it('confirms it by a paired A/B, bisects it to 1.1.0 → 1.2.0, and alert files one issue naming that range', { timeout: 600_000 }, async () => {
    const report = read<{ regressions: Array<{ metric: string; load: string; previous_version: string; version: string }> }>(planted.reportFile);
    expect(report.regressions.map((r) => r.metric)).toContain('output_throughput');
    for (const r of report.regressions) expect(r).toMatchObject({ load: 'c=2', previous_version: '1.1.0', version: '1.3.0' });

    const out = join(planted.dir, 'confirmed', 'confirmations.json');
    const run = await runCli(['confirm', '--regressions', planted.reportFile, '--results', planted.resultsDir, '--releases', ALL_RELEASES, ...SHORT_AB, '--out', out, '--markdown', join(planted.dir, 'summary.md')], 600_000, planted.env(true));
    expect(run.code, run.stderr).toBe(0);
    const file = read<Confirmations>(out);
    // One A/B for every regressed metric of the one load point (their runs are the same), one bisection.
    expect(file).toMatchObject({ kind: 'confirmations', status: 'completed', ab_runs: 1, bisections: 1 });
    expect(file.confirmations.map((c) => c.key).sort()).toEqual([...regressionKeys].sort());
    const byMetric = new Map(file.confirmations.map((c) => [c.metric, c]));
    const throughput = byMetric.get('output_throughput')!;
    expect(throughput).toMatchObject({ status: 'confirmed', reason: 'slower', paired: { ab_metric: 'output_throughput', derived: false, verdict: 'slower' } });
    expectPlantedEffect(throughput.paired!.effect!, PLANTED_EFFECT, 0.03);
    expect(throughput.paired!.interval![1]).toBeLessThan(-0.03);
    // Judged on the same runs: TPOT is 1.5× (+50%); request throughput moves exactly with output throughput (fixed lengths).
    expect(byMetric.get('tpot_ms_p50')).toMatchObject({ status: 'confirmed', paired: { derived: true, ab_metric: 'output_throughput', verdict: 'slower' } });
    expectPlantedEffect(byMetric.get('tpot_ms_p50')!.paired!.effect!, PLANTED_FACTOR - 1, 0.05);
    if (byMetric.has('request_throughput')) expect(byMetric.get('request_throughput')!.paired!.effect!).toBeCloseTo(throughput.paired!.effect!, 6);

    // The bisection: culprit 1.1.0 → 1.2.0, its end-to-end step the confirm A/B itself (not measured twice).
    expect(throughput.bisection).toMatchObject({ metric: 'output_throughput', outcome: 'culprit', direction: 'slower', culprit: { good: '1.1.0', bad: '1.2.0' }, comparisons: 3 });
    const bisection = read<Bisection>(join(dirname(out), throughput.bisection!.file));
    expect(bisection.releases.map((r) => r.version)).toEqual(['1.1.0', '1.2.0', '1.3.0']);
    expect(bisection.steps.map((s) => `${s.a}→${s.b} ${s.verdict}`).slice(0, 2)).toEqual(['1.1.0→1.3.0 slower', '1.1.0→1.2.0 slower']);
    expect(['no change', 'inconclusive']).toContain(bisection.steps[2]!.verdict);
    expect(join(dirname(out), throughput.paired!.file)).toBe(join(dirname(join(dirname(out), throughput.bisection!.file)), bisection.steps[0]!.ab_file));
    for (const step of bisection.steps) {
      const ab = read<AbResult>(join(dirname(join(dirname(out), throughput.bisection!.file)), step.ab_file));
      expect(ab).toMatchObject({ kind: 'ab', status: 'completed', a: { version: step.a, reported: [step.a] }, b: { version: step.b, reported: [step.b] }, confirm: true, verdict: step.verdict });
    }
    expect(readFileSync(join(planted.dir, 'summary.md'), 'utf8')).toMatch(/\| output\\_throughput \| −3\d\.\d% \| −3\d\.\d% \[.*\] \| \*\*confirmed\*\* \| culprit 1\.1\.0 → 1\.2\.0 on output\\_throughput, 3 comparisons/);

    const plan = await alertPlan(out);
    const confirmedCount = file.confirmations.filter((c) => c.status === 'confirmed').length;
    expect(plan).toMatchObject({ regressions: regressionKeys.length, confirmed: confirmedCount });
    expect(plan.not_confirmed).toHaveLength(regressionKeys.length - confirmedCount);
    expect(plan.actions.map((a) => a.action)).toEqual(['create']);
    const body = plan.actions[0]!.body!;
    expect(body).toMatch(/\*\*Confirmed by a paired A\/B on one host\*\*/);
    expect(body).toMatch(/- Output throughput at concurrency 2: \*\*slower\*\*, −3\d\.\d% \(95% interval −3\d\.\d% … −\d+\.\d%\)/);
    expect(body).toMatch(/\*\*Changed between 1\.1\.0 and 1\.2\.0\*\*: bisected on Output throughput in 3 paired comparisons\./);

    // The nightly files the evidence: the bisection with its three A/Bs (the confirm A/B its first step, filed once), and validate accepts the folder.
    const filedDir = join(planted.dir, 'filed-results');
    const filing = await runCli(['file-confirmations', out, '--results', filedDir, '--json'], 60_000, planted.env(true));
    expect(filing.code, filing.stdout).toBe(0);
    const filed = (JSON.parse(filing.stdout) as { filed: Array<{ path: string; already: boolean }> }).filed;
    expect(filed.map((f) => f.path.split('/').at(-1)!.replace(/-[0-9a-f]{12}\.json$/, ''))).toEqual([...Array(3).fill('ab-smoke-c-2'), 'bisect-smoke-output-throughput']);
    const valid = await runCli(['validate', '--results', filedDir, '--json'], 60_000, planted.env(true));
    expect(valid.code, valid.stderr).toBe(0);
    expect(JSON.parse(valid.stdout)).toMatchObject({ files: 0, comparisons: 4, problems: [] });
    const again = await runCli(['file-confirmations', out, '--results', filedDir, '--json'], 60_000, planted.env(true));
    expect((JSON.parse(again.stdout) as { filed: Array<{ already: boolean }> }).filed.every((f) => f.already)).toBe(true);
  });

  it('the same report against releases that perform alike (a change regress claimed that pairing does not reproduce): not confirmed, nothing filed', { timeout: 300_000 }, async () => {
    const out = join(planted.dir, 'noise', 'confirmations.json');
    const run = await runCli(['confirm', '--regressions', planted.reportFile, '--results', planted.resultsDir, '--pilot-blocks', '2', '--blocks', '2', '--out', out, '--json', '--no-progress'], 300_000, planted.env(false));
    expect(run.code, run.stderr).toBe(0);
    const file = JSON.parse(run.stdout) as Confirmations;
    expect(file).toMatchObject({ status: 'completed', ab_runs: 1, bisections: 0 });
    for (const c of file.confirmations) {
      expect(c.status).toBe('not confirmed');
      expect(['no change', 'inconclusive']).toContain(c.reason);
      expect(c.bisection).toBeNull();
    }
    const plan = await alertPlan(out);
    expect(plan.actions).toEqual([]);
    expect(plan.confirmed).toBe(0);
    expect(plan.not_confirmed.map((n) => n.key).sort()).toEqual([...regressionKeys].sort());
    expect(plan.not_confirmed.every((n) => n.interval !== null && ['no change', 'inconclusive'].includes(n.reason))).toBe(true);
    // What did not confirm is evidence too: its one A/B is filed.
    const filing = await runCli(['file-confirmations', out, '--results', join(planted.dir, 'filed-noise'), '--json'], 60_000, planted.env(false));
    expect(filing.code, filing.stderr).toBe(0);
    expect((JSON.parse(filing.stdout) as { filed: Array<{ path: string }> }).filed.map((f) => f.path.split('/').at(-1)!.replace(/-[0-9a-f]{12}\.json$/, ''))).toEqual(['ab-smoke-c-2']);
  });
});

describe('servebench confirm: bad input, a failed configuration, a stop signal', () => {
  it('bad input is refused before anything runs (exit 2), naming the option and the fix', async () => {
    const base = ['confirm', '--no-progress'];
    const cases: Array<[string[], RegExp]> = [
      [[], /--regressions FILE is required/],
      [['--regressions', join(planted.dir, 'none.json')], /--regressions: cannot read .*none\.json \(ENOENT\)/],
      [['--regressions', planted.reportFile, '--budget', 'soon'], /--budget: "soon" is not a positive duration/],
      [['--regressions', planted.reportFile, '--effect', '0.02'], /--effect 0\.02 is not larger than --margin 0\.03/],
      [['--regressions', planted.reportFile, '--no-confirm'], /no-confirm/],
      [['--regressions', planted.reportFile, '--out', planted.reportFile], /already exists; confirmations are never overwritten/],
    ];
    for (const [args, message] of cases) {
      const outcome = await runCli([...base, ...args], 60_000, planted.env(true));
      expect(outcome.code, args.join(' ')).toBe(2);
      expect(outcome.stderr).toMatch(message);
    }
  });

  it('a regression whose run file is not under --results: "failed" with the reason, exit 1, nothing launched; --hardware leaves out what this runner cannot replay', async () => {
    const out = join(planted.dir, 'missing', 'confirmations.json');
    const missing = await runCli(['confirm', '--regressions', planted.reportFile, '--results', join(planted.dir, 'elsewhere'), '--out', out, '--json'], 60_000, planted.env(true));
    expect(missing.code).toBe(1);
    const file = JSON.parse(missing.stdout) as Confirmations;
    expect(file.status).toBe('failed');
    for (const c of file.confirmations) {
      expect(c).toMatchObject({ status: 'not confirmed', reason: 'failed', paired: null });
      expect(c.detail).toMatch(/cannot read the run file .* \(ENOENT\); give --results the folder regress read/);
    }
    expect(missing.stderr).not.toMatch(/^confirm: .* vs /m);
    expect(existsSync(out.replace(/\.json$/, '.confirm'))).toBe(false);

    const gpuOnly = await runCli(['confirm', '--regressions', planted.reportFile, '--hardware', '1x-NVIDIA', '--out', join(planted.dir, 'gpu', 'c.json'), '--json'], 60_000, planted.env(true));
    expect(gpuOnly.code).toBe(0);
    expect(JSON.parse(gpuOnly.stdout)).toMatchObject({ status: 'completed', ab_runs: 0, confirmations: [] });
  });

  it('SIGINT: the server is stopped, what was measured written (interrupted), exit 130', { timeout: 120_000 }, async () => {
    const out = join(planted.dir, 'stopped', 'confirmations.json');
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_PATH, 'confirm', '--regressions', planted.reportFile, '--results', planted.resultsDir, ...SHORT_AB, '--out', out], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...planted.env(true) } });
    let stderr = '';
    // Once the first arm run has been measured, not after a fixed delay.
    await new Promise<void>((resolve) => child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/^confirm: 1\.1\.0 vs 1\.3\.0: pilot 1\/2 A1/m.test(stderr)) resolve();
    }));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(130);
    expect(stderr).toMatch(/SIGINT; stopping the confirmation and its server/);
    const file = read<Confirmations>(out);
    expect(file.status).toBe('interrupted');
    for (const c of file.confirmations) expect(c).toMatchObject({ status: 'not confirmed', reason: 'interrupted' });
  });
});
