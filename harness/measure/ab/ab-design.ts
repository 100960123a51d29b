/**
 * The A/B's design from ab's own options, normalized once: the two releases, the metric and its
 * better direction, the effect to detect, the margin, the pilot, the blocks per pass and whether a
 * confirm pass runs. Bad input names the option and the fix (exit 2) before anything launches.
 */
import { booleanOption, parseNumber, stringOption, type RawOptions } from '../../lib/cli/options.ts';
import { usageError } from '../../lib/errors.ts';
import type { HeadlineMetric } from '../../contract/metric-catalog.ts';
import { SIGNIFICANCE_LEVEL } from '../../lib/stats/log-interval.ts';
import { AB_SPEC } from './ab-options.ts';
import { AB_METRICS } from '../../contract/point-metric.ts';

/** The power --effect is detected with (blocksNeeded's, and what docs/metrics.md states). */
export const AB_POWER = 0.8;
/** With --blocks auto, never fewer blocks per pass than this (blocksNeeded's own floor), unless --max-blocks is lower. */
export const MIN_AUTO_BLOCKS = 4;

export interface AbDesign {
  readonly a: string;
  readonly b: string;
  /** --b equal to --a, allowed by --allow-aa: a check of the procedure's false alarms. */
  readonly aaCheck: boolean;
  readonly metric: HeadlineMetric;
  readonly effect: number;
  readonly margin: number;
  readonly alpha: number;
  readonly power: number;
  readonly pilotBlocks: number;
  /** Blocks per pass: a number, or 'auto' (from the pilot's noise). */
  readonly blocks: number | 'auto';
  readonly maxBlocks: number;
  readonly confirm: boolean;
}

function release(raw: RawOptions, name: 'a' | 'b'): string {
  const value = stringOption(AB_SPEC, raw, name)?.trim();
  if (value === undefined || value === '') throw usageError(`--${name} is required: the release of arm ${name.toUpperCase()} (as run --engine-version takes it); see \`servebench ab --help\``);
  return value;
}

export function abDesignOf(raw: RawOptions): AbDesign {
  const a = release(raw, 'a');
  const b = release(raw, 'b');
  const aaCheck = a === b;
  if (aaCheck && !booleanOption(raw, 'allow-aa')) {
    throw usageError(`--a and --b are both ${a}: that compares a release with itself; give two releases, or add --allow-aa for an A/A check of the procedure`);
  }
  const column = stringOption(AB_SPEC, raw, 'metric')!;
  const metric = AB_METRICS.find((m) => m.column === column);
  if (metric === undefined) throw usageError(`--metric: "${column}" is not a metric ab compares; give one of ${AB_METRICS.map((m) => m.column).join(', ')}`);
  const number = (name: string, bounds: Parameters<typeof parseNumber>[2], integer = false): number => parseNumber(name, stringOption(AB_SPEC, raw, name)!, bounds, integer);
  const effect = number('effect', { min: 0, exclusiveMin: true });
  const margin = number('margin', { min: 0 });
  if (!(margin < 1)) throw usageError(`--margin: ${margin} is not a relative change below 1 (0.03 is ±3%)`);
  // An effect within the margin could only ever be called "no change": no number of blocks detects it.
  if (!(Math.log1p(effect) > Math.log1p(margin))) throw usageError(`--effect ${effect} is not larger than --margin ${margin}: a change within the margin is "no change" by definition; give an --effect above the margin or a smaller --margin`);
  const pilotBlocks = number('pilot-blocks', { min: 2 }, true);
  const maxBlocks = number('max-blocks', { min: 2 }, true);
  const blocksText = stringOption(AB_SPEC, raw, 'blocks')!;
  const blocks = blocksText === 'auto' ? 'auto' : parseNumber('blocks', blocksText, { min: 2 }, true);
  if (blocks !== 'auto' && raw['max-blocks'] !== undefined) throw usageError(`--max-blocks applies to --blocks auto only; with --blocks ${blocks} every pass runs ${blocks} blocks`);
  return { a, b, aaCheck, metric, effect, margin, alpha: SIGNIFICANCE_LEVEL, power: AB_POWER, pilotBlocks, blocks, maxBlocks, confirm: !booleanOption(raw, 'no-confirm') };
}
