/**
 * `servebench <kind> list | show NAME | validate [FILES]` for a kind of declarative spec
 * (workloads, engines): one implementation, each kind supplies its reader and its table columns.
 */
import { basename } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { booleanOption, parseCommandLine, type CommandSpec, type Command } from '../cli/options.ts';
import { EXIT, usageError } from '../errors.ts';
import { formatProblems, type SpecProblem } from './yaml-spec.ts';

export interface SpecKind<T> {
  /** Command name, plural: "workloads", "engines". */
  readonly command: string;
  readonly summary: string;
  readonly folder: string;
  listFiles(): string[];
  check(file: string): { problems: SpecProblem[] };
  load(nameOrPath: string): T;
  /** Table columns for `list`: header and cell per spec. */
  readonly columns: ReadonlyArray<readonly [string, (spec: T) => string]>;
  /** What `show` prints after the spec (not with --json), e.g. how an engine gets what the fleet holds equal. */
  readonly showAfter?: (spec: T) => string;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

export function specCommand<T>(kind: SpecKind<T>): Command {
  const spec: CommandSpec = {
    name: kind.command,
    summary: kind.summary,
    usage: `servebench ${kind.command} list | show NAME | validate [FILES…] [--json]`,
    options: [{ name: 'json', help: 'Machine-readable output.' }],
    epilog: `Specs live in ${kind.folder}. Exit status: 0 ok, 2 an unknown name or an invalid spec (one line per problem: file, field, what is allowed).`,
  };
  return {
    spec,
    async run(argv) {
      const { options, positionals } = parseCommandLine(spec, argv);
      const json = booleanOption(options, 'json');
      const [action, ...rest] = positionals;
      switch (action) {
        case 'list': {
          const specs = kind.listFiles().map((file) => kind.load(file));
          if (json) process.stdout.write(`${JSON.stringify(specs, null, 2)}\n`);
          else process.stdout.write(`${table([kind.columns.map(([header]) => header), ...specs.map((s) => kind.columns.map(([, cell]) => cell(s)))])}\n`);
          return EXIT.ok;
        }
        case 'show': {
          if (rest.length !== 1) throw usageError(`${kind.command} show: give one name, e.g. \`servebench ${kind.command} show ${basename(kind.listFiles()[0] ?? 'NAME').replace(/\.ya?ml$/, '')}\``);
          const loaded = kind.load(rest[0]!);
          process.stdout.write(json ? `${JSON.stringify(loaded, null, 2)}\n` : `${toYaml(loaded)}${kind.showAfter ? `\n${kind.showAfter(loaded)}` : ''}`);
          return EXIT.ok;
        }
        case 'validate': {
          const targets = rest.length > 0 ? rest : kind.listFiles();
          const problems = targets.flatMap((file) => kind.check(file).problems);
          if (json) process.stdout.write(`${JSON.stringify({ files: targets.length, problems }, null, 2)}\n`);
          else if (problems.length > 0) process.stderr.write(`${formatProblems(problems)}\n`);
          else process.stdout.write(`${targets.length} spec${targets.length === 1 ? '' : 's'} valid: ${targets.map((f) => basename(f)).join(', ')}\n`);
          return problems.length > 0 ? EXIT.usage : EXIT.ok;
        }
        default:
          throw usageError(`${kind.command}: ${action === undefined ? 'give' : `unknown action "${action}"; use`} list, show NAME or validate [FILES]`);
      }
    },
  };
}
