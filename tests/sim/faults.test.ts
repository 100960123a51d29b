/**
 * Every fault class is observable from the client side, and recorded in ground truth and /metrics.
 * The answers that never end (endless, http500_endless) are read in part here; what the load
 * generator does with them is in tests/load/runaway.test.ts.
 * stall, being about wall-clock time, is in step-timing.timing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { decideFault } from '../../harness/engines/sim/faults.ts';
import { countSimTokens } from '../../harness/engines/sim/tokens.ts';
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

  it('endless streams valid tokens past max_tokens without end, until the client hangs up', async () => {
    const server = await sim({ zeroCost: true, faults: { endless: 1 } });
    const response = await post(server.url + COMPLETIONS, body);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    // Read a megabyte of it, then hang up.
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (text.length < 1024 * 1024) text += decoder.decode((await reader.read()).value, { stream: true });
    await reader.cancel();
    const events = text.split('\n\n').slice(0, -1).map((event) => JSON.parse(event.replace(/^data: /, '')) as Record<string, any>);
    expect(events.length).toBeGreaterThan(100 * 10);
    expect(events.every((event) => event['choices'][0].finish_reason === null)).toBe(true);
    expect(countSimTokens(streamedText(events))).toBe(events.length);
    for (let waited = 0; server.groundTruth()[0]!.end_ms === null && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.groundTruth()[0]).toMatchObject({ fault: 'endless', status: 200, finish_reason: null, client_aborted: true });
    expect(server.groundTruth()[0]!.completion_tokens).toBeGreaterThanOrEqual(events.length);
    expect(await (await fetch(`${server.url}/metrics`)).text()).toContain('sim_request_failure_total{reason="endless"} 1');
  });

  it('http500_endless answers 500 with an OpenAI-style error whose body never ends', async () => {
    const server = await sim({ zeroCost: true, faults: { http500_endless: 1 } });
    const response = await post(server.url + COMPLETIONS, body);
    expect(response.status).toBe(500);
    const reader = response.body!.getReader();
    let text = '';
    while (text.length < 256 * 1024) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text).toMatch(/^\{"error":\{"code":500,"type":"server_error","message":"Simulated internal server error whose body never ends \(--faults http500_endless\): x+$/);
    expect(server.groundTruth()[0]).toMatchObject({ fault: 'http500_endless', status: 500, completion_tokens: 0 });
  });

  it("error_event cuts the stream after half the tokens with llama.cpp's error event, no [DONE]; not streamed, a 500", async () => {
    const server = await sim({ zeroCost: true, personality: 'llamacpp', faults: { error_event: 1 } });
    const result = await readSse(server.url + COMPLETIONS, body);
    expect(result.status).toBe(200);
    expect(result.error).toBeNull();
    expect(result.data).not.toContain('[DONE]');
    const events = jsonEvents(result);
    expect(events.at(-1)).toEqual({ error: { code: 500, message: 'The model produced output that does not match the expected Content-only format', type: 'server_error' } });
    expect(countSimTokens(streamedText(events.slice(0, -1)))).toBe(5);
    expect(server.groundTruth()[0]).toMatchObject({ fault: 'error_event', completion_tokens: 5, finish_reason: null });

    const plain = await post(server.url + COMPLETIONS, { ...body, stream: false });
    expect(plain.status).toBe(500);
    expect(await plain.json()).toEqual({ error: { code: 500, message: 'The model produced output that does not match the expected Content-only format', type: 'server_error' } });
    expect(await (await fetch(`${server.url}/metrics`)).text()).toContain('sim_request_failure_total{reason="error_event"} 2');
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
