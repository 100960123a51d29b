/** A load point in a few characters, for progress lines and tables. */
import type { Load } from '../../contract/result.ts';

export function describeLoad(load: Load): string {
  if (load.mode === 'closed') return `concurrency ${load.concurrency}`;
  if (load.mode === 'trace') return `trace ×${load.time_scale}${load.max_concurrency === null ? '' : ` ≤${load.max_concurrency}`}`;
  const rate = load.rate === 'inf' ? 'inf' : `${load.rate}/s`;
  const shape = load.arrival === 'gamma' ? ` gamma(${load.burstiness})` : load.arrival === 'constant' ? ' constant' : '';
  const cap = load.max_concurrency === null ? '' : ` ≤${load.max_concurrency}`;
  return `rate ${rate}${shape}${cap}`;
}
