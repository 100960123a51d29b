/**
 * The jobs that build their engine first (llama.cpp from a node-llama-cpp release: the CPU lane) as
 * GitHub Actions "lanes": one runner builds once (or restores the build from the Actions cache) and
 * runs its jobs one after another, instead of one runner, and one build, per job. A lane is the
 * jobs of one build key (engine × version) on one GPU type, in run-number order (every
 * configuration's first run, then every second run, …), so that a drift of the runner over the
 * hours spreads over all configurations rather than over one configuration's repeats. A lane whose
 * jobs' time limits do not fit one GitHub job (MAX_LANE_MINUTES: a hosted runner's 6 hours, less
 * the build) is cut into even parts, each its own runner.
 * Written by `servebench plan --format matrix --out DIR` as lanes.json, for
 * `strategy.matrix: ${{ fromJSON(needs.plan.outputs.lanes) }}` in nightly.yml's lane job.
 */
import type { Fleet } from '../../contract/fleet.ts';
import { buildCommand, shellCommand } from './job-command.ts';
import { runsOn } from './matrix.ts';
import { LATEST, type Plan, type PlannedJob } from './plan-file.ts';

/** A GitHub-hosted job may run 6 hours; a lane's jobs get that, less BUILD_MINUTES. */
export const MAX_LANE_MINUTES = 360;
/** llama.cpp's build on a 2-core runner takes about 8 minutes; the limit leaves room for a slow one. */
export const BUILD_MINUTES = 30;

export interface LaneJob {
  readonly job_id: string;
  readonly title: string;
  /** The run, as the bench matrix's command (values single-quoted). */
  readonly command: string;
  readonly timeout_minutes: number;
}

export interface Lane {
  /** 12 hex: the first job's id and the part, stable across plans of the same jobs. */
  readonly lane_id: string;
  readonly title: string;
  readonly engine: string;
  readonly version: string;
  /** The node-llama-cpp release the build comes from; "" for the installed one (an unpinned nightly). */
  readonly node_llama_cpp: string;
  readonly gpu_type: string;
  readonly runs_on: readonly string[];
  /** The build, run first (a build in the cache is found at once). */
  readonly build: string;
  /** What the build cache is keyed by (with the build recipe's hash, in the workflow). */
  readonly build_key: string;
  readonly timeout_minutes: number;
  readonly jobs: readonly LaneJob[];
}

export function isLaneJob(job: PlannedJob): boolean {
  return job.build !== undefined;
}

/** Even parts of consecutive jobs, each within the lane budget (a single job over it is a part of its own). */
function parts(jobs: readonly PlannedJob[]): PlannedJob[][] {
  const budget = MAX_LANE_MINUTES - BUILD_MINUTES;
  const total = jobs.reduce((sum, job) => sum + job.time_limit_min, 0);
  const count = Math.max(1, Math.ceil(total / budget));
  const size = Math.ceil(jobs.length / count);
  const out: PlannedJob[][] = [];
  for (let i = 0; i < jobs.length; i += size) out.push(jobs.slice(i, i + size));
  // Uneven limits can still overflow a part: split it further, halving until each fits.
  return out.flatMap((part) => (part.length > 1 && part.reduce((s, j) => s + j.time_limit_min, 0) > budget ? parts(part) : [part]));
}

export function renderLanes(plan: Pick<Plan, 'jobs'>, fleet: Fleet): { include: Lane[] } {
  const groups = new Map<string, PlannedJob[]>();
  for (const job of plan.jobs.filter(isLaneJob)) {
    const key = `${job.build!.key}\u0000${job.gpu_type}`;
    groups.set(key, [...(groups.get(key) ?? []), job]);
  }
  const lanes: Lane[] = [];
  for (const jobs of groups.values()) {
    // plan's order within a run number; run numbers outermost.
    const ordered = [...jobs].sort((a, b) => (a.repeat ?? 1) - (b.repeat ?? 1) || plan.jobs.indexOf(a) - plan.jobs.indexOf(b));
    const split = parts(ordered);
    split.forEach((part, index) => {
      const first = part[0]!;
      const label = split.length > 1 ? ` (part ${index + 1} of ${split.length})` : '';
      lanes.push({
        lane_id: split.length > 1 ? `${first.id}-${index + 1}` : first.id,
        title: `${first.engine} ${first.version} lane · ${first.gpu_type} · ${part.length} run${part.length === 1 ? '' : 's'}${label}`,
        engine: first.engine,
        version: first.version,
        node_llama_cpp: first.version === LATEST ? '' : first.version,
        gpu_type: first.gpu_type,
        runs_on: runsOn(fleet, first),
        build: buildCommand(first)!,
        build_key: first.build!.key,
        timeout_minutes: Math.min(MAX_LANE_MINUTES, BUILD_MINUTES + part.reduce((sum, job) => sum + job.time_limit_min, 0)),
        jobs: part.map((job) => ({ job_id: job.id, title: job.title, command: shellCommand(job, 'github'), timeout_minutes: job.time_limit_min })),
      });
    });
  }
  return { include: lanes };
}
