/**
 * Compile's cache columns: read from each point's cache block, null for files written before the
 * audit (the committed CPU lane of 2026-12-02, real and immutable). The run that has them is
 * SYNTHETIC (tests/store/claim-fixtures.ts, measured nothing).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { compileBesideCommittedResult } from '../store/compile-beside-committed.ts';
import { synthetic } from '../store/claim-fixtures.ts';
import { query } from '../store/duckdb-query.ts';

function withCacheBlocks() {
  const result = synthetic({ concurrencies: [1, 8] });
  const [first, second] = result.points;
  const n = first!.metrics.completed;
  first!.cache = { requests: n, prompt_tokens: 1000, reusable_tokens: 500, cached_tokens: 490, theoretical_hit_rate: 0.5, observed_hit_rate: 0.49, source: 'timings_cache_n', reuse_after: 'end', theory: 'exact', min_ratio: 0.75, verdict: 'consistent' };
  second!.cache = { requests: second!.metrics.completed, prompt_tokens: 1000, reusable_tokens: 500, cached_tokens: 40, theoretical_hit_rate: 0.5, observed_hit_rate: 0.04, source: 'timings_cache_n', reuse_after: 'end', theory: 'exact', min_ratio: 0.75, verdict: 'cache_mismatch', cause: 'caching off: the server reused no prompt token at all' };
  return result;
}

describe('compile reads the cache audit of each point', () => {
  const fresh = withCacheBlocks();
  let out = '';
  beforeAll(async () => {
    out = await compileBesideCommittedResult(fresh, 'sb-cache-columns-');
  }, 120_000);

  it('as the file says where it says it, null where it does not', async () => {
    const rows = await query(`SELECT run_id, point, cache_theoretical, cache_observed, cache_verdict FROM read_parquet('${out}/data/parquet/latest/points/*.parquet') ORDER BY run_id, point`);
    expect(rows.filter((r) => r['run_id'] === fresh.run_id)).toEqual([
      { run_id: fresh.run_id, point: 0, cache_theoretical: 0.5, cache_observed: 0.49, cache_verdict: 'consistent' },
      { run_id: fresh.run_id, point: 1, cache_theoretical: 0.5, cache_observed: 0.04, cache_verdict: 'cache_mismatch' },
    ]);
    const ofOld = rows.filter((r) => r['run_id'] !== fresh.run_id);
    expect(ofOld.length).toBeGreaterThan(0);
    for (const row of ofOld) expect([row['cache_theoretical'], row['cache_observed'], row['cache_verdict']]).toEqual([null, null, null]);
  });
});
