/**
 * How servers treat connections, as measured on real ones and reproduced by the sim, so the load
 * generator's handling is tested without them:
 * - llama-server closes the connection after every streamed response, unannounced (its headers
 *   said keep-alive): measured on llama.cpp b4753 and v0.4.0, a keep-alive client sending back to
 *   back lost every second request ("other side closed", before any response byte);
 * - cpp-httplib closes a connection after 100 requests, announced with Connection: close;
 * - uvicorn (vLLM, SGLang) and cpp-httplib close a keep-alive connection idle for 5 s.
 */
import { Client } from 'undici';
import { describe, expect, it } from 'vitest';
import { loadAgainst } from '../load/run-sim.ts';
import { sim } from './helpers.ts';

const STREAM = JSON.stringify({ model: 'sim-model', prompt: 'one two three', max_tokens: 4, stream: true, ignore_eos: true });
const PLAIN = JSON.stringify({ model: 'sim-model', prompt: 'one two three', max_tokens: 4, stream: false, ignore_eos: true });

/** Sends n requests back to back on one keep-alive connection; counts failures and connections. */
async function backToBack(url: string, n: number, body: string): Promise<{ failures: number; connects: number; closeHeaders: number }> {
  const client = new Client(url, { pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000 });
  let connects = 0;
  let failures = 0;
  let closeHeaders = 0;
  client.on('connect', () => (connects += 1));
  for (let i = 0; i < n; i++) {
    try {
      const response = await client.request({ path: '/v1/completions', method: 'POST', headers: { 'content-type': 'application/json' }, body });
      if (response.headers['connection'] === 'close') closeHeaders += 1;
      await response.body.text();
    } catch (error) {
      expect((error as { code?: string }).code).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
      failures += 1;
    }
  }
  await client.close();
  return { failures, connects, closeHeaders };
}

describe('connections as real servers treat them', () => {
  it('llamacpp: every streamed response closes its connection unannounced, so a client reusing it at once loses requests', async () => {
    const server = await sim({ zeroCost: true, personality: 'llamacpp' });
    const streamed = await backToBack(server.url, 40, STREAM);
    expect(streamed.closeHeaders).toBe(0);
    expect(streamed.failures).toBeGreaterThan(0);
    expect(streamed.connects).toBeGreaterThanOrEqual(20);
    // A response that is not streamed keeps the connection, as llama-server's do.
    const plain = await backToBack(server.url, 40, PLAIN);
    expect(plain).toEqual({ failures: 0, connects: 1, closeHeaders: 0 });
  });

  it('servebench load against it: no request fails, and the re-sends it needed are counted per request and per point', async () => {
    const server = await sim({ zeroCost: true, personality: 'llamacpp' });
    const { result } = await loadAgainst(server.url, { 'input-len': '8', 'output-len': '4', concurrency: '4', 'num-prompts': '400', warmup: '0', 'save-requests': true });
    const point = result.points[0]!;
    expect(point.metrics.failed).toBe(0);
    expect(point.metrics.completed).toBe(400);
    expect(point.requests!.reduce((sum, r) => sum + (r.retries ?? 0), 0)).toBe(point.retries);
  });

  it('cpp-httplib: the 100th request of a connection is answered with Connection: close, then a new connection serves', async () => {
    const server = await sim({ zeroCost: true, personality: 'llamacpp', closeAfterStream: false });
    const plain = await backToBack(server.url, 150, PLAIN);
    expect(plain).toEqual({ failures: 0, connects: 2, closeHeaders: 1 });
  });

  it('an idle keep-alive connection is closed after the idle timeout', async () => {
    const server = await sim({ zeroCost: true, idleTimeoutMs: 200 });
    const client = new Client(server.url, { keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000, keepAliveTimeoutThreshold: 0 });
    let disconnects = 0;
    client.on('disconnect', () => (disconnects += 1));
    await (await client.request({ path: '/v1/models', method: 'GET' })).body.text();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(disconnects).toBe(1);
    await client.close();
  });
});
