/** The A/B's output object from its design, its arms' plans and what the procedure measured. */
import type { Load, RunResult } from '../../contract/result.ts';
import type { HostFacts } from '../run/host.ts';
import type { AbDesign } from './ab-design.ts';
import { AB_SCHEMA_VERSION, type AbArm, type AbResult } from './ab-result.ts';
import type { ProcedureOutcome } from './procedure.ts';

export interface AbContext {
  readonly command: readonly string[];
  readonly engine: string;
  readonly model: string;
  readonly workload: string;
  readonly load: Load;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly interrupted: boolean;
  readonly host: HostFacts;
}

/** Every run of one arm, in the order they ran within each block list (the pilot's are all A's). */
function runsOf(outcome: ProcedureOutcome, arm: 'A' | 'B'): RunResult[] {
  const runs = arm === 'A' ? outcome.pilot.flatMap((block) => [block.a, block.b]) : [];
  for (const pass of outcome.passes) runs.push(...pass.blocks.map((block) => (arm === 'A' ? block.a : block.b)));
  if (outcome.stopped?.arm === arm) runs.push(outcome.stopped.run);
  return runs;
}

function armOf(version: string, runs: readonly RunResult[]): AbArm {
  const reported = [...new Set(runs.flatMap((run) => (run.run?.engine.version ? [run.run.engine.version] : [])))];
  return { version, reported };
}

export function assembleAbResult(design: AbDesign, outcome: ProcedureOutcome, context: AbContext): AbResult {
  const status = outcome.stopped === null ? 'completed' : context.interrupted ? 'interrupted' : 'failed';
  const completed = status === 'completed';
  return {
    kind: 'ab',
    schema_version: AB_SCHEMA_VERSION,
    status,
    started_at: context.startedAt.toISOString(),
    finished_at: context.finishedAt.toISOString(),
    command: context.command,
    engine: context.engine,
    model: context.model,
    workload: context.workload,
    load: context.load,
    a: armOf(design.a, runsOf(outcome, 'A')),
    b: armOf(design.b, runsOf(outcome, 'B')),
    aa_check: design.aaCheck,
    metric: design.metric.column,
    better: design.metric.better,
    unit: design.metric.unit,
    effect_target: design.effect,
    power: design.power,
    margin: design.margin,
    alpha: design.alpha,
    aa: { blocks: outcome.pilot, ratios: outcome.pilot.map((block) => block.log_ratio), sd_log_ratio: outcome.sdLogRatio },
    blocks_per_pass: outcome.blocksPerPass,
    blocks_from: design.blocks === 'auto' ? 'pilot' : 'option',
    confirm: design.confirm,
    passes: outcome.passes,
    verdict: completed ? outcome.verdict : null,
    effect: completed ? (outcome.overall?.effect ?? null) : null,
    interval: completed ? (outcome.overall?.interval ?? null) : null,
    stopped: outcome.stopped,
    host: context.host,
  };
}
