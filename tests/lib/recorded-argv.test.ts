/**
 * A result's recorded command line read back by servebench's own option tables: every shipped
 * option of `run` and `load` is read with a value of its type (and servebench's real parser takes
 * the same argv), a value of the wrong type, an unknown flag, a positional, a foreign program or
 * subcommand is one problem naming the argument. The argvs here are SYNTHETIC.
 */
import { describe, expect, it } from 'vitest';
import { LOAD_OPTIONS, RUN_OPTIONS } from '../../harness/contract/command-options.ts';
import { parseCommandArgs, type CommandSpec, type OptionSpec } from '../../harness/lib/cli/options.ts';
import { readRecordedArgv } from '../../harness/lib/cli/recorded-argv.ts';
import { runCommand } from '../../harness/measure/run/command.ts';
import { loadSpec } from '../../harness/measure/load/load-options.ts';

const COMMANDS: Array<[string, readonly OptionSpec[], CommandSpec]> = [['run', RUN_OPTIONS, runCommand.spec], ['load', LOAD_OPTIONS, loadSpec]];

/** A value of the option's type, as a user would type it. */
function goodValue(spec: OptionSpec): string | null {
  if (spec.value === undefined) return null;
  switch (spec.type) {
    case 'integer': return '4';
    case 'number': return '0.5';
    case 'integer-list': return '1,4,16';
    case 'number-list': return '2,inf';
    case 'json-object': return '{"top_k": 1, "note": "it\'s"}';
    case undefined: return 'text with spaces: and $(no) `expansion`';
  }
}

function problemOf(argv: readonly string[], command = 'run', options: readonly OptionSpec[] = RUN_OPTIONS) {
  const read = readRecordedArgv(argv, command, options);
  if (read.ok) throw new Error(`read ${JSON.stringify(argv)}`);
  return read.problem;
}

describe('the option tables are the commands\' own', () => {
  it('run and load build their parser and --help from the contract\'s tables', () => {
    expect(runCommand.spec.options).toBe(RUN_OPTIONS);
    expect(loadSpec.options).toBe(LOAD_OPTIONS);
  });

  it('every numeric option has a numeric type (the table carries what validate checks)', () => {
    for (const spec of [...RUN_OPTIONS, ...LOAD_OPTIONS]) {
      if (spec.value === 'N' || spec.value === 'S' || spec.value === 'F' || spec.value === 'C' || spec.value === 'B') expect(spec.type, spec.name).toMatch(/integer|number/);
      if (spec.value === undefined) expect(spec.type, spec.name).toBeUndefined();
    }
  });
});

