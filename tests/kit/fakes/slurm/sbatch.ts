/**
 * The fake `sbatch`: reads the script and its header (batch-script.ts), checks the partition and
 * GPUs, records the job PENDING, keeps the script in the spool as slurmctld does, starts the
 * job's watcher (job-runner.ts) and prints the job id.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSbatchArgs, readBatchScript, type SbatchOptions } from './batch-script.ts';
import { claimJobId, partitions, spoolScript, writeJob, type JobRecord } from './jobs.ts';
import { notImplemented, SlurmError } from './refusal.ts';

const ENTRY = fileURLToPath(new URL('fake-slurm.ts', import.meta.url));

export function sbatch(argv: readonly string[]): number {
  for (const name of Object.keys(process.env)) if (name.startsWith('SBATCH_')) notImplemented(`sbatch's input environment variable ${name}`);
  const cli: SbatchOptions = {};
  const operands = argv.slice(parseSbatchArgs(argv, cli, 'command line'));
  if (operands.length === 0) notImplemented('a batch script on standard input');
  if (operands.length > 1) notImplemented('arguments after the batch script');
  const path = resolve(operands[0]!);
  let script: string;
  try {
    script = readFileSync(path, 'utf8');
  } catch {
    throw new SlurmError(`Unable to open file ${operands[0]}`);
  }
  // "Options specified on the command line take precedence over those in the script."
  const options: SbatchOptions = { ...readBatchScript(script), ...cli };

  const known = partitions();
  const partition = options.partition ?? (known ? [...known.keys()][0]! : 'debug');
  if (known && !known.has(partition)) throw new SlurmError(`invalid partition specified: ${partition}\nsbatch: error: Batch job submission failed: Invalid partition name specified`);
  const gpus = options.gpus ?? 0;
  if (gpus > (known?.get(partition) ?? 0)) throw new SlurmError('Batch job submission failed: Requested node configuration is not available');

  const submitDir = process.cwd();
  const id = claimJobId();
  const job: JobRecord = {
    id,
    name: options.name ?? basename(path),
    user: userInfo().username,
    partition,
    account: options.account ?? null,
    state: 'PENDING',
    reason: 'None',
    submit_time: Date.now(),
    start_time: null,
    end_time: null,
    time_limit_s: options.timeLimitS ?? null,
    exit_code: null,
    submit_dir: submitDir,
    workdir: options.chdir === undefined ? submitDir : resolve(submitDir, options.chdir),
    output: options.output ?? 'slurm-%j.out',
    ntasks: options.ntasks ?? 1,
    gpus,
    node: null,
    watcher_pid: null,
    launch_error: null,
  };
  // slurmctld keeps the script; slurmd runs the kept copy ($0 is not the submitted path).
  mkdirSync(dirname(spoolScript(id)), { recursive: true });
  writeFileSync(spoolScript(id), script);
  chmodSync(spoolScript(id), 0o700);
  writeJob(job);
  spawn(process.execPath, [ENTRY, '_job', String(id)], { detached: true, stdio: 'ignore', env: process.env }).unref();
  // sbatch(1) OPT_parsable: "the job id number and the cluster name if present", separated by ";" (one cluster here: no name).
  process.stdout.write(options.parsable ? `${id}\n` : `Submitted batch job ${id}\n`);
  return 0;
}
