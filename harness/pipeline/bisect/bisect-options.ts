/**
 * `servebench bisect`'s option table: its own options, then every `ab` option that a comparison
 * takes (ab's table, which holds run's per-arm options: harness/measure/ab/ab-options.ts), so each
 * comparison is the `servebench ab` those flags name. Parser and --help read this table.
 */
import type { CommandSpec, OptionSpec } from '../../lib/cli/options.ts';
import { AB_SPEC } from '../../measure/ab/ab-options.ts';

/** ab options that are bisect's to set: the arms are the releases the search visits, and the output is the bisection's. */
const NOT_FROM_AB = new Set(['a', 'b', 'allow-aa', 'out', 'json', 'no-progress']);

const BISECT_OWN_OPTIONS: readonly OptionSpec[] = [
  { name: 'good', value: 'R', help: 'The older release, before the change: a node-llama-cpp release or the llama.cpp tag (b5415) or build commit one bundles (llamacpp); a version of --releases otherwise.' },
  { name: 'bad', value: 'R', help: 'The newer release, after the change (as --good). "good" and "bad" only say older and newer: the change may be an improvement.' },
  { name: 'releases', value: 'V,V,…', help: 'The releases between --good and --bad, for an engine whose releases servebench does not list itself (every engine but llamacpp, the sim among them); ordered as detect orders versions.' },
  { name: 'budget', value: 'DURATION', help: 'Stop before a step that would end past this (judged by the comparisons so far) and report the range narrowed so far (90m, 6h, 1h30m; default: no limit).' },
  { name: 'out', value: 'FILE', machineLocal: true, help: 'Write the bisection JSON here, each comparison\'s whole A/B result in FILE less .json plus .ab/ (never overwrites; default: ./bisect-<engine>-<good>-<bad>-<time>.json). `servebench file-comparison FILE` files it with its A/Bs into results/comparisons/, checked.' },
  { name: 'json', machineLocal: true, help: 'Print the bisection JSON instead of the summary.' },
  { name: 'no-progress', machineLocal: true, help: 'Do not print a line per arm run and build on stderr.' },
];

const FIRST = ['engine', 'model'];
const AB_TAKEN = AB_SPEC.options.filter((option) => !NOT_FROM_AB.has(option.name));

export const BISECT_SPEC: CommandSpec = {
  name: 'bisect',
  summary: 'find the release that changed performance: paired A/B (servebench ab) of the midpoint against both ends, narrowed to two adjacent releases',
  usage: 'servebench bisect --engine NAME --good R --bad R [--releases V,…] --model ID_OR_PATH --workload NAME [--concurrency N] --metric COLUMN [options]',
  options: [...AB_TAKEN.filter((o) => FIRST.includes(o.name)), ...BISECT_OWN_OPTIONS, ...AB_TAKEN.filter((o) => !FIRST.includes(o.name))],
  epilog: [
    'Releases: llamacpp lists the stable node-llama-cpp releases on the npm registry from --good to --bad, each with the llama.cpp tag it',
    'bundles (releases bundling the same tag as the one before are one build, left out); other engines take --releases.',
    'Procedure (docs/running.md#bisect-which-release-changed-performance): first `ab` of --good against --bad; without a faster or slower verdict the change is "not',
    'reproducible" under pairing, and that is the outcome. Then, at each step, `ab` of the range\'s good end against its midpoint and of the',
    'midpoint against its bad end: the change lies in the half whose verdict goes the same way; both halves: "spread" (the larger is followed);',
    'neither: "inconclusive" (the range so far). It ends at two adjacent releases: the culprit, with its llama.cpp tags and links.',
    'llamacpp (process launcher): each release is built before its first comparison unless the build cache has it (servebench llamacpp list).',
    'Exit status: 0 an outcome was reached (culprit, spread, not reproducible, inconclusive, budget); 1 a comparison\'s run or a build failed',
    '(the comparisons so far are kept); 2 bad input; 3 the output could not be written (it went to stdout); 129, 130, 143 stopped by a signal',
    '(the server is stopped and what was measured written).',
  ].join('\n'),
};
