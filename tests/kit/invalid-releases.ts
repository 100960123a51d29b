/**
 * A SYNTHETIC results folder with invalid releases in the middle of two engines' histories, for the
 * tests of how the site shows them (the history chart, the compare page, the compiled data behind
 * them). Nothing here was measured (bench/lib/synthetic-results.ts); one scenario,
 * synthetic/llama-8b on 1× "Synthetic H100", workload chat, c=1 and c=8, every run official:
 * - vllm 1.0.0 (2 runs, January 10-11), 1.1.0 (2 runs, January 20-21) and 1.2.0 (2 runs,
 *   February 1-2). 1.1.0 is 2.5 times faster and answers the output-fidelity probe wrongly, as the
 *   sim's corrupt-output fault does: compile judges it against the configuration's reference
 *   (vllm 1.0.0, the oldest known release of the reference engine) and every point of it is
 *   invalid_output;
 * - sglang 2.0.0 (January 15), 2.1.0 (January 25) and 2.2.0 (February 5), one run each, at one
 *   speed but 2.1.0, about a third slower: its c=8 point missed the prefix cache (its audit says
 *   cache_mismatch; drawn as a step, it would read as a regression), c=1 is valid.
 * Every other run answers the probe as the reference does. The newest release of each engine is
 * valid, so the leaderboards rank both.
 */
import { createHash } from 'node:crypto';
import type { Fidelity } from '../../harness/contract/fidelity.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { probeSet } from '../../harness/measure/fidelity/probe-set.ts';
import { FIXTURE_CONFIGURATION as base, syntheticResult, writeResult, type SyntheticRun } from '../../bench/lib/synthetic-results.ts';


/** The releases drawn apart on the site, and why (the statuses compile gives them). */
export const INVALID = {
  wrongOutput: { engine: 'vllm', version: '1.1.0', validity: 'invalid_output' },
  cacheMissed: { engine: 'sglang', version: '2.1.0', load: 'c=8', validity: 'cache_mismatch' },
} as const;

const day = (month: number, date: number) => new Date(Date.UTC(2026, month, date, 3));

/**
 * The probe's answers: the same deterministic words for every run of the configuration, or, for
 * a corrupting server, other words (every prompt answered differently from the reference).
 */
export function probeAnswers(corrupt: boolean): Fidelity {
  const set = probeSet();
  return {
    probe_set: { version: set.version, sha256: set.sha256, prompts: set.prompts.length, max_tokens: set.maxTokens },
    outputs: set.prompts.map((_, i) => {
      const ids = Array.from({ length: set.maxTokens }, (_, k) => (corrupt ? 9000 : 100) + i * set.maxTokens + k);
      const text = ids.map((id) => `w${id}`).join(' ');
      return { text, text_sha256: createHash('sha256').update(text, 'utf8').digest('hex'), token_ids: ids, logprobs: null };
    }),
    cache_equality: null,
    error: null,
  };
}

/** A point's audit when the server reused almost nothing of what the workload shares (as tests/validity/validity-statistics.test.ts writes it). */
function missTheCache(result: RunResult, concurrency: number): void {
  const point = result.points.find((p) => p.load.mode === 'closed' && p.load.concurrency === concurrency)!;
  point.cache = { requests: point.metrics.completed, prompt_tokens: 1000, reusable_tokens: 500, cached_tokens: 40, theoretical_hit_rate: 0.5, observed_hit_rate: 0.04, source: 'timings_cache_n', reuse_after: 'end', theory: 'exact', min_ratio: 0.75, verdict: 'cache_mismatch', cause: 'client rewrote history: the first difference lies inside an earlier turn' };
}

/** The runs, in date order within each engine. */
export function invalidReleaseRuns(): RunResult[] {
  const runs: Array<{ run: SyntheticRun; corrupt?: boolean; missAt?: number }> = [
    ...[0, 1].map((i) => ({ run: { ...base, engine: 'vllm', version: '1.0.0', date: day(0, 10 + i), seed: 600 + i } })),
    ...[0, 1].map((i) => ({ run: { ...base, engine: 'vllm', version: '1.1.0', tpotMs: 4, ttftMs: 24, date: day(0, 20 + i), seed: 610 + i }, corrupt: true })),
    ...[0, 1].map((i) => ({ run: { ...base, engine: 'vllm', version: '1.2.0', tpotMs: 11, date: day(1, 1 + i), seed: 620 + i } })),
    { run: { ...base, engine: 'sglang', version: '2.0.0', tpotMs: 9, date: day(0, 15), seed: 630 } },
    { run: { ...base, engine: 'sglang', version: '2.1.0', tpotMs: 13, ttftMs: 90, date: day(0, 25), seed: 631 }, missAt: 8 },
    { run: { ...base, engine: 'sglang', version: '2.2.0', tpotMs: 9, date: day(1, 5), seed: 632 } },
  ];
  return runs.map(({ run, corrupt, missAt }) => {
    const result = syntheticResult(run);
    result.run = { ...result.run!, fidelity: probeAnswers(corrupt === true) };
    if (missAt !== undefined) missTheCache(result, missAt);
    return result;
  });
}

/** Writes the runs under `dir`; returns them. */
export function writeInvalidReleases(dir: string): RunResult[] {
  const runs = invalidReleaseRuns();
  for (const run of runs) writeResult(dir, run);
  return runs;
}
