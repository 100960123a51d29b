/**
 * The validity of a load point (docs/metrics.md#validity): whether its numbers may be ranked,
 * compared or used as a baseline. Plain data with no imports, so the site's browser code may take
 * it as it is; compile derives each point's status (harness/store/validity.ts).
 *
 * The statuses in precedence order: a point that is wrong in several ways carries the first.
 * Wrong outputs come first because they make every other number meaningless (a fast engine that
 * answers wrongly); a cache that did not reuse what the workload shares measured a different
 * workload; an overloaded point measured a backlog, not the load asked for; a point too small to
 * support any headline percentile has nothing to rank.
 */
export const VALIDITY_STATUSES = ['invalid_output', 'cache_mismatch', 'overloaded', 'insufficient_samples', 'valid'] as const;
export type Validity = (typeof VALIDITY_STATUSES)[number];

/** How the site names each status ("3 points excluded: 2 insufficient samples, 1 overloaded"). */
export const VALIDITY_LABELS: Readonly<Record<Validity, string>> = {
  invalid_output: 'invalid output',
  cache_mismatch: 'cache mismatch',
  overloaded: 'overloaded',
  insufficient_samples: 'insufficient samples',
  valid: 'valid',
};

/** "3 points excluded: 2 insufficient samples, 1 overloaded" (in precedence order); null when none is. */
export function exclusionSummary(statuses: readonly string[], noun = 'point'): string | null {
  const counts = VALIDITY_STATUSES.filter((s) => s !== 'valid').map((s) => [s, statuses.filter((v) => v === s).length] as const).filter(([, n]) => n > 0);
  const total = counts.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return null;
  return `${total} ${noun}${total === 1 ? '' : 's'} excluded: ${counts.map(([s, n]) => `${n} ${VALIDITY_LABELS[s]}`).join(', ')}`;
}
