/**
 * The plan as SLURM batch scripts, one per run: the #SBATCH header asks for the GPU set
 * (--gres=gpu:<type>:<tp> on the GPU type's partition) and the body runs the same `servebench run`
 * from the checkout (--chdir, or the directory sbatch ran in). #SBATCH values are not shell-parsed, so the fleet schema restricts them to
 * plain words; everything in the body is single-quoted. sbatch reads #SBATCH lines until the first
 * line that is neither blank nor a comment, so the header comments may come first. The scripts
 * pass shellcheck with all its checks (tests/pipeline/slurm-lint.test.ts) and run under a fake
 * sbatch that executes them as a batch job would (tests/pipeline/slurm-run.pipeline.test.ts).
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

/**
 * A value holding $ or ` is single-quoted on purpose (passed literally, never expanded): the
 * shellcheck directive says so for the command that follows (SC2016 would flag it), as
 * tests/pipeline/slurm-lint.test.ts checks every script with all of shellcheck's checks.
 */
function literalNote(argv: readonly string[]): string[] {
  return argv.some((arg) => /[$`]/.test(arg)) ? ['# A value with $ or ` below is quoted to be passed as it is, not expanded.', '# shellcheck disable=SC2016'] : [];
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
    ...(build === null ? [] : [...literalNote(job.build!.argv), build]),
    ...literalNote(job.argv),
    `exec ${shellCommand(job, 'slurm')}`,
    '',
  ].join('\n');
}

export function renderSlurm(plan: Plan, fleet: Fleet): SlurmScript[] {
  if (!fleet.schedulers.slurm) throw usageError('the fleet file has no schedulers.slurm block (log_dir, workdir); add one to plan SLURM scripts');
  return plan.jobs.map((job) => ({ file: `${job.name}.sbatch`, script: script(job, fleet) }));
}

/**
 * Submits this plan's scripts (not older ones left in the folder) and writes their SLURM job ids
 * to job-ids next to it, one per line, for the wait (`squeue -h -j "$(paste -sd, job-ids)"`).
 * With no workdir in the fleet the jobs run where sbatch runs, so it refuses to run anywhere but
 * the servebench checkout (a job elsewhere would fail with no result). Checked with shellcheck
 * (tests/pipeline/slurm-lint.test.ts) and run under a fake sbatch (slurm-run.pipeline.test.ts).
 */
export function submitAllScript(scripts: readonly SlurmScript[], fleet: Fleet): string {
  const slurm = fleet.schedulers.slurm;
  const logDir = slurm?.workdir && !posix.isAbsolute(slurm.log_dir) ? posix.join(slurm.workdir, slurm.log_dir) : (slurm?.log_dir ?? 'logs/slurm');
  return [
    '#!/bin/bash',
    '# Submits every job of this plan and writes their job ids to job-ids next to this script, one',
    '# per line: `squeue -h -j "$(paste -sd, job-ids)"` lists the ones not finished. sbatch does not',
    '# create the --output folder, so it is made here first.',
    'set -euo pipefail',
    'here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)',
    ...(slurm?.workdir
      ? []
      : [
          '# The fleet names no workdir: the jobs run `npx tsx harness/cli.ts` in the directory sbatch runs in.',
          'if [[ ! -f harness/cli.ts ]]; then',
          '  echo "submit-all.sh: run this from the servebench checkout (the jobs run there; the fleet sets no schedulers.slurm.workdir)" >&2',
          '  exit 2',
          'fi',
        ]),
    `mkdir -p -- ${shellQuote([logDir])}`,
    'ids="${here}/job-ids"',
    // --parsable prints "<id>" or "<id>;<cluster>"; a failed sbatch stops here, the ids so far kept.
    '{',
    ...scripts.map((s) => `sbatch --parsable "\${here}"/${shellQuote([s.file])}`),
    `} | cut -d';' -f1 > "\${ids}"`,
    `echo "submitted ${scripts.length} job${scripts.length === 1 ? '' : 's'}; their ids are in \${ids}"`,
    '',
  ].join('\n');
}
