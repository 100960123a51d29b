/**
 * A job's watcher (`fake-slurm.ts _job <id>`, detached from sbatch): slurmctld and slurmd for one
 * job. It waits for a node (first in, first out), runs the spooled script with what a batch job
 * sees, ends it at its time limit or on scancel as slurmstepd does, and records how it ended.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { expandOutput } from './batch-script.ts';
import { allJobs, cancelMarker, claimNode, freeNode, readJob, spoolScript, writeJob, type JobRecord } from './jobs.ts';

const POLL_MS = 100;
/** slurm.conf's KillWait: SIGTERM, then SIGKILL this much later (FAKE_SLURM_KILL_WAIT seconds, default 30 as SLURM's). */
const KILL_WAIT_MS = Number(process.env['FAKE_SLURM_KILL_WAIT'] ?? '30') * 1000;
const CLUSTER = 'fake';

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** slurmstepd's time stamp in its messages: 2026-12-02T03:04:05, local time. */
function stamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** sbatch(1) OUTPUT ENVIRONMENT VARIABLES: the submission's environment (--export=ALL, the default) plus the job's. */
function jobEnvironment(job: JobRecord, node: string, cwd: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ENVIRONMENT: 'BATCH',
    SLURM_JOB_ID: String(job.id),
    SLURM_JOB_NAME: job.name,
    SLURM_JOB_PARTITION: job.partition,
    SLURM_JOB_USER: job.user,
    SLURM_SUBMIT_DIR: job.submit_dir,
    SLURM_SUBMIT_HOST: hostname(),
    SLURM_CLUSTER_NAME: CLUSTER,
    SLURM_JOB_NODELIST: node,
    SLURM_JOB_NUM_NODES: '1',
    SLURM_NTASKS: String(job.ntasks),
    PWD: cwd,
  };
  // A submission from inside another job must not hand this one that job's account or GPUs.
  for (const stale of ['SLURM_JOB_ACCOUNT', 'SLURM_JOB_GPUS', 'CUDA_VISIBLE_DEVICES']) delete env[stale];
  if (job.account !== null) env['SLURM_JOB_ACCOUNT'] = job.account;
  if (job.gpus > 0) {
    const ids = Array.from({ length: job.gpus }, (_, i) => String(i)).join(',');
    env['SLURM_JOB_GPUS'] = ids;
    env['CUDA_VISIBLE_DEVICES'] = ids;
  }
  return env;
}

/** Pending until a node is free and no earlier job waits (reason Resources for the first in line, Priority behind it); null: cancelled first. */
async function waitForNode(id: number, update: (edit: Partial<JobRecord>) => JobRecord): Promise<string | null> {
  for (let job = update({}); ; await sleep(POLL_MS)) {
    if (existsSync(cancelMarker(id))) {
      update({ state: 'CANCELLED', reason: 'None', end_time: Date.now(), exit_code: 0 });
      return null;
    }
    const ahead = allJobs().some((other) => other.id < id && other.state === 'PENDING' && other.reason !== 'None');
    const node = ahead ? null : claimNode(id);
    if (node !== null) return node;
    const reason = ahead ? 'Priority' : 'Resources';
    if (job.reason !== reason) job = update({ reason });
  }
}

export async function watchJob(id: number): Promise<void> {
  let job = readJob(id);
  if (job === null) return;
  const update = (edit: Partial<JobRecord>): JobRecord => {
    job = { ...job!, ...edit, watcher_pid: process.pid };
    writeJob(job);
    return job;
  };
  const node = await waitForNode(id, update);
  if (node === null) return;

  const start = Date.now();
  let cwd = job.workdir;
  let chdirNote: string | null = null;
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    chdirNote = `slurmstepd: error: couldn't chdir to \`${cwd}': No such file or directory: going to /tmp instead\n`;
    cwd = '/tmp';
  }
  // Relative to the working directory; sbatch never creates its folder: a missing one fails the launch.
  const outPath = resolve(cwd, expandOutput(job.output, job));
  let out: number;
  try {
    out = openSync(outPath, 'w');
  } catch (error) {
    update({ state: 'FAILED', reason: 'JobLaunchFailure', start_time: start, end_time: Date.now(), exit_code: 1, node, launch_error: `could not open output file ${outPath}: ${(error as Error).message}` });
    freeNode(node);
    return;
  }
  if (chdirNote !== null) writeSync(out, chdirNote);
  const child = spawn(spoolScript(id), [], { cwd, env: jobEnvironment(job, node, cwd), stdio: ['ignore', out, out], detached: true });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((done) => {
    child.on('exit', (code, signal) => done({ code, signal }));
    child.on('error', (error) => done({ code: null, signal: null, error }));
  });
  const pid = child.pid ?? null;
  update({ state: 'RUNNING', reason: 'None', start_time: start, node });

  let ending: 'TIMEOUT' | 'CANCELLED' | null = null;
  const stop = (why: 'TIMEOUT' | 'CANCELLED'): void => {
    if (ending !== null || pid === null) return;
    ending = why;
    writeSync(out, `slurmstepd: error: *** JOB ${id} ON ${node} CANCELLED AT ${stamp(Date.now())}${why === 'TIMEOUT' ? ' DUE TO TIME LIMIT' : ''} ***\n`);
    killGroup(pid, 'SIGTERM');
    setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_WAIT_MS).unref();
  };
  const limit = job.time_limit_s === null ? null : setTimeout(() => stop('TIMEOUT'), job.time_limit_s * 1000);
  const cancelWatch = setInterval(() => existsSync(cancelMarker(id)) && stop('CANCELLED'), POLL_MS);
  const outcome = await exited;
  if (limit !== null) clearTimeout(limit);
  clearInterval(cancelWatch);
  // The batch script is over: what it left running goes with the job's cgroup.
  if (pid !== null) killGroup(pid, 'SIGKILL');
  closeSync(out);
  const signals: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  const exitCode = outcome.code ?? (outcome.signal ? 128 + (signals[outcome.signal] ?? 0) : 1);
  if (outcome.error) update({ state: 'FAILED', reason: 'JobLaunchFailure', end_time: Date.now(), exit_code: 1, launch_error: outcome.error.message });
  else if (ending !== null) update({ state: ending, reason: ending === 'TIMEOUT' ? 'TimeLimit' : 'None', end_time: Date.now(), exit_code: exitCode });
  else update({ state: exitCode === 0 ? 'COMPLETED' : 'FAILED', reason: exitCode === 0 ? 'None' : 'NonZeroExitCode', end_time: Date.now(), exit_code: exitCode });
  freeNode(node);
}
