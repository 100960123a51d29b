/**
 * Zero-cost mode keeps 2,000 concurrent streams going. Zero-cost streams of a few tokens finish
 * before the last client has connected, so concurrency is proven separately: every stream stalls
 * half-way (the stall fault) and the test checks that all 2,000 are open and running at once.
 */
import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { countSimTokens } from '../../harness/engines/sim/tokens.ts';
import { sim } from './helpers.ts';

const STREAMS = 2000;
const TOKENS = 8;

interface Stream {
  /** Resolves once `events` SSE events have arrived. */
  readonly reached: Promise<void>;
  readonly body: Promise<string>;
}

function openStream(url: URL, agent: Agent, id: number, events: number): Stream {
  let reachedResolve!: () => void;
  const reached = new Promise<void>((resolve) => (reachedResolve = resolve));
  const payload = JSON.stringify({ model: 'sim-model', prompt: `stream ${id}`, max_tokens: TOKENS, ignore_eos: true, stream: true });
  const body = new Promise<string>((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => {
        text += chunk;
        if (text.split('\n\n').length - 1 >= events) reachedResolve();
      });
      res.on('end', () => resolve(text));
      res.on('error', reject);
      res.on('close', () => resolve(text));
    });
    req.on('error', reject);
    req.end(payload);
  });
  return { reached, body };
}

function streams(serverUrl: string, events: number): { all: Stream[]; agent: Agent } {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const url = new URL('/v1/completions', serverUrl);
  return { all: Array.from({ length: STREAMS }, (_, i) => openStream(url, agent, i, events)), agent };
}

describe('zero-cost scale', () => {
  it(`holds ${STREAMS} streams open and running at once`, async () => {
    const server = await sim({ zeroCost: true, faults: { stall: 1 }, stallMs: 60_000 });
    const { all, agent } = streams(server.url, TOKENS / 2);
    await Promise.all(all.map((stream) => stream.reached));
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain(`sim_num_requests_running ${STREAMS}`);
    const records = server.groundTruth();
    expect(records).toHaveLength(STREAMS);
    expect(records.every((record) => record.token_write_ms.length === TOKENS / 2 && record.end_ms === null)).toBe(true);
    await server.close();
    // Closing the server cuts the stalled streams; the clients see that as an aborted response.
    await Promise.allSettled(all.map((stream) => stream.body));
    agent.destroy();
  }, 30_000);

  it(`completes ${STREAMS} concurrent requests with every token`, async () => {
    const server = await sim({ zeroCost: true });
    const { all, agent } = streams(server.url, TOKENS + 1);
    const bodies = await Promise.all(all.map((stream) => stream.body));
    agent.destroy();
    for (const body of bodies) {
      const events = body.split('\n\n').filter(Boolean);
      expect(events.at(-1)).toBe('data: [DONE]');
      const text = events.slice(0, -1).map((event) => JSON.parse(event.slice(6)).choices[0].text as string).join('');
      expect(countSimTokens(text)).toBe(TOKENS);
    }
    const records = server.groundTruth();
    expect(records).toHaveLength(STREAMS);
    expect(records.every((record) => record.completion_tokens === TOKENS && record.finish_reason === 'length')).toBe(true);
  }, 30_000);
});
