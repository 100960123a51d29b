/**
 * A result measures the scenario it records: the spec hash is recomputed; the measured lengths fit
 * the spec's distributions (per point, and per saved request); whether the shipped scenario ran is
 * a fact compile carries. SYNTHETIC results (claim-fixtures.ts) and the committed real ones.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import type { Workload } from '../../harness/contract/workload.ts';
import { workloadSpecSha256 } from '../../harness/contract/workload-hash.ts';
import { WORKLOADS_DIR } from '../../harness/lib/specs/spec-folders.ts';
import { SCENARIO_KEY } from '../../harness/store/ids.ts';
import { shippedSpecHash, workloadUsesShippedSpec } from '../../harness/store/workload-claims.ts';
import { committedResults, ofShipped, problemsOf, rulesOf, synthetic, withLengths } from './claim-fixtures.ts';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** `result` with its recorded spec changed by `edit` and hashed again, as a run of that spec records it. */
function withSpec(result: RunResult, edit: (spec: Workload) => void): RunResult {
  edit(result.workload.spec);
  result.workload.spec_sha256 = workloadSpecSha256(result.workload.spec);
  return result;
}

/** The [workload-lengths] problems of points[0] (and its requests): "path: message". */
function lengthProblems(result: RunResult): string[] {
  return problemsOf(result)
    .filter((p) => p.message.startsWith('[workload-lengths]') && p.path.startsWith('points[0]'))
    .map((p) => `${p.path}: ${p.message}`);
}

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
    expect(problems.find((p) => p.path === 'workload.spec_sha256')).toEqual({
      file: 'f.json',
      path: 'workload.spec_sha256',
      message: `[spec-hash] the recorded spec hashes to ${workloadSpecSha256(edited.workload.spec)}, not ${edited.workload.spec_sha256}`,
      fix: 'spec_sha256 is the sha256 of workload.spec as JSON: keep the spec and the hash servebench wrote (an edited spec is another scenario)',
    });
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
    // 3 turns × (128 in + 64 out + 64 of template) = 768; exact: 0.9 × 128 − 16 = 99.2 to 1.1 × 768 + 16 = 860.8.
    expect(lengthProblems(withLengths(result, 900, 64))).toEqual(['points[0].metrics.input_tokens: [workload-lengths] 900.0 input tokens per completed request, outside 128..768 of the scenario "cpu-multi-turn" (exact lengths: 99..861 allowed)']);
  });

  // Each distribution's range (workloads.md), then exact lengths' tolerance: 0.9 × low − 16 to 1.1 × high + 16.
  it.each([
    ['range_ratio, vLLM convention: L(1 − r) to L(1 + r)', { dist: 'range_ratio', tokens: 1000, ratio: 0.2, convention: 'vllm' }, 1400, '800..1200', '704..1336'],
    ['range_ratio, SGLang convention: L·r to L', { dist: 'range_ratio', tokens: 1000, ratio: 0.25, convention: 'sglang' }, 1200, '250..1000', '209..1116'],
    ['uniform: min to max', { dist: 'uniform', min: 250, max: 500 }, 600, '250..500', '209..566'],
    ['normal: its min to max', { dist: 'normal', mean: 300, std: 50, min: 250, max: 1000 }, 200, '250..1000', '209..1116'],
  ] as const)('the input range of %s', (_what, input, measured, range, allowed) => {
    const result = withSpec(withLengths(synthetic(), measured, 128), (spec) => void (spec.input = input));
    expect(lengthProblems(result)).toEqual([`points[0].metrics.input_tokens: [workload-lengths] ${measured}.0 input tokens per completed request, outside ${range} of the scenario "chat" (exact lengths: ${allowed} allowed)`]);
  });

  it("of a dataset: the dataset's length filters, open where it gives none", () => {
    // sharegpt: prompts of 4 to 1,024 tokens, replies of 4 to 1,024, each sent as max_tokens with ignore_eos.
    expect(lengthProblems(withLengths(ofShipped('sharegpt'), 1200, 1200))).toEqual([
      'points[0].metrics.input_tokens: [workload-lengths] 1200.0 input tokens per completed request, outside 4..1024 of the scenario "sharegpt" (exact lengths: 0..1143 allowed)',
      'points[0].metrics.output_tokens: [workload-lengths] 1200.0 output tokens per completed request, outside 4..1024 of the scenario "sharegpt" (4..1143 allowed: with ignore_eos every completed request has max_tokens)',
    ]);
    const open = withSpec(withLengths(ofShipped('sharegpt'), 1, 1), (spec) => {
      spec.dataset = { ...spec.dataset!, min_input_tokens: 600, min_output_tokens: undefined, max_input_tokens: undefined, max_output_tokens: undefined };
    });
    expect(lengthProblems(open)).toEqual(['points[0].metrics.input_tokens: [workload-lengths] 1.0 input tokens per completed request, outside 600..∞ of the scenario "sharegpt" (exact lengths: 524..∞ allowed)']);
    expect(lengthProblems(withLengths(open, 600, 100_000))).toEqual([]);
    // No reply filter: at least 1 token, which ignore_eos then holds every completed request to.
    expect(lengthProblems(withLengths(open, 600, 0))).toEqual(['points[0].metrics.output_tokens: [workload-lengths] 0.0 output tokens per completed request, outside 1..∞ of the scenario "sharegpt" (1..∞ allowed: with ignore_eos every completed request has max_tokens)']);
  });

  it('each problem names the scenario, the mode of its lengths and the fix', () => {
    const fix = (name: string) => `a result measures the scenario it records: measure with the spec as recorded (servebench run --workload ${name} as shipped), or record the spec you ran`;
    const over = withLengths(synthetic(), 2400, 128);
    expect(problemsOf(over).find((p) => p.path === 'points[0].metrics.input_tokens')).toEqual({ file: 'f.json', path: 'points[0].metrics.input_tokens', message: '[workload-lengths] 2400.0 input tokens per completed request, outside 512..512 of the scenario "chat" (exact lengths: 444..580 allowed)', fix: fix('chat') });
    // Corpus words: 0.5 × 512 to 4 × 512 + 256.
    over.workload.lengths = 'approximate';
    expect(lengthProblems(over)).toEqual(['points[0].metrics.input_tokens: [workload-lengths] 2400.0 input tokens per completed request, outside 512..512 of the scenario "chat" (approximate lengths: 256..2304 allowed)']);
    over.workload.lengths = 'exact';
    over.points[0]!.input_tokens_mismatched = 3;
    expect(lengthProblems(over)).toEqual(['points[0].metrics.input_tokens: [workload-lengths] 2400.0 input tokens per completed request, outside 512..512 of the scenario "chat" (exact lengths, 3 counted otherwise by the server: 256..2304 allowed)']);
    const unnamed = withLengths(synthetic(), 2400, 128);
    unnamed.workload.name = null;
    expect(problemsOf(unnamed).find((p) => p.path === 'points[0].metrics.input_tokens')).toMatchObject({ message: expect.stringContaining('of the scenario "command-line" (exact'), fix: fix('…') });
    const long = withLengths(synthetic(), 2400, 128);
    long.workload.name = `chat-${'x'.repeat(70)}`;
    expect(lengthProblems(long)[0]).toContain(`of the scenario "chat-${'x'.repeat(55)}" (exact`);
  });

  it('an output problem says when ignore_eos made every output max_tokens', () => {
    const short = withLengths(synthetic(), 512, 100);
    expect(lengthProblems(short)).toEqual(['points[0].metrics.output_tokens: [workload-lengths] 100.0 output tokens per completed request, outside 128..128 of the scenario "chat" (128..157 allowed: with ignore_eos every completed request has max_tokens)']);
    // Counted from the stream, not by the server: shorter outputs are possible, only the upper bound holds.
    const long = withLengths(synthetic(), 512, 200);
    for (const point of long.points) point.token_count_sources.output = { ...point.token_count_sources.output, usage: 0, events: point.metrics.completed };
    expect(lengthProblems(long)).toEqual(['points[0].metrics.output_tokens: [workload-lengths] 200.0 output tokens per completed request, outside 128..128 of the scenario "chat" (0..157 allowed)']);
  });

  it('its bounds are inclusive: a mean exactly at one is allowed', () => {
    // Approximate: 0.5 × 512 = 256 to 4 × 512 + 256 = 2304.
    for (const input of [256, 2304]) {
      const result = withLengths(synthetic(), input, 128);
      result.workload.lengths = 'approximate';
      expect(lengthProblems(result), String(input)).toEqual([]);
    }
  });

  it('a point where no request completed has no lengths to check', () => {
    const result = synthetic();
    const m = result.points[0]!.metrics;
    Object.assign(m, { completed: 0, failed: m.completed + m.failed, input_tokens: 0, output_tokens: 0 });
    expect(lengthProblems(result)).toEqual([]);
  });
});

