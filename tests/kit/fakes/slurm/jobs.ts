/**
 * The fake SLURM's state, shared by sbatch, squeue, scancel and each job's watcher process through
 * files (FAKE_SLURM_STATE, default $TMPDIR/fake-slurm-<uid>): jobs/<id>.json (one record per job,
 * written whole by rename), jobs/<id>.cancel (scancel's request), nodes/<node>/ (a node held by a
 * running job: mkdir is the lock) and spool/job<id>/slurm_script (the script as submitted).
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export type JobState = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'TIMEOUT' | 'CANCELLED';

export interface JobRecord {
  readonly id: number;
  readonly name: string;
  readonly user: string;
  readonly partition: string;
  readonly account: string | null;
  readonly state: JobState;
  /** squeue's reason: None, Resources, Priority, NonZeroExitCode, TimeLimit, JobLaunchFailure. */
  readonly reason: string;
  readonly submit_time: number;
  readonly start_time: number | null;
  readonly end_time: number | null;
  /** Seconds; null: no limit. */
  readonly time_limit_s: number | null;
  readonly exit_code: number | null;
  readonly submit_dir: string;
  /** --chdir resolved against the submit directory, or the submit directory. */
  readonly workdir: string;
  /** The --output pattern. */
  readonly output: string;
  readonly ntasks: number;
  readonly gpus: number;
  readonly node: string | null;
  readonly watcher_pid: number | null;
  /** Why the job could not start (JobLaunchFailure), as slurmd would log it. */
  readonly launch_error: string | null;
}

export const TERMINAL: readonly JobState[] = ['COMPLETED', 'FAILED', 'TIMEOUT', 'CANCELLED'];

const stateDir = resolve(process.env['FAKE_SLURM_STATE'] ?? join(tmpdir(), `fake-slurm-${process.getuid?.() ?? 0}`));
const jobsDir = join(stateDir, 'jobs');
const nodesDir = join(stateDir, 'nodes');
const FIRST_JOB_ID = 1000;

/** The nodes (FAKE_SLURM_NODES, default 1), each running one job at a time. */
export const NODE_NAMES: readonly string[] = Array.from({ length: Math.max(1, Number.parseInt(process.env['FAKE_SLURM_NODES'] ?? '1', 10) || 1) }, (_, i) => `fake${i + 1}`);

function recordPath(id: number): string {
  return join(jobsDir, `${id}.json`);
}

export function spoolScript(id: number): string {
  return join(stateDir, 'spool', `job${id}`, 'slurm_script');
}

export function cancelMarker(id: number): string {
  return join(jobsDir, `${id}.cancel`);
}

export function readJob(id: number): JobRecord | null {
  try {
    return JSON.parse(readFileSync(recordPath(id), 'utf8')) as JobRecord;
  } catch {
    return null;
  }
}

export function writeJob(job: JobRecord): void {
  const temp = `${recordPath(job.id)}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(job, null, 2)}\n`);
  renameSync(temp, recordPath(job.id));
}

export function allJobs(): JobRecord[] {
  if (!existsSync(jobsDir)) return [];
  return readdirSync(jobsDir)
    .filter((f) => /^\d+\.json$/.test(f))
    .map((f) => readJob(Number(f.slice(0, -5))))
    .filter((j): j is JobRecord => j !== null)
    .sort((a, b) => a.id - b.id);
}

/** The next job id, claimed by creating its record file exclusively (sbatch calls may race). */
export function claimJobId(): number {
  mkdirSync(jobsDir, { recursive: true });
  const used = readdirSync(jobsDir).flatMap((f) => /^(\d+)\.json$/.exec(f)?.[1] ?? []).map(Number);
  let id = used.length > 0 ? Math.max(...used) + 1 : FIRST_JOB_ID;
  for (;;) {
    try {
      closeSync(openSync(recordPath(id), 'wx'));
      return id;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      id += 1;
    }
  }
}

function alive(pid: number | null): boolean {
  if (pid === null) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A free node for this job, or null. A node whose job's watcher died without freeing it is free again. */
export function claimNode(id: number): string | null {
  mkdirSync(nodesDir, { recursive: true });
  for (const node of NODE_NAMES) {
    const dir = join(nodesDir, node);
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'job'), String(id));
      return node;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readJob(Number(readFileSync(join(dir, 'job'), 'utf8').trim() || Number.NaN));
      if (holder !== null && (TERMINAL.includes(holder.state) || !alive(holder.watcher_pid)) && Date.now() - statSync(dir).mtimeMs > 1000) {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  return null;
}

export function freeNode(node: string | null): void {
  if (node !== null) rmSync(join(nodesDir, node), { recursive: true, force: true });
}

/**
 * The partitions (FAKE_SLURM_PARTITIONS "name[:gpus per node],…", the first the default), or null
 * when unset: any partition name is accepted, none with GPUs.
 */
export function partitions(): Map<string, number> | null {
  const text = process.env['FAKE_SLURM_PARTITIONS'];
  if (!text) return null;
  return new Map(
    text.split(',').map((item) => {
      const [name, gpus] = item.split(':');
      return [name!, gpus === undefined ? 0 : Number(gpus)];
    }),
  );
}
