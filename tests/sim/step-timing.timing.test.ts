/**
 * Assertions about wall-clock time (step cadence, stall isolation). Named *.timing.test.ts so the
 * vitest config runs them after the other files, one at a time, away from CPU contention.
 */
import { describe, expect, it } from 'vitest';
import { decideFault } from '../../harness/engines/sim/faults.ts';
import { completionBody, median, readSse, sim } from './helpers.ts';

const body = completionBody({ max_tokens: 10, ignore_eos: true });

describe('step timing', () => {
  it('writes a token every decodeBaseMs at concurrency 1 (drift-free steps)', async () => {
    const server = await sim({ decodeBaseMs: 10, decodePerSeqMs: 0, prefillTokensPerS: 1e9 });
    const result = await readSse(`${server.url}/v1/completions`, completionBody({ max_tokens: 40, ignore_eos: true }));
    const [record] = server.groundTruth();
    const writes = record!.token_write_ms;
    expect(writes).toHaveLength(40);
    const gaps = writes.slice(1).map((t, i) => t - writes[i]!);
    // libuv timers have 1 ms resolution; deadlines are anchored, so the median gap stays on 10 ms.
    expect(median(gaps)).toBeGreaterThan(8.5);
    expect(median(gaps)).toBeLessThan(11.5);
    // No drift: write k sits at anchor + 10k + lateness, and lateness does not accumulate, so the
    // earliest offsets of the last tokens match those of the first ones (a naive setTimeout chain
    // would lose ~0.5 ms per step, i.e. ~10 ms over 20 steps).
    const offsets = writes.map((t, k) => t - 10 * k);
    expect(Math.min(...offsets.slice(20)) - Math.min(...offsets.slice(0, 20))).toBeLessThan(4);
    // The client (same clock here) sees each token shortly after the sim wrote it.
    const clientLag = result.arrivals.slice(0, 40).map((t, i) => t - writes[i]!);
    expect(Math.min(...clientLag)).toBeGreaterThanOrEqual(0);
    expect(median(clientLag)).toBeLessThan(2);
  });

  it('stall pauses one stream for stall-ms while other requests keep going', async () => {
    // Find a seed whose first arrival stalls and whose second does not.
    const rates = { stall: 0.5 };
    const seed = Array.from({ length: 1000 }, (_, i) => i).find((s) => decideFault(rates, s, 0) === 'stall' && decideFault(rates, s, 1) === null)!;
    const server = await sim({ decodeBaseMs: 2, decodePerSeqMs: 0, faults: rates, seed, stallMs: 300 });
    const stalled = readSse(`${server.url}/v1/completions`, body, { 'x-request-id': 'stalled' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const started = performance.now();
    const other = await readSse(`${server.url}/v1/completions`, body, { 'x-request-id': 'other' });
    expect(performance.now() - started).toBeLessThan(200);
    expect(other.data.at(-1)).toBe('[DONE]');
    const result = await stalled;
    const gaps = result.arrivals.slice(1).map((t, i) => t - result.arrivals[i]!);
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(290);
    expect(result.data.at(-1)).toBe('[DONE]');
    const [stalledRecord, otherRecord] = server.groundTruth();
    expect(stalledRecord).toMatchObject({ request_id: 'stalled', fault: 'stall', completion_tokens: 10, finish_reason: 'length' });
    expect(otherRecord).toMatchObject({ request_id: 'other', fault: null });
    const writes = stalledRecord!.token_write_ms;
    expect(writes[5]! - writes[4]!).toBeGreaterThanOrEqual(299);
  });
});