describe('saved requests', () => {
  it('name the first request out of the range, the very first included', () => {
    const result = synthetic();
    result.points[0]!.requests = [{ ...request, index: 0, output_tokens: 300 }, { ...request, index: 1, output_tokens: 300 }] as never;
    expect(lengthProblems(result)).toEqual(['points[0].requests[0].output_tokens: [workload-lengths] a request of 300 output tokens, outside 128..128 of the scenario "chat" (128..157 allowed)']);
  });

  const request = { index: 0, ok: true, failure: null, status: 200, queue_ms: 0.1, ttft_ms: 50, e2el_ms: 50 + 127 * 10, tpot_ms: 10, input_tokens: 512, output_tokens: 128, server_prompt_tokens: 512, content_events: 128, finish_reason: 'length' };

  it('are checked only where completed and counted: a failed request or one with no count is not a length of the scenario', () => {
    const result = synthetic();
    result.points[0]!.requests = [
      { ...request, index: 0, ok: false, failure: 'http_error', status: 500, input_tokens: 20, output_tokens: 1 },
      { ...request, index: 1, input_tokens: null, output_tokens: null },
      { ...request, index: 2, input_tokens: 20, output_tokens: 300 },
    ] as never;
    expect(lengthProblems(result)).toEqual([
      'points[0].requests[2].input_tokens: [workload-lengths] a request of 20 input tokens, outside 512..512 of the scenario "chat" (exact lengths: 444..580 allowed)',
      'points[0].requests[2].output_tokens: [workload-lengths] a request of 300 output tokens, outside 128..128 of the scenario "chat" (128..157 allowed)',
    ]);
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
    // A run made of command-line flags names no scenario.
    const flags = ofShipped('chat');
    flags.workload.name = null;
    expect(workloadUsesShippedSpec(flags)).toBe(false);
    delete (flags.workload as { name?: unknown }).name;
    expect(workloadUsesShippedSpec(flags)).toBe(false);
  });

  it('are read from the folder given: the hash of each spec as `servebench run --workload` records it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-workloads-'));
    folders.push(dir);
    writeFileSync(join(dir, 'chat.yaml'), readFileSync(join(WORKLOADS_DIR, 'chat.yaml')));
    expect(shippedSpecHash('chat', dir)).toBe(ofShipped('chat').workload.spec_sha256);
    expect(shippedSpecHash('batch', dir)).toBeNull();
  });

  it('a broken workloads/*.yaml stops validate (the checkout is broken, not the result)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-workloads-'));
    folders.push(dir);
    writeFileSync(join(dir, 'broken.yaml'), 'name: broken\n');
    expect(() => shippedSpecHash('broken', dir)).toThrow(/^invalid workload spec \(validate reads workloads\/ to know the shipped scenarios\)\n.*broken\.yaml/);
  });
});
