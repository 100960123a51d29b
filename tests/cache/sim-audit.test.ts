/**
 * The cache audit on real runs against the sim's prefix cache (harness/engines/sim/prefix-cache.ts):
 * a conversation and a shared prefix reused as the workload says, a server with caching off, a
 * planted client bug, and each engine's way of reporting (or not) what it reused. The same checks
 * against the real llama.cpp builds: cache-audit.pipeline.test.ts.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normalizeLoadOptions } from '../../harness/measure/load/load-options.ts';
import { runLoad, type LoadRun, type RunLoadEffects } from '../../harness/measure/load/run-load.ts';
import { CACHE_MIN_RATIO } from '../../harness/contract/cache-audit.ts';
import { checkPlausibility } from '../../harness/store/plausibility.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { fastSim } from '../load/sim-fixture.ts';
import { rewriteHistoryByOneByte } from './planted-bug.ts';

const MULTI_TURN = fileURLToPath(new URL('./cache-multi-turn.yaml', import.meta.url));
const SHARED_PREFIX = fileURLToPath(new URL('./cache-shared-prefix.yaml', import.meta.url));

async function run(url: string, workload: string | Record<string, string>, effects: Partial<RunLoadEffects> = {}): Promise<LoadRun> {
  const flags = typeof workload === 'string' ? { workload } : workload;
  const config = normalizeLoadOptions({ endpoint: url, model: 'sim-model', 'no-progress': true, 'save-requests': true, ...flags }, {});
  return runLoad(config, { signal: new AbortController().signal, keepRecords: true, notice: () => {}, ...effects });
}

function cacheProblems(result: RunResult): string[] {
  const problems: string[] = [];
  checkPlausibility(result, (path, message) => problems.push(`${path}: ${message}`));
  return problems.filter((p) => p.includes('[cache-audit]'));
}

describe('the cache audit against the sim', () => {
  it('a conversation on a llama.cpp-like server: every later turn reuses the whole earlier request, observed = theory, consistent', async () => {
    const sim = await fastSim({ personality: 'llamacpp' });
    const { result } = await run(sim.url, MULTI_TURN);
    const point = result.points[0]!;
    const cache = point.cache!;
    // Exact without a tokenizer: an earlier turn's length is its whole prompt as the server counted it.
    expect(cache).toMatchObject({ requests: 12, source: 'timings_cache_n', reuse_after: 'end', theory: 'exact', verdict: 'consistent' });
    // At concurrency 1 each turn follows its predecessor: turns 1 and 2 of 4 conversations reuse
    // the previous turn's whole prompt (the sim's template puts nothing between them). A first
    // turn finds only the template's head (3 tokens) and the user markers (4) of another conversation.
    for (const request of point.requests!) {
      const turn = request.index % 3;
      if (turn === 0) {
        expect(request.reusable_prompt_tokens).toBe(0);
        expect(request.cached_prompt_tokens).toBe(request.index === 0 ? 0 : 7);
      } else {
        expect(request.reusable_prompt_tokens).toBe(point.requests!.find((r) => r.index === request.index - 1)!.input_tokens);
        expect(request.cached_prompt_tokens).toBe(request.reusable_prompt_tokens);
      }
    }
    expect(cache.theoretical_hit_rate).toBeGreaterThan(0.4);
    expect(cache.cached_tokens! - cache.reusable_tokens).toBe(3 * 7);
    expect(cacheProblems(result)).toEqual([]);
  });

  it('a shared prefix: each group reuses its prefix from its second request on; the sim also reuses the template head, so observed ≥ theory', async () => {
    const sim = await fastSim({ personality: 'llamacpp' });
    const { result } = await run(sim.url, SHARED_PREFIX);
    const point = result.points[0]!;
    const cache = point.cache!;
    // The server's tokenizer renders no template here, so the shared length is the prefix's own 48.
    expect(cache).toMatchObject({ requests: 12, reusable_tokens: 9 * 48, theory: 'approximate', verdict: 'consistent' });
    for (const request of point.requests!) {
      expect(request.reusable_prompt_tokens).toBe(request.index < 3 ? 0 : 48);
      expect(request.cached_prompt_tokens!).toBeGreaterThanOrEqual(request.reusable_prompt_tokens!);
    }
    expect(cacheProblems(result)).toEqual([]);
  });

  it('a server with prefix caching off is a cache_mismatch, and the cause says so', async () => {
    const sim = await fastSim({ personality: 'llamacpp', prefixCacheSequences: 0 });
    const { result } = await run(sim.url, MULTI_TURN);
    const cache = result.points[0]!.cache!;
    expect(cache).toMatchObject({ cached_tokens: 0, observed_hit_rate: 0, verdict: 'cache_mismatch' });
    expect(cache.cause).toMatch(/^caching off/);
    expect(cacheProblems(result)).toEqual([]);
  });

  it('a planted client bug (one byte of the history rewritten) is a cache_mismatch naming the client', async () => {
    const sim = await fastSim({ personality: 'llamacpp' });
    const honest = (await run(sim.url, MULTI_TURN)).result.points[0]!.cache!;
    const { result } = await run(sim.url, MULTI_TURN, { alterRequest: rewriteHistoryByOneByte });
    const cache = result.points[0]!.cache!;
    // The theory is the workload's intent, untouched by what the client actually sent.
    expect(cache.reusable_tokens).toBe(honest.reusable_tokens);
    expect(cache.verdict).toBe('cache_mismatch');
    expect(cache.observed_hit_rate!).toBeLessThan(CACHE_MIN_RATIO * cache.theoretical_hit_rate);
    expect(cache.cause).toMatch(/^client rewrote history: request \d+ resends request \d+'s prompt, but message 0 \(user\) of the history changed at character \d+/);
    expect(cacheProblems(result)).toEqual([]);
  });

  it('vLLM reports cached tokens only when started to, in whole 16-token blocks; without them the observed rate is null with the reason', async () => {
    const silent = await fastSim({ personality: 'vllm' });
    const quiet = (await run(silent.url, MULTI_TURN)).result.points[0]!.cache!;
    expect(quiet).toMatchObject({ cached_tokens: null, observed_hit_rate: null, source: null, reuse_after: 'prefill', verdict: null });
    expect(quiet.observed_reason).toMatch(/--enable-prompt-tokens-details/);

    const reporting = await fastSim({ personality: 'vllm', reportCachedTokens: true });
    const { result } = await run(reporting.url, MULTI_TURN);
    const point = result.points[0]!;
    expect(point.cache).toMatchObject({ source: 'usage_cached_tokens', verdict: 'consistent' });
    for (const request of point.requests!) {
      expect(request.cached_prompt_tokens! % 16).toBe(0);
      expect(request.reusable_prompt_tokens! - request.cached_prompt_tokens!).toBeLessThan(16);
    }
  });

  it('SGLang reports them with --enable-cache-report (prompt_tokens_details)', async () => {
    const sim = await fastSim({ personality: 'sglang', reportCachedTokens: true });
    const { result } = await run(sim.url, MULTI_TURN);
    expect(result.points[0]!.cache).toMatchObject({ source: 'usage_cached_tokens', verdict: 'consistent' });
  });

  it('prompts that share nothing: theoretical rate 0 and no verdict', async () => {
    const sim = await fastSim({ personality: 'llamacpp' });
    const { result } = await run(sim.url, { 'input-len': '32', 'output-len': '4', 'num-prompts': '6' });
    const cache = result.points[0]!.cache!;
    expect(cache).toMatchObject({ reusable_tokens: 0, theoretical_hit_rate: 0, verdict: null });
    expect(cache.cause).toBeUndefined();
  });
});
