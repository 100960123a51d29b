/**
 * One option table per command: it drives both the parser and --help, so the two cannot drift.
 * Parsing returns raw strings; each command's normalize step turns them into a typed config
 * with the helpers below, which name the flag and the fix on bad input.
 */
import { parseArgs } from 'node:util';
import { usageError } from '../errors.ts';

/**
 * What a flag's value must be read as. The command's normalize step still applies its bounds;
 * the type is what `validate` checks in a result's recorded command line, from the same table.
 * Absent: free text.
 */
export type OptionValueType = 'integer' | 'number' | 'integer-list' | 'number-list' | 'json-object';

export interface OptionSpec {
  /** Long flag name without dashes, e.g. "input-len". */
  readonly name: string;
  /** Placeholder for the value in --help (e.g. "N"); absent for boolean switches. */
  readonly value?: string;
  /** How the value reads (see OptionValueType); absent: any text. Only for options with a value. */
  readonly type?: OptionValueType;
  /**
   * The option names only the original machine's folders or terminal (an output folder, a
   * progress bar): not part of what was measured, so a Reproduce block leaves it out.
   */
  readonly machineLocal?: boolean;
  readonly help: string;
  /** Default as shown in --help and applied by the command's normalize step. */
  readonly default?: string;
  /** The flag may be given several times (values are collected in order). */
  readonly multiple?: boolean;
}

export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly options: readonly OptionSpec[];
  readonly epilog?: string;
}

/** What a command writes and reads of its process, passed in: a test hands its own instead of spying on process.stdout. */
export interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
}

export function processIo(): CommandIo {
  return { stdout: (text) => void process.stdout.write(text), stderr: (text) => void process.stderr.write(text), env: process.env };
}

/** A subcommand: its option table and what it does (harness/cli.ts dispatches to it). */
export interface Command {
  readonly spec: CommandSpec;
  /** Runs the command; resolves to the process exit code. Without `io`, the process's own. */
  run(argv: readonly string[], io?: CommandIo): Promise<number>;
}

export type RawOptions = Record<string, string | string[] | boolean | undefined>;

const HELP_OPTION: OptionSpec = { name: 'help', help: 'Show this help and exit.' };

export function parseCommandArgs(spec: CommandSpec, argv: readonly string[]): RawOptions {
  const { options, positionals } = parseCommandLine(spec, argv);
  if (positionals.length > 0) throw usageError(`${spec.name}: unexpected argument "${positionals[0]}"; see \`servebench ${spec.name} --help\``);
  return options;
}

/** Flags and positional arguments (for commands with subcommands or file lists). */
export function parseCommandLine(spec: CommandSpec, argv: readonly string[]): { options: RawOptions; positionals: string[] } {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = {};
  for (const option of [...spec.options, HELP_OPTION]) {
    options[option.name] = option.value === undefined
      ? { type: 'boolean' }
      : { type: 'string', ...(option.multiple ? { multiple: true } : {}) };
  }
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
    return { options: values as RawOptions, positionals };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw usageError(`${spec.name}: ${message.replace(/\. To specify a positional argument.*$/s, '')}; see \`servebench ${spec.name} --help\``);
  }
}

export function formatHelp(spec: CommandSpec): string {
  const rows = [...spec.options, HELP_OPTION].map((option) => {
    const flag = `--${option.name}${option.value ? ` ${option.value}` : ''}`;
    const extra = option.default !== undefined ? ` (default: ${option.default})` : '';
    return [flag, `${option.help}${extra}`] as const;
  });
  const width = Math.min(34, Math.max(...rows.map(([flag]) => flag.length)) + 2);
  const lines = rows.map(([flag, text]) =>
    flag.length + 2 > width ? `  ${flag}\n  ${' '.repeat(width)}${text}` : `  ${flag.padEnd(width)}${text}`,
  );
  return [
    `servebench ${spec.name}: ${spec.summary}`,
    '',
    `Usage: ${spec.usage}`,
    '',
    'Options:',
    ...lines,
    ...(spec.epilog ? ['', spec.epilog] : []),
    '',
  ].join('\n');
}

function defaultOf(spec: CommandSpec, name: string): string | undefined {
  return spec.options.find((option) => option.name === name)?.default;
}

/** The raw string value of a flag, falling back to the table's default. */
export function stringOption(spec: CommandSpec, raw: RawOptions, name: string): string | undefined {
  const value = raw[name];
  if (Array.isArray(value)) return value[value.length - 1];
  if (typeof value === 'string') return value;
  return defaultOf(spec, name);
}

