/**
 * `servebench workloads list | show NAME | validate [FILES]`: what scenarios exist, what one says
 * (with its defaults filled in), and whether spec files are valid (exit status 2 if not).
 */
import type { LengthDistribution, Workload } from '../../contract/workload.ts';
import { specCommand } from '../../lib/specs/spec-command.ts';
import { checkSpecFile, listWorkloadFiles, loadWorkload } from './spec-file.ts';

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

export const workloadsCommand = specCommand<Workload>({
  command: 'workloads',
  summary: 'list, show and validate workload scenarios (workloads/*.yaml)',
  folder: 'workloads/',
  listFiles: () => listWorkloadFiles(),
  check: (file) => checkSpecFile(file),
  load: (nameOrPath) => loadWorkload(nameOrPath),
  columns: [
    ['name', (w) => w.name],
    ['api', (w) => w.api],
    ['input', (w) => describeLength(w.input)],
    ['output', (w) => describeLength(w.output)],
    ['load', describeLoad],
    ['description', (w) => w.description.split(/(?<=\.)\s/)[0]!],
  ],
});
