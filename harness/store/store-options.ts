/** Flags the results-store commands share, so their names, defaults and help stay one. */
import type { OptionSpec } from '../lib/cli/options.ts';

export const RESULTS_OPTION: OptionSpec = { name: 'results', value: 'DIR', help: 'The results folder.', default: 'results' };
export const OUT_OPTION: OptionSpec = { name: 'out', value: 'DIR', help: 'The compiled data folder (its .cache/ makes the next compile incremental).', default: 'build/data' };
export const PRICES_OPTION: OptionSpec = { name: 'prices', value: 'FILE', help: 'GPU price table for cost per token.', default: 'fleet/prices.yaml' };
