/**
 * `servebench workloads list | show NAME | validate [FILES]`: what scenarios exist, what one says
 * (with its defaults filled in), and whether spec files are valid (exit status 2 if not).
 */
import { basename } from 'node:path';
import { stringify as toYaml } from 'yaml';
import type { Command } from '../cli.ts';
import { booleanOption, parseCommandLine, type CommandSpec } from '../cli/options.ts';
import { EXIT, usageError } from '../errors.ts';
import type { LengthDistribution, Workload } from '../schema/workload.ts';
import { checkSpecFile, formatProblems, listWorkloadFiles, loadWorkload } from './spec-file.ts';

const spec: CommandSpec = {
  name: 'workloads',
  summary: 'list, show and validate workload scenarios (workloads/*.yaml)',
  usage: 'servebench workloads list | show NAME | validate [FILES…] [--json]',
  options: [{ name: 'json', help: 'Machine-readable output.' }],
  epilog: 'Exit status: 0 ok, 2 an unknown scenario or an invalid spec (one line per problem: file, field, what is allowed).',
};

export function describeLength(dist: LengthDistribution): string {
  switch (dist.dist) {
    case 'fixed':
      return String(dist.tokens);
    case 'uniform':
      return `${dist.min}–${dist.max}`;
    case 'range_ratio':
      return `${dist.tokens}±${dist.ratio} (${dist.convention})`;
    case 'normal':
      return `N(${dist.mean}, ${dist.std}) in ${dist.min}–${dist.max}`;
    case 'lognormal':
      return `LogN(median ${dist.median}, σ ${dist.sigma}) in ${dist.min}–${dist.max}`;
    case 'empirical':
      return 'from dataset';
  }
}

function describeLoad(workload: Workload): string {
  const load = workload.load;
  if ('concurrency' in load) return `concurrency ${load.concurrency.join(',')}`;
  return 'trace' in load ? `trace replay ×${load.trace.time_scale}` : `rate ${load.rates.join(',')}`;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

function list(json: boolean): number {
  const workloads = listWorkloadFiles().map((file) => loadWorkload(file));
  if (json) {
    process.stdout.write(`${JSON.stringify(workloads, null, 2)}\n`);
    return EXIT.ok;
  }
  const rows = [['name', 'api', 'input', 'output', 'load', 'description']];
  for (const w of workloads) {
    const summary = w.description.split(/(?<=\.)\s/)[0]!;
    rows.push([w.name, w.api, describeLength(w.input), describeLength(w.output), describeLoad(w), summary]);
  }
  process.stdout.write(`${table(rows)}\n`);
  return EXIT.ok;
}

function validate(files: readonly string[], json: boolean): number {
  const targets = files.length > 0 ? files : listWorkloadFiles();
  const problems = targets.flatMap((file) => checkSpecFile(file).problems);
  if (json) process.stdout.write(`${JSON.stringify({ files: targets.length, problems }, null, 2)}\n`);
  else if (problems.length > 0) process.stderr.write(`${formatProblems(problems)}\n`);
  else process.stdout.write(`${targets.length} spec${targets.length === 1 ? '' : 's'} valid: ${targets.map((f) => basename(f)).join(', ')}\n`);
  return problems.length > 0 ? EXIT.usage : EXIT.ok;
}

export const workloadsCommand: Command = {
  spec,
  async run(argv) {
    const { options, positionals } = parseCommandLine(spec, argv);
    const json = booleanOption(options, 'json');
    const [action, ...rest] = positionals;
    switch (action) {
      case 'list':
        return list(json);
      case 'show': {
        if (rest.length !== 1) throw usageError('workloads show: give one scenario name, e.g. `servebench workloads show chat`');
        const workload = loadWorkload(rest[0]!);
        process.stdout.write(json ? `${JSON.stringify(workload, null, 2)}\n` : toYaml(workload));
        return EXIT.ok;
      }
      case 'validate':
        return validate(rest, json);
      default:
        throw usageError(`workloads: ${action === undefined ? 'give' : `unknown action "${action}"; use`} list, show NAME or validate [FILES]`);
    }
  },
};
