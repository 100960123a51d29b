/**
 * Every fault class is observable from the client side, and recorded in ground truth and /metrics.
 * stall, being about wall-clock time, is in step-timing.timing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { decideFault } from '../../harness/testbed/sim/faults.ts';
import { countSimTokens } from '../../harness/testbed/sim/tokens.ts';
import { completionBody, jsonEvents, post, readSse, sim, streamedText } from './helpers.ts';

const COMPLETIONS = '/v1/completions';
const body = completionBody({ max_tokens: 10, ignore_eos: true });

describe('faults', () => {
  it('http500 and http429 answer at once with OpenAI-style errors', async () => {
    const s500 = await sim({ zeroCost: true, faults: { http500: 1 } });
    const r500 = await post(s500.url + COMPLETIONS, body);
    expect(r500.status).toBe(500);
    expect(((await r500.json()) as { error: { code: number } }).error.code).toBe(500);
    expect(s500.groundTruth()[0]).toMatchObject({ status: 500, fault: 'http500', completion_tokens: 0 });

    const s429 = await sim({ zeroCost: true, faults: { http429: 1 } });
    const r429 = await post(s429.url + COMPLETIONS, body);
    expect(r429.status).toBe(429);
    expect(r429.headers.get('retry-after')).toBe('1');
    expect(((await r429.json()) as { error: { type: string } }).error.type).toBe('RateLimitError');
    const metrics = await (await fetch(`${s429.url}/metrics`)).text();
    expect(metrics).toContain('sim_request_failure_total{reason="http429"} 1');
    expect(metrics).toContain('sim_faults_injected_total{fault="http429"} 1');
  });

  it('reset drops the connection after about half the tokens', async () => {
    const server = await sim({ decodeBaseMs: 2, faults: { reset: 1 } });
    const result = await readSse(server.url + COMPLETIONS, body);
    expect(result.status).toBe(200);
    expect(result.error).not.toBeNull();
    expect(result.data).not.toContain('[DONE]');
    expect(countSimTokens(streamedText(jsonEvents(result)))).toBe(5);
    expect(server.groundTruth()[0]).toMatchObject({ fault: 'reset', completion_tokens: 5, finish_reason: null });
  });

  it('truncate ends the response cleanly without finish chunk or [DONE]', async () => {
    const server = await sim({ zeroCost: true, faults: { truncate: 1 } });
    const result = await readSse(server.url + COMPLETIONS, body);
    expect(result.error).toBeNull();
    expect(result.data).not.toContain('[DONE]');
    const events = jsonEvents(result);
    expect(events.every((event) => event['choices'][0].finish_reason === null)).toBe(true);
    expect(countSimTokens(streamedText(events))).toBe(5);
    expect(server.groundTruth()[0]).toMatchObject({ fault: 'truncate', completion_tokens: 5, finish_reason: null });
  });

  it('malformed emits one invalid-JSON event mid-stream and then carries on', async () => {
    const server = await sim({ zeroCost: true, faults: { malformed: 1 } });
    const result = await readSse(server.url + COMPLETIONS, body);
    const invalid = result.data.filter((payload) => {
      try {
        JSON.parse(payload);
        return false;
      } catch {
        return payload !== '[DONE]';
      }
    });
    expect(invalid).toHaveLength(1);
    expect(result.data.indexOf(invalid[0]!)).toBe(5);
    expect(result.data.at(-1)).toBe('[DONE]');
    const valid = result.data.filter((payload) => payload !== invalid[0] && payload !== '[DONE]').map((p) => JSON.parse(p));
    expect(countSimTokens(streamedText(valid))).toBe(10);
  });

  it('early_stop stops at about half of max_tokens with "stop" despite ignore_eos', async () => {
    const server = await sim({ zeroCost: true, faults: { early_stop: 1 } });
    const events = jsonEvents(await readSse(server.url + COMPLETIONS, { ...body, stream_options: { include_usage: true } }));
    expect(events.at(-1)!['usage'].completion_tokens).toBe(5);
    expect(events.at(-2)!['choices'][0].finish_reason).toBe('stop');
    expect(countSimTokens(streamedText(events))).toBe(5);
  });

  it('the same seed draws the same faults after a ground-truth reset', async () => {
    const server = await sim({ zeroCost: true, faults: { http500: 0.3, truncate: 0.3 }, seed: 42 });
    const runOnce = async (): Promise<(string | null)[]> => {
      for (let i = 0; i < 20; i++) await (await post(server.url + COMPLETIONS, { ...body, max_tokens: 2 })).text();
      return server.groundTruth().map((record) => record.fault);
    };
    const first = await runOnce();
    server.resetGroundTruth();
    expect(await runOnce()).toEqual(first);
    expect(first).toEqual(Array.from({ length: 20 }, (_, i) => decideFault({ http500: 0.3, truncate: 0.3 }, 42, i)));
  });
});
