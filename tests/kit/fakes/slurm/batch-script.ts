/**
 * sbatch's reading of a submission: the batch script's checks, its #SBATCH header, and the options
 * servebench's scripts pass (harness/pipeline/plan/slurm.ts writes them; fake-slurm.ts's header
 * lists them with the SLURM documentation each follows). Anything else SLURM accepts is refused
 * through notImplemented, so tests/pipeline/slurm-fake.test.ts fails on a new option in the plan
 * until this file learns it.
 */
import { notImplemented, SlurmError } from './refusal.ts';

export interface SbatchOptions {
  name?: string;
  partition?: string;
  account?: string;
  chdir?: string;
  ntasks?: number;
  /** GPUs from --gres=gpu[:type]:N. */
  gpus?: number;
  /** Seconds; null: no limit (--time=0). */
  timeLimitS?: number | null;
  output?: string;
  parsable?: boolean;
}

interface OptionSpec {
  /** No value: a flag. */
  readonly flag?: boolean;
  readonly set: (options: SbatchOptions, value: string) => void;
}

/** sbatch(1) OPT_time: of its six forms, the two the plan writes (hours:minutes:seconds, days-hours:minutes:seconds). */
export function parseTimeLimit(text: string): number | null {
  const clock = /^(?:(\d+)-)?(\d+):(\d+):(\d+)$/.exec(text);
  if (clock === null) return notImplemented(`sbatch --time=${text} (only [days-]hours:minutes:seconds)`);
  const [days, hours, minutes, seconds] = clock.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number];
  const total = ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
  // "A time limit of zero requests that no time limit be imposed."
  return total === 0 ? null : total;
}

/** sbatch(1) OPT_gres as the plan writes it: gpu:N or gpu:<type>:N (one generic resource). */
function gresGpus(value: string): number {
  const match = /^gpu:(?:[A-Za-z0-9_.-]+:)?(\d+)$/.exec(value);
  if (match === null) return notImplemented(`sbatch --gres=${value} (only gpu:N and gpu:<type>:N)`);
  return Number(match[1]);
}

function positiveInt(option: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new SlurmError(`Invalid numeric value "${value}" for ${option}.`);
  return Number(value);
}

/** sbatch(1) "filename pattern": of its replacement symbols, %x (job name), %j (job id) and %%. */
function outputPattern(value: string): string {
  if (value.includes('\\')) notImplemented('a backslash in an --output pattern');
  const other = /%(?!%|x|j)\d*./.exec(value.replace(/%%/g, ''));
  if (other !== null) notImplemented(`${other[0]} in an --output pattern (only %x, %j and %%)`);
  return value;
}

/** The kept options, by long name (the plan writes every option in its long form). */
const OPTIONS: Readonly<Record<string, OptionSpec>> = {
  'job-name': { set: (o, v) => void (o.name = v) },
  partition: { set: (o, v) => void (o.partition = v) },
  account: { set: (o, v) => void (o.account = v) },
  chdir: { set: (o, v) => void (o.chdir = v) },
  nodes: { set: (_, v) => void (v === '1' || notImplemented(`sbatch --nodes=${v} (one node per job)`)) },
  ntasks: { set: (o, v) => void (o.ntasks = positiveInt('--ntasks', v)) },
  gres: { set: (o, v) => void (o.gpus = gresGpus(v)) },
  time: { set: (o, v) => void (o.timeLimitS = parseTimeLimit(v)) },
  output: { set: (o, v) => void (o.output = outputPattern(v)) },
  parsable: { flag: true, set: (o) => void (o.parsable = true) },
};

/** The long names of the options the fake implements (the test lists what the plan writes beside them). */
export const IMPLEMENTED_OPTIONS: readonly string[] = Object.keys(OPTIONS);

/**
 * getopt_long over `words` (`--name=value` or `--name value`), applied to `options`; returns the
 * index of the first operand (the script). Directives take options only.
 */
export function parseSbatchArgs(words: readonly string[], options: SbatchOptions, where: 'command line' | 'directive'): number {
  let i = 0;
  while (i < words.length) {
    const word = words[i]!;
    if (word === '--') return i + 1;
    if (!word.startsWith('-') || word === '-') {
      if (where === 'command line') return i;
      throw new SlurmError(`Invalid directive argument: ${word}`);
    }
    const eq = word.indexOf('=');
    const long = word.startsWith('--') ? (eq < 0 ? word.slice(2) : word.slice(2, eq)) : null;
    const spec = long === null ? undefined : OPTIONS[long];
    if (spec === undefined) return notImplemented(`sbatch option ${eq < 0 ? word : word.slice(0, eq)}`);
    let value: string | undefined = eq < 0 ? undefined : word.slice(eq + 1);
    i += 1;
    if (spec.flag) {
      if (value !== undefined) throw new SlurmError(`option '--${long}' doesn't allow an argument`);
      spec.set(options, '');
      continue;
    }
    if (value === undefined) {
      if (i >= words.length) throw new SlurmError(`option '--${long}' requires an argument`);
      value = words[i++]!;
    }
    spec.set(options, value);
  }
  return i;
}

/**
 * The words of the script's #SBATCH lines: read from the second line "once the first non-comment
 * non-whitespace line has been reached" no more (sbatch(1) DESCRIPTION). A directive's words are
 * split at whitespace, and an unescaped # ends it; the plan's values are plain words (the fleet
 * schema), so quoting and escapes inside a directive are not implemented.
 */
export function directiveWords(script: string): string[] {
  if (!script.startsWith('#!')) {
    throw new SlurmError('This does not look like a batch script.  The first\nsbatch: error: line must start with #! followed by the path to an interpreter.\nsbatch: error: For instance: #!/bin/sh');
  }
  if (script.includes('\r\n')) throw new SlurmError('Batch script contains DOS line breaks (\\r\\n)\nsbatch: error: instead of expected UNIX line breaks (\\n).');
  const words: string[] = [];
  for (const line of script.split('\n').slice(1)) {
    const directive = /^#SBATCH(\s.*)?$/.exec(line);
    if (directive !== null) {
      const text = (directive[1] ?? '').split('#')[0]!;
      if (/["'\\]/.test(text)) notImplemented(`quotes or backslashes in an #SBATCH line (${line})`);
      words.push(...text.split(/\s+/).filter((w) => w !== ''));
      continue;
    }
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    break;
  }
  return words;
}

/** The options a batch script's header sets. */
export function readBatchScript(script: string): SbatchOptions {
  const options: SbatchOptions = {};
  parseSbatchArgs(directiveWords(script), options, 'directive');
  return options;
}

/** An --output pattern for a job (the default slurm-%j.out is sbatch's). */
export function expandOutput(pattern: string, job: { readonly id: number; readonly name: string }): string {
  return pattern.replace(/%([%xj])/g, (_, type: string) => (type === '%' ? '%' : type === 'j' ? String(job.id) : job.name));
}
