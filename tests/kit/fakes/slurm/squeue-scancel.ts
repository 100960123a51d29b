/**
 * The fake `squeue` and `scancel`: the queue as docs/fleet.md's wait and the tests read it
 * (`squeue`, `squeue -h -j ID,… -o %i`, `squeue -t all -j ID,… -o FORMAT`), and `scancel --me`.
 * Output follows squeue's printing code (SchedMD/slurm src/squeue/print.c); every other option or
 * format field is refused through notImplemented.
 */
import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { allJobs, cancelMarker, TERMINAL, type JobRecord, type JobState } from './jobs.ts';
import { notImplemented, SlurmError } from './refusal.ts';

/** squeue(1) OPT_format: the default format. */
const DEFAULT_FORMAT = '%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R';
const COMPACT: Record<JobState, string> = { PENDING: 'PD', RUNNING: 'R', COMPLETED: 'CD', FAILED: 'F', TIMEOUT: 'TO', CANCELLED: 'CA' };
/** squeue sorts by the state's number (slurm.h's enum job_states). */
const STATE_ORDER: Record<JobState, number> = { PENDING: 0, RUNNING: 1, COMPLETED: 3, CANCELLED: 4, FAILED: 5, TIMEOUT: 6 };

/** print.c's _print_secs: M:SS, H:MM:SS, D-HH:MM:SS. */
function elapsed(total: number): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const [s, m, h, d] = [total % 60, Math.floor(total / 60) % 60, Math.floor(total / 3600) % 24, Math.floor(total / 86400)];
  if (d > 0) return `${d}-${two(h)}:${two(m)}:${two(s)}`;
  if (h > 0) return `${h}:${two(m)}:${two(s)}`;
  return `${m}:${two(s)}`;
}

interface Field {
  readonly header: string;
  readonly value: (job: JobRecord, now: number) => string;
}

/** The format fields of the default format and of the tests' own; the rest of squeue(1)'s are not implemented. */
const FIELDS: Readonly<Record<string, Field>> = {
  i: { header: 'JOBID', value: (j) => String(j.id) },
  P: { header: 'PARTITION', value: (j) => j.partition },
  j: { header: 'NAME', value: (j) => j.name },
  u: { header: 'USER', value: (j) => j.user },
  t: { header: 'ST', value: (j) => COMPACT[j.state] },
  T: { header: 'STATE', value: (j) => j.state },
  a: { header: 'ACCOUNT', value: (j) => j.account ?? '(null)' },
  M: { header: 'TIME', value: (j, now) => (j.start_time === null ? '0:00' : elapsed(Math.floor(((j.end_time ?? now) - j.start_time) / 1000))) },
  D: { header: 'NODES', value: () => '1' },
  // A pending or failed job shows its reason in parentheses; a running or completed one its node.
  R: { header: 'NODELIST(REASON)', value: (j) => (j.state === 'PENDING' || j.state === 'FAILED' || j.state === 'TIMEOUT' || (j.state === 'CANCELLED' && j.node === null) ? `(${j.reason})` : (j.node ?? '')) },
};

type FormatPart = string | { readonly field: Field; readonly width: number | null; readonly right: boolean };

/** "%[[.]size]type": "." right-justifies; a size pads and cuts (print.c's _print_str). */
function parseFormat(format: string): FormatPart[] {
  const parts: FormatPart[] = [];
  const re = /%(\.)?(\d+)?(.)/g;
  let last = 0;
  for (let m = re.exec(format); m !== null; m = re.exec(format)) {
    if (m.index > last) parts.push(format.slice(last, m.index));
    const field = FIELDS[m[3]!] ?? notImplemented(`squeue format field %${m[3]}`);
    parts.push({ field, width: m[2] === undefined ? null : Number(m[2]), right: m[1] === '.' });
    last = re.lastIndex;
  }
  if (last < format.length) parts.push(format.slice(last));
  return parts;
}

function fit(text: string, width: number | null, right: boolean): string {
  if (width === null) return text;
  const cut = text.slice(0, width);
  return right ? cut.padStart(width) : cut.padEnd(width);
}

function refuseInputVariables(prefix: string, command: string): void {
  for (const name of Object.keys(process.env)) if (name.startsWith(prefix)) notImplemented(`${command}'s input environment variable ${name}`);
}

export function squeue(argv: readonly string[]): number {
  refuseInputVariables('SQUEUE_', 'squeue');
  let header = true;
  let ids: number[] | null = null;
  let everyState = false;
  let format = DEFAULT_FORMAT;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new SlurmError(`option requires an argument -- '${word.slice(1)}'`);
      return next;
    };
    if (word === '-h') header = false;
    // -j's list in the next word, as the wait writes it: `-j "$ids"`.
    else if (word === '-j') ids = value().split(',').filter((id) => id !== '').map((id) => (/^\d+$/.test(id) ? Number(id) : Number.NaN));
    else if (word === '-o') format = value();
    else if (word === '-t') everyState = value().toLowerCase() === 'all' || notImplemented('squeue -t with states other than all');
    else notImplemented(`squeue argument ${word}`);
  }
  const layout = parseFormat(format);
  const all = allJobs();
  // One unknown job id is an error; in a list, the unknown ones are left out.
  if (ids !== null && ids.length === 1 && !all.some((j) => j.id === ids![0])) {
    process.stderr.write('slurm_load_jobs error: Invalid job id specified\n');
    return 1;
  }
  // Without -t only pending and running jobs are listed (squeue(1) OPT_states), with -j too.
  const shown = all.filter((j) => (ids === null || ids.includes(j.id)) && (everyState || !TERMINAL.includes(j.state)));
  // The default sort "P,t,-p": partition, state, then priority (first in, first out here).
  shown.sort((a, b) => (a.partition < b.partition ? -1 : a.partition > b.partition ? 1 : STATE_ORDER[a.state] - STATE_ORDER[b.state] || a.id - b.id));
  const now = Date.now();
  const render = (value: (f: Field) => string): string => layout.map((p) => (typeof p === 'string' ? p : fit(value(p.field), p.width, p.right))).join('');
  const lines = [...(header ? [render((f) => f.header)] : []), ...shown.map((j) => render((f) => f.value(j, now)))];
  process.stdout.write(lines.map((l) => `${l}\n`).join(''));
  return 0;
}

/** scancel(1) OPT_me: every pending or running job of this user; a running one ends as job-runner.ts's stop says. */
export function scancel(argv: readonly string[]): number {
  refuseInputVariables('SCANCEL_', 'scancel');
  if (argv.length === 0) throw new SlurmError('No job identification provided');
  for (const word of argv) if (word !== '--me') notImplemented(`scancel argument ${word}`);
  const me = userInfo().username;
  for (const job of allJobs()) if (job.user === me && !TERMINAL.includes(job.state)) writeFileSync(cancelMarker(job.id), '');
  return 0;
}
