/**
 * A/A on the real sim with launch noise σ = 0.05 (each launch runs at exp(0.05·z), z its own):
 * the procedure never calls a release faster or slower than itself in these trials, and the
 * per-block log ratios show the noise of two fresh launches, SD 0.05·√2 ≈ 0.071, not the ≈ 0.01 of
 * one server measured twice. The false-alarm rate over many trials is measured by
 * scripts/ab-false-alarms.ts (docs/metrics.md).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.ts';
import { ONE_POINT, outFile, plantedSim, readAb } from './planted-sim.ts';

const RUN_NOISE = 0.05;
const TRIALS = 2;

function sampleSd(values: readonly number[]): number {
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  return Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1));
}

describe('servebench ab --allow-aa on the sim with launch noise', () => {
  it(`${TRIALS} A/A trials: never faster or slower; the blocks carry two launches' noise`, { timeout: 300_000 }, async () => {
    const engine = plantedSim(RUN_NOISE);
    const ratios: number[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const out = outFile();
      const outcome = await runCli(['ab', '--engine', engine, '--a', '1.2.0', '--b', '1.2.0', '--allow-aa', ...ONE_POINT, '--pilot-blocks', '2', '--blocks', '4', '--out', out, '--no-progress'], 150_000);
      expect(outcome.code, outcome.stderr).toBe(0);
      expect(outcome.stdout).toMatch(/A 1\.2\.0 against B 1\.2\.0 \(A\/A check\)/);
      const ab = readAb(out);
      expect(ab.aa_check).toBe(true);
      expect(['no change', 'inconclusive']).toContain(ab.verdict);
      ratios.push(...ab.aa.ratios, ...ab.passes.flatMap((pass) => pass.blocks.map((block) => block.log_ratio)));
    }
    // 20 ratios, 19 degrees of freedom: s/σ is above 0.53 99.9% of the time (χ²). The noise scales
    // the sim's costs only, not what the client and HTTP add, so the measured σ is 0.071 times the
    // server's share of each request's time: under 1 on a quiet box, nearer ½ on a loaded one (a full
    // test run here measured s = 0.040, 0.56 × 0.071). Above 0.02 (0.071 × ½ × 0.53) still tells two launches
    // from one server measured twice (≈ 0.01). The upper bound leaves room for a busy host's own
    // noise, which only adds.
    expect(ratios).toHaveLength(TRIALS * 10);
    const sd = sampleSd(ratios);
    expect(sd).toBeGreaterThan(0.02);
    expect(sd).toBeLessThan(0.13);
  });
});
