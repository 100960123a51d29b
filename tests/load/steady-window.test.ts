/**
 * The steady window and the overload verdict on real runs against the sim (in process, so its
 * ground truth shares the client's performance.now() clock). Hand-made request sets with exact
 * answers: tests/metrics/steady-window.test.ts.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkPlausibility } from '../../harness/store/plausibility.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { loadAgainst } from './run-sim.ts';
import { fastSim } from './sim-fixture.ts';

/** SYNTHETIC workload: 40 requests at concurrency 4, output lengths drawn from 8 to 64 tokens (a drain tail). */
const WORKLOAD = fileURLToPath(new URL('../fixtures/workloads/steady-window.yaml', import.meta.url));

/** The rules a run's new fields answer to, as validate applies them. */
function steadyProblems(result: RunResult): string[] {
  const problems: string[] = [];
  checkPlausibility(result, (path, message) => problems.push(`${path}: ${message}`));
  return problems.filter((p) => /\[(steady-window|overloaded)\]/.test(p));
}

describe('the steady window of a closed loop on the sim', () => {
  it('is higher than the whole point (ramp and drain tail excluded) and counts the tokens the sim wrote inside it', async () => {
    const decodeStepMs = 4;
    const sim = await fastSim({ decodeBaseMs: decodeStepMs });
    const run = await loadAgainst(sim.url, { workload: WORKLOAD });
    const point = run.result.points[0]!;
    const records = run.records[0]!;
    const steady = point.steady!;
    expect(point.steady_reason).toBeUndefined();
    expect(point.metrics.completed).toBe(40);
    expect(steadyProblems(run.result)).toEqual([]);

    // The drain tail is there: the last request ends after the window, with fewer than 4 in flight.
    expect(point.metrics.duration_s).toBeGreaterThan(steady.end_s);
    expect(steady.output_throughput).toBeGreaterThan(point.metrics.output_throughput!);
    expect(steady.request_throughput).toBeGreaterThan(0);

    // Ground truth: the tokens the sim wrote inside the same window. A client event arrives δ after
    // its write (δ ≥ 0, measured per token here: one token per event), so the two counts can differ
    // only by the tokens written within the largest δ before either edge of the window.
    const originMs = Math.min(...records.map((r) => r.sendMs));
    const [startMs, endMs] = [originMs + steady.start_s * 1000, originMs + steady.end_s * 1000];
    const truth = new Map(sim.groundTruth().map((g) => [g.request_id, g]));
    let deltaMax = 0;
    for (const record of records) {
      const writes = truth.get(record.requestId)!.token_write_ms;
      expect(writes).toHaveLength(record.contentTimesMs.length);
      record.contentTimesMs.forEach((atMs, k) => {
        expect(atMs).toBeGreaterThanOrEqual(writes[k]!);
        deltaMax = Math.max(deltaMax, atMs - writes[k]!);
      });
    }
    const writes = records.flatMap((r) => truth.get(r.requestId)!.token_write_ms);
    const inside = writes.filter((t) => t > startMs && t <= endMs).length;
    const nearEdge = writes.filter((t) => (t > startMs - deltaMax && t <= startMs) || (t > endMs - deltaMax && t <= endMs)).length;
    expect(Math.abs(steady.output_tokens - inside)).toBeLessThanOrEqual(nearEdge);

    // And the cost model bounds it: 4 sequences decode one token each per step of decodeBaseMs (the
    // sim never runs a step early: its deadlines are absolute), so 4 tokens per step at most.
    expect(steady.output_throughput).toBeLessThanOrEqual((4 * 1000) / decodeStepMs * 1.02);
  });

  it('a point that never reaches its concurrency has none, and says why', async () => {
    const sim = await fastSim({ decodeBaseMs: 2 });
    const run = await loadAgainst(sim.url, { 'input-len': '8', 'output-len': '4', warmup: '0', 'num-prompts': '3', concurrency: '4' });
    const point = run.result.points[0]!;
    expect(point.steady).toBeNull();
    expect(point.steady_reason).toBe('4 requests were never in flight together (at most 3 of 3 sent): too short for a steady window');
    expect(steadyProblems(run.result)).toEqual([]);
  });
});

describe('open-loop points the sim cannot keep up with', () => {
  // 4 sequences at a time, 10 steps of 2 ms per request: about 200 requests/s at most.
  const capacity = { decodeBaseMs: 2, maxNumSeqs: 4 };
  const flags = { 'input-len': '8', 'output-len': '10', warmup: '0', 'num-prompts': '30', seed: '1' };

  it('keeps 25/s, is overloaded at 2000/s, skips 4000/s and still runs the lower 50/s', async () => {
    const sim = await fastSim(capacity);
    const run = await loadAgainst(sim.url, { ...flags, rate: '25,2000,4000,50' });
    const [under, over, lower] = run.result.points;
    expect(run.result.points.map((p) => p.load.mode === 'open' && p.load.rate)).toEqual([25, 2000, 50]);

    expect(under!.overloaded).toBe(false);
    expect(under!.overload_reason).toBeUndefined();
    expect(under!.achieved_rate!.completion_ratio).toBeGreaterThanOrEqual(0.98);

    // 30 arrivals within about 15 ms, served at ≤ 200/s: the backlog grows about 9 s per s of schedule.
    // (Sends every 0.5 ms may also run late, the sim sharing the client's event loop: then the
    // reason names the client as well.)
    expect(over!.overloaded).toBe(true);
    expect(over!.achieved_rate!.completion_ratio).toBeLessThan(0.5);
    expect(over!.overload_reason).toMatch(/requests completed at \d+\.\d% of the scheduled 2000 requests\/s \(about \d+(\.\d+)? requests\/s\): the backlog grew$/);

    expect(lower!.overloaded).not.toBeNull();
    expect(run.result.skipped_loads).toEqual([
      {
        load: { mode: 'open', rate: 4000, arrival: 'poisson', burstiness: 1, max_concurrency: null },
        reason: 'not run: the sweep stops climbing past rate 2000, where the server was overloaded (points[1])',
      },
    ]);
    expect(steadyProblems(run.result)).toEqual([]);
  });

  it('under --max-concurrency the client queue grows instead, and the point says so', async () => {
    const sim = await fastSim(capacity);
    const run = await loadAgainst(sim.url, { ...flags, rate: '2000', 'max-concurrency': '2' });
    const point = run.result.points[0]!;
    expect(point.overloaded).toBe(true);
    expect(point.achieved_rate!.send_ratio).toBeLessThan(0.5);
    expect(point.overload_reason).toMatch(/^requests went out at \d+\.\d% of the scheduled 2000 requests\/s: the client queue grew \(--max-concurrency 2 was full\); requests completed at/);
    expect(steadyProblems(run.result)).toEqual([]);
  });
});
