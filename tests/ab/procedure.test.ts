/**
 * The A/B procedure's order and sizing, over a synthetic arm runner (no server: these are the
 * procedure's own decisions — which arm runs when, how many blocks — given values; the real sim
 * runs in ab-verdicts.test.ts). The values are synthetic: A at 100, B at 90 (−10%), both on a
 * host whose speed drifts linearly in time, the drift ABBA order is there to cancel.
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { blocksNeeded } from '../../harness/lib/stats/paired.ts';
import { AB_METRICS } from '../../harness/contract/point-metric.ts';
import type { AbDesign } from '../../harness/measure/ab/ab-design.ts';
import { blockOrder, blocksPerPass, runAbProcedure, type MeasureArm } from '../../harness/measure/ab/procedure.ts';

const throughput = AB_METRICS.find((m) => m.column === 'output_throughput')!;
const DESIGN: AbDesign = { a: '1.2.0', b: '1.3.0', aaCheck: false, metric: throughput, effect: 0.1, margin: 0.03, alpha: 0.05, power: 0.8, pilotBlocks: 2, blocks: 4, maxBlocks: 16, confirm: true };

/** Arm values on a host that gets `drift` slower per run, in run order; every run is logged. */
function driftingHost(drift: number, log: string[]): MeasureArm {
  let runs = 0;
  return async (arm, label) => {
    log.push(label);
    const value = (arm === 'A' ? 100 : 90) * (1 - drift * runs++);
    return { result: { run_id: label } as unknown as RunResult, value, problem: null, interrupted: false };
  };
}

describe('the A/B procedure', () => {
  it('runs the pilot A/A, then each pass in ABBA order, and confirms', async () => {
    const log: string[] = [];
    const outcome = await runAbProcedure(DESIGN, driftingHost(0, log));
    expect(log).toEqual([
      'pilot 1/2 A1', 'pilot 1/2 A2', 'pilot 2/2 A1', 'pilot 2/2 A2',
      'main 1/4 A', 'main 1/4 B', 'main 2/4 B', 'main 2/4 A', 'main 3/4 A', 'main 3/4 B', 'main 4/4 B', 'main 4/4 A',
      'confirm 1/4 A', 'confirm 1/4 B', 'confirm 2/4 B', 'confirm 2/4 A', 'confirm 3/4 A', 'confirm 3/4 B', 'confirm 4/4 B', 'confirm 4/4 A',
    ]);
    expect([0, 1, 2, 3].map(blockOrder)).toEqual(['AB', 'BA', 'AB', 'BA']);
    // B's value goes into b whichever ran first.
    expect(outcome.passes[0]!.blocks[1]).toMatchObject({ order: 'BA', a_value: 100, b_value: 90 });
    expect(outcome.verdict).toBe('slower');
    expect(outcome.overall!.effect).toBeCloseTo(-0.1, 12);
  });

  it('a drift linear in time cancels over each ABBA pair: the effect stays −10%, where always-AB blocks would see −11.5%', async () => {
    const drift = 0.01; // 1% slower per run: 17% over the procedure
    const outcome = await runAbProcedure({ ...DESIGN, confirm: false }, driftingHost(drift, []));
    // The first blocks: AB (runs 4, 5) then BA (runs 6, 7); over the pair B's runs and A's runs have the same mean time.
    const pair = outcome.passes[0]!.blocks.slice(0, 2);
    const pairEffect = Math.exp((pair[0]!.log_ratio + pair[1]!.log_ratio) / 2) - 1;
    expect(pairEffect).toBeCloseTo(-0.1, 3);
    expect(outcome.overall!.effect).toBeCloseTo(-0.1, 3);
    // Always A then B: B one run later in every block.
    const alwaysAb = Math.log((90 * (1 - drift * 5)) / (100 * (1 - drift * 4)));
    expect(Math.expm1(alwaysAb)).toBeLessThan(-0.109);
  });

  it('--blocks auto: the blocks blocksNeeded asks for given the pilot\'s σ, the effect and the margin, within [4, --max-blocks]', () => {
    const auto = { ...DESIGN, blocks: 'auto' as const };
    expect(blocksPerPass(auto, 0.07)).toBe(blocksNeeded(0.07, 0.1, { margin: 0.03, power: 0.8, alpha: 0.05, min: 4, max: 16 }));
    expect(blocksPerPass(auto, 0.07)).toBe(11);
    expect(blocksPerPass(auto, 0)).toBe(4);
    expect(blocksPerPass({ ...auto, maxBlocks: 3 }, 0.07)).toBe(3);
    expect(blocksPerPass(DESIGN, 0.07)).toBe(4);
  });

  it('an arm run without a value stops the procedure there, keeping the block\'s first run', async () => {
    let runs = 0;
    const measure: MeasureArm = async (arm, label) => {
      const result = { run_id: label } as unknown as RunResult;
      return ++runs === 6 ? { result, value: null, problem: 'the run failed during health: x', interrupted: false } : { result, value: arm === 'A' ? 100 : 90, problem: null, interrupted: false };
    };
    const outcome = await runAbProcedure(DESIGN, measure);
    expect(outcome.verdict).toBeNull();
    expect(outcome.stopped).toMatchObject({ stage: 'main', block: 0, arm: 'B', message: 'the run failed during health: x', run: { run_id: 'main 1/4 B' }, partial_block: { run_id: 'main 1/4 A' } });
    expect(outcome.blocksPerPass).toBe(4);
    expect(outcome.pilot).toHaveLength(2);
  });

  it('a block whose arms answered different requests stops the procedure there: it is no pair', async () => {
    // Every run sends the same 6 prompts but main block 2's B arm (a BA block: B ran first), which --duration cut at 2.
    const sent = (label: string) => (label === 'main 2/4 B' ? { requests_sent: 2, stop: 'duration', prompt_set_sha256: 'b'.repeat(64) } : { requests_sent: 6, stop: 'count', prompt_set_sha256: 'a'.repeat(64) });
    const measure: MeasureArm = async (arm, label) => ({ result: { run_id: label, points: [sent(label)] } as unknown as RunResult, value: arm === 'A' ? 100 : 90, problem: null, interrupted: false });
    const outcome = await runAbProcedure(DESIGN, measure);
    expect(outcome.verdict).toBeNull();
    expect(outcome.passes[0]!.blocks).toHaveLength(1);
    expect(outcome.stopped).toMatchObject({ stage: 'main', block: 1, arm: 'A', run: { run_id: 'main 2/4 A' }, partial_block: { run_id: 'main 2/4 B' } });
    expect(outcome.stopped!.message).toBe('block 2 of the main pass is not a pair: its arms answered different requests: A sent 6 requests (stopped on its count), B sent 2 requests (stopped on --duration). Give a --duration long enough for --num-prompts on the slower release (or fewer --num-prompts), so both arms answer every request');
  });
});
