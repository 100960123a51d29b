/**
 * One look at the live server before measuring: does it honour ignore_eos, how does it stream
 * usage, does a chat stream start with a role-only chunk, which optional endpoints exist. The
 * findings go into the result, so a reader knows how the engine behaved, not how it is said to.
 */
import { request } from 'undici';
import { readChunk } from '../load/openai-chunk.ts';
import { createSseDecoder } from '../load/sse-decoder.ts';
import type { Api, Probe } from '../schema/result.ts';
import type { Engine } from '../schema/engine.ts';
import { verifyPromptLengths } from '../workloads/verify-lengths.ts';

const PROBE_TOKENS = 8;

export async function probeServer(endpoint: string, engine: Engine, api: Api, model: string, headers: Record<string, string>): Promise<Probe> {
  const force = engine.quirks.ignore_eos === 'debug_config' ? { debug_config: { ignore_eos: true } } : engine.quirks.ignore_eos === 'body' ? { ignore_eos: true } : {};
  const input = api === 'chat' ? { messages: [{ role: 'user', content: 'Count from one to twenty.' }] } : { prompt: 'Count from one to twenty:' };
  const body = { model, ...input, max_tokens: PROBE_TOKENS, temperature: 0, stream: true, stream_options: { include_usage: true }, ...force, ...engine.quirks.explicit_body };
  let events = 0;
  let completionTokens: number | null = null;
  let usage: Probe['usage'] = 'none';
  let roleChunk = false;
  let first = true;
  let error: string | null = null;
  try {
    const response = await request(`${endpoint}${api === 'chat' ? '/v1/chat/completions' : '/v1/completions'}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
      headersTimeout: 120_000,
      bodyTimeout: 120_000,
    });
    if (response.statusCode !== 200) {
      error = `HTTP ${response.statusCode}: ${(await response.body.text()).slice(0, 200)}`;
    } else {
      const decoder = createSseDecoder({
        onData(data) {
          const reading = readChunk(data);
          if (reading.kind !== 'chunk') return;
          if (first && reading.text === '' && reading.finishReason === null && reading.usage === null) roleChunk = api === 'chat';
          first = false;
          if (reading.text !== '') events += 1;
          if (reading.usage?.completionTokens != null) {
            completionTokens = reading.usage.completionTokens;
            usage = reading.finishReason !== null || reading.text !== '' ? 'final_chunk' : 'usage_chunk';
          }
        },
        onError(message) {
          error = message;
        },
      });
      for await (const chunk of response.body) decoder.push(chunk as Buffer);
      decoder.end();
    }
  } catch (caught) {
    error = (caught as Error).message;
  }
  const produced: number | null = completionTokens ?? (events > 0 ? events : null);
  const metricsOk = engine.metrics
    ? await request(`${endpoint}${engine.metrics.path}`, { headersTimeout: 5000, bodyTimeout: 5000, headers }).then(
        async (r) => (await r.body.dump(), r.statusCode === 200),
        () => false,
      )
    : false;
  const tokenize = await verifyPromptLengths(`${endpoint}/tokenize`, model, headers, [{ input: { prompt: 'one two three' }, inputTokens: 0 }]).catch(() => null);
  return {
    ignore_eos_honoured: error !== null || produced === null ? null : produced === PROBE_TOKENS,
    usage,
    role_chunk: roleChunk,
    tokenize_endpoint: tokenize !== null && tokenize.style !== null,
    metrics_endpoint: metricsOk,
    error,
  };
}
