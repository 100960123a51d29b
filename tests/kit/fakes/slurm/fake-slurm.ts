/**
 * FAKE SLURM for tests: `sbatch`, `squeue` and `scancel` (the shell wrappers next to this file)
 * that run batch scripts on this machine, so the scripts `servebench plan --format slurm` writes
 * are submitted, run and waited for as on a cluster, without one. Not SLURM: one machine, a few
 * "nodes" (FAKE_SLURM_NODES, default 1) that each run one job at a time, no accounting, no
 * steps, no srun. What it does do follows SLURM's own documentation (sbatch(1), squeue(1),
 * scancel(1) of SchedMD/slurm, doc/man/man1) and squeue's printing code (src/squeue/print.c):
 *
 * sbatch [options] script [args…] | --wrap=CMD
 * - The script must start with "#!" (else sbatch's "This does not look like a batch script"
 *   error) and have UNIX line breaks (else its "DOS line breaks" error). #SBATCH directives are
 *   read after the first line until the first line that is neither blank nor a comment;
 *   command-line options override them. The SBATCH_* input variables are not read.
 * - Options: -J/--job-name, -p/--partition, -A/--account, -D/--chdir, -N/--nodes (1 only),
 *   -n/--ntasks, -c/--cpus-per-task, -t/--time (minutes, minutes:seconds, hours:minutes:seconds,
 *   days-hours, days-hours:minutes, days-hours:minutes:seconds; 0 or UNLIMITED: none),
 *   -o/--output, -e/--error, --open-mode, --gres=gpu[:type]:N, -G/--gpus, -d/--dependency
 *   (after, afterany, afterok, afternotok; "," = all of them), --export=ALL, --parsable,
 *   -W/--wait, --wrap, and --mem, --mem-per-cpu, --mem-per-gpu, --ntasks-per-node, --exclusive,
 *   --qos, --comment, --constraint, --mail-type, --mail-user, --requeue, --no-requeue (accepted,
 *   no effect). Any other option is refused by name (--array, --hold, --begin, "?" dependencies,
 *   --export other than ALL, %J in an output pattern, …): extend this file faithfully when a
 *   script needs one. Long options must be written out (no getopt abbreviations).
 * - Prints "Submitted batch job <id>" (with --parsable: "<id>"); errors as "sbatch: error: …",
 *   exit 1. An unknown partition (FAKE_SLURM_PARTITIONS: "name[:gpus],…", the first the default;
 *   unset: any partition, none with GPUs) is "Invalid partition name specified"; more GPUs than
 *   the partition's nodes have, "Requested node configuration is not available".
 * - The job: the script is copied to the spool (<state>/spool/job<id>/slurm_script, as slurmd
 *   does: $0 is not the submitted path) and executed with the submission's environment (the
 *   default --export=ALL) plus what a batch job sees: SLURM_JOB_ID (and SLURM_JOBID),
 *   SLURM_JOB_NAME, SLURM_JOB_PARTITION, SLURM_JOB_ACCOUNT, SLURM_JOB_USER, SLURM_JOB_UID,
 *   SLURM_SUBMIT_DIR, SLURM_SUBMIT_HOST, SLURM_CLUSTER_NAME, SLURM_JOB_NODELIST (SLURM_NODELIST),
 *   SLURMD_NODENAME, SLURM_JOB_NUM_NODES (SLURM_NNODES), SLURM_NODEID, SLURM_NTASKS
 *   (SLURM_NPROCS), SLURM_TASKS_PER_NODE, SLURM_CPUS_ON_NODE, SLURM_JOB_CPUS_PER_NODE,
 *   SLURM_PROCID, SLURM_LOCALID, SLURM_GTIDS, SLURM_TASK_PID, SLURM_PRIO_PROCESS,
 *   SLURM_JOB_DEPENDENCY, ENVIRONMENT=BATCH, and with GPUs SLURM_JOB_GPUS, SLURM_GPUS_ON_NODE and
 *   CUDA_VISIBLE_DEVICES (0..N-1). Its working directory is --chdir (relative: to the submit
 *   directory), else the submit directory; one that does not exist is slurmstepd's "couldn't
 *   chdir … going to /tmp instead". stdout and stderr go to --output (default slurm-%j.out;
 *   relative to the working directory; %% %A %a %j %N %u %x, a width such as %4j zero-pads, a "\"
 *   turns substitution off); a folder that does not exist fails the job (JobLaunchFailure), as
 *   sbatch never creates it. Exit 0: COMPLETED; else FAILED (NonZeroExitCode). At the time limit
 *   the output gets slurmstepd's "*** JOB <id> ON <node> CANCELLED AT <time> DUE TO TIME LIMIT
 *   ***", the job's processes SIGTERM, and SIGKILL KillWait later (FAKE_SLURM_KILL_WAIT, default
 *   30 s): TIMEOUT. When the script exits, what it left running is killed (the job's cgroup).
 * - Scheduling: first in, first out over the nodes; a job waits with reason Resources (the first
 *   one), Priority (the rest), Dependency, or DependencyNeverSatisfied (it stays pending).
 *
 * squeue [-h] [-j[ID,…]] [-u USER,…|--me] [-n NAME,…] [-p PART,…] [-t STATE,…|all] [-o FORMAT|-l]
 * - Default format "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R", -l "%.18i %.9P %.8j %.8u %.8T
 *   %.10M %.9l %.6D %R" (also $SQUEUE_FORMAT). Fields "%[[.]size]type": "." right-justifies, a
 *   size pads and cuts (print.c's _print_str); types %i %A %F %j %u %U %t %T %P %a %M %l %L %D %N
 *   %R %r %Z %o %V %S %e %E %K %k. Times as print.c's _print_secs: M:SS, H:MM:SS, D-HH:MM:SS.
 * - Without -t: pending, running and completing jobs only (finished ones are not listed, also
 *   with -j); -t takes compact or long state names, or "all". Sorted by partition, state, then
 *   submission (the default sort "P,t,-p" with first-in-first-out priority). One unknown job id
 *   with -j: "slurm_load_jobs error: Invalid job id specified", exit 1. The fake keeps every job
 *   (as if MinJobAge were infinite).
 *
 * scancel ID… | -n NAME | -u USER | --me: a pending job is CANCELLED at once; a running one gets
 * slurmstepd's "CANCELLED AT" line, SIGTERM, then SIGKILL KillWait later. A finished job:
 * "Job/step already completing or completed"; an unknown one: "Invalid job id specified" (exit 1).
 *
 * State: FAKE_SLURM_STATE (default $TMPDIR/fake-slurm-<uid>): jobs/<id>.json, nodes/, spool/.
 * Every job is watched by a detached `fake-slurm.ts _job <id>` process (slurmctld and slurmd in one).
 */
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { cpus, hostname, tmpdir, userInfo } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

