/**
 * The plan as SLURM batch scripts, one per run: the #SBATCH header asks for the GPU set
 * (--gres=gpu:<type>:<tp> on the GPU type's partition) and the body runs the same `servebench run`
 * from the checkout (--chdir, or the directory sbatch ran in). #SBATCH values are not shell-parsed, so the fleet schema restricts them to
 * plain words; everything in the body is single-quoted.
 */
import { posix } from 'node:path';
import { shellQuote } from '../../measure/engines/render.ts';
import { usageError } from '../../lib/errors.ts';
import type { Fleet } from '../../contract/fleet.ts';
import { buildCommand, shellCommand } from './job-command.ts';
import type { Plan, PlannedJob } from './plan-file.ts';

export interface SlurmScript {
  readonly file: string;
  readonly script: string;
}

/** SLURM's days-hours:minutes:seconds. */
function time(minutes: number): string {
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const clock = `${String(hours).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}:00`;
  return days > 0 ? `${days}-${clock}` : clock;
}

/** Comment text cannot end the comment: control characters (a newline) become "?". */
function comment(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, '?');
}

function script(job: PlannedJob, fleet: Fleet): string {
  const slurm = fleet.schedulers.slurm!;
  const type = fleet.gpu_types.find((t) => t.id === job.gpu_type);
  if (!type?.slurm) throw usageError(`gpu type ${job.gpu_type} has no slurm block in the fleet file; add one (partition, gres) or leave it out with --gpu-type`);
  const build = buildCommand(job);
  const gres = type.vendor === 'cpu' ? null : type.slurm.gres === null ? `gpu:${job.model.tp}` : `gpu:${type.slurm.gres}:${job.model.tp}`;
  return [
    '#!/bin/bash',
    `# servebench plan job ${job.id}: ${comment(job.title)}`,
    '# Written by `servebench plan --format slurm`; planning again writes the same file.',
    `#SBATCH --job-name=${job.name}`,
    `#SBATCH --partition=${type.slurm.partition}`,
    ...(slurm.account ? [`#SBATCH --account=${slurm.account}`] : []),
    ...(slurm.workdir ? [`#SBATCH --chdir=${slurm.workdir}`] : []),
    '#SBATCH --nodes=1',
    '#SBATCH --ntasks=1',
    ...(gres ? [`#SBATCH --gres=${gres}`] : []),
    `#SBATCH --time=${time(job.time_limit_min)}`,
    `#SBATCH --output=${slurm.log_dir}/%x-%j.out`,
    'set -euo pipefail',
    // A locally built engine (llama.cpp from a node-llama-cpp release) first: a build already in the cache is found at once.
    ...(build === null ? [] : [build]),
    `exec ${shellCommand(job, 'slurm')}`,
    '',
  ].join('\n');
}

export function renderSlurm(plan: Plan, fleet: Fleet): SlurmScript[] {
  if (!fleet.schedulers.slurm) throw usageError('the fleet file has no schedulers.slurm block (log_dir, workdir); add one to plan SLURM scripts');
  return plan.jobs.map((job) => ({ file: `${job.name}.sbatch`, script: script(job, fleet) }));
}

/** Submits this plan's scripts (not older ones left in the folder); run it from the servebench checkout. */
export function submitAllScript(scripts: readonly SlurmScript[], fleet: Fleet): string {
  const slurm = fleet.schedulers.slurm;
  const logDir = slurm?.workdir && !posix.isAbsolute(slurm.log_dir) ? posix.join(slurm.workdir, slurm.log_dir) : (slurm?.log_dir ?? 'logs/slurm');
  return [
    '#!/bin/bash',
    '# Submits every job of this plan. Run it from the servebench checkout: sbatch does not create the',
    '# --output folder, so it is made here first.',
    'set -euo pipefail',
    'here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)',
    `mkdir -p -- ${shellQuote([logDir])}`,
    ...scripts.map((s) => `sbatch "$here"/${shellQuote([s.file])}`),
    '',
  ].join('\n');
}
