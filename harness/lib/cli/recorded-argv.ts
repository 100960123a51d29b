/**
 * A result's recorded command line (harness.command), read back by the option table of the command
 * that wrote it. A result is public and its command becomes a Reproduce block a reader pastes into
 * a shell, so only what servebench itself would have accepted is read: `servebench <command>`,
 * then known flags in the forms the command's parser takes, each value of its type. Anything else
 * (`npx --yes --package=… -- servebench run`, a stray positional, an unknown flag) is a problem
 * naming the argument, and there is then no parsed form to render.
 */
import { valueTypeProblem, type OptionSpec } from './options.ts';

/** One flag as read: its table entry (name, type, whether it is machine-local) and its value. */
export interface RecordedOption {
  readonly spec: OptionSpec;
  /** null for a switch. */
  readonly value: string | null;
}

export interface RecordedCommand {
  /** The subcommand, e.g. "run". */
  readonly command: string;
  /** In recorded order; a flag given twice appears twice (the command's parser keeps the last). */
  readonly options: readonly RecordedOption[];
}

export interface ArgvProblem {
  /** Index into the argv of the argument at fault (argv.length: something is missing at the end). */
  readonly index: number;
  readonly message: string;
  readonly fix: string;
}

export type ReadArgv = { readonly ok: true; readonly parsed: RecordedCommand } | { readonly ok: false; readonly problem: ArgvProblem };

/** What the recorder writes for a secret: a valid value of any type (the run took the real one). */
const REDACTED = '<redacted>';

/** Text quoted in a problem, shortened, every character outside printable ASCII as \\uXXXX: a problem line displays as what it is. */
function shown(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function typeProblem(spec: OptionSpec, value: string): string | null {
  if (spec.type === undefined || value === REDACTED) return null;
  // A JSON value with a secret inside was redacted in place: read it as if the secret were null. (In a
  // value of any other type, null is as far from a number as the mark was, and the problem quotes the value as recorded.)
  const readable = value.replaceAll(`"${REDACTED}"`, 'null').replaceAll(REDACTED, 'null');
  return valueTypeProblem(spec.type, readable);
}

/**
 * Reads `argv` as `servebench <command> [--flag[=value] | --flag value]…` against `options`, the
 * table of `command`. Stops at the first problem: after a bad argument the rest cannot be read
 * reliably (a value may be taken for a flag and the other way round).
 */
export function readRecordedArgv(argv: readonly string[], command: string, options: readonly OptionSpec[]): ReadArgv {
  const fail = (index: number, message: string, fix: string): ReadArgv => ({ ok: false, problem: { index, message, fix } });
  const usage = `record the servebench command line as run: ["servebench", "${command}", "--flag", "value", …]`;
  if (argv[0] !== 'servebench') return fail(0, argv.length === 0 ? 'the command line is empty' : `the command line starts with ${shown(argv[0]!)}, not servebench`, usage);
  if (argv[1] !== command) return fail(1, argv.length < 2 ? `servebench ${command} is missing its subcommand` : `${shown(argv[1]!)} is not the command that writes this result (servebench ${command})`, usage);
  const table = new Map(options.map((spec) => [spec.name, spec]));
  const read: RecordedOption[] = [];
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--') || arg === '--') return fail(i, `${shown(arg)} is not a flag; servebench ${command} takes no positional arguments`, usage);
    const eq = arg.indexOf('=');
    // Stryker disable next-line EqualityOperator: eq is -1 or at least 2 (the argument starts with --), never 0, so < and <= agree.
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = table.get(name);
    if (spec === undefined) return fail(i, `${shown(`--${name}`)} is not an option of servebench ${command}`, `see \`servebench ${command} --help\` for its options`);
    if (spec.value === undefined) {
      // Stryker disable next-line EqualityOperator: eq is never 0 (as above), so >= and > agree.
      if (eq >= 0) return fail(i, `--${name} is a switch and takes no value`, `write --${name} alone`);
      read.push({ spec, value: null });
      continue;
    }
    let value: string;
    // Stryker disable next-line EqualityOperator: eq is never 0 (as above), so >= and > agree.
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined) return fail(i, `--${name} is missing its value (${spec.value})`, `write --${name} ${spec.value}`);
      // The command's parser refuses a separate value that looks like a flag; so does this one.
      if (next.startsWith('-')) return fail(i + 1, `the value of --${name} starts with "-": servebench takes it only as --${name}=VALUE`, `write --${name}=VALUE`);
      value = next;
      i += 1;
    }
    const bad = typeProblem(spec, value);
    if (bad !== null) return fail(i, `--${name}: ${shown(value)} ${bad}`, `--${name} takes ${spec.value}; see \`servebench ${command} --help\``);
    read.push({ spec, value });
  }
  return { ok: true, parsed: { command, options: read } };
}