type JobState = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'TIMEOUT' | 'CANCELLED';

interface Dependency {
  readonly type: 'after' | 'afterany' | 'afterok' | 'afternotok';
  readonly ids: number[];
}

interface JobRecord {
  id: number;
  name: string;
  user: string;
  uid: number;
  partition: string;
  account: string | null;
  state: JobState;
  /** squeue's %r: None, Resources, Priority, Dependency, DependencyNeverSatisfied, NonZeroExitCode, TimeLimit, JobLaunchFailure. */
  reason: string;
  submit_time: number;
  start_time: number | null;
  end_time: number | null;
  /** Seconds; null: no limit. */
  time_limit_s: number | null;
  exit_code: number | null;
  /** The script as submitted (squeue's %o), and its arguments. */
  command: string;
  args: string[];
  submit_dir: string;
  /** --chdir resolved against the submit directory, or the submit directory. */
  workdir: string;
  output: string;
  error: string | null;
  open_mode: 'truncate' | 'append';
  dependency: string | null;
  ntasks: number;
  gpus: number;
  comment: string | null;
  node: string | null;
  watcher_pid: number | null;
  pid: number | null;
  /** Why the job could not start (JobLaunchFailure), as slurmd would log it. */
  launch_error: string | null;
}

const TERMINAL: readonly JobState[] = ['COMPLETED', 'FAILED', 'TIMEOUT', 'CANCELLED'];
const COMPACT: Record<JobState, string> = { PENDING: 'PD', RUNNING: 'R', COMPLETED: 'CD', FAILED: 'F', TIMEOUT: 'TO', CANCELLED: 'CA' };
/** squeue sorts by the state's number (slurm.h's enum job_states). */
const STATE_ORDER: Record<JobState, number> = { PENDING: 0, RUNNING: 1, COMPLETED: 3, CANCELLED: 4, FAILED: 5, TIMEOUT: 6 };
/** What a non-array job's %a (and SLURM_ARRAY_TASK_ID's absence) is in SLURM: NO_VAL - 1. */
const NO_ARRAY_TASK = '4294967294';
const POLL_MS = 100;

const stateDir = resolve(process.env['FAKE_SLURM_STATE'] ?? join(tmpdir(), `fake-slurm-${process.getuid?.() ?? 0}`));
const jobsDir = join(stateDir, 'jobs');
const nodesDir = join(stateDir, 'nodes');
const spoolDir = join(stateDir, 'spool');
const clusterName = process.env['FAKE_SLURM_CLUSTER'] ?? 'fake';
const killWaitMs = Number(process.env['FAKE_SLURM_KILL_WAIT'] ?? '30') * 1000;
const nodeCount = Math.max(1, Number.parseInt(process.env['FAKE_SLURM_NODES'] ?? '1', 10) || 1);
const nodeNames = Array.from({ length: nodeCount }, (_, i) => `${clusterName}${i + 1}`);

class SlurmError extends Error {}

// ---------------------------------------------------------------------------------------------
// Job records

function recordPath(id: number): string {
  return join(jobsDir, `${id}.json`);
}

function readJob(id: number): JobRecord | null {
  try {
    return JSON.parse(readFileSync(recordPath(id), 'utf8')) as JobRecord;
  } catch {
    return null;
  }
}

function writeJob(job: JobRecord): void {
  const temp = `${recordPath(job.id)}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(job, null, 2)}\n`);
  renameSync(temp, recordPath(job.id));
}

function allJobs(): JobRecord[] {
  if (!existsSync(jobsDir)) return [];
  return readdirSync(jobsDir)
    .filter((f) => /^\d+\.json$/.test(f))
    .map((f) => readJob(Number(f.slice(0, -5))))
    .filter((j): j is JobRecord => j !== null)
    .sort((a, b) => a.id - b.id);
}

