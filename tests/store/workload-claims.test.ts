/**
 * A result measures the scenario it records: the spec hash is recomputed; the measured lengths fit
 * the spec's distributions (per point, and per saved request); whether the shipped scenario ran is
 * a fact compile carries. SYNTHETIC results (claim-fixtures.ts) and the committed real ones.
 */
import { describe, expect, it } from 'vitest';
import { SCENARIO_KEY } from '../../harness/store/ids.ts';
import { shippedSpecHash, workloadUsesShippedSpec } from '../../harness/store/workload-claims.ts';
import { committedResults, ofShipped, problemsOf, rulesOf, synthetic, withLengths } from './claim-fixtures.ts';

describe('the spec hash', () => {
  it('is recomputed from the recorded spec: every committed result and the synthetic ones match', () => {
    for (const { path, result } of committedResults()) expect(rulesOf(result), path).not.toContain('spec-hash');
    expect(rulesOf(synthetic())).toEqual([]);
  });

  it('refuses a spec edited after the run (the hash no longer matches)', () => {
    const edited = synthetic();
    edited.workload.spec = { ...edited.workload.spec, input: { dist: 'fixed', tokens: 64 } };
    const problems = problemsOf(edited);
    expect(problems.map((p) => p.path)).toContain('workload.spec_sha256');
    expect(problems.find((p) => p.path === 'workload.spec_sha256')!.message).toMatch(/^\[spec-hash\] the recorded spec hashes to [0-9a-f]{64}, not [0-9a-f]{64}$/);
  });
});

describe('measured lengths', () => {
  it('refuse an easier workload under a scenario: 51 input tokens per request under a 512-token spec', () => {
    const easier = withLengths(synthetic(), 51, 128);
    const problems = problemsOf(easier).filter((p) => p.message.startsWith('[workload-lengths]'));
    expect(problems.map((p) => p.path)).toEqual(['points[0].metrics.input_tokens', 'points[1].metrics.input_tokens']);
    expect(problems[0]!.message).toContain('51.0 input tokens per completed request, outside 512..512 of the scenario "chat" (exact lengths: 444..580 allowed)');
  });

  it('refuse shorter outputs when every completed request was forced to max_tokens (ignore_eos, counted by the server)', () => {
    const result = withLengths(synthetic(), 512, 64);
    expect(rulesOf(result)).toContain('workload-lengths');
    expect(problemsOf(result).find((p) => p.path === 'points[0].metrics.output_tokens')!.message).toMatch(/64\.0 output tokens .* outside 128\.\.128 .*with ignore_eos every completed request has max_tokens/);
    // Without the server's counts (stream events are a lower bound) or without ignore_eos, fewer tokens are possible.
    const events = structuredClone(result);
    for (const point of events.points) point.token_count_sources.output = { ...point.token_count_sources.output, usage: 0, events: point.metrics.completed };
    expect(rulesOf(events)).toEqual([]);
  });

  it('refuse outputs above max_tokens', () => {
    expect(rulesOf(withLengths(synthetic(), 512, 200))).toContain('workload-lengths');
    expect(rulesOf(withLengths(synthetic(), 512, 128))).toEqual([]);
  });

  it('allow approximate lengths the tolerance of corpus words (0.5× to 4× + 256) and exact ones the server counted otherwise', () => {
    const approximate = (input: number) => {
      const result = withLengths(synthetic(), input, 128);
      result.workload.lengths = 'approximate';
      return rulesOf(result);
    };
    expect(approximate(300)).toEqual([]);
    expect(approximate(2200)).toEqual([]);
    expect(approximate(200)).toContain('workload-lengths');
    expect(approximate(2400)).toContain('workload-lengths');
    const mismatched = withLengths(synthetic(), 300, 128);
    for (const point of mismatched.points) point.input_tokens_mismatched = 1;
    expect(rulesOf(mismatched)).toEqual([]);
  });

  it('check each saved request too', () => {
    const result = synthetic();
    const request = { index: 0, ok: true, failure: null, status: 200, queue_ms: 0.1, ttft_ms: 50, e2el_ms: 50 + 127 * 10, tpot_ms: 10, input_tokens: 20, output_tokens: 128, server_prompt_tokens: 20, content_events: 128, finish_reason: 'length' };
    result.points[0]!.requests = [request];
    const problem = problemsOf(result).find((p) => p.message.startsWith('[workload-lengths]'))!;
    expect(problem.path).toBe('points[0].requests[0].input_tokens');
    result.points[0]!.requests = [{ ...request, input_tokens: 512, server_prompt_tokens: 512 }];
    expect(rulesOf(result)).toEqual([]);
  });

  it('fit the spec of every committed result', () => {
    for (const { path, result } of committedResults()) expect(rulesOf(result), path).toEqual([]);
  });

  it('of a conversation: the history resent grows every turn, up to turns × (input + output + template)', () => {
    const result = ofShipped('cpu-multi-turn');
    expect(rulesOf(withLengths(result, 128 + 64 + 128 + 30, 64))).toEqual([]);
    expect(rulesOf(withLengths(result, 3 * (128 + 64 + 64) + 100, 64))).toContain('workload-lengths');
  });
});

describe('the shipped scenario', () => {
  it('every committed result ran the scenario as shipped today', () => {
    for (const { path, result } of committedResults()) expect(workloadUsesShippedSpec(result), path).toBe(true);
  });

  it('a run of the shipped spec says so; the name of a scenario with another spec does not, and is a configuration of its own', () => {
    const shipped = ofShipped('chat');
    expect(shipped.workload.spec_sha256).toBe(shippedSpecHash('chat'));
    expect(rulesOf(shipped)).toEqual([]);
    expect(workloadUsesShippedSpec(shipped)).toBe(true);
    // The fixture names its own spec (512 in, 128 out) "chat": accepted, not the shipped scenario, grouped apart by its hash.
    const forged = synthetic({ workload: 'chat' });
    expect(rulesOf(forged)).toEqual([]);
    expect(workloadUsesShippedSpec(forged)).toBe(false);
    expect(forged.workload.spec_sha256).not.toBe(shipped.workload.spec_sha256);
    expect(SCENARIO_KEY).toContain('workload_sha256');
    expect(workloadUsesShippedSpec(synthetic({ workload: 'no-such-scenario' }))).toBe(false);
  });
});
