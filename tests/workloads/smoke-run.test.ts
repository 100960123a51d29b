/** The `smoke` scenario end to end against the simulated engine, as `load --workload smoke` runs it. */
import { describe, expect, it } from 'vitest';
import { loadAgainst } from '../load/run-sim.ts';
import { fastSim } from '../load/sim-fixture.ts';

describe('load --workload smoke', () => {
  it('runs the scenario; with a tokenizer the server counts exactly the declared prompt lengths', async () => {
    const sim = await fastSim();
    // The words fixture tokenizes as the sim does (one word, one token), so the sim's usage is ground truth.
    const run = await loadAgainst(sim.url, { workload: 'smoke', tokenizer: 'tests/fixtures/tokenizer-words', 'save-requests': true });
    const { result } = run;
    expect(result.workload).toMatchObject({ name: 'smoke', lengths: 'exact', spec: { name: 'smoke', api: 'completions' } });
    expect(result.points.map((p) => p.load)).toEqual([
      { mode: 'closed', concurrency: 1 },
      { mode: 'closed', concurrency: 2 },
    ]);
    for (const point of result.points) {
      expect(point.metrics.completed).toBe(8);
      expect(point.requests!.every((r) => r.server_prompt_tokens === 32 && r.input_tokens === 32 && r.output_tokens === 16)).toBe(true);
    }
  });

  it('without a tokenizer the run still works and says its lengths are approximate', async () => {
    const sim = await fastSim();
    const { result } = await loadAgainst(sim.url, { workload: 'smoke' });
    expect(result.workload.lengths).toBe('approximate');
    expect(result.workload.tokenizer).toBeNull();
    expect(result.points.every((p) => p.metrics.failed === 0)).toBe(true);
  });

  it('flags override single fields of the scenario, and the result records the effective spec', async () => {
    const sim = await fastSim();
    const { result } = await loadAgainst(sim.url, { workload: 'smoke', concurrency: '3', 'num-prompts': '5', 'output-len': '4' });
    expect(result.workload.spec).toMatchObject({ name: 'smoke', input: { dist: 'fixed', tokens: 32 }, output: { dist: 'fixed', tokens: 4 }, requests: { count: 5 } });
    expect(result.points).toHaveLength(1);
    expect(result.points[0]!.metrics.output_tokens).toBe(20);
    expect(result.workload.spec_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('the batch scenario sends everything at once with mixed lengths', async () => {
    const sim = await fastSim({ maxNumSeqs: 4096 });
    const { result } = await loadAgainst(sim.url, { workload: 'batch', 'num-prompts': '40', 'input-len': '16', 'save-requests': true });
    const point = result.points[0]!;
    expect(point.load).toMatchObject({ mode: 'open', rate: 'inf' });
    const outputs = new Set(point.requests!.map((r) => r.output_tokens));
    expect(outputs.size).toBeGreaterThan(10);
    expect(Math.min(...outputs as Set<number>)).toBeGreaterThanOrEqual(256);
    expect(Math.max(...outputs as Set<number>)).toBeLessThanOrEqual(768);
  });
});
