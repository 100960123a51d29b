/** The sim's recorded timings are self-consistent and match what a client sees (cadence: step-timing.timing.test.ts). */
import { describe, expect, it } from 'vitest';
import type { GroundTruthDocument } from '../../harness/engines/sim/ground-truth.ts';
import { countSimTokens } from '../../harness/engines/sim/tokens.ts';
import { chatBody, completionBody, jsonEvents, readSse, sim, streamedText } from './helpers.ts';

describe('ground truth', () => {
  it('records consistent timings for every request', async () => {
    const server = await sim({ decodeBaseMs: 2, decodePerSeqMs: 0.01 });
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        readSse(`${server.url}/v1/chat/completions`, chatBody({ max_tokens: 5 + i, messages: [{ role: 'user', content: `prompt number ${i}` }] }), { 'x-request-id': `req-${i}` }),
      ),
    );
    const records = server.groundTruth();
    expect(records).toHaveLength(16);
    for (const [i, result] of results.entries()) {
      const record = records.find((r) => r.request_id === `req-${i}`)!;
      const tokens = countSimTokens(streamedText(jsonEvents(result)));
      expect(record).toMatchObject({ status: 200, stream: true, path: '/v1/chat/completions', personality: 'vllm', fault: null, client_aborted: false });
      expect(record.completion_tokens).toBe(tokens);
      expect(record.token_write_ms).toHaveLength(tokens);
      expect(record.prompt_tokens).toBe(3 + 4 + 3);
      expect(record.admitted_ms!).toBeGreaterThanOrEqual(record.received_ms);
      expect(record.first_token_ms!).toBeGreaterThanOrEqual(record.admitted_ms!);
      expect(record.first_token_ms).toBe(record.token_write_ms[0]);
      for (let k = 1; k < record.token_write_ms.length; k++) expect(record.token_write_ms[k]!).toBeGreaterThanOrEqual(record.token_write_ms[k - 1]!);
      expect(record.end_ms!).toBeGreaterThanOrEqual(record.token_write_ms.at(-1)!);
      expect(record.finish_reason).toBe('stop'); // natural EOS (ignore_eos is off)
    }
  });

  it('serves /ground-truth with the time origin and resets on DELETE', async () => {
    const server = await sim({ zeroCost: true });
    await readSse(`${server.url}/v1/completions`, completionBody({ max_tokens: 3 }), { 'x-request-id': 'abc' });
    const document = (await (await fetch(`${server.url}/ground-truth`)).json()) as GroundTruthDocument;
    expect(document.time_origin_ms).toBe(performance.timeOrigin);
    // monotonic_origin_ms maps the sim clock onto process.hrtime, which every process on the host shares.
    expect(Math.abs(document.monotonic_origin_ms + performance.now() - Number(process.hrtime.bigint()) / 1e6)).toBeLessThan(0.1);
    expect(document.requests).toHaveLength(1);
    expect(document.requests[0]!.request_id).toBe('abc');
    expect(document.time_origin_ms + document.requests[0]!.received_ms).toBeCloseTo(Date.now(), -4);
    const deleted = await fetch(`${server.url}/ground-truth`, { method: 'DELETE' });
    expect(await deleted.json()).toEqual({ deleted: 1 });
    expect(server.groundTruth()).toEqual([]);
    await readSse(`${server.url}/v1/completions`, completionBody({ max_tokens: 3 }));
    expect(server.groundTruth()[0]!.request_id).toMatch(/^sim-/);
  });

  it('records a client abort and frees the engine', async () => {
    const server = await sim({ decodeBaseMs: 5 });
    const controller = new AbortController();
    const response = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify(completionBody({ max_tokens: 1000, ignore_eos: true })),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [record] = server.groundTruth();
    expect(record).toMatchObject({ client_aborted: true, finish_reason: null });
    expect(record!.completion_tokens).toBeLessThan(1000);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('sim_num_requests_running 0');
    expect(metrics).toContain('sim_request_failure_total{reason="client_abort"} 1');
  });

  it('UTF-8 multi-byte words reach the client intact', async () => {
    const server = await sim({ zeroCost: true });
    const result = await readSse(`${server.url}/v1/completions`, completionBody({ max_tokens: 400, ignore_eos: true }));
    const text = streamedText(jsonEvents(result));
    expect(countSimTokens(text)).toBe(400);
    expect(Buffer.byteLength(text)).toBeGreaterThan(text.length);
    expect(/[^\u0000-\u007f]/.test(text)).toBe(true);
  });
});
