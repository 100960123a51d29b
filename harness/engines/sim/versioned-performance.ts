/**
 * Versioned performance for the sim: a launch plays one release (engineVersion) and runs at the
 * speed that release has under the planted changes ("from 1.3.0 on, every cost × 1.5"), so a paired
 * A/B or a bisection over sim releases has a known answer to find: the change sits between the
 * last version below it and the first at or above it. Changes accumulate: a launch runs at the
 * product of the factors of every change at or below its version, compared in the harness's one
 * version order (harness/lib/version-compare.ts, as detect orders releases). Applied like launch
 * noise, by scaling the costs, so the two compose: a noisy launch of a slow release is both.
 */
import { usageError } from '../../lib/errors.ts';
import { compareVersions } from '../../lib/version-compare.ts';
import { validatePerformanceChanges, type PerformanceChange, type SimConfig } from './config.ts';
import { scaledCosts } from './cost-model.ts';

/** "1.3.0:1.5,1.5.0:0.8" → changes; the CLI's --performance-changes parser ("" → none). */
export function parsePerformanceChanges(text: string, flag = 'performance-changes'): PerformanceChange[] {
  if (text.trim() === '') return [];
  const changes = text.split(',').map((item) => {
    const parts = item.split(':');
    const version = parts[0]!.trim();
    const factorText = (parts[1] ?? '').trim();
    const factor = Number(factorText);
    if (parts.length !== 2 || version === '' || factorText === '' || Number.isNaN(factor)) {
      throw usageError(`--${flag}: "${item}" is not version:factor; give e.g. "1.3.0:1.5" (from 1.3.0 on, every cost 1.5 times as large), several separated by commas`);
    }
    return { version, factor };
  });
  try {
    validatePerformanceChanges(changes);
  } catch (error) {
    throw usageError(`--${flag}: ${(error as Error).message.replace(/^sim: /, '')}`);
  }
  return changes;
}

/** The speed factor of `version` (> 1: slower): the product of every change at or below it. */
export function versionFactor(changes: readonly PerformanceChange[], version: string): number {
  return changes.reduce((factor, change) => (compareVersions(change.version, version) <= 0 ? factor * change.factor : factor), 1);
}

export function withVersionedPerformance(config: SimConfig): SimConfig {
  const factor = versionFactor(config.performanceChanges, config.engineVersion);
  return factor === 1 ? config : scaledCosts(config, factor);
}