describe('readRecordedArgv', () => {
  for (const [command, options, spec] of COMMANDS) {
    it(`reads every option of ${command} with a value of its type, in both forms, as servebench's parser does`, () => {
      for (const option of options) {
        const value = goodValue(option);
        const flag = `--${option.name}`;
        for (const args of value === null ? [[flag]] : [[flag, value], [`${flag}=${value}`]]) {
          const read = readRecordedArgv(['servebench', command, ...args], command, options);
          expect(read, `${command} ${args.join(' ')}`).toEqual({ ok: true, parsed: { command, options: [{ spec: option, value }] } });
          // The real parser takes the same argv and sees the same value.
          expect(parseCommandArgs(spec, args)[option.name], args.join(' ')).toEqual(value === null ? true : option.multiple ? [value] : value);
        }
      }
    });

    it(`refuses a value of the wrong type for every typed option of ${command}, naming the argument`, () => {
      for (const option of options.filter((o) => o.type !== undefined)) {
        const bad = option.type === 'json-object' ? '[1,2]' : option.type?.endsWith('list') ? '1,,2' : 'many';
        const problem = problemOf(['servebench', command, '--model', 'm', `--${option.name}`, bad], command, options);
        expect(problem.index, option.name).toBe(5);
        expect(problem.message).toMatch(new RegExp(`^--${option.name}: ".*" (is not|has)`));
      }
    });
  }

  it('keeps the order of the recorded flags, and a flag given twice twice', () => {
    const read = readRecordedArgv(['servebench', 'run', '--engine', 'vllm', '--concurrency', '1', '--no-progress', '--concurrency=2'], 'run', RUN_OPTIONS);
    expect(read.ok && read.parsed.options.map((o) => [o.spec.name, o.value])).toEqual([['engine', 'vllm'], ['concurrency', '1'], ['no-progress', null], ['concurrency', '2']]);
  });

  it('refuses the `npx --yes --package=… -- servebench run` attack at its first argument', () => {
    const attack = ['--yes', '--package=evil-package', '--', 'servebench', 'run', '--engine', 'vllm', '--model', 'm', '--workload', 'chat'];
    expect(problemOf(attack)).toEqual({ index: 0, message: 'the command line starts with "--yes", not servebench', fix: expect.stringContaining('["servebench", "run"') });
  });

  it('refuses a foreign program, a missing or other subcommand, and an empty command line', () => {
    expect(problemOf(['npx', 'servebench', 'run']).index).toBe(0);
    expect(problemOf(['node', 'harness/cli.ts', 'run']).index).toBe(0);
    expect(problemOf([]).message).toBe('the command line is empty');
    expect(problemOf(['servebench']).message).toMatch(/missing its subcommand/);
    expect(problemOf(['servebench', 'load', '--endpoint', 'http://127.0.0.1:1']).message).toMatch(/^"load" is not the command that writes this result \(servebench run\)/);
    expect(problemOf(['servebench', 'validate']).index).toBe(1);
  });

  it('refuses what servebench\'s own parser refuses: unknown flags, positionals, a switch with a value, a dash value apart, a missing value', () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['--engine', 'vllm', '--yes'], 4, /^"--yes" is not an option of servebench run$/],
      [['--engine', 'vllm', '--package=evil'], 4, /"--package" is not an option/],
      [['--engine', 'vllm', 'extra'], 4, /"extra" is not a flag; servebench run takes no positional arguments/],
      [['--', 'servebench', 'run'], 2, /"--" is not a flag/],
      [['-e', 'vllm'], 2, /"-e" is not a flag/],
      [['--no-progress=1'], 2, /--no-progress is a switch and takes no value/],
      [['--served-name', '-x'], 3, /the value of --served-name starts with "-"/],
      [['--engine'], 2, /--engine is missing its value \(NAME\)/],
    ];
    for (const [args, index, message] of cases) {
      const problem = problemOf(['servebench', 'run', ...args]);
      expect([problem.index, problem.message], args.join(' ')).toEqual([index, expect.stringMatching(message)]);
      expect(() => parseCommandArgs(runCommand.spec, args), args.join(' ')).toThrow();
    }
    // --help prints help and writes no result: it is in no recorded command line.
    expect(problemOf(['servebench', 'run', '--help']).message).toBe('"--help" is not an option of servebench run');
    // The inline form carries a value that starts with a dash, for both parsers.
    expect(readRecordedArgv(['servebench', 'run', '--served-name=-x'], 'run', RUN_OPTIONS).ok).toBe(true);
    expect(parseCommandArgs(runCommand.spec, ['--served-name=-x'])['served-name']).toBe('-x');
  });

  it('takes a redacted secret as a value of any type, also inside --extra-body', () => {
    for (const args of [['--timeout', '<redacted>'], ['--extra-body', '{"api_key":"<redacted>"}'], ['--extra-body', '{"api_key": <redacted>, "x": 1}'], ['--model', '<redacted>']]) {
      expect(readRecordedArgv(['servebench', 'run', ...args], 'run', RUN_OPTIONS).ok, args.join(' ')).toBe(true);
    }
    expect(problemOf(['servebench', 'run', '--extra-body', '{"a": <secret>}']).message).toMatch(/--extra-body: ".*" is not valid JSON/);
  });

  it('names each problem with its fix', () => {
    const usage = 'record the servebench command line as run: ["servebench", "run", "--flag", "value", …]';
    const help = 'see `servebench run --help` for its options';
    const cases: Array<[string[], { index: number; message: string; fix: string }]> = [
      [['servebench', 'validate'], { index: 1, message: '"validate" is not the command that writes this result (servebench run)', fix: usage }],
      [['servebench', 'run', 'extra'], { index: 2, message: '"extra" is not a flag; servebench run takes no positional arguments', fix: usage }],
      [['servebench', 'run', '--yes'], { index: 2, message: '"--yes" is not an option of servebench run', fix: help }],
      [['servebench', 'run', '--no-progress=1'], { index: 2, message: '--no-progress is a switch and takes no value', fix: 'write --no-progress alone' }],
      [['servebench', 'run', '--engine'], { index: 2, message: '--engine is missing its value (NAME)', fix: 'write --engine NAME' }],
      [['servebench', 'run', '--served-name', '-x'], { index: 3, message: 'the value of --served-name starts with "-": servebench takes it only as --served-name=VALUE', fix: 'write --served-name=VALUE' }],
      // The value's own index: that is the argument to correct.
      [['servebench', 'run', '--timeout', 'soon'], { index: 3, message: '--timeout: "soon" is not a number', fix: '--timeout takes S; see `servebench run --help`' }],
    ];
    for (const [argv, problem] of cases) expect(problemOf(argv), argv.join(' ')).toEqual(problem);
  });

  it('quotes at most 60 characters of what it names', () => {
    const flag = (length: number) => `--${'x'.repeat(length - 2)}`;
    expect(problemOf(['servebench', 'run', flag(60)]).message).toBe(`"${flag(60)}" is not an option of servebench run`);
    expect(problemOf(['servebench', 'run', flag(61)]).message).toBe(`"${flag(60)}\\u2026" is not an option of servebench run`);
  });

  it('quotes what it names so that a problem line displays as what it is', () => {
    expect(problemOf(['servebench', 'run', '--x\u202Egpj']).message).toBe('"--x\\u202egpj" is not an option of servebench run');
    expect(problemOf(['\u001b[31mservebench']).message).toBe('the command line starts with "\\u001b[31mservebench", not servebench');
    // JSON escapes the control characters; the rest outside printable ASCII in four hex digits too.
    expect(problemOf(['servebench', 'run', '--caf\u00e9\u007f']).message).toBe('"--caf\\u00e9\\u007f" is not an option of servebench run');
  });
});
