/**
 * The cache audit against each real llama-server build under test (tests/llamacpp/builds-under-test.ts; dummy-weight
 * micro model written by servebench; nothing here is a fake), with the SYNTHETIC test workloads of
 * tests/cache: a 3-turn conversation and prompts sharing a 48-token prefix in 3 groups.
 *
 * Tolerance, measured (docs/metrics.md#cache-audit): at concurrency 1 with 4 slots, observed agrees
 * with theory within +3% / −1% (1.005–1.025 of it: the server also reuses the template's head from
 * an unrelated earlier request, which the theory leaves out); so 0.97 ≤ observed/theory ≤ 1.10.
 * The planted bug (one byte of the history rewritten per turn) measured 0.15 (b4753) and 0.38–0.43
 * (v0.4.0) of theory: far below the 0.75 threshold.
 */
import { describe, expect, it } from 'vitest';
import { llamaCppBuildsUnderTest } from '../llamacpp/builds-under-test.ts';
import { ensureDummyModel } from '../../harness/engines/embedded/dummy-model.ts';
import { normalizeLoadOptions } from '../../harness/measure/load/load-options.ts';
import { runLoad, type RunLoadEffects } from '../../harness/measure/load/run-load.ts';
import { checkPlausibility } from '../../harness/store/plausibility.ts';
import type { CacheAudit, RunResult } from '../../harness/contract/result.ts';
import { startLlamaServer, timingsCarryCacheN } from '../llamacpp/llama-server.ts';
import { rewriteHistoryByOneByte } from './planted-bug.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

const model = ensureDummyModel(mkdtempSync(`${tmpdir()}/sb-cache-models-`), 'micro');

async function audit(url: string, workload: string, effects: Partial<RunLoadEffects> = {}): Promise<{ cache: CacheAudit; result: RunResult }> {
  // --tokenizer: the GGUF's own vocabulary, so the shared lengths are exact (the server's /tokenize renders no template).
  const config = normalizeLoadOptions({ endpoint: url, model, tokenizer: model, 'no-progress': true, 'save-requests': true, workload: `tests/cache/cache-${workload}.yaml`, 'num-prompts': '24' }, {});
  const { result } = await runLoad(config, { signal: new AbortController().signal, notice: () => {}, ...effects });
  return { cache: result.points[0]!.cache!, result };
}

function cacheProblems(result: RunResult): string[] {
  const problems: string[] = [];
  checkPlausibility(result, (path, message) => problems.push(`${path}: ${message}`));
  return problems.filter((p) => p.includes('[cache-audit]'));
}

const builds = llamaCppBuildsUnderTest();

describe('the cache audit on upstream llama.cpp', () => {
  builds.forEach((build) => {
    it(`llama.cpp ${build.tag}: a conversation and a shared prefix agree with theory; a rewritten history is a cache_mismatch naming the client`, { timeout: 300_000 }, async () => {
      const server = await startLlamaServer(build, model, ['--parallel', '4', '--ctx-size', '4096']);
      try {
        // The observed hits come from `timings.cache_n` where the server sends it (b6431 and later
        // do; b4753, b5415 and b6122 do not), else from `timings.prompt_n`: as this server answers.
        const source = (await timingsCarryCacheN(server)) ? 'timings_cache_n' : 'timings_prompt_n';
        for (const workload of ['multi-turn', 'shared-prefix']) {
          const { cache, result } = await audit(server.url, workload);
          const ratio = cache.observed_hit_rate! / cache.theoretical_hit_rate;
          console.log(`${build.tag} ${workload}: theoretical ${cache.theoretical_hit_rate.toFixed(3)}, observed ${cache.observed_hit_rate!.toFixed(3)}, ratio ${ratio.toFixed(3)}`);
          expect(cache).toMatchObject({ requests: 24, theory: 'exact', reuse_after: 'end', verdict: 'consistent', source });
          expect(cache.theoretical_hit_rate).toBeGreaterThan(0.4);
          expect(ratio).toBeGreaterThanOrEqual(0.97);
          expect(ratio).toBeLessThanOrEqual(1.1);
          expect(cacheProblems(result)).toEqual([]);
        }
        const { cache, result } = await audit(server.url, 'multi-turn', { alterRequest: rewriteHistoryByOneByte });
        console.log(`${build.tag} planted bug: ratio ${(cache.observed_hit_rate! / cache.theoretical_hit_rate).toFixed(3)}: ${cache.cause}`);
        expect(cache.verdict).toBe('cache_mismatch');
        expect(cache.cause).toMatch(/^client rewrote history: .* message 0 \(user\) of the history changed at character \d+/);
        expect(cacheProblems(result)).toEqual([]);
      } finally {
        server.stop();
      }
    });
  });
});
