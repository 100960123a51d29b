/** Closed loop, open loop (schedule adherence, concurrency cap, queueing), sweeps and duration stops. */
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnSim } from '../../harness/lib/process/spawn-cli.ts';
import { arrivalOffsetsMs } from '../../harness/measure/load/schedule.ts';
import { loadAgainst } from './run-sim.ts';
import { fastSim } from './sim-fixture.ts';

const base = { 'input-len': '8', 'output-len': '4', warmup: '0' };

function maxOverlap(intervals: Array<[number, number]>): number {
  const edges = intervals.flatMap(([start, end]) => [[start, 1] as const, [end, -1] as const]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let current = 0;
  let max = 0;
  for (const [, delta] of edges) {
    current += delta;
    max = Math.max(max, current);
  }
  return max;
}

describe('closed loop', () => {
  it('keeps exactly `concurrency` requests in flight and sends the requested count', async () => {
    const sim = await fastSim({ decodeBaseMs: 5 });
    const run = await loadAgainst(sim.url, { ...base, 'output-len': '10', 'num-prompts': '40', concurrency: '8' });
    const records = run.records[0]!;
    expect(records).toHaveLength(40);
    expect(maxOverlap(records.map((r) => [r.sendMs, r.endMs]))).toBe(8);
    expect(run.result.points[0]!.stop).toBe('count');
  });

  it('a sweep is one point per concurrency, in order', async () => {
    const sim = await fastSim();
    const run = await loadAgainst(sim.url, { ...base, 'num-prompts': '6', concurrency: '1,2,3' });
    expect(run.result.points.map((p) => p.load)).toEqual([
      { mode: 'closed', concurrency: 1 },
      { mode: 'closed', concurrency: 2 },
      { mode: 'closed', concurrency: 3 },
    ]);
  });

  it('stops by duration: no request is sent after it, in-flight ones finish', async () => {
    const sim = await fastSim({ decodeBaseMs: 5 });
    const run = await loadAgainst(sim.url, { ...base, 'output-len': '8', duration: '0.5', concurrency: '4' });
    const point = run.result.points[0]!;
    const records = run.records[0]!;
    expect(point.stop).toBe('duration');
    const firstSend = Math.min(...records.map((r) => r.sendMs));
    expect(Math.max(...records.map((r) => r.sendMs)) - firstSend).toBeLessThan(500);
    expect(point.metrics.failed).toBe(0);
    expect(point.metrics.duration_s).toBeGreaterThanOrEqual(0.5);
  });
});

describe('open loop', () => {
  it('sends each request at its absolute scheduled time (late by under 2 ms at the median)', async () => {
    // The sim in its own process: in-process, its engine steps would share the client's event loop.
    const sim = await spawnSim(['--decode-base-ms', '1', '--decode-per-seq-ms', '0']);
    onTestFinished(() => sim.stop().then(() => undefined));
    const run = await loadAgainst(sim.url, { ...base, 'num-prompts': '60', rate: '100', seed: '5' });
    const records = [...run.records[0]!].sort((a, b) => a.scheduledMs - b.scheduledMs);
    const start = records[0]!.scheduledMs;
    const offsets = arrivalOffsetsMs({ rate: 100, arrival: 'poisson', burstiness: 1, seed: 5, count: 60, durationS: null });
    records.forEach((record, i) => expect(record.scheduledMs - start).toBeCloseTo(offsets[i]!, 6));
    const late = records.map((r) => r.sendMs - r.scheduledMs).sort((a, b) => a - b);
    expect(late[0]).toBeGreaterThanOrEqual(0); // never early
    expect(late[30]).toBeLessThan(2);
    expect(run.result.points[0]!.load).toEqual({ mode: 'open', rate: 100, arrival: 'poisson', burstiness: 1, max_concurrency: null });
  });

  it('with a concurrency cap, waits for a slot and reports the wait as queue_ms', async () => {
    const sim = await fastSim({ decodeBaseMs: 5 });
    const run = await loadAgainst(sim.url, { ...base, 'output-len': '10', 'num-prompts': '30', rate: 'inf', 'max-concurrency': '3' });
    const records = run.records[0]!;
    expect(maxOverlap(records.map((r) => [r.sendMs, r.endMs]))).toBe(3);
    const queue = run.result.points[0]!.metrics.queue_ms!;
    // 30 requests at once, 3 at a time, ~50 ms each: the last ones queue for ~9 rounds.
    expect(queue.max).toBeGreaterThan(300);
    expect(queue.min).toBeLessThan(5);
    // TTFT starts at the actual send, so it stays small although the queue grew.
    expect(run.result.points[0]!.metrics.ttft_ms!.p50).toBeLessThan(50);
  });

  it('gamma arrivals and constant arrivals are recorded as such', async () => {
    const sim = await fastSim();
    const gamma = await loadAgainst(sim.url, { ...base, 'num-prompts': '5', rate: '200', burstiness: '0.5' });
    expect(gamma.result.points[0]!.load).toMatchObject({ arrival: 'gamma', burstiness: 0.5 });
    const constant = await loadAgainst(sim.url, { ...base, 'num-prompts': '5', rate: '200', arrival: 'constant' });
    const sends = constant.records[0]!.map((r) => r.scheduledMs).sort((a, b) => a - b);
    sends.slice(1).forEach((t, i) => expect(t - sends[i]!).toBeCloseTo(5, 6));
  });

  it('stops by duration: the schedule ends there', async () => {
    const sim = await fastSim();
    const run = await loadAgainst(sim.url, { ...base, duration: '0.3', rate: '50', arrival: 'constant' });
    expect(run.records[0]).toHaveLength(15);
    expect(run.result.points[0]!.stop).toBe('duration');
    const capped = await loadAgainst(sim.url, { ...base, duration: '0.3', 'num-prompts': '100', rate: '50', arrival: 'constant' });
    expect(capped.records[0]).toHaveLength(15);
    expect(capped.result.points[0]!.stop).toBe('duration');
    const counted = await loadAgainst(sim.url, { ...base, duration: '10', 'num-prompts': '5', rate: '50', arrival: 'constant' });
    expect(counted.result.points[0]!.stop).toBe('count');
  });
});

describe('warmup', () => {
  it('uses distinct prompts and is excluded from the statistics', async () => {
    const sim = await fastSim();
    const run = await loadAgainst(sim.url, { ...base, 'num-prompts': '4', concurrency: '2', warmup: '3' });
    expect(run.result.points[0]!.requests_sent).toBe(4);
    expect(run.result.points[0]!.warmup_requests).toBe(3);
    expect(sim.groundTruth()).toHaveLength(7);
    expect(run.result.points[0]!.prompt_set_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('every point of a sweep sends its own prompts (no prefix-cache hits across points), reproducibly', async () => {
    const sim = await fastSim();
    const flags = { ...base, 'num-prompts': '3', concurrency: '1,1' };
    const [a, b] = [await loadAgainst(sim.url, flags), await loadAgainst(sim.url, flags)];
    const hashes = a.result.points.map((p) => p.prompt_set_sha256);
    expect(hashes[0]).not.toBe(hashes[1]);
    expect(b.result.points.map((p) => p.prompt_set_sha256)).toEqual(hashes);

  });
});
