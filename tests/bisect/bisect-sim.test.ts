/**
 * `servebench bisect` end to end on the real sim (a process on 127.0.0.1 per arm run) with a
 * SYNTHETIC planted change (tests/ab/planted-sim.ts: every cost ×1.5 from 1.3.0 on), releases
 * 1.0.0…1.6.0: each comparison is ab's real procedure. Short A/Bs (2 pilot blocks, 3 blocks, no
 * confirm pass: the confirm is ab's and tested in tests/ab/) keep the bisection near two minutes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AbResult } from '../../harness/measure/ab/ab-result.ts';
import type { Bisection } from '../../harness/pipeline/bisect/bisection.ts';
import { CLI_PATH, runCli } from '../cli/run-cli.ts';
import { ONE_POINT, PLANTED_FACTOR, plantedSim } from '../ab/planted-sim.ts';
import { expectPlantedEffect } from '../kit/planted-effect.ts';

const PLANTED_EFFECT = 1 / PLANTED_FACTOR - 1;
const SHORT_AB = ['--pilot-blocks', '2', '--blocks', '3', '--no-confirm'];
const BETWEEN = ['--releases', '1.1.0,1.2.0,1.3.0,1.4.0,1.5.0'];

function outFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'sb-bisect-out-')), 'bisect.json');
}

const read = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

describe('servebench bisect on the sim with a planted change at 1.3.0', () => {
  it('1.0.0 → 1.6.0: culprit 1.2.0 → 1.3.0, slower by ≈ −33%, in 7 comparisons, each one\'s A/B with every run beside the bisection', { timeout: 300_000 }, async () => {
    const out = outFile();
    const outcome = await runCli(['bisect', '--engine', plantedSim(), '--good', '1.0.0', '--bad', '1.6.0', ...BETWEEN, ...ONE_POINT, ...SHORT_AB, '--out', out], 300_000);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(/Outcome: culprit: the change happened between two adjacent releases 1\.2\.0 → 1\.3\.0: slower −3\d\.\d%/);
    const bisection = read<Bisection>(out);
    expect(bisection).toMatchObject({ kind: 'bisection', engine: 'sim-planted', metric: 'output_throughput', better: 'higher', good: '1.0.0', bad: '1.6.0', outcome: 'culprit', direction: 'slower', comparisons: 7, spread: [], builds: { built: [], cached: [] } });
    expect(bisection.releases.map((r) => r.version)).toEqual(['1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0', '1.6.0']);
    expect(bisection.culprit).toEqual({ good: '1.2.0', bad: '1.3.0', llamacpp_tags: null, links: { good: { upstream: null, package: null }, bad: { upstream: null, package: null }, compare: null } });
    // The midpoint against both ends at each step: 1.3.0, then 1.1.0, then 1.2.0.
    expect(bisection.steps.map((s) => `${s.a}→${s.b}`)).toEqual(['1.0.0→1.6.0', '1.0.0→1.3.0', '1.3.0→1.6.0', '1.0.0→1.1.0', '1.1.0→1.3.0', '1.1.0→1.2.0', '1.2.0→1.3.0']);
    for (const step of bisection.steps) {
      const crosses = step.a < '1.3.0' && step.b >= '1.3.0';
      if (crosses) {
        expect(step.verdict).toBe('slower');
        expectPlantedEffect(step.effect!, PLANTED_EFFECT, 0.02);
      } else {
        // Either side of the change alike: never a verdict of a change (with 3 blocks the interval may still be wider than ±3%).
        expect(['no change', 'inconclusive']).toContain(step.verdict);
      }
      const ab = read<AbResult>(join(dirname(out), step.ab_file));
      expect(ab).toMatchObject({ kind: 'ab', status: 'completed', a: { version: step.a, reported: [step.a] }, b: { version: step.b, reported: [step.b] }, verdict: step.verdict, effect: step.effect });
      // Every arm run kept whole: 2 pilot blocks and 3 main blocks, two runs each.
      expect([...ab.aa.blocks, ...ab.passes.flatMap((pass) => pass.blocks)].flatMap((block) => [block.a, block.b]).every((run) => run.points.length === 1)).toBe(true);
      expect(ab.passes.map((pass) => pass.blocks.length)).toEqual([3]);
      expect(ab.command).toEqual(expect.arrayContaining(['servebench', 'ab', '--a', step.a, '--b', step.b, '--blocks', '3']));
    }
    expect(bisection.wall_s).toBeGreaterThan(0);
    expect(bisection.wall_s).toBeGreaterThanOrEqual(bisection.steps.reduce((sum, s) => sum + s.wall_s, 0) - 1);
  });

  it('between two releases after the change: "not reproducible", exit 0, after the one end-to-end A/B', { timeout: 120_000 }, async () => {
    const out = outFile();
    const outcome = await runCli(['bisect', '--engine', plantedSim(), '--good', '1.3.0', '--bad', '1.6.0', '--releases', '1.4.0,1.5.0', ...ONE_POINT, ...SHORT_AB, '--out', out, '--json', '--no-progress'], 120_000);
    expect(outcome.code, outcome.stderr).toBe(0);
    const bisection = JSON.parse(outcome.stdout) as Bisection;
    expect(bisection).toMatchObject({ outcome: 'not reproducible', direction: null, culprit: null, range: { good: '1.3.0', bad: '1.6.0' }, comparisons: 1 });
    expect(['no change', 'inconclusive']).toContain(bisection.steps[0]!.verdict);
    expect(read<Bisection>(out)).toEqual(bisection);
    expect(outcome.stderr).not.toMatch(/^bisect: /m);
  });

  it('bad input: exit 2 before anything runs, naming the option and the fix', async () => {
    const engine = plantedSim();
    const base = ['bisect', '--engine', engine, ...ONE_POINT, '--no-progress'];
    const cases: Array<[string[], RegExp]> = [
      [['--good', '1.0.0', '--bad', '1.6.0'], /--releases is required for engine sim-planted/],
      [['--bad', '1.6.0', ...BETWEEN], /--good is required/],
      [['--good', '1.6.0', '--bad', '1.0.0', ...BETWEEN], /--good 1\.6\.0 is not older than --bad 1\.0\.0/],
      [['--good', '1.0.0', '--bad', '1.0.0', ...BETWEEN], /--good and --bad are both 1\.0\.0/],
      [['--good', '1.0.0', '--bad', '1.6.0', ...BETWEEN, '--metric', 'joules'], /--metric: "joules" is not a metric ab compares/],
      [['--good', '1.0.0', '--bad', '1.6.0', ...BETWEEN, '--budget', 'soon'], /--budget/],
    ];
    for (const [args, message] of cases) {
      const outcome = await runCli([...base, ...args]);
      expect(outcome.code, args.join(' ')).toBe(2);
      expect(outcome.stderr).toMatch(message);
    }
    const taken = outFile();
    writeFileSync(taken, '{}');
    const outcome = await runCli([...base, '--good', '1.0.0', '--bad', '1.6.0', ...BETWEEN, '--out', taken]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/already exists; a bisection's output is never overwritten/);
    expect(existsSync(taken.replace(/\.json$/, '.ab'))).toBe(false);
  }, 120_000);
});

describe('servebench bisect: a comparison that fails, and a stop signal', () => {
  it('a comparison\'s arm run fails: outcome "failed", exit 1, the output and that comparison\'s A/B written', { timeout: 120_000 }, async () => {
    const out = outFile();
    // The planted sim refuses a release it cannot order ("v9"): every launch of it fails.
    const outcome = await runCli(['bisect', '--engine', plantedSim(), '--good', '1.0.0', '--bad', 'v9', '--releases', '1.1.0', ...ONE_POINT, ...SHORT_AB, '--out', out, '--no-progress'], 120_000);
    expect(outcome.code, outcome.stderr).toBe(1);
    const bisection = read<Bisection>(out);
    expect(bisection).toMatchObject({ outcome: 'failed', culprit: null, comparisons: 1, steps: [{ a: '1.0.0', b: 'v9', status: 'failed', verdict: null }] });
    expect(bisection.steps[0]!.stopped).toMatch(/^failed at main block 1, arm B: the run failed/);
    expect(read<AbResult>(join(dirname(out), bisection.steps[0]!.ab_file)).status).toBe('failed');
  });

  it('SIGINT: the bisection so far is written (interrupted) with the interrupted A/B beside it, exit 130', { timeout: 60_000 }, async () => {
    const out = outFile();
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_PATH, 'bisect', '--engine', plantedSim(), '--good', '1.0.0', '--bad', '1.6.0', ...BETWEEN, ...ONE_POINT, ...SHORT_AB, '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    // Once the first arm run has been measured, not after a fixed delay.
    await new Promise<void>((resolve) => child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/^bisect: 1\.0\.0 vs 1\.6\.0: pilot 1\/2 A1/m.test(stderr)) resolve();
    }));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(130);
    expect(stderr).toMatch(/SIGINT; stopping the bisection and its server/);
    const bisection = read<Bisection>(out);
    expect(bisection).toMatchObject({ outcome: 'interrupted', culprit: null, comparisons: 1, steps: [{ status: 'interrupted', verdict: null }] });
    // ab's own signal test checks that the interrupted arm's server is gone.
    expect(read<AbResult>(join(dirname(out), bisection.steps[0]!.ab_file))).toMatchObject({ status: 'interrupted', stopped: { message: 'interrupted' } });
  });
});
