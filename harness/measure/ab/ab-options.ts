/**
 * `servebench ab`'s option table: its own options and every `run` option that applies to both
 * arms alike, taken from run's table (harness/contract/command-options.ts) so that each arm is the
 * `servebench run` those flags name with its --engine-version; parser and --help read this table.
 */
import type { CommandSpec, OptionSpec } from '../../lib/cli/options.ts';
import { RUN_OPTIONS } from '../../contract/command-options.ts';
import { COMPARED_METRICS } from '../../contract/metric-catalog.ts';
import { DEFAULT_EQUIVALENCE_MARGIN } from '../../lib/stats/paired.ts';

/**
 * run options that are no choice of the user's in an A/B: the release is each arm's (--a, --b)
 * and an image names one release for both; ab launches every arm itself on a free port of its own;
 * its arms' results go into its own output, not results/; the repeats are its blocks; and it has
 * its own --json and --no-progress.
 */
const NOT_PER_ARM = new Set(['engine-version', 'image', 'endpoint', 'port', 'results-dir', 'source', 'repeats', 'repeat-target', 'max-repeats', 'max-repeat-time', 'dry-run', 'json', 'no-progress']);

/** The run flags ab hands to both arms unchanged. */
export const ARM_RUN_OPTIONS: readonly OptionSpec[] = RUN_OPTIONS.filter((option) => !NOT_PER_ARM.has(option.name));

export const DEFAULT_EFFECT = 0.1;
export const DEFAULT_PILOT_BLOCKS = 4;
export const DEFAULT_MAX_BLOCKS = 16;

const AB_OWN_OPTIONS: readonly OptionSpec[] = [
  { name: 'a', value: 'V', help: 'Arm A, the baseline: a release as run --engine-version takes it (a node-llama-cpp release or llama.cpp tag, an image tag with --launcher docker, the sim\'s version).' },
  { name: 'b', value: 'V', help: 'Arm B, the release compared with A: the verdict says how B does against A.' },
  { name: 'allow-aa', help: 'Allow --b equal to --a: an A/A comparison, a check of the procedure (labelled aa_check in the output).' },
  { name: 'metric', value: 'COLUMN', help: `The point metric compared, as compile names it: ${COMPARED_METRICS.map((m) => m.column).join(', ')}; its better direction decides faster or slower.`, default: 'output_throughput' },
  { name: 'effect', value: 'F', type: 'number', help: 'The smallest relative change to detect, with power 0.8 (0.10: 10%); with --blocks auto it sets the blocks per pass from the pilot\'s noise.', default: String(DEFAULT_EFFECT) },
  { name: 'margin', value: 'F', type: 'number', help: 'Equivalence margin: "no change" when the whole 95% interval of the effect lies within ±F; faster or slower need it wholly beyond.', default: String(DEFAULT_EQUIVALENCE_MARGIN) },
  { name: 'pilot-blocks', value: 'N', type: 'integer', help: 'A/A blocks first (A against A, each run a fresh launch): the per-block noise of this host, σ of ln(A₂/A₁); at least 2.', default: String(DEFAULT_PILOT_BLOCKS) },
  { name: 'blocks', value: 'auto|N', help: 'Blocks per pass: auto (from the pilot\'s σ, --effect and --margin, at least 4) or N (at least 2).', default: 'auto' },
  { name: 'max-blocks', value: 'N', type: 'integer', help: 'With --blocks auto: the most blocks per pass.', default: String(DEFAULT_MAX_BLOCKS) },
  { name: 'no-confirm', help: 'Skip the confirm pass: the verdict of one pass, marked unconfirmed (confirm: false).' },
  { name: 'out', value: 'FILE', machineLocal: true, help: 'Write the A/B JSON here (never overwrites; default: ./ab-<engine>-<a>-vs-<b>-<time>.json). `servebench file-comparison FILE` files it into results/comparisons/, checked.' },
  { name: 'json', machineLocal: true, help: 'Print the A/B JSON instead of the summary.' },
  { name: 'no-progress', machineLocal: true, help: 'Do not print a line per arm run on stderr.' },
];

const FIRST = ['engine', 'model'];

export const AB_SPEC: CommandSpec = {
  name: 'ab',
  summary: 'paired A/B of two releases of one engine on this host: an A/A pilot, ABBA blocks of fresh launches, a confirm pass, a verdict with its 95% interval',
  usage: 'servebench ab --engine NAME --a V --b V --model ID_OR_PATH --workload NAME [--concurrency N] [options]',
  options: [...ARM_RUN_OPTIONS.filter((o) => FIRST.includes(o.name)), ...AB_OWN_OPTIONS, ...ARM_RUN_OPTIONS.filter((o) => !FIRST.includes(o.name))],
  epilog: [
    'Procedure (docs/metrics.md#paired-ab-between-two-versions): --pilot-blocks A/A blocks measure the per-block noise σ; each pass then runs',
    'n blocks (--blocks, or the n that detects ±--effect beyond ±--margin at power 0.8 given σ), block k running A then B when k is even and',
    'B then A when odd (ABBA: a linear drift cancels); every arm run is a fresh launch of its release with its warmup, as `servebench run`',
    'would make it, at one load point. Paired t on the per-block ln(B/A); the confirm pass repeats the design on fresh blocks and the',
    'verdict (faster, slower, no change, inconclusive) stands only where both passes agree. The output holds every arm\'s full run result.',
    'Exit status: 0 a verdict was reached (any of the four); 1 an arm run failed (the output keeps what was measured, with the failure);',
    '2 bad input; 3 the output could not be written (it went to stdout); 129, 130, 143 stopped by SIGHUP, SIGINT, SIGTERM: the server',
    'is stopped and what was measured written.',
  ].join('\n'),
};