export function listOption(raw: RawOptions, name: string): string[] {
  const value = raw[name];
  if (Array.isArray(value)) return value;
  return typeof value === 'string' ? [value] : [];
}

export function booleanOption(raw: RawOptions, name: string): boolean {
  return raw[name] === true;
}

interface NumberBounds {
  readonly min?: number;
  readonly max?: number;
  /** When true, min itself is not allowed (e.g. a rate must be > 0). */
  readonly exclusiveMin?: boolean;
}

/** The number syntax every numeric flag takes ("inf" included, bounds aside); null when `text` is not one. */
export function readNumber(text: string, integer = false): number | null {
  const trimmed = text.trim();
  const value = trimmed === 'inf' ? Number.POSITIVE_INFINITY : Number(trimmed);
  if (trimmed === '' || Number.isNaN(value) || (integer && Number.isFinite(value) && !Number.isInteger(value))) return null;
  return value;
}

/** The items of a comma-separated list ("1,4,16"); null when one is empty. */
export function readListItems(text: string): string[] | null {
  const parts = text.split(',').map((part) => part.trim());
  return parts.some((part) => part === '') ? null : parts;
}

/** Why `text` is not a value of `type`, as a phrase to follow the value ("is not an integer"); null when it is one. */
export function valueTypeProblem(type: OptionValueType, text: string): string | null {
  switch (type) {
    case 'integer':
    case 'number':
      return readNumber(text, type === 'integer') === null ? `is not ${type === 'integer' ? 'an integer' : 'a number'}` : null;
    case 'integer-list':
    case 'number-list': {
      const items = readListItems(text);
      if (items === null) return 'has an empty item (a list is e.g. 1,4,16)';
      const integer = type === 'integer-list';
      return items.every((item) => readNumber(item, integer) !== null) ? null : `has an item that is not ${integer ? 'an integer' : 'a number'}`;
    }
    case 'json-object': {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return 'is not valid JSON';
      }
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? null : 'is not a JSON object';
    }
  }
}

export function parseNumber(flag: string, text: string, bounds: NumberBounds = {}, integer = false): number {
  const value = readNumber(text, integer);
  if (value === null) throw usageError(`--${flag}: "${text}" is not ${integer ? 'an integer' : 'a number'}`);
  const { min, max, exclusiveMin } = bounds;
  if (min !== undefined && (exclusiveMin ? value <= min : value < min)) {
    throw usageError(`--${flag}: ${text} is too small; it must be ${exclusiveMin ? '>' : '≥'} ${min}`);
  }
  if (max !== undefined && value > max) {
    throw usageError(`--${flag}: ${text} is too large; it must be ≤ ${max}`);
  }
  return value;
}

export function numberOption(
  spec: CommandSpec,
  raw: RawOptions,
  name: string,
  bounds: NumberBounds = {},
  integer = false,
): number | undefined {
  const text = stringOption(spec, raw, name);
  return text === undefined ? undefined : parseNumber(name, text, bounds, integer);
}

/** A comma-separated list of numbers, e.g. "--concurrency 1,4,16". */
export function numberListOption(
  spec: CommandSpec,
  raw: RawOptions,
  name: string,
  bounds: NumberBounds = {},
  integer = false,
): number[] | undefined {
  const text = stringOption(spec, raw, name);
  if (text === undefined) return undefined;
  const parts = readListItems(text);
  if (parts === null) throw usageError(`--${name}: "${text}" has an empty item; write e.g. 1,4,16`);
  return parts.map((part) => parseNumber(name, part, bounds, integer));
}

/** "key=value,key=value" pairs, e.g. "--slo ttft_ms=2000,tpot_ms=50". */
export function keyValueOption(
  spec: CommandSpec,
  raw: RawOptions,
  name: string,
  allowedKeys: readonly string[],
): Map<string, string> {
  const text = stringOption(spec, raw, name);
  const pairs = new Map<string, string>();
  if (text === undefined || text.trim() === '') return pairs;
  for (const item of text.split(',')) {
    const eq = item.indexOf('=');
    const key = item.slice(0, eq).trim();
    if (eq < 0 || key === '') throw usageError(`--${name}: "${item}" is not key=value; allowed keys: ${allowedKeys.join(', ')}`);
    if (!allowedKeys.includes(key)) throw usageError(`--${name}: unknown key "${key}"; allowed keys: ${allowedKeys.join(', ')}`);
    pairs.set(key, item.slice(eq + 1).trim());
  }
  return pairs;
}
