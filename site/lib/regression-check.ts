/**
 * What the regression check looked at, counted from what compile wrote: deltas.json holds every
 * comparison it tested (an engine's newest valid release against its previous one, per
 * configuration and compared metric, harness/store/derive.ts), regressions.json those that count
 * as regressions (harness/store/regress.ts). The rule is the store's; this only counts.
 */
import type { Delta, RegressionsFile } from '../../harness/contract/site-data.ts';

export interface RegressionCheck {
  /** Comparisons: release pairs × configurations × compared metrics both releases have a value for. */
  readonly comparisons: number;
  /** Engine × configuration pairs of a newest and a previous release. */
  readonly pairs: number;
  readonly configurations: number;
  /** Distinct engine version pairs ("vllm 1.0.0 → 1.1.0"). */
  readonly versionPairs: number;
  readonly metrics: number;
  /** Tested by Welch's t-test (both releases repeated). */
  readonly welch: number;
  /** Tested against the engine's pooled noise on that hardware and load (a release with one run). */
  readonly noiseBand: number;
  /** Not testable: a single run and no repeated release in the engine's noise pool. */
  readonly unknownNoise: number;
  readonly regressions: number;
  /** Significantly worse, by less than the threshold. */
  readonly worseBelowThreshold: number;
  readonly better: number;
  /** Tested, no significant change. */
  readonly unclear: number;
}

export function regressionCheck(deltas: readonly Delta[], compiled: RegressionsFile): RegressionCheck {
  const count = (keep: (d: Delta) => boolean) => deltas.filter(keep).length;
  const distinct = (key: (d: Delta) => string) => new Set(deltas.map(key)).size;
  const worse = count((d) => d.verdict === 'worse');
  return {
    comparisons: deltas.length,
    pairs: distinct((d) => JSON.stringify([d.config_id, d.engine])),
    configurations: distinct((d) => d.config_id),
    versionPairs: distinct((d) => JSON.stringify([d.engine, d.previous_version, d.version])),
    metrics: distinct((d) => d.metric),
    welch: count((d) => d.method === 'welch'),
    noiseBand: count((d) => d.method === 'noise-band'),
    unknownNoise: count((d) => d.method === 'unknown-noise'),
    regressions: compiled.regressions.length,
    worseBelowThreshold: worse - compiled.regressions.length,
    better: count((d) => d.verdict === 'better'),
    unclear: count((d) => d.verdict === 'unclear' && d.method !== 'unknown-noise'),
  };
}
