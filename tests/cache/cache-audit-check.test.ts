/**
 * [cache-audit] on each of its conditions: a block the harness wrote (from a real run against the
 * sim) passes, and each edit that breaks one identity is one problem at the field it names.
 */
import { describe, expect, it } from 'vitest';
import { checkCacheAudit } from '../../harness/store/cache-audit-check.ts';
import type { CacheAudit, Point } from '../../harness/contract/result.ts';

/** SYNTHETIC: a block as auditCache writes one (12 completed requests, half reusable, 49% reused). */
const valid = (): CacheAudit => ({ requests: 12, prompt_tokens: 1000, reusable_tokens: 500, cached_tokens: 490, theoretical_hit_rate: 0.5, observed_hit_rate: 0.49, source: 'timings_cache_n', reuse_after: 'end', theory: 'exact', min_ratio: 0.75, verdict: 'consistent' });

function problems(cache: CacheAudit): string[] {
  const found: string[] = [];
  checkCacheAudit({ metrics: { completed: 12 }, cache } as unknown as Point, 'points[0]', (path, message) => found.push(`${path}: ${message}`));
  return found;
}

describe('[cache-audit]', () => {
  it('passes the blocks the harness writes: judged, nothing to judge, not reported', () => {
    expect(problems(valid())).toEqual([]);
    expect(problems({ ...valid(), reusable_tokens: 0, theoretical_hit_rate: 0, verdict: null })).toEqual([]);
    expect(problems({ ...valid(), cached_tokens: null, observed_hit_rate: null, observed_reason: 'not reported', source: null, verdict: null })).toEqual([]);
    // Just at the threshold: 0.375 = 0.75 × 0.5 is not below it.
    expect(problems({ ...valid(), cached_tokens: 375, observed_hit_rate: 0.375 })).toEqual([]);
  });

  const broken: Array<[string, Partial<CacheAudit>, string]> = [
    ['more requests than completed', { requests: 13 }, 'points[0].cache.requests'],
    ['more cached than prompt tokens', { cached_tokens: 1001, observed_hit_rate: 1.001 }, 'points[0].cache'],
    ['a theoretical rate off its counts', { theoretical_hit_rate: 0.51 }, 'points[0].cache.theoretical_hit_rate'],
    ['an observed rate off its counts', { observed_hit_rate: 0.48 }, 'points[0].cache.observed_hit_rate'],
    ['an observed rate without counts', { cached_tokens: null }, 'points[0].cache.observed_hit_rate'],
    ['a null observed rate without its reason', { cached_tokens: null, observed_hit_rate: null, verdict: null }, 'points[0].cache.observed_reason'],
    ['consistent below the threshold', { cached_tokens: 374, observed_hit_rate: 0.374 }, 'points[0].cache.verdict'],
    ['a mismatch above it', { verdict: 'cache_mismatch', cause: 'x' }, 'points[0].cache.verdict'],
    ['a verdict with nothing to judge', { reusable_tokens: 0, theoretical_hit_rate: 0 }, 'points[0].cache.verdict'],
    ['a cause without a mismatch', { cause: 'eviction' }, 'points[0].cache.cause'],
  ];
  for (const [name, edit, path] of broken) {
    it(`refuses ${name}`, () => {
      const found = problems({ ...valid(), ...edit });
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(new RegExp(`^${path.replace(/[.[\]]/g, '\\$&')}: \\[cache-audit\\]`));
    });
  }
});
