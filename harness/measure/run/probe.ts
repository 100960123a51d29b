/**
 * One look at the live server before measuring: does it honour ignore_eos, how does it stream
 * usage, does a chat stream start with a role-only chunk, which optional endpoints exist. The
 * findings go into the result, so a reader knows how the engine behaved, not how it is said to.
 */
import { requestBounded, type ReadLimits } from '../../lib/io/bounded-body.ts';
import { readChunk } from '../load/openai-chunk.ts';
import { requestBody, type BodyOptions } from '../load/request-body.ts';
import { createSseDecoder } from '../load/sse-decoder.ts';
import { METRICS_LIMITS } from '../telemetry/engine-metrics.ts';
import type { Api, Probe } from '../../contract/result.ts';
import type { Engine } from '../../contract/engine.ts';
import { verifyPromptLengths } from '../workloads/verify-lengths.ts';

const PROBE_TOKENS = 8;

/**
 * Eight tokens stream as a few kilobytes (an event per token, usage and timings at the end), so
 * 4 MiB is only reached by a stream that never ends. 120 s for the whole stream, as long as the
 * first completion after start-up may take (lazily compiled kernels, a cold cache).
 */
export const PROBE_LIMITS: ReadLimits = { maxBytes: 4 * 1024 * 1024, timeoutMs: 120_000 };
/** Of an error's body only its start is quoted. */
const ERROR_QUOTE_CHARS = 200;

/**
 * `body` is the run's own body options (engine fields, the user's --extra-body): the probe's request
 * differs from a measured one only in its prompt, its length and greedy sampling.
 */
export async function probeServer(endpoint: string, engine: Engine, api: Api, body: BodyOptions, headers: Record<string, string>, signal?: AbortSignal): Promise<Probe> {
  const model = body.model;
  const input = api === 'chat' ? { messages: [{ role: 'user', content: 'Count from one to twenty.' }] } : { prompt: 'Count from one to twenty:' };
  const requestJson = requestBody({ ...body, temperature: 0, ignoreEos: true }, { input, maxTokens: PROBE_TOKENS });
  let events = 0;
  let completionTokens: number | null = null;
  let usage: Probe['usage'] = 'none';
  let roleChunk = false;
  let first = true;
  let error: string | null = null;
  try {
    let errorText = '';
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
    const response = await requestBounded(
      `${endpoint}${api === 'chat' ? '/v1/chat/completions' : '/v1/completions'}`,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(requestJson),
        ...(signal ? { signal } : {}),
        onChunk(chunk, status) {
          if (status === 200) decoder.push(chunk);
          else if (errorText.length < ERROR_QUOTE_CHARS) errorText += chunk.toString('utf8');
        },
      },
      PROBE_LIMITS,
    );
    if (response.status !== 200) error = `HTTP ${response.status}: ${errorText.slice(0, ERROR_QUOTE_CHARS)}`;
    else decoder.end();
  } catch (caught) {
    error = (caught as Error).message;
  }
  const produced: number | null = completionTokens ?? (events > 0 ? events : null);
  // Stopped by a signal: the endpoints are not asked (the run ends without measuring).
  if (signal?.aborted) return { ignore_eos_honoured: null, usage, role_chunk: roleChunk, tokenize_endpoint: false, metrics_endpoint: false, error: error ?? 'stopped by a signal' };
  // Read in full, as a scrape will: an endpoint whose answer a scrape cannot take is no endpoint.
  const metricsOk = engine.metrics
    ? await requestBounded(`${endpoint}${engine.metrics.path}`, { headers, ...(signal ? { signal } : {}) }, METRICS_LIMITS).then(
        (r) => r.status === 200,
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
