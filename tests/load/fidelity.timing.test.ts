/**
 * Fidelity: what the client measures vs what the server did. The sim runs in its own process and
 * records when it wrote each token, in a clock this test can share: both processes read
 * CLOCK_MONOTONIC (process.hrtime), so a server write and a client timestamp compare directly.
 *
 * Truth per request:
 *  - TTFT = server's write of the first token − client's send. (The server cannot see when a
 *    request left the client; time in the socket and in the server's input queue is server time,
 *    which TTFT must include.) At concurrency 1, where the server has no input queue, the
 *    server-only TTFT (first write − receipt) must agree too.
 *  - TPOT = (last token write − first token write) / (n − 1), entirely server-side.
 * Errors are paired per request (each request's measured value minus its true value); the
 * median error must be within 2 ms at concurrency 1, 64 and 256. Medians of the two unpaired
 * distributions are not used: batching makes TTFTs cluster by engine step, and a median that
 * falls between clusters jumps by a step for a sub-millisecond shift.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestTimings } from '../../harness/measure/metrics/summarize.ts';
import { allCpus, pinProcess } from '../../harness/lib/process/cpu-affinity.ts';
import { spawnSim, type SimChild } from '../../harness/lib/process/spawn-cli.ts';
import { monotonicOriginMs, type GroundTruthDocument } from '../../harness/engines/sim/ground-truth.ts';
import { loadAgainst, median } from './run-sim.ts';

const TOLERANCE_MS = 2;
const OUTPUT_TOKENS = 24;

async function fetchGroundTruth(url: string): Promise<GroundTruthDocument> {
  return (await (await fetch(`${url}/ground-truth`)).json()) as GroundTruthDocument;
}

describe('fidelity against the sim engine ground truth', () => {
  let sim: SimChild;
  const clientOriginMs = monotonicOriginMs();
  // Client and server each get a core, as in a real benchmark; unpinned, the OS may put both on
  // one core now and then and the test would measure that instead.
  beforeAll(async () => {
    pinProcess(process.pid, '0');
    sim = await spawnSim(['--decode-base-ms', '10', '--decode-per-seq-ms', '0.05', '--prefill-tokens-per-s', '50000'], { cpu: 1 });
  });
  afterAll(async () => {
    await sim?.stop();
    pinProcess(process.pid, allCpus());
  });

  for (const [concurrency, prompts] of [
    [1, 12],
    [64, 256],
    [256, 768],
  ] as const) {
    it(`concurrency ${concurrency}: median TTFT and TPOT errors within ${TOLERANCE_MS} ms`, { timeout: 60_000 }, async () => {
      await fetch(`${sim.url}/ground-truth`, { method: 'DELETE' });
      const run = await loadAgainst(sim.url, {
        'input-len': '64',
        'output-len': String(OUTPUT_TOKENS),
        'num-prompts': String(prompts),
        concurrency: String(concurrency),
        warmup: String(Math.min(concurrency, 64)),
      });
      const records = run.records[0]!;
      expect(records).toHaveLength(prompts);
      expect(records.every((r) => r.failure === null)).toBe(true);
      const truth = await fetchGroundTruth(sim.url);
      const byId = new Map(truth.requests.map((t) => [t.request_id, t]));
      const toServerClock = clientOriginMs - truth.monotonic_origin_ms;

      const ttftErrors: number[] = [];
      const serverOnlyTtftErrors: number[] = [];
      const tpotErrors: number[] = [];
      for (const record of records) {
        const t = byId.get(record.requestId)!;
        expect(t.completion_tokens).toBe(OUTPUT_TOKENS);
        const measured = requestTimings(record);
        const trueTtft = t.first_token_ms! - (record.sendMs + toServerClock);
        const trueTpot = (t.token_write_ms.at(-1)! - t.token_write_ms[0]!) / (t.completion_tokens - 1);
        ttftErrors.push(measured.ttftMs - trueTtft);
        serverOnlyTtftErrors.push(measured.ttftMs - (t.first_token_ms! - t.received_ms));
        tpotErrors.push(measured.tpotMs! - trueTpot);
      }
      // A client timestamp can be late (processing) but never earlier than the server's write.
      expect(Math.min(...ttftErrors)).toBeGreaterThanOrEqual(0);
      expect(Math.abs(median(ttftErrors))).toBeLessThanOrEqual(TOLERANCE_MS);
      expect(Math.abs(median(tpotErrors))).toBeLessThanOrEqual(TOLERANCE_MS);
      if (concurrency === 1) expect(Math.abs(median(serverOnlyTtftErrors))).toBeLessThanOrEqual(TOLERANCE_MS);

      // Counts come from the server's usage and match what it wrote.
      expect(records.every((r) => r.outputTokens === OUTPUT_TOKENS && r.outputTokensSource === 'usage')).toBe(true);
      expect(run.result.points[0]!.metrics.output_tokens).toBe(OUTPUT_TOKENS * prompts);
    });
  }
});
