/** Every failure class, provoked by the sim's fault injection and seen from the client side. */
import { describe, expect, it } from 'vitest';
import type { FailureClass } from '../../harness/contract/vocabulary.ts';
import type { FaultKind } from '../../harness/engines/sim/config.ts';
import { loadAgainst } from './run-sim.ts';
import { fastSim } from './sim-fixture.ts';

const flags = { 'input-len': '10', 'output-len': '16', 'num-prompts': '5', concurrency: '5', warmup: '0' };

const cases: Array<[FaultKind, FailureClass, number | null]> = [
  ['http500', 'http_error', 500],
  ['http429', 'http_error', 429],
  ['reset', 'connection_reset', null],
  ['malformed', 'malformed_event', null],
  ['early_stop', 'short_output', null],
  ['truncate', 'truncated_stream', null],
];

describe('failure classes', () => {
  for (const [fault, cls, status] of cases) {
    it(`${fault} → ${cls}`, async () => {
      const sim = await fastSim({ faults: { [fault]: 1 } });
      const run = await loadAgainst(sim.url, flags);
      const point = run.result.points[0]!;
      expect(point.metrics.failed).toBe(5);
      expect(point.failures[cls]).toBe(5);
      if (status !== null) expect(run.records[0]!.every((r) => r.failure!.status === status)).toBe(true);
      expect(point.metrics.ttft_ms).toBeNull();
      expect(run.result.outcome.exceeded_max_failure_rate).toBe(true);
    });
  }

  it('stall longer than the timeout → timeout, and the run does not hang', async () => {
    const sim = await fastSim({ faults: { stall: 1 }, stallMs: 60_000 });
    const started = performance.now();
    const run = await loadAgainst(sim.url, { ...flags, timeout: '0.5' });
    expect(run.result.points[0]!.failures.timeout).toBe(5);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('a stall shorter than the timeout is a slow success, visible in the ITL tail', async () => {
    const sim = await fastSim({ faults: { stall: 1 }, stallMs: 300 });
    const run = await loadAgainst(sim.url, { ...flags, 'num-prompts': '2', concurrency: '1' });
    const point = run.result.points[0]!;
    expect(point.metrics.completed).toBe(2);
    expect(point.metrics.itl_ms!.max).toBeGreaterThanOrEqual(300);
  });

  it('a server that goes away: connection_refused', async () => {
    const sim = await fastSim();
    const { runPoint } = await import('../../harness/measure/load/run-point.ts');
    const { commandLineWorkload } = await import('../../harness/measure/load/load-options.ts');
    const origin = sim.url;
    await sim.close();
    const point = await runPoint(
      {
        origin,
        path: '/v1/completions',
        connectPath: '/v1/models',
        headers: { 'content-type': 'application/json' },
        connectHeaders: {},
        timeoutMs: 5000,
        ignoreEos: true,
        tokenizer: null,
        prompts: { build: { workload: commandLineWorkload(), tokenizer: null }, body: { model: 'sim-model', temperature: 0, ignoreEos: true, extraBody: {} } },
        warmup: 0,
        count: 3,
        durationS: null,
        seed: 0,
        slo: null,
        saveRequests: false,
        requestIdPrefix: 'gone',
      },
      { mode: 'closed', concurrency: 1 },
      0,
      new AbortController().signal,
    );
    expect(point.failures.connection_refused).toBe(3);
  });

  it('mixed faults at 30%: every request accounted for, classes match what the sim injected', async () => {
    const faults = { http500: 0.05, http429: 0.05, reset: 0.05, malformed: 0.05, early_stop: 0.05, truncate: 0.05 };
    const sim = await fastSim({ faults, seed: 3 });
    const run = await loadAgainst(sim.url, { ...flags, 'num-prompts': '200', concurrency: '16' });
    const point = run.result.points[0]!;
    const expected: Record<string, FailureClass> = {
      http500: 'http_error',
      http429: 'http_error',
      reset: 'connection_reset',
      malformed: 'malformed_event',
      early_stop: 'short_output',
      truncate: 'truncated_stream',
    };
    for (const record of run.records[0]!) {
      const truth = sim.groundTruth().find((t) => t.request_id === record.requestId)!;
      expect(record.failure?.class ?? null).toBe(truth.fault === null ? null : expected[truth.fault]);
    }
    expect(point.metrics.completed + point.metrics.failed).toBe(200);
    expect(point.metrics.failed).toBeGreaterThan(20);
  });
});
