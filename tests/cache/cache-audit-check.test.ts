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

/** Every problem in full (path, message, fix), so a changed word, field or branch shows. */
function fullProblems(cache: CacheAudit): Array<[string, string, string]> {
  const found: Array<[string, string, string]> = [];
  checkCacheAudit({ metrics: { completed: 12 }, cache } as unknown as Point, 'points[0]', (path, message, fix) => found.push([path, message, fix]));
  return found;
}

describe('[cache-audit] in full: each problem names its field, its values and the fix', () => {
  const mismatch = { cached_tokens: 374, observed_hit_rate: 0.374, verdict: 'cache_mismatch', cause: 'eviction' } as const;
  const fits = 'no request reuses more prompt tokens than it has';
  const observedFix = 'observed_hit_rate = cached_tokens / prompt_tokens, null exactly when cached_tokens is';
  const reasonFix = 'a null observed_hit_rate says why (observed_reason); a measured one has no reason';
  const causeFix = 'a cache_mismatch names its likely cause; no other verdict has one';
  const cases: Array<[string, Partial<CacheAudit>, Array<[string, string, string]>]> = [
    ['more requests than completed', { requests: 13 },
      [['points[0].cache.requests', '[cache-audit] 13 requests counted, the point completed 12', 'the audit counts completed requests only']]],
    ['more reusable than prompt tokens', { reusable_tokens: 1001, theoretical_hit_rate: 1.001, cached_tokens: 1000, observed_hit_rate: 1 },
      [['points[0].cache', '[cache-audit] reusable_tokens 1001 or cached_tokens 1000 exceed prompt_tokens 1000', fits]]],
    ['more cached than prompt tokens', { cached_tokens: 1001, observed_hit_rate: 1.001 },
      [['points[0].cache', '[cache-audit] reusable_tokens 500 or cached_tokens 1001 exceed prompt_tokens 1000', fits]]],
    // Every prompt token reusable and reused is the limit, not past it.
    ['all prompt tokens reusable and cached', { reusable_tokens: 1000, theoretical_hit_rate: 1, cached_tokens: 1000, observed_hit_rate: 1 }, []],
    ['a theoretical rate off its counts', { theoretical_hit_rate: 0.51 },
      [['points[0].cache.theoretical_hit_rate', '[cache-audit] theoretical_hit_rate 0.51 is not reusable_tokens / prompt_tokens (0.5)', 'theoretical_hit_rate = reusable_tokens / prompt_tokens']]],
    // No prompt tokens: both rates are 0 by definition, not 0/0, so a written 0.5 is caught.
    ['a theoretical rate with no prompt tokens', { prompt_tokens: 0, reusable_tokens: 0, cached_tokens: 0, theoretical_hit_rate: 0.5, observed_hit_rate: 0, verdict: 'cache_mismatch', cause: 'eviction' },
      [['points[0].cache.theoretical_hit_rate', '[cache-audit] theoretical_hit_rate 0.5 is not reusable_tokens / prompt_tokens (0)', 'theoretical_hit_rate = reusable_tokens / prompt_tokens']]],
    // |1e-9 − 0/1| is exactly the tolerance, which is still within it.
    ['a theoretical rate just at the tolerance', { prompt_tokens: 1, reusable_tokens: 0, cached_tokens: 0, theoretical_hit_rate: 1e-9, observed_hit_rate: 0, verdict: 'cache_mismatch', cause: 'eviction' }, []],
    ['an observed rate just at the tolerance', { prompt_tokens: 1, reusable_tokens: 0, cached_tokens: 0, theoretical_hit_rate: 0, observed_hit_rate: 1e-9, verdict: null }, []],
    ['an observed rate off its counts', { observed_hit_rate: 0.48 },
      [['points[0].cache.observed_hit_rate', '[cache-audit] observed_hit_rate 0.48 is not cached_tokens / prompt_tokens (cached_tokens 490)', observedFix]]],
    ['an observed rate without counts', { cached_tokens: null },
      [['points[0].cache.observed_hit_rate', '[cache-audit] observed_hit_rate 0.49 is not cached_tokens / prompt_tokens (cached_tokens null)', observedFix]]],
    ['a null observed rate without its reason', { cached_tokens: null, observed_hit_rate: null, verdict: null },
      [['points[0].cache.observed_reason', '[cache-audit] observed_hit_rate is null without an observed_reason', reasonFix]]],
    ['a reason beside a measured rate', { observed_reason: 'not reported' },
      [['points[0].cache.observed_reason', '[cache-audit] an observed_reason with an observed rate', reasonFix]]],
    ['consistent below the threshold', { cached_tokens: 374, observed_hit_rate: 0.374 },
      [['points[0].cache.verdict', '[cache-audit] verdict consistent for observed 0.374 against theoretical 0.5 at min_ratio 0.75', 'cache_mismatch exactly when observed_hit_rate < min_ratio × theoretical_hit_rate; null when the theoretical rate is 0 or the observed one null']]],
    ['a mismatch below the threshold, with its cause', mismatch, []],
    ['a mismatch without its cause', { ...mismatch, cause: undefined },
      [['points[0].cache.cause', '[cache-audit] a cache_mismatch without its likely cause', causeFix]]],
    ['a cause without a mismatch', { cause: 'eviction' },
      [['points[0].cache.cause', '[cache-audit] a cause without a cache_mismatch', causeFix]]],
  ];
  it('passes a point without a cache block (results from before the audit)', () => {
    const found: string[] = [];
    checkCacheAudit({ metrics: { completed: 12 } } as unknown as Point, 'points[0]', (path) => found.push(path));
    expect(found).toEqual([]);
  });
  for (const [name, edit, expected] of cases) {
    it(name, () => {
      expect(fullProblems({ ...valid(), ...edit })).toEqual(expected);
    });
  }
});
