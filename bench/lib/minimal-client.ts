/**
 * The references bench:client compares servebench's load generator with: the smallest honest
 * streaming client a person would write in Node (`for await` over the body, a TextDecoder, events
 * split on blank lines, JSON.parse of each `data:` payload, a token counted when its text is not
 * empty), closed loop at a fixed concurrency, in two transports: Node's built-in `fetch` (what a
 * minimal client reaches for) and a keep-alive undici Pool with `request` (the fastest plain
 * undici path; servebench itself uses undici's lower-level dispatch). Neither keeps timestamps,
 * checks or records anything: what servebench does beyond them (per-event timing, usage and order
 * checks, failure classes, the client's own saturation) is the cost the ratios price.
 */
import { Pool } from 'undici';

export interface MinimalClientReport {
  readonly content_events_per_s: number;
  /** This process's CPU (user + system) per content event over the run: the cost, where events/s may be the server's limit. */
  readonly cpu_us_per_event: number;
  readonly requests: number;
  readonly failed: number;
}

export const MINIMAL_TRANSPORTS = ['fetch', 'undici-pool'] as const;
export type MinimalTransport = (typeof MINIMAL_TRANSPORTS)[number];

export async function runMinimalClient(url: string, options: { transport: MinimalTransport; concurrency: number; prompts: number; outputLen: number; model: string }): Promise<MinimalClientReport> {
  const pool = new Pool(url, { connections: options.concurrency, pipelining: 1 });
  const body = JSON.stringify({ model: options.model, prompt: 'hello '.repeat(16), max_tokens: options.outputLen, stream: true, ignore_eos: true });
  const headers = { 'content-type': 'application/json' };
  let next = 0;
  let events = 0;
  let failed = 0;
  /** The response body as chunks, or null for a non-200 answer (drained). */
  const open = async (): Promise<AsyncIterable<Uint8Array> | null> => {
    if (options.transport === 'fetch') {
      const response = await fetch(`${url}/v1/completions`, { method: 'POST', headers, body });
      if (response.status === 200 && response.body !== null) return response.body;
      await response.arrayBuffer();
      return null;
    }
    const response = await pool.request({ path: '/v1/completions', method: 'POST', headers, body });
    if (response.statusCode === 200) return response.body;
    await response.body.dump();
    return null;
  };
  const one = async (): Promise<void> => {
    const chunks = await open();
    if (chunks === null) {
      failed += 1;
      return;
    }
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of chunks) {
      buffer += decoder.decode(chunk, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
        const data = JSON.parse(event.slice(6)) as { choices?: Array<{ text?: string }> };
        if ((data.choices?.[0]?.text ?? '') !== '') events += 1;
      }
    }
  };
  const worker = async (): Promise<void> => {
    while (next < options.prompts) {
      next += 1;
      try {
        await one();
      } catch {
        failed += 1;
      }
    }
  };
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { content_events_per_s: Math.round(events / seconds), cpu_us_per_event: Number(((used.user + used.system) / events).toFixed(2)), requests: options.prompts, failed };
}
