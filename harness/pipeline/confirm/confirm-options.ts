/**
 * `servebench confirm`'s option table: its own options, then the A/B design options of `ab`'s
 * table (each A/B is `servebench ab` with them; the arms' run options come from each regression's
 * recorded run, not from here). Parser and --help read this table.
 */
import type { CommandSpec, OptionSpec } from '../../lib/cli/options.ts';
import { AB_SPEC } from '../../measure/ab/ab-options.ts';

/** ab's options that shape every A/B of the run alike. --no-confirm is not among them: the confirm pass is the point. */
export const DESIGN_OPTIONS = ['effect', 'margin', 'pilot-blocks', 'blocks', 'max-blocks'] as const;

const OWN: readonly OptionSpec[] = [
  { name: 'regressions', value: 'FILE|-', help: 'The regress report to confirm: what `servebench regress --json` prints (- reads standard input).' },
  { name: 'results', value: 'DIR', help: 'The results folder regress read: each regression\'s run file there says the configuration the A/B replays (its `servebench run` command line).', default: 'results' },
  { name: 'hardware', value: 'PREFIX,…', help: 'Only the regressions measured on hardware whose label (regress\'s hardware column) starts with one of these, e.g. "cpu-" (the CPU lane) or "1x-NVIDIA H100": the ones this runner can replay; the others are left out of the output (a runner of their class confirms them). Default: every regression.' },
  { name: 'releases', value: 'V,V,…', help: 'For engines servebench lists no releases of (all but llamacpp, whose releases come from npm): the releases that lie between the ones a regression compares; each confirmed regression with releases between is bisected. Without it such engines are not bisected.' },
  { name: 'budget', value: 'DURATION', help: 'Wall budget for the whole command (90m, 6h, 1h30m): no A/B or bisection step starts that would end past it, judged by the ones so far; the regressions left are "not examined" (default: no limit).' },
  { name: 'gpu', value: 'LIST', help: 'This runner\'s GPU set, for every arm run (replaces the --gpu the regressed run recorded, which was its own runner\'s).' },
  { name: 'out', value: 'FILE', machineLocal: true, help: 'Write the confirmations JSON here, each A/B and bisection whole in FILE less .json plus .confirm/ (never overwrites; default: ./confirmations-<time>.json).' },
  { name: 'markdown', value: 'FILE', machineLocal: true, help: 'Also write the summary as Markdown to FILE (appended: a CI step summary).' },
  { name: 'json', machineLocal: true, help: 'Print the confirmations JSON instead of the summary.' },
  { name: 'no-progress', machineLocal: true, help: 'Do not print a line per arm run, build and bisection step on stderr.' },
];

export const CONFIRM_SPEC: CommandSpec = {
  name: 'confirm',
  summary: 'confirm each regression of a regress report by a paired A/B on this host (previous release against the new one), and bisect the confirmed ones',
  usage: 'servebench confirm --regressions FILE [--results DIR] [--hardware PREFIX,…] [--releases V,…] [--budget DURATION] [--out FILE] [A/B options]',
  options: [...OWN, ...AB_SPEC.options.filter((option) => (DESIGN_OPTIONS as readonly string[]).includes(option.name))],
  epilog: [
    'For each engine release pair, configuration and load point that regress found worse (docs/running.md#confirm-before-alerting): one',
    '`servebench ab` of the previous release (A) against the new one (B), with the run options the new release\'s run recorded, designed on the',
    'regressions\' first metric in the catalog; each regression of that point is judged on its runs by the same paired test. Confirmed: the',
    'verdict is "slower" (worse in the metric\'s own direction) in both passes; anything else (no change, inconclusive, faster, a failed run,',
    'not examined) is "not confirmed", and `servebench alert --confirmations` never files it. A confirmed regression with releases between the',
    'two is bisected (`servebench bisect`\'s search, starting from this A/B) within what is left of --budget.',
    'Exit status: 0 every regression examined or left out for a stated reason (budget, a metric ab cannot compare); 1 a run failed or a',
    'regression\'s configuration could not be rebuilt (the others are confirmed and written); 2 bad input; 3 the output could not be written',
    '(it went to stdout); 129, 130, 143 stopped by a signal: the server is stopped, what was measured written.',
  ].join('\n'),
};
