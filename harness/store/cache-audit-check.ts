/**
 * [cache-audit]: a point's cache block (harness/measure/metrics/cache-audit.ts) agrees with
 * itself: its sums fit in its prompt tokens, its rates are its sums over its prompt tokens, and
 * its verdict is the one its rates and its own threshold give (docs/validation.md).
 */
import type { Point } from '../contract/result.ts';

type AddProblem = (path: string, message: string, fix: string) => void;

/** Rates are float64 quotients of the block's own integers: anything further off was written, not computed. */
const RATE_TOLERANCE = 1e-9;

const rule = (message: string): string => `[cache-audit] ${message}`;

export function checkCacheAudit(point: Point, at: string, add: AddProblem): void {
  const cache = point.cache;
  if (cache === undefined) return;
  const path = `${at}.cache`;
  const { prompt_tokens: prompt, reusable_tokens: reusable, cached_tokens: cached } = cache;
  if (cache.requests > point.metrics.completed) {
    add(`${path}.requests`, rule(`${cache.requests} requests counted, the point completed ${point.metrics.completed}`), 'the audit counts completed requests only');
  }
  // Stryker disable next-line ConditionalExpression: `cached !== null` as true is alike, null > prompt being false for any prompt_tokens (a count, never negative); the line's other conditions are tested.
  if (reusable > prompt || (cached !== null && cached > prompt)) {
    add(path, rule(`reusable_tokens ${reusable} or cached_tokens ${String(cached)} exceed prompt_tokens ${prompt}`), 'no request reuses more prompt tokens than it has');
  }
  const rateOf = (tokens: number): number => (prompt === 0 ? 0 : tokens / prompt);
  if (Math.abs(cache.theoretical_hit_rate - rateOf(reusable)) > RATE_TOLERANCE) {
    add(`${path}.theoretical_hit_rate`, rule(`theoretical_hit_rate ${cache.theoretical_hit_rate} is not reusable_tokens / prompt_tokens (${rateOf(reusable)})`), 'theoretical_hit_rate = reusable_tokens / prompt_tokens');
  }
  // Stryker disable next-line ConditionalExpression: `cached !== null` as true is alike, a null cached_tokens with a null rate giving |null − null / prompt| = 0 and with a rate failing the first clause already; the line's other conditions are tested.
  if ((cache.observed_hit_rate === null) !== (cached === null) || (cached !== null && Math.abs(cache.observed_hit_rate! - rateOf(cached)) > RATE_TOLERANCE)) {
    add(`${path}.observed_hit_rate`, rule(`observed_hit_rate ${String(cache.observed_hit_rate)} is not cached_tokens / prompt_tokens (cached_tokens ${String(cached)})`), 'observed_hit_rate = cached_tokens / prompt_tokens, null exactly when cached_tokens is');
  }
  if ((cache.observed_hit_rate === null) !== (cache.observed_reason !== undefined)) {
    add(`${path}.observed_reason`, rule(cache.observed_hit_rate === null ? 'observed_hit_rate is null without an observed_reason' : 'an observed_reason with an observed rate'), 'a null observed_hit_rate says why (observed_reason); a measured one has no reason');
  }
  const judged = cache.theoretical_hit_rate > 0 && cache.observed_hit_rate !== null;
  const expected = !judged ? null : cache.observed_hit_rate! < cache.min_ratio * cache.theoretical_hit_rate ? 'cache_mismatch' : 'consistent';
  if (cache.verdict !== expected) {
    add(`${path}.verdict`, rule(`verdict ${String(cache.verdict)} for observed ${String(cache.observed_hit_rate)} against theoretical ${cache.theoretical_hit_rate} at min_ratio ${cache.min_ratio}`), 'cache_mismatch exactly when observed_hit_rate < min_ratio × theoretical_hit_rate; null when the theoretical rate is 0 or the observed one null');
  }
  if ((cache.verdict === 'cache_mismatch') !== (cache.cause !== undefined)) {
    add(`${path}.cause`, rule(cache.verdict === 'cache_mismatch' ? 'a cache_mismatch without its likely cause' : 'a cause without a cache_mismatch'), 'a cache_mismatch names its likely cause; no other verdict has one');
  }
}
