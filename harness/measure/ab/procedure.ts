/**
 * The A/B procedure, over an injected arm runner (the command's launches the real engine; the
 * order of the runs is all this module decides):
 * 1. pilot: `pilotBlocks` A/A blocks give σ, the SD of ln(A₂/A₁) between two fresh launches on this host;
 * 2. blocks per pass: blocksNeeded(σ, effect, margin, power) unless given;
 * 3. main pass: block k runs A then B when k is even, B then A when odd: ABBA, so a drift linear in
 *    time adds the same to both arms over each pair of blocks;
 * 4. confirm pass: the same design on fresh blocks; the verdict stands only where both agree.
 * The first arm run that fails or is interrupted ends the procedure; its run is kept. So does a
 * block whose two arms answered different requests (blockPairing): it is no pair, and the fix is
 * the design's (a longer --duration), not another block.
 */
import { blockPairing } from '../../contract/comparison.ts';
import { blocksNeeded, comparePaired, confirmVerdict, type PairedComparison, type PairedVerdict } from '../../lib/stats/paired.ts';
import type { AbDesign } from './ab-design.ts';
import { MIN_AUTO_BLOCKS } from './ab-design.ts';
import type { AbBlock, AbPass, AbStop, BlockOrder } from './ab-result.ts';
import type { ArmRun } from './arms.ts';

export type Stage = AbStop['stage'];

/** Runs arm A or B once (a fresh launch); `label` says which run of the procedure it is, for the progress line. */
export type MeasureArm = (arm: 'A' | 'B', label: string) => Promise<ArmRun>;

export interface ProcedureOutcome {
  readonly pilot: readonly AbBlock[];
  readonly sdLogRatio: number | null;
  readonly blocksPerPass: number | null;
  readonly passes: readonly AbPass[];
  readonly verdict: PairedVerdict | null;
  /** Paired t over every block of every pass; null unless every pass completed. */
  readonly overall: PairedComparison | null;
  readonly stopped: AbStop | null;
}

/** The order of block k of a pass. */
export function blockOrder(index: number): Exclude<BlockOrder, 'AA'> {
  return index % 2 === 0 ? 'AB' : 'BA';
}

/** Blocks per pass: the design's number, or what the pilot's σ asks for to detect the effect beyond the margin. */
export function blocksPerPass(design: AbDesign, sdLogRatio: number): number {
  if (design.blocks !== 'auto') return design.blocks;
  return blocksNeeded(sdLogRatio, design.effect, { alpha: design.alpha, power: design.power, margin: design.margin, min: Math.min(MIN_AUTO_BLOCKS, design.maxBlocks), max: design.maxBlocks });
}

type BlockRun = { readonly block: AbBlock } | { readonly stopped: AbStop };

async function runBlock(stage: Stage, index: number, total: number, order: BlockOrder, measure: MeasureArm): Promise<BlockRun> {
  const arms: Array<'A' | 'B'> = order === 'AA' ? ['A', 'A'] : order === 'AB' ? ['A', 'B'] : ['B', 'A'];
  const runs: ArmRun[] = [];
  for (const [position, arm] of arms.entries()) {
    const label = `${stage} ${index + 1}/${total} ${order === 'AA' ? `A${position + 1}` : arm}`;
    const run = await measure(arm, label);
    if (run.value === null) {
      return { stopped: { stage, block: index, arm, message: run.problem ?? 'no value', run: run.result, partial_block: runs[0]?.result ?? null } };
    }
    runs.push(run);
  }
  // The pilot's "B" is its second A run; a BA block ran B first.
  const [first, second] = runs as [ArmRun, ArmRun];
  const [a, b] = order === 'BA' ? [second, first] : [first, second];
  const unpaired = blockPairing(a.result, b.result);
  if (unpaired !== null) {
    const message = `block ${index + 1} of the ${stage === 'pilot' ? 'pilot' : `${stage} pass`} is not a pair: ${unpaired}. Give a --duration long enough for --num-prompts on the slower release (or fewer --num-prompts), so both arms answer every request`;
    return { stopped: { stage, block: index, arm: arms[1]!, message, run: second.result, partial_block: first.result } };
  }
  return { block: { index, order, a: a.result, b: b.result, a_value: a.value!, b_value: b.value!, log_ratio: Math.log(b.value! / a.value!) } };
}

async function runBlocks(stage: Stage, count: number, order: (index: number) => BlockOrder, measure: MeasureArm): Promise<{ blocks: AbBlock[]; stopped: AbStop | null }> {
  const blocks: AbBlock[] = [];
  for (let index = 0; index < count; index++) {
    const outcome = await runBlock(stage, index, count, order(index), measure);
    if ('stopped' in outcome) return { blocks, stopped: outcome.stopped };
    blocks.push(outcome.block);
  }
  return { blocks, stopped: null };
}

const valuesOf = (blocks: readonly AbBlock[]) => blocks.map((block) => ({ a: block.a_value, b: block.b_value }));

export async function runAbProcedure(design: AbDesign, measure: MeasureArm): Promise<ProcedureOutcome> {
  const options = { better: design.metric.better, alpha: design.alpha, margin: design.margin };
  const pilot = await runBlocks('pilot', design.pilotBlocks, () => 'AA', measure);
  const sdLogRatio = pilot.blocks.length >= 2 ? comparePaired(valuesOf(pilot.blocks), options).sd_log_ratio : null;
  const unfinished = (blocksPerPass: number | null, passes: AbPass[], stopped: AbStop): ProcedureOutcome => ({ pilot: pilot.blocks, sdLogRatio, blocksPerPass, passes, verdict: null, overall: null, stopped });
  if (pilot.stopped) return unfinished(null, [], pilot.stopped);
  const n = blocksPerPass(design, sdLogRatio!);
  const passes: AbPass[] = [];
  for (const name of design.confirm ? (['main', 'confirm'] as const) : (['main'] as const)) {
    const pass = await runBlocks(name, n, blockOrder, measure);
    if (pass.stopped) return unfinished(n, [...passes, { name, blocks: pass.blocks, comparison: null }], pass.stopped);
    passes.push({ name, blocks: pass.blocks, comparison: comparePaired(valuesOf(pass.blocks), options) });
  }
  const [main, confirm] = passes.map((pass) => pass.comparison!) as [PairedComparison, PairedComparison | undefined];
  const verdict = confirm ? confirmVerdict(main, confirm) : main.verdict;
  const overall = comparePaired(valuesOf(passes.flatMap((pass) => pass.blocks)), options);
  return { pilot: pilot.blocks, sdLogRatio, blocksPerPass: n, passes, verdict, overall, stopped: null };
}

