/**
 * FAKE SLURM for tests: `sbatch`, `squeue` and `scancel` (the shell wrappers next to this file)
 * that run batch scripts on this machine, so the scripts `servebench plan --format slurm` writes
 * (harness/pipeline/plan/slurm.ts) are submitted, run and waited for as on a cluster, without one.
 * Not SLURM: one machine, a few "nodes" (FAKE_SLURM_NODES, default 1) that each run one job at a
 * time, no accounting, no steps, no srun. It implements exactly what servebench's scripts, the
 * docs/fleet.md's wait and tests/pipeline/slurm-run.pipeline.test.ts use, each as SLURM documents it
 * (https://slurm.schedmd.com/sbatch.html, squeue.html, scancel.html; the anchors below are theirs):
 *
 * sbatch --parsable SCRIPT (submit-all.sh), the script's header:
 * - The script must start with "#!" and have UNIX line breaks (sbatch's own two errors otherwise).
 *   #SBATCH lines are read from the second line until "the first non-comment non-whitespace line"
 *   (sbatch.html#SECTION_DESCRIPTION); command-line options take precedence over them.
 * - --job-name (default: the script's file name), --partition (FAKE_SLURM_PARTITIONS
 *   "name[:gpus],…", the first the default; unset: any name, none with GPUs; an unknown one is
 *   "Invalid partition name specified"), --account, --chdir (relative to the submit directory; a
 *   missing folder is slurmstepd's "couldn't chdir … going to /tmp instead"), --nodes=1,
 *   --ntasks, --gres=gpu[:<type>]:N (more GPUs than the partition's nodes have: "Requested node
 *   configuration is not available"), --time as [days-]hours:minutes:seconds (#OPT_time; 0: no
 *   limit), --output with %x (job name), %j (job id) and %% (#SECTION_FILENAME-PATTERN; default
 *   slurm-%j.out, relative to the working directory; a folder that does not exist fails the job
 *   with JobLaunchFailure: sbatch never creates it), --parsable (#OPT_parsable: "<id>", the
 *   ";<cluster>" suffix only on a multi-cluster setup, which this is not; otherwise "Submitted
 *   batch job <id>"). Errors print "sbatch: error: …" and exit 1.
 * - The job runs a copy of the script kept in the spool (as slurmd does: $0 is not the submitted
 *   path), with the submission's environment (--export=ALL, the default) plus
 *   #SECTION_OUTPUT-ENVIRONMENT-VARIABLES: SLURM_JOB_ID, SLURM_JOB_NAME, SLURM_JOB_PARTITION,
 *   SLURM_JOB_ACCOUNT, SLURM_JOB_USER, SLURM_SUBMIT_DIR, SLURM_SUBMIT_HOST, SLURM_CLUSTER_NAME,
 *   SLURM_JOB_NODELIST, SLURM_JOB_NUM_NODES, SLURM_NTASKS, ENVIRONMENT=BATCH, and with GPUs
 *   SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES (0..N-1). stdout and stderr go to --output. Exit 0:
 *   COMPLETED; else FAILED (NonZeroExitCode). At the time limit the output gets slurmstepd's
 *   "*** JOB <id> ON <node> CANCELLED AT <time> DUE TO TIME LIMIT ***", the job's processes
 *   SIGTERM and SIGKILL KillWait later (FAKE_SLURM_KILL_WAIT, default 30 s): TIMEOUT. When the
 *   script exits, what it left running is killed (the job's cgroup). First in, first out over the
 *   nodes; a job waits with reason Resources (the first in line) or Priority (behind it).
 *
 * squeue [-h] [-j ID,…] [-t all] [-o FORMAT] (#OPT_noheader, #OPT_jobs, #OPT_states, #OPT_format):
 * - The default format "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"; fields "%[[.]size]type" with
 *   the types %i %P %j %u %t %T %a %M %D %R, "." right-justifies, a size pads and cuts, times as
 *   M:SS, H:MM:SS, D-HH:MM:SS (src/squeue/print.c's _print_str and _print_secs).
 * - Without -t only pending and running jobs are listed, with -j too; sorted by partition, state,
 *   then priority (the default "P,t,-p"). One unknown id with -j: "slurm_load_jobs error: Invalid
 *   job id specified", exit 1. The fake keeps every job (as if MinJobAge were infinite).
 *
 * scancel --me (#OPT_me): a pending job is CANCELLED at once; a running one gets slurmstepd's
 * "CANCELLED AT" line, SIGTERM, then SIGKILL KillWait later.
 *
 * Everything else those commands accept (another option, a short option, another --time form,
 * format field or filename symbol, quoting in a directive, SBATCH_*, SQUEUE_* and SCANCEL_* input
 * variables) is refused in one way, refusal.ts's "not implemented: <what>" with exit 1:
 * tests/pipeline/slurm-fake.test.ts holds every option the plan's scripts write to this list.
 * State and files: jobs.ts. Each job is watched by a detached `fake-slurm.ts _job <id>` process
 * (job-runner.ts: slurmctld and slurmd in one).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { watchJob } from './job-runner.ts';
import { SlurmError } from './refusal.ts';
import { sbatch } from './sbatch.ts';
import { scancel, squeue } from './squeue-scancel.ts';

async function main(): Promise<number> {
  const [command, ...argv] = process.argv.slice(2);
  try {
    if (command === 'sbatch') return sbatch(argv);
    if (command === 'squeue') return squeue(argv);
    if (command === 'scancel') return scancel(argv);
    if (command === '_job') {
      await watchJob(Number(argv[0]));
      return 0;
    }
    process.stderr.write('usage: fake-slurm.ts sbatch|squeue|scancel …\n');
    return 2;
  } catch (error) {
    if (error instanceof SlurmError) {
      process.stderr.write(`${command}: error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
