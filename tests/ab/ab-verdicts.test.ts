/**
 * `servebench ab` end to end on the real sim with a planted change (planted-sim.ts): across the
 * change it finds B slower by about the planted −33% (1/1.5 − 1; less where the client's own costs,
 * which the plant does not scale, weigh more), its interval holding the effect, confirmed;
 * between two releases after it, "no change". Every arm run is a fresh launch of its release,
 * recorded whole in the output.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.ts';
import { ONE_POINT, PLANTED_FACTOR, outFile, plantedSim, readAb } from './planted-sim.ts';
import { expectPlantedEffect } from '../kit/planted-effect.ts';

const PLANTED_EFFECT = 1 / PLANTED_FACTOR - 1;

describe('servebench ab on the sim with a planted change at 1.3.0', () => {
  it('1.2.0 against 1.3.0: slower by ≈ −33%, inside the interval, in both passes; each block ABBA-ordered and holding both full runs', { timeout: 240_000 }, async () => {
    const out = outFile();
    const outcome = await runCli(['ab', '--engine', plantedSim(), '--a', '1.2.0', '--b', '1.3.0', ...ONE_POINT, '--pilot-blocks', '2', '--blocks', '4', '--out', out], 240_000);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(/Verdict: slower \(both passes agree\)/);
    // One progress line per arm run: 2 pilot blocks and 2 passes of 4, two runs each.
    expect(outcome.stderr.match(/^ab: /gm)).toHaveLength(2 * (2 + 4 + 4));
    const ab = readAb(out);
    expect(ab).toMatchObject({ kind: 'ab', status: 'completed', engine: 'sim-planted', metric: 'output_throughput', better: 'higher', a: { version: '1.2.0', reported: ['1.2.0'] }, b: { version: '1.3.0', reported: ['1.3.0'] }, aa_check: false, confirm: true, blocks_per_pass: 4, blocks_from: 'option', verdict: 'slower', stopped: null });
    expect(ab.passes.map((pass) => [pass.name, pass.comparison?.verdict])).toEqual([['main', 'slower'], ['confirm', 'slower']]);
    expectPlantedEffect(ab.effect!, PLANTED_EFFECT, 0.015);
    // The interval holds the effect (so it reaches into the effect's range) and says slower throughout.
    expect(ab.interval![0]).toBeLessThan(ab.effect!);
    expect(ab.interval![1]).toBeGreaterThan(ab.effect!);
    expect(ab.interval![1]).toBeLessThan(0);
    for (const pass of ab.passes) {
      expect(pass.blocks.map((block) => block.order)).toEqual(['AB', 'BA', 'AB', 'BA']);
      for (const block of pass.blocks) {
        expect(block.a.run!.engine.version).toBe('1.2.0');
        expect(block.b.run!.engine.version).toBe('1.3.0');
        expect(block.a_value).toBe(block.a.points[0]!.metrics.output_throughput);
        expect(block.b_value).toBe(block.b.points[0]!.metrics.output_throughput);
        expect(block.log_ratio).toBeCloseTo(Math.log(block.b_value / block.a_value), 12);
        // Each arm is the run its flags name: reproducible as `servebench run … --engine-version V`.
        expect(block.b.harness.command).toEqual(expect.arrayContaining(['servebench', 'run', '--engine-version', '1.3.0', '--concurrency', '2']));
      }
      // ABBA: within a BA block B's run started first.
      const ba = pass.blocks[1]!;
      expect(Date.parse(ba.b.created_at)).toBeLessThan(Date.parse(ba.a.created_at));
    }
    // A fresh launch per arm run: every run its own run_id and server port.
    const runs = [...ab.aa.blocks, ...ab.passes.flatMap((pass) => pass.blocks)].flatMap((block) => [block.a, block.b]);
    expect(new Set(runs.map((run) => run.run_id)).size).toBe(20);
    expect(new Set(runs.map((run) => run.run!.parameters['port'])).size).toBe(20);
    expect(ab.aa.blocks.map((block) => [block.order, block.a.run!.engine.version, block.b.run!.engine.version])).toEqual([['AA', '1.2.0', '1.2.0'], ['AA', '1.2.0', '1.2.0']]);
    expect(ab.aa.ratios).toEqual(ab.aa.blocks.map((block) => block.log_ratio));
    expect(ab.host.cpus).toBeGreaterThan(0);
  });

  it('1.3.0 against 1.4.0, both past the change: no change, in both passes', { timeout: 240_000 }, async () => {
    const out = outFile();
    const outcome = await runCli(['ab', '--engine', plantedSim(), '--a', '1.3.0', '--b', '1.4.0', ...ONE_POINT, '--pilot-blocks', '2', '--blocks', '6', '--out', out, '--json', '--no-progress'], 240_000);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stderr).not.toMatch(/^ab: /m);
    const ab = readAb(out);
    expect(JSON.parse(outcome.stdout)).toEqual(ab);
    expect(ab.verdict).toBe('no change');
    expect(ab.passes.map((pass) => pass.comparison?.verdict)).toEqual(['no change', 'no change']);
    expect(Math.abs(ab.effect!)).toBeLessThan(ab.margin);
  });
});
