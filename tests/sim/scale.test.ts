/**
 * Zero-cost mode keeps 2,000 concurrent streams going (few tokens each, to stay fast). Zero-cost
 * streams of a few tokens would finish before the next one connects, so every request stalls
 * half-way (the stall fault) to keep all of them open at the same time.
 */
import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { countSimTokens } from '../../harness/sim/tokens.ts';
import { sim } from './helpers.ts';

const STREAMS = 2000;
const TOKENS = 8;
const STALL_MS = 1500;

/** node:http with an unbounded agent: fetch would work too, but this keeps the client cheap. */
function stream(url: URL, agent: Agent, id: number): Promise<string> {
  const payload = JSON.stringify({ model: 'sim-model', prompt: `stream ${id}`, max_tokens: TOKENS, ignore_eos: true, stream: true });
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-request-id': `s${id}` } }, (res) => {
      res.setEncoding('utf8');
      let body = '';
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

describe('zero-cost scale', () => {
  it(`serves ${STREAMS} concurrent streams`, async () => {
    const server = await sim({ zeroCost: true, faults: { stall: 1 }, stallMs: STALL_MS });
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const url = new URL('/v1/completions', server.url);
    const bodies = await Promise.all(Array.from({ length: STREAMS }, (_, i) => stream(url, agent, i)));
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
    // They really overlapped: every stream was admitted before the first one ended.
    const firstEnd = Math.min(...records.map((record) => record.end_ms!));
    const lastAdmitted = Math.max(...records.map((record) => record.admitted_ms!));
    expect(lastAdmitted).toBeLessThan(firstEnd);
  }, 30_000);
});
