/**
 * One A/B from parsed options to its result: the design and both arms' run plans first (bad input
 * refused before any launch), then the procedure with each arm a fresh launch, then the result
 * assembled. `servebench ab` and each comparison of `servebench bisect` run exactly this.
 */
import type { RawOptions } from '../../lib/cli/options.ts';
import { cpuTimes, hostFacts } from '../run/host.ts';
import type { RunPlan } from '../run/runner.ts';
import { abDesignOf, type AbDesign } from './ab-design.ts';
import type { AbResult } from './ab-result.ts';
import { planArm, runArm } from './arms.ts';
import { assembleAbResult } from './assemble.ts';
import { runAbProcedure, type MeasureArm } from './procedure.ts';

export interface PlannedAb {
  readonly design: AbDesign;
  readonly plans: Readonly<Record<'A' | 'B', RunPlan>>;
}

/** `raw`: ab's options, --a and --b the releases the arms run. */
export async function planAb(raw: RawOptions, dummyShapes: readonly string[]): Promise<PlannedAb> {
  const design = abDesignOf(raw);
  return { design, plans: { A: await planArm(raw, design.a, dummyShapes), B: await planArm(raw, design.b, dummyShapes) } };
}

export interface AbRunContext {
  readonly signal: AbortSignal;
  /** The command line the result records (credentials redacted by the caller). */
  readonly command: readonly string[];
  /** After each arm run: its stage label (e.g. "main 2/8 B"), its arm, and its value with the unit or why it has none. */
  readonly onArm?: (label: string, arm: 'A' | 'B', outcome: string) => void;
}

const formatValue = (value: number): string => (value >= 100 ? value.toFixed(1) : value.toPrecision(4));

export async function runPlannedAb({ design, plans }: PlannedAb, context: AbRunContext): Promise<AbResult> {
  const startedAt = new Date();
  const cpuAtStart = cpuTimes();
  const measure: MeasureArm = async (arm, label) => {
    const run = await runArm(plans[arm], design.metric.column, context.signal);
    context.onArm?.(label, arm, run.value === null ? String(run.problem) : `${formatValue(run.value)} ${design.metric.unit}`);
    return run;
  };
  const outcome = await runAbProcedure(design, measure);
  return assembleAbResult(design, outcome, {
    command: context.command,
    engine: plans.A.engine.name,
    model: plans.A.load.model,
    workload: plans.A.load.workload.name,
    load: plans.A.load.loads[0]!,
    startedAt,
    finishedAt: new Date(),
    interrupted: context.signal.aborted,
    host: hostFacts(cpuAtStart),
  });
}
