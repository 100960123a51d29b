/**
 * The plan as a GitHub Actions matrix: `{"include": [one object per job]}` for
 * `strategy.matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}`. Each job runs on the self-hosted
 * runners of its GPU type that own a GPU set of its size (`runs-on: ${{ matrix.runs_on }}`, an
 * array: every label must match) and executes `command` from the servebench checkout.
 */
import { usageError } from '../../lib/errors.ts';
import type { Fleet } from '../../contract/fleet.ts';
import { shellCommand } from './job-command.ts';
import { GITHUB_MATRIX_LIMIT, type Plan, type PlannedJob } from './plan-file.ts';

export interface MatrixJob {
  readonly job_id: string;
  readonly name: string;
  readonly title: string;
  readonly engine: string;
  readonly version: string;
  readonly image: string | null;
  readonly launcher: PlannedJob['launcher'];
  readonly model: string;
  readonly tp: number;
  readonly gpu_type: string;
  readonly workload: string;
  readonly runs_on: readonly string[];
  /** The exact shell command the job runs (values single-quoted; the runner's GPU set is the one expansion). */
  readonly command: string;
  readonly result_key: string;
  readonly timeout_minutes: number;
}

export function runsOn(fleet: Fleet, job: PlannedJob): string[] {
  const type = fleet.gpu_types.find((t) => t.id === job.gpu_type);
  if (!type) throw usageError(`the plan names gpu type "${job.gpu_type}", which the fleet file does not declare; plan again with this fleet file`);
  const labels = [...type.github.labels];
  if (type.github.set_label !== null) labels.push(type.github.set_label.replace('{n}', String(job.model.tp)));
  return labels;
}

/**
 * One matrix job per planned run, except the runs that build their engine first: those run in
 * lanes (lanes.ts), one runner and one build for many runs.
 */
export function renderMatrix(plan: Plan, fleet: Fleet): { include: MatrixJob[] } {
  const jobs = plan.jobs.filter((job) => job.build === undefined);
  if (jobs.length > GITHUB_MATRIX_LIMIT) {
    throw usageError(
      `the plan has ${jobs.length} jobs (not counting its lanes') and a GitHub Actions matrix takes at most ${GITHUB_MATRIX_LIMIT} per workflow run; split it with --engine / --gpu-type into several runs, or use --format kubernetes or slurm`,
    );
  }
  return {
    include: jobs.map((job) => ({
      job_id: job.id,
      name: job.name,
      title: job.title,
      engine: job.engine,
      version: job.version,
      image: job.image,
      launcher: job.launcher,
      model: job.model.id,
      tp: job.model.tp,
      gpu_type: job.gpu_type,
      workload: job.workload,
      runs_on: runsOn(fleet, job),
      command: shellCommand(job, 'github'),
      result_key: job.result_key,
      timeout_minutes: job.time_limit_min,
    })),
  };
}
