/**
 * A planted performance change, measured: the sim at a version below `1.3.0:1.5` and at one above
 * it decode at speeds 1.5 apart, from the sim's own write times (ground truth). Named
 * *.timing.test.ts: the assertion is about wall-clock time, so it runs alone, after the others.
 */
import { describe, expect, it } from 'vitest';
import type { SimServer } from '../../harness/engines/sim/server.ts';
import { completionBody, readSse, sim } from './helpers.ts';

const TOKENS = 100;
const BASE_MS = 10;

/** Mean time per decode step of one request alone: (last write − first write) / (tokens − 1). */
async function meanDecodeMs(server: SimServer): Promise<number> {
  const result = await readSse(`${server.url}/v1/completions`, completionBody({ max_tokens: TOKENS, ignore_eos: true }));
  expect(result.data.at(-1)).toBe('[DONE]');
  const writes = server.groundTruth()[0]!.token_write_ms;
  expect(writes).toHaveLength(TOKENS);
  return (writes.at(-1)! - writes[0]!) / (TOKENS - 1);
}

describe('versioned performance, measured', () => {
  it('decode steps take 1.5 times as long at and above the planted version', async () => {
    const config = { decodeBaseMs: BASE_MS, decodePerSeqMs: 0, prefillTokensPerS: 1e9, runNoise: 0, performanceChanges: [{ version: '1.3.0', factor: 1.5 }] };
    const before = await meanDecodeMs(await sim({ ...config, engineVersion: '1.2.0' }));
    const after = await meanDecodeMs(await sim({ ...config, engineVersion: '1.3.1' }));
    // The cost model gives one request alone a step of decodeBaseMs × factor: 10 and 15 ms. Step
    // deadlines are anchored (cost-model.ts nextDeadline), so a write's lateness ℓ ∈ [−0.2, L] ms
    // does not accumulate and the mean over 99 steps is off by at most (L + 0.2) / 99. Allowing a
    // hiccup of L = 15 ms on a busy 2-core machine: 10 ± 0.154 and 15 ± 0.154 ms, so the ratio
    // lies in [14.846 / 10.154, 15.154 / 9.846] = [1.462, 1.539].
    expect(before).toBeGreaterThan(BASE_MS - 0.154);
    expect(before).toBeLessThan(BASE_MS + 0.154);
    expect(after / before).toBeGreaterThan(1.462);
    expect(after / before).toBeLessThan(1.539);
  });
});