/** The next job id, claimed by creating its record file exclusively (sbatch calls may race). */
function claimJobId(): number {
  mkdirSync(jobsDir, { recursive: true });
  const used = readdirSync(jobsDir)
    .map((f) => /^(\d+)\.json$/.exec(f)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number);
  let id = used.length > 0 ? Math.max(...used) + 1 : Number(process.env['FAKE_SLURM_FIRST_JOB_ID'] ?? '1000');
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

function pidAlive(pid: number | null): boolean {
  if (pid === null) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// ---------------------------------------------------------------------------------------------
// Option parsing (sbatch)

interface Options {
  name?: string;
  partition?: string;
  account?: string;
  chdir?: string;
  time?: string;
  output?: string;
  error?: string;
  openMode?: 'truncate' | 'append';
  dependency?: string;
  ntasks?: number;
  gpus?: number;
  comment?: string;
  parsable?: boolean;
  wait?: boolean;
  wrap?: string;
}

type Setter = (options: Options, value: string) => void;
interface OptionSpec {
  readonly long: string;
  readonly short?: string;
  /** No value: a flag. */
  readonly flag?: boolean;
  readonly set: Setter;
}

const ignore: Setter = () => {};

function positiveInt(option: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new SlurmError(`Invalid numeric value "${value}" for ${option}.`);
  return Number(value);
}

function gresGpus(value: string): number {
  let gpus = 0;
  for (const item of value.split(',')) {
    const parts = item.split(':');
    if (parts[0] !== 'gpu' || parts.length > 3) throw new SlurmError('Batch job submission failed: Invalid generic resource (gres) specification');
    const count = parts.length === 1 ? '1' : parts[parts.length - 1]!;
    if (!/^\d+$/.test(count)) {
      if (parts.length === 2) {
        gpus += 1; // gpu:<type>
        continue;
      }
      throw new SlurmError('Batch job submission failed: Invalid generic resource (gres) specification');
    }
    gpus += Number(count);
  }
  return gpus;
}

const NOT_IMPLEMENTED = ['array', 'hold', 'begin', 'test-only', 'deadline', 'nodelist', 'exclude', 'reservation', 'het-job', 'clusters', 'export-file', 'input', 'signal', 'uid', 'gid'];
const NOT_IMPLEMENTED_SHORT: Record<string, string> = { a: 'array', H: 'hold', b: 'begin', w: 'nodelist', x: 'exclude', M: 'clusters', i: 'input' };

const OPTIONS: readonly OptionSpec[] = [
  { long: 'job-name', short: 'J', set: (o, v) => void (o.name = v) },
  { long: 'partition', short: 'p', set: (o, v) => void (o.partition = v) },
  { long: 'account', short: 'A', set: (o, v) => void (o.account = v) },
  { long: 'chdir', short: 'D', set: (o, v) => void (o.chdir = v) },
  {
    long: 'nodes',
    short: 'N',
    set: (_, v) => {
      if (!/^1(-1)?$/.test(v)) throw new SlurmError(`fake sbatch runs each job on one node: --nodes=${v} is not implemented (tests/kit/fakes/slurm)`);
    },
  },
  { long: 'ntasks', short: 'n', set: (o, v) => void (o.ntasks = positiveInt('--ntasks', v)) },
  { long: 'cpus-per-task', short: 'c', set: (_, v) => void positiveInt('--cpus-per-task', v) },
  { long: 'time', short: 't', set: (o, v) => void (o.time = v) },
  { long: 'output', short: 'o', set: (o, v) => void (o.output = v) },
  { long: 'error', short: 'e', set: (o, v) => void (o.error = v) },
  {
    long: 'open-mode',
    set: (o, v) => {
      if (v !== 'append' && v !== 'truncate') throw new SlurmError(`Invalid --open-mode argument: ${v}. Ignored`);
      o.openMode = v;
    },
  },
  { long: 'gres', set: (o, v) => void (o.gpus = gresGpus(v)) },
  { long: 'gpus', short: 'G', set: (o, v) => void (o.gpus = positiveInt('--gpus', v.includes(':') ? v.split(':').pop()! : v)) },
  { long: 'dependency', short: 'd', set: (o, v) => void (o.dependency = v) },
  {
    long: 'export',
    set: (_, v) => {
      if (v !== 'ALL') throw new SlurmError(`fake sbatch implements --export=ALL only (the default), not --export=${v} (tests/kit/fakes/slurm)`);
    },
  },
  { long: 'parsable', flag: true, set: (o) => void (o.parsable = true) },
  { long: 'wait', short: 'W', flag: true, set: (o) => void (o.wait = true) },
  { long: 'wrap', set: (o, v) => void (o.wrap = v) },
  { long: 'comment', set: (o, v) => void (o.comment = v) },
  ...['mem', 'mem-per-cpu', 'mem-per-gpu', 'ntasks-per-node', 'qos', 'constraint', 'mail-type', 'mail-user'].map((long) => ({ long, set: ignore })),
  { long: 'qos', short: 'q', set: ignore },
  { long: 'constraint', short: 'C', set: ignore },
  ...['exclusive', 'requeue', 'no-requeue'].map((long) => ({ long, flag: true, set: ignore })),
];

/**
 * getopt_long over `words`, applying each option to `options`. Stops at the first word that is
 * not an option (the script) when `stopAtOperand`; returns the index after the options.
 */
function parseOptions(words: readonly string[], options: Options, stopAtOperand: boolean): number {
  let i = 0;
  while (i < words.length) {
    const word = words[i]!;
    if (word === '--') return i + 1;
    if (!word.startsWith('-') || word === '-') {
      if (stopAtOperand) return i;
      throw new SlurmError(`Invalid directive argument: ${word}`);
    }
    let spec: OptionSpec | undefined;
    let value: string | undefined;
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const long = eq < 0 ? word.slice(2) : word.slice(2, eq);
      if (eq >= 0) value = word.slice(eq + 1);
      spec = OPTIONS.find((o) => o.long === long);
      if (!spec) {
        if (NOT_IMPLEMENTED.includes(long)) throw new SlurmError(`fake sbatch does not implement --${long} (tests/kit/fakes/slurm): implement it faithfully or leave it out`);
        throw new SlurmError(`unrecognized option '${word}'`);
      }
    } else {
      const short = word[1]!;
      spec = OPTIONS.find((o) => o.short === short);
      if (!spec) {
        if (NOT_IMPLEMENTED_SHORT[short]) throw new SlurmError(`fake sbatch does not implement -${short} (--${NOT_IMPLEMENTED_SHORT[short]}) (tests/kit/fakes/slurm): implement it faithfully or leave it out`);
        throw new SlurmError(`invalid option -- '${short}'`);
      }
      if (word.length > 2) value = word.slice(2);
    }
    i += 1;
    if (spec.flag) {
      if (value !== undefined) throw new SlurmError(`option '--${spec.long}' doesn't allow an argument`);
      spec.set(options, '');
      continue;
    }
    if (value === undefined) {
      if (i >= words.length) throw new SlurmError(`option '--${spec.long}' requires an argument`);
      value = words[i]!;
      i += 1;
    }
    spec.set(options, value);
  }
  return i;
}

/** The words of an #SBATCH line as sbatch's _get_argument reads them: whitespace-separated, quotes group, a backslash escapes, an unescaped # ends the line. */
function directiveWords(text: string): string[] {
  const words: string[] = [];
  let current = '';
  let quote: string | null = null;
  let inWord = false;
  let escaped = false;
  for (const c of text) {
    if (escaped) {
      current += c;
      escaped = false;
      continue;
    }
    if (c === '\\') {
      escaped = true;
      inWord = true;
      continue;
    }
    if (quote) {
      if (c === quote) quote = null;
      else current += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
      continue;
    }
    if (c === '#') break;
    if (/\s/.test(c)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
      continue;
    }
    current += c;
    inWord = true;
  }
  if (inWord) words.push(current);
  return words;
}

/** The #SBATCH directives of a batch script, checked as sbatch checks the script first. */
function scriptDirectives(script: string): string[] {
  if (!script.startsWith('#!')) {
    throw new SlurmError('This does not look like a batch script.  The first\nsbatch: error: line must start with #! followed by the path to an interpreter.\nsbatch: error: For instance: #!/bin/sh');
  }
  if (script.includes('\r\n')) throw new SlurmError('Batch script contains DOS line breaks (\\r\\n)\nsbatch: error: instead of expected UNIX line breaks (\\n).');
  const words: string[] = [];
  for (const line of script.split('\n').slice(1)) {
    if (line.startsWith('#SBATCH')) {
      const rest = line.slice('#SBATCH'.length);
      if (rest === '' || /^\s/.test(rest)) words.push(...directiveWords(rest));
      continue;
    }
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    break;
  }
  return words;
}

/** --time as sbatch reads it, in seconds; null: no limit. */
export function parseTimeLimit(text: string): number | null {
  if (/^(unlimited|infinite)$/i.test(text)) return null;
  const invalid = (): never => {
    throw new SlurmError('Invalid --time specification');
  };
  const n = (s: string | undefined): number => (s !== undefined && /^\d+$/.test(s) ? Number(s) : invalid());
  let seconds: number;
  const dash = text.indexOf('-');
  if (dash >= 0) {
    const days = n(text.slice(0, dash));
    const rest = text.slice(dash + 1).split(':');
    if (rest.length > 3) invalid();
    const [h, m, s] = [n(rest[0]), rest[1] === undefined ? 0 : n(rest[1]), rest[2] === undefined ? 0 : n(rest[2])];
    seconds = ((days * 24 + h) * 60 + m) * 60 + s;
  } else {
    const parts = text.split(':');
    if (parts.length === 1) seconds = n(parts[0]) * 60;
    else if (parts.length === 2) seconds = n(parts[0]) * 60 + n(parts[1]);
    else if (parts.length === 3) seconds = (n(parts[0]) * 60 + n(parts[1])) * 60 + n(parts[2]);
    else return invalid();
  }
  return seconds === 0 ? null : seconds;
}

function parseDependency(text: string): Dependency[] {
  if (text.includes('?')) throw new SlurmError('fake sbatch does not implement "?" (any-of) dependencies (tests/kit/fakes/slurm)');
  return text.split(',').map((part) => {
    const [type, ...ids] = part.split(':');
    if (type !== 'after' && type !== 'afterany' && type !== 'afterok' && type !== 'afternotok') {
      throw new SlurmError(type === 'singleton' || type === 'aftercorr' || type === 'afterburstbuffer' ? `fake sbatch does not implement ${type} dependencies (tests/kit/fakes/slurm)` : 'Batch job submission failed: Job dependency problem');
    }
    if (ids.length === 0 || ids.some((id) => !/^\d+$/.test(id))) throw new SlurmError('Batch job submission failed: Job dependency problem');
    return { type, ids: ids.map(Number) };
  });
}

function partitions(): Map<string, number> | null {
  const text = process.env['FAKE_SLURM_PARTITIONS'];
  if (!text) return null;
  return new Map(
    text.split(',').map((item) => {
      const [name, gpus] = item.split(':');
      return [name!, gpus === undefined ? 0 : Number(gpus)];
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// sbatch

async function sbatch(argv: readonly string[]): Promise<number> {
  const cli: Options = {};
  const end = parseOptions(argv, cli, true);
  const operands = argv.slice(end);
  let script: string;
  let command: string;
  if (cli.wrap !== undefined) {
    if (operands.length > 0) throw new SlurmError('script argument not permitted with --wrap option');
    script = `#!/bin/sh\n# This script was created by sbatch --wrap.\n\n${cli.wrap}\n`;
    command = '(null)';
  } else {
    if (operands.length === 0) throw new SlurmError('fake sbatch reads its script from a file: give the script (standard input is not implemented)');
    command = resolve(operands[0]!);
    try {
      script = readFileSync(command, 'utf8');
    } catch {
      throw new SlurmError(`Unable to open file ${operands[0]}`);
    }
  }
  const options: Options = {};
  parseOptions(scriptDirectives(script), options, false);
  Object.assign(options, cli);

  const known = partitions();
  const partition = options.partition ?? (known ? [...known.keys()][0]! : 'debug');
  if (known && !known.has(partition)) throw new SlurmError(`invalid partition specified: ${partition}\nsbatch: error: Batch job submission failed: Invalid partition name specified`);
  const gpus = options.gpus ?? 0;
  if (gpus > (known?.get(partition) ?? 0)) throw new SlurmError('Batch job submission failed: Requested node configuration is not available');
  const timeLimit = options.time === undefined ? null : parseTimeLimit(options.time);
  const dependency = options.dependency === undefined || options.dependency === '' ? null : options.dependency;
  if (dependency !== null) {
    for (const dep of parseDependency(dependency)) for (const id of dep.ids) if (readJob(id) === null) throw new SlurmError('Batch job submission failed: Job dependency problem');
  }
  for (const pattern of [options.output, options.error]) {
    if (pattern !== undefined && !pattern.includes('\\') && /%\d*[^%AajNuxn]/.test(pattern.replace(/%%/g, ''))) {
      throw new SlurmError(`fake sbatch does not implement ${/%\d*[^%AajNuxn]/.exec(pattern.replace(/%%/g, ''))![0]} in an output pattern (tests/kit/fakes/slurm)`);
    }
  }

  const submitDir = process.cwd();
  const id = claimJobId();
  const user = userInfo();
  const job: JobRecord = {
    id,
    name: options.name ?? (cli.wrap !== undefined ? 'wrap' : basename(command)),
    user: user.username,
    uid: user.uid,
    partition,
    account: options.account ?? null,
    state: 'PENDING',
    reason: 'None',
    submit_time: Date.now(),
    start_time: null,
    end_time: null,
    time_limit_s: timeLimit,
    exit_code: null,
    command,
    args: operands.slice(1),
    submit_dir: submitDir,
    workdir: options.chdir === undefined ? submitDir : resolve(submitDir, options.chdir),
    output: options.output ?? 'slurm-%j.out',
    error: options.error ?? null,
    open_mode: options.openMode ?? 'truncate',
    dependency,
    ntasks: options.ntasks ?? 1,
    gpus,
    comment: options.comment ?? null,
    node: null,
    watcher_pid: null,
    pid: null,
    launch_error: null,
  };
  // slurmctld keeps the script; slurmd runs the kept copy.
  const spool = join(spoolDir, `job${id}`);
  mkdirSync(spool, { recursive: true });
  writeFileSync(join(spool, 'slurm_script'), script);
  chmodSync(join(spool, 'slurm_script'), 0o700);
  writeJob(job);
  const watcher = spawn(process.execPath, [fileURLToPath(import.meta.url), '_job', String(id)], { detached: true, stdio: 'ignore', env: process.env });
  job.watcher_pid = watcher.pid ?? null;
  watcher.unref();
  // The watcher may already have updated the record: only the pid is ours to add.
  const current = readJob(id) ?? job;
  if (current.watcher_pid === null) writeJob({ ...current, watcher_pid: job.watcher_pid });
  process.stdout.write(options.parsable ? `${id}\n` : `Submitted batch job ${id}\n`);
  if (!options.wait) return 0;
  for (;;) {
    const now = readJob(id);
    if (now && TERMINAL.includes(now.state)) return now.exit_code ?? 1;
    await sleep(POLL_MS);
  }
}

// ---------------------------------------------------------------------------------------------
// The job's watcher: scheduling, launch, time limit, cancellation, completion

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

function cancelMarker(id: number): string {
  return join(jobsDir, `${id}.cancel`);
}

/** Whether a dependency is met (true), can never be met (null), or not yet (false). */
function dependencyMet(dependency: string): boolean | null {
  let met = true;
  for (const dep of parseDependency(dependency)) {
    for (const id of dep.ids) {
      const other = readJob(id);
      if (other === null) return null;
      const finished = TERMINAL.includes(other.state);
      if (dep.type === 'after') {
        if (other.state === 'PENDING') met = false;
        continue;
      }
      if (!finished) {
        met = false;
        continue;
      }
      const ok = other.state === 'COMPLETED';
      if ((dep.type === 'afterok' && !ok) || (dep.type === 'afternotok' && ok)) return null;
    }
  }
  return met;
}

function claimNode(job: JobRecord): string | null {
  mkdirSync(nodesDir, { recursive: true });
  for (const node of nodeNames) {
    const dir = join(nodesDir, node);
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'job'), String(job.id));
      return node;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A node whose job is over (its watcher was killed before it could free the node) is free again.
      const owner = Number(readFileSync(join(dir, 'job'), 'utf8').trim() || Number.NaN);
      const holder = Number.isNaN(owner) ? null : readJob(owner);
      if (holder !== null && (TERMINAL.includes(holder.state) || !pidAlive(holder.watcher_pid)) && Date.now() - statSync(dir).mtimeMs > 1000) {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  return null;
}

function freeNode(node: string | null): void {
  if (node !== null) rmSync(join(nodesDir, node), { recursive: true, force: true });
}

/** slurmstepd's time stamp in its messages: 2026-12-02T03:04:05, local time. */
function stamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** An --output/--error pattern for this job (sbatch(1), "filename pattern"). */
function expandPattern(pattern: string, job: JobRecord, node: string): string {
  if (pattern.includes('\\')) return pattern.replace(/\\/g, '');
  return pattern.replace(/%(\d*)([%AajNuxn])/g, (_, width: string, type: string) => {
    const pad = (value: string) => (width === '' ? value : value.padStart(Number(width), '0'));
    switch (type) {
      case '%':
        return '%';
      case 'A':
      case 'j':
        return pad(String(job.id));
      case 'a':
        return NO_ARRAY_TASK;
      case 'N':
        return node;
      case 'n':
        return pad('0');
      case 'u':
        return job.user;
      default:
        return job.name;
    }
  });
}

function jobEnvironment(job: JobRecord, node: string, cwd: string): NodeJS.ProcessEnv {
  const cpusOnNode = String(cpus().length);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ENVIRONMENT: 'BATCH',
    SLURM_JOB_ID: String(job.id),
    SLURM_JOBID: String(job.id),
    SLURM_JOB_NAME: job.name,
    SLURM_JOB_PARTITION: job.partition,
    SLURM_JOB_USER: job.user,
    SLURM_JOB_UID: String(job.uid),
    SLURM_SUBMIT_DIR: job.submit_dir,
    SLURM_SUBMIT_HOST: hostname(),
    SLURM_CLUSTER_NAME: clusterName,
    SLURM_JOB_NODELIST: node,
    SLURM_NODELIST: node,
    SLURMD_NODENAME: node,
    SLURM_JOB_NUM_NODES: '1',
    SLURM_NNODES: '1',
    SLURM_NODEID: '0',
    SLURM_NTASKS: String(job.ntasks),
    SLURM_NPROCS: String(job.ntasks),
    SLURM_TASKS_PER_NODE: String(job.ntasks),
    SLURM_CPUS_ON_NODE: cpusOnNode,
    SLURM_JOB_CPUS_PER_NODE: cpusOnNode,
    SLURM_PROCID: '0',
    SLURM_LOCALID: '0',
    SLURM_GTIDS: '0',
    SLURM_PRIO_PROCESS: '0',
    PWD: cwd,
  };
  for (const stale of Object.keys(env)) if (/^SLURM_(ARRAY_|JOB_GPUS$|GPUS_ON_NODE$|JOB_ACCOUNT$|JOB_DEPENDENCY$)/.test(stale)) delete env[stale];
  if (job.account !== null) env['SLURM_JOB_ACCOUNT'] = job.account;
  if (job.dependency !== null) env['SLURM_JOB_DEPENDENCY'] = job.dependency;
  if (job.gpus > 0) {
    const ids = Array.from({ length: job.gpus }, (_, i) => String(i)).join(',');
    env['SLURM_JOB_GPUS'] = ids;
    env['SLURM_GPUS_ON_NODE'] = String(job.gpus);
    env['CUDA_VISIBLE_DEVICES'] = ids;
  }
  return env;
}

function openOutput(path: string, mode: JobRecord['open_mode']): number {
  return openSync(path, mode === 'append' ? 'a' : 'w');
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

async function watchJob(id: number): Promise<void> {
  let job = readJob(id);
  if (job === null) return;
  const update = (edit: Partial<JobRecord>): void => {
    job = { ...job!, ...edit, watcher_pid: process.pid };
    writeJob(job);
  };
  update({});
  // Pending: dependencies, then first in first out over the nodes.
  let node: string | null = null;
  while (node === null) {
    if (existsSync(cancelMarker(id))) {
      update({ state: 'CANCELLED', reason: 'None', end_time: Date.now(), exit_code: 0 });
      return;
    }
    const met = job.dependency === null ? true : dependencyMet(job.dependency);
    if (met !== true) {
      const reason = met === null ? 'DependencyNeverSatisfied' : 'Dependency';
      if (job.reason !== reason) update({ reason });
      await sleep(POLL_MS);
      continue;
    }
    const ahead = allJobs().some((other) => other.id < id && other.state === 'PENDING' && (other.reason === 'Resources' || other.reason === 'Priority'));
    if (!ahead) node = claimNode(job);
    if (node === null) {
      const reason = ahead ? 'Priority' : 'Resources';
      if (job.reason !== reason) update({ reason });
      await sleep(POLL_MS);
    }
  }

  const start = Date.now();
  let cwd = job.workdir;
  let chdirNote: string | null = null;
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    chdirNote = `slurmstepd: error: couldn't chdir to \`${cwd}': No such file or directory: going to /tmp instead\n`;
    cwd = '/tmp';
  }
  const outPath = resolve(cwd, expandPattern(job.output, job, node));
  const errPath = job.error === null ? null : resolve(cwd, expandPattern(job.error, job, node));
  let outFd: number;
  let errFd: number;
  try {
    outFd = openOutput(outPath, job.open_mode);
    errFd = errPath === null ? outFd : openOutput(errPath, job.open_mode);
  } catch (error) {
    update({ state: 'FAILED', reason: 'JobLaunchFailure', start_time: start, end_time: Date.now(), exit_code: 1, node, launch_error: `could not open output file ${outPath}${errPath ? ` or ${errPath}` : ''}: ${(error as Error).message}` });
    freeNode(node);
    return;
  }
  if (chdirNote !== null) writeSync(errFd, chdirNote);
  const scriptPath = join(spoolDir, `job${id}`, 'slurm_script');
  const child = spawn(scriptPath, job.args, { cwd, env: jobEnvironment(job, node, cwd), stdio: ['ignore', outFd, errFd], detached: true });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((done) => {
    child.on('exit', (code, signal) => done({ code, signal }));
    child.on('error', (error) => done({ code: null, signal: null, error }));
  });
  const pid = child.pid ?? null;
  update({ state: 'RUNNING', reason: 'None', start_time: start, node, pid });

  let ending: 'TIMEOUT' | 'CANCELLED' | null = null;
  const stop = (why: 'TIMEOUT' | 'CANCELLED'): void => {
    if (ending !== null || pid === null) return;
    ending = why;
    writeSync(errFd, `slurmstepd: error: *** JOB ${id} ON ${node} CANCELLED AT ${stamp(Date.now())}${why === 'TIMEOUT' ? ' DUE TO TIME LIMIT' : ''} ***\n`);
    killGroup(pid, 'SIGTERM');
    setTimeout(() => killGroup(pid, 'SIGKILL'), killWaitMs).unref();
  };
  const limit = job.time_limit_s === null ? null : setTimeout(() => stop('TIMEOUT'), job.time_limit_s * 1000);
  const cancelWatch = setInterval(() => {
    if (existsSync(cancelMarker(id))) stop('CANCELLED');
  }, POLL_MS);
  const outcome = await exited;
  if (limit !== null) clearTimeout(limit);
  clearInterval(cancelWatch);
  // The batch script is over: what it left running goes with the job's cgroup.
  if (pid !== null) killGroup(pid, 'SIGKILL');
  closeSync(outFd);
  if (errFd !== outFd) closeSync(errFd);
  const signals: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  const exitCode = outcome.code ?? (outcome.signal ? 128 + (signals[outcome.signal] ?? 0) : 1);
  if (outcome.error) {
    update({ state: 'FAILED', reason: 'JobLaunchFailure', end_time: Date.now(), exit_code: 1, launch_error: outcome.error.message });
  } else if (ending !== null) {
    update({ state: ending, reason: ending === 'TIMEOUT' ? 'TimeLimit' : 'None', end_time: Date.now(), exit_code: exitCode });
  } else {
    update({ state: exitCode === 0 ? 'COMPLETED' : 'FAILED', reason: exitCode === 0 ? 'None' : 'NonZeroExitCode', end_time: Date.now(), exit_code: exitCode });
  }
  freeNode(node);
}

// ---------------------------------------------------------------------------------------------
// squeue

/** print.c's _print_secs. */
function seconds(total: number): string {
  if (total < 0 || total > 365 * 24 * 3600) return 'INVALID';
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const h = Math.floor(total / 3600) % 24;
  const d = Math.floor(total / 86400);
  const two = (n: number) => String(n).padStart(2, '0');
  if (d > 0) return `${d}-${two(h)}:${two(m)}:${two(s)}`;
  if (h > 0) return `${h}:${two(m)}:${two(s)}`;
  return `${m}:${two(s)}`;
}

function timeStamp(ms: number | null): string {
  return ms === null ? 'N/A' : stamp(ms);
}

const STATE_NAMES: Record<string, JobState> = Object.fromEntries(
  (Object.keys(COMPACT) as JobState[]).flatMap((state) => [
    [state, state],
    [COMPACT[state], state],
  ]),
);

interface Field {
  readonly header: string;
  readonly value: (job: JobRecord, now: number) => string;
}

const FIELDS: Record<string, Field> = {
  i: { header: 'JOBID', value: (j) => String(j.id) },
  A: { header: 'JOBID', value: (j) => String(j.id) },
  F: { header: 'ARRAY_JOB_ID', value: (j) => String(j.id) },
  K: { header: 'ARRAY_TASK_ID', value: () => 'N/A' },
  j: { header: 'NAME', value: (j) => j.name },
  u: { header: 'USER', value: (j) => j.user },
  U: { header: 'UID', value: (j) => String(j.uid) },
  t: { header: 'ST', value: (j) => COMPACT[j.state] },
  T: { header: 'STATE', value: (j) => j.state },
  P: { header: 'PARTITION', value: (j) => j.partition },
  a: { header: 'ACCOUNT', value: (j) => j.account ?? '(null)' },
  M: { header: 'TIME', value: (j, now) => (j.start_time === null ? '0:00' : seconds(Math.floor(((j.end_time ?? now) - j.start_time) / 1000))) },
  l: { header: 'TIME_LIMIT', value: (j) => (j.time_limit_s === null ? 'UNLIMITED' : seconds(j.time_limit_s)) },
  L: { header: 'TIME_LEFT', value: (j, now) => (j.time_limit_s === null ? 'UNLIMITED' : seconds(Math.max(0, j.time_limit_s - (j.start_time === null ? 0 : Math.floor(((j.end_time ?? now) - j.start_time) / 1000))))) },
  D: { header: 'NODES', value: () => '1' },
  N: { header: 'NODELIST', value: (j) => j.node ?? '' },
  R: {
    header: 'NODELIST(REASON)',
    value: (j) => (j.state === 'PENDING' || j.state === 'FAILED' || j.state === 'TIMEOUT' || (j.state === 'CANCELLED' && j.node === null) ? `(${j.reason})` : (j.node ?? '')),
  },
  r: { header: 'REASON', value: (j) => j.reason },
  Z: { header: 'WORK_DIR', value: (j) => j.workdir },
  o: { header: 'COMMAND', value: (j) => j.command },
  V: { header: 'SUBMIT_TIME', value: (j) => timeStamp(j.submit_time) },
  S: { header: 'START_TIME', value: (j) => timeStamp(j.start_time) },
  e: { header: 'END_TIME', value: (j) => timeStamp(j.end_time) },
  E: { header: 'DEPENDENCY', value: (j) => j.dependency ?? '(null)' },
  k: { header: 'COMMENT', value: (j) => j.comment ?? '(null)' },
};

/** print.c's _print_str: a width pads (left-justified unless "."), and cuts what is longer. */
function fit(text: string, width: number | null, right: boolean): string {
  if (width === null) return text;
  const cut = text.slice(0, width);
  return right ? cut.padStart(width) : cut.padEnd(width);
}

type FormatPart = string | { readonly field: Field; readonly width: number | null; readonly right: boolean };

function parseFormat(format: string): FormatPart[] {
  const parts: FormatPart[] = [];
  const re = /%(\.)?(\d+)?([A-Za-z])/g;
  let last = 0;
  for (let m = re.exec(format); m !== null; m = re.exec(format)) {
    if (m.index > last) parts.push(format.slice(last, m.index));
    const field = FIELDS[m[3]!];
    if (!field) throw new SlurmError(`fake squeue does not implement the format field %${m[3]} (tests/kit/fakes/slurm)`);
    parts.push({ field, width: m[2] === undefined ? null : Number(m[2]), right: m[1] === '.' });
    last = re.lastIndex;
  }
  if (last < format.length) parts.push(format.slice(last));
  return parts;
}

interface SqueueQuery {
  noHeader: boolean;
  long: boolean;
  jobFlag: boolean;
  jobs: number[] | null;
  users: string[] | null;
  names: string[] | null;
  partitions: string[] | null;
  states: JobState[] | 'all' | null;
  format: string | null;
}

function squeue(argv: readonly string[]): number {
  const q: SqueueQuery = { noHeader: false, long: false, jobFlag: false, jobs: null, users: null, names: null, partitions: null, states: null, format: null };
  const list = (value: string) => value.split(',').filter((v) => v !== '');
  const valued: Record<string, (value: string) => void> = {
    j: (v) => {
      q.jobFlag = true;
      q.jobs = list(v).map((id) => (/^\d+$/.test(id) ? Number(id) : Number.NaN));
    },
    u: (v) => void (q.users = list(v)),
    n: (v) => void (q.names = list(v)),
    p: (v) => void (q.partitions = list(v)),
    t: (v) => {
      q.states =
        v.toLowerCase() === 'all'
          ? 'all'
          : list(v).map((s) => {
              const state = STATE_NAMES[s.toUpperCase()];
              if (!state) throw new SlurmError(`Invalid job state specified: ${s}`);
              return state;
            });
    },
    o: (v) => void (q.format = v),
  };
  const longNames: Record<string, string> = { jobs: 'j', user: 'u', users: 'u', name: 'n', partition: 'p', partitions: 'p', states: 't', format: 'o' };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '-h' || word === '--noheader') q.noHeader = true;
    else if (word === '-l' || word === '--long') q.long = true;
    else if (word === '-a' || word === '--all' || word === '-r' || word === '--array') continue;
    else if (word === '--me') q.users = [userInfo().username];
    else if (word === '-j' || word === '--jobs') q.jobFlag = true;
    else if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const key = longNames[eq < 0 ? word.slice(2) : word.slice(2, eq)];
      if (!key) throw new SlurmError(`unrecognized option '${word}'\nTry "squeue --help" for more information`);
      const value = eq < 0 ? argv[++i] : word.slice(eq + 1);
      if (value === undefined) throw new SlurmError(`option '${word}' requires an argument`);
      valued[key]!(value);
    } else if (word.startsWith('-') && word.length > 1) {
      const key = word[1]!;
      if (!valued[key]) throw new SlurmError(`invalid option -- '${key}'\nTry "squeue --help" for more information`);
      const value = word.length > 2 ? word.slice(2) : argv[++i];
      if (value === undefined) throw new SlurmError(`option requires an argument -- '${key}'`);
      valued[key]!(value);
    } else rest.push(word);
  }
  // -j's argument is optional: "-j 1008" takes the next operand (opts.c).
  if (q.jobFlag && q.jobs === null && rest.length > 0) valued['j']!(rest.shift()!);
  if (rest.length > 0) throw new SlurmError(`Unrecognized option: ${rest[0]}`);
  if (q.long && q.format !== null) throw new SlurmError('Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.');
  const format = q.long ? '%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R' : (q.format ?? process.env['SQUEUE_FORMAT'] ?? '%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R');
  const { jobs, users, names, partitions: parts, states } = q;
  const all = allJobs();
  if (jobs !== null && jobs.length === 1 && !all.some((j) => j.id === jobs[0])) {
    process.stderr.write('slurm_load_jobs error: Invalid job id specified\n');
    return 1;
  }
  const shown = all.filter((j) => {
    if (jobs !== null && !jobs.includes(j.id)) return false;
    if (states === null) {
      if (j.state !== 'PENDING' && j.state !== 'RUNNING') return false;
    } else if (states !== 'all' && !states.includes(j.state)) return false;
    if (users !== null && !users.some((u) => u === j.user || u === String(j.uid))) return false;
    if (names !== null && !names.some((n) => n.toLowerCase() === j.name.toLowerCase())) return false;
    if (parts !== null && !parts.includes(j.partition)) return false;
    return true;
  });
  shown.sort((a, b) => (a.partition < b.partition ? -1 : a.partition > b.partition ? 1 : STATE_ORDER[a.state] - STATE_ORDER[b.state] || a.id - b.id));
  const layout = parseFormat(format);
  const render = (value: (f: Field) => string): string => layout.map((p) => (typeof p === 'string' ? p : fit(value(p.field), p.width, p.right))).join('');
  const now = Date.now();
  const lines = [...(q.noHeader ? [] : [render((f) => f.header)]), ...shown.map((j) => render((f) => f.value(j, now)))];
  process.stdout.write(lines.map((l) => `${l}\n`).join(''));
  return 0;
}

// ---------------------------------------------------------------------------------------------
// scancel

function scancel(argv: readonly string[]): number {
  const ids: number[] = [];
  let name: string | null = null;
  let user: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '-n' || word === '--name' || word === '--jobname') name = argv[++i] ?? null;
    else if (word.startsWith('--name=') || word.startsWith('--jobname=')) name = word.slice(word.indexOf('=') + 1);
    else if (word === '-u' || word === '--user') user = argv[++i] ?? null;
    else if (word.startsWith('--user=')) user = word.slice(7);
    else if (word === '--me') user = userInfo().username;
    else if (/^\d+$/.test(word)) ids.push(Number(word));
    else throw new SlurmError(`fake scancel does not implement ${word} (tests/kit/fakes/slurm)`);
  }
  let code = 0;
  const targets =
    ids.length > 0
      ? ids
      : allJobs()
          .filter((j) => (name === null || j.name === name) && (user === null || j.user === user) && !TERMINAL.includes(j.state))
          .map((j) => j.id);
  if (ids.length === 0 && name === null && user === null) throw new SlurmError('No job identification provided');
  for (const id of targets) {
    const job = readJob(id);
    if (job === null) {
      process.stderr.write(`scancel: error: Kill job error on job id ${id}: Invalid job id specified\n`);
      code = 1;
      continue;
    }
    if (TERMINAL.includes(job.state)) {
      process.stderr.write(`scancel: error: Kill job error on job id ${id}: Job/step already completing or completed\n`);
      code = 1;
      continue;
    }
    writeFileSync(cancelMarker(id), '');
  }
  return code;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const [command, ...argv] = process.argv.slice(2);
  try {
    if (command === 'sbatch') return await sbatch(argv);
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
