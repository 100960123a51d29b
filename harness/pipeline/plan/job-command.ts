/**
 * What a planned job runs under each scheduler: the run's arguments and the one shell command,
 * with the GPU indices the scheduler provides (see plan.ts for GPU isolation per scheduler).
 */
import { shellQuote } from '../../measure/engines/render.ts';
import { HARNESS_ARGV, type PlannedJob, type Scheduler } from './plan-file.ts';

/** The environment variable a scheduler's job reads its GPU indices from, or null when it passes none. */
export function gpuEnvFor(job: PlannedJob, scheduler: Scheduler): string | null {
  if (job.gpu.vendor === 'cpu' || scheduler === 'kubernetes') return null;
  if (scheduler === 'github') return 'SERVEBENCH_GPUS';
  return job.launcher === 'docker' ? 'SLURM_JOB_GPUS' : null;
}

/** The run's arguments under a scheduler: on Kubernetes the engine runs as a process inside its own image. */
export function argvFor(job: PlannedJob, scheduler: Scheduler): string[] {
  const argv = [...job.argv];
  if (scheduler !== 'kubernetes') return argv;
  argv[argv.indexOf('--launcher') + 1] = 'process';
  // The image is the pod's own; --image means nothing to a process launch.
  const image = argv.indexOf('--image');
  if (image >= 0) argv.splice(image, 2);
  return argv;
}

const GPU_ENV_HINT: Record<string, string> = {
  SERVEBENCH_GPUS: 'set SERVEBENCH_GPUS to the GPU set of this runner in its .env file',
  SLURM_JOB_GPUS: 'SLURM allocated no GPUs to this job',
};

/**
 * The shell command a job runs from the servebench checkout. Every value is single-quoted; the
 * GPU indices are the one expansion, and the job fails (with no result, which missingJobs then
 * reports) when the scheduler did not provide them.
 */
export function shellCommand(job: PlannedJob, scheduler: Scheduler): string {
  const command = shellQuote([...HARNESS_ARGV, ...argvFor(job, scheduler)]);
  const env = gpuEnvFor(job, scheduler);
  return env === null ? command : `${command} --gpu "\${${env}:?${GPU_ENV_HINT[env]}}"`;
}

/** The shell command that builds the job's engine first (from the servebench checkout), or null when it needs none. */
export function buildCommand(job: PlannedJob): string | null {
  return job.build ? shellQuote([...HARNESS_ARGV, ...job.build.argv]) : null;
}
