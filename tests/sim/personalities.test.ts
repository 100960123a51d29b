/** Each personality's stream shape over real HTTP: role chunk, finish placement, usage, tokens per event. */
import { describe, expect, it } from 'vitest';
import { countSimTokens, outputText, promptHash } from '../../harness/testbed/sim/tokens.ts';
import { chatBody, completionBody, jsonEvents, post, readSse, sim, streamedText } from './helpers.ts';

const CHAT = '/v1/chat/completions';
const COMPLETIONS = '/v1/completions';

describe('vllm personality', () => {
  it('chat: role chunk, one token per chunk, finish on the last token chunk, usage chunk, [DONE]', async () => {
    const server = await sim({ zeroCost: true });
    const result = await readSse(server.url + CHAT, chatBody({ ignore_eos: true, stream_options: { include_usage: true } }));
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toBe('text/event-stream');
    expect(result.headers.get('cache-control')).toBe('no-cache');
    expect(result.headers.get('transfer-encoding')).toBe('chunked');
    expect(result.data.at(-1)).toBe('[DONE]');
    const events = jsonEvents(result);
    expect(events[0]!['choices'][0].delta).toEqual({ role: 'assistant', content: '' });
    const content = events.slice(1, -1);
    expect(content).toHaveLength(12);
    for (const event of content.slice(0, -1)) {
      expect(event['object']).toBe('chat.completion.chunk');
      expect(event['id']).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
      expect(event['choices'][0].finish_reason).toBeNull();
      expect(countSimTokens(event['choices'][0].delta.content)).toBe(1);
    }
    expect(content.at(-1)!['choices'][0]).toMatchObject({ finish_reason: 'length' });
    expect(countSimTokens(content.at(-1)!['choices'][0].delta.content)).toBe(1);
    expect(events.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 7 + 4 + 3, completion_tokens: 12, total_tokens: 26 } });
    expect(streamedText(events)).toBe(outputText(promptHash('user\u0000tell me a story about a river', 0), 12));
  });

  it('chat natural stop: an empty-content chunk carries finish_reason "stop"; no usage unless asked', async () => {
    const server = await sim({ zeroCost: true });
    const events = jsonEvents(await readSse(server.url + CHAT, chatBody({ max_tokens: 50 })));
    const last = events.at(-1)!;
    expect(last['choices'][0]).toMatchObject({ delta: { content: '' }, finish_reason: 'stop' });
    expect(events.some((event) => 'usage' in event)).toBe(false);
    const generated = countSimTokens(streamedText(events));
    expect(generated).toBeGreaterThanOrEqual(1);
    expect(generated).toBeLessThanOrEqual(50);
  });

  it('completions: text_completion chunks, finish on the last token, usage-only chunk', async () => {
    const server = await sim({ zeroCost: true });
    const result = await readSse(server.url + COMPLETIONS, completionBody({ ignore_eos: true, stream_options: { include_usage: true } }));
    const events = jsonEvents(result);
    expect(events[0]!['id']).toMatch(/^cmpl-/);
    expect(events[0]!['object']).toBe('text_completion');
    expect(events[0]!['choices'][0]).toEqual({ index: 0, text: expect.any(String), logprobs: null, finish_reason: null });
    expect(events.at(-2)!['choices'][0].finish_reason).toBe('length');
    expect(events.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 6, completion_tokens: 12, total_tokens: 18 } });
    expect(countSimTokens(streamedText(events))).toBe(12);
  });
});

describe('sglang personality', () => {
  it('sends a separate empty-delta finish chunk and uuid-like ids', async () => {
    const server = await sim({ zeroCost: true, personality: 'sglang' });
    const events = jsonEvents(await readSse(server.url + CHAT, chatBody({ ignore_eos: true, stream_options: { include_usage: true } })));
    expect(events[0]!['choices'][0].delta).toEqual({ role: 'assistant', content: '' });
    expect(events[0]!['id']).toMatch(/^[0-9a-f]{32}$/);
    expect(events.slice(1, 13).every((event) => event['choices'][0].finish_reason === null)).toBe(true);
    expect(events[13]!['choices'][0]).toMatchObject({ delta: {}, finish_reason: 'length' });
    expect(events[14]).toMatchObject({ choices: [], usage: { completion_tokens: 12 } });
    const completion = jsonEvents(await readSse(server.url + COMPLETIONS, completionBody({ ignore_eos: true })));
    expect(completion.at(-1)!['choices'][0]).toMatchObject({ text: '', finish_reason: 'length' });
    expect(completion).toHaveLength(13);
  });
});

describe('llamacpp personality', () => {
  it('chat as llama-server v0.4.0 streams it: a role-only chunk, 1–4 tokens per chunk, an empty finish chunk, then usage and timings without choices', async () => {
    const server = await sim({ zeroCost: true, personality: 'llamacpp' });
    const result = await readSse(server.url + CHAT, chatBody({ max_tokens: 23, ignore_eos: true }));
    expect(result.data.at(-1)).toBe('[DONE]');
    const events = jsonEvents(result);
    expect(events[0]!['choices'][0]).toEqual({ finish_reason: null, index: 0, delta: { role: 'assistant', content: null } });
    const content = events.slice(1, -2);
    expect(content.map((event) => countSimTokens(event['choices'][0].delta.content))).toEqual([1, 2, 3, 4, 1, 2, 3, 4, 1, 2]);
    expect(events.at(-2)!['choices'][0]).toEqual({ finish_reason: 'length', index: 0, delta: {} });
    const final = events.at(-1)!;
    expect(final['choices']).toEqual([]);
    expect(final['usage']).toEqual({ completion_tokens: 23, prompt_tokens: 14, total_tokens: 37 });
    expect(Object.keys(final['timings'])).toEqual(['prompt_n', 'prompt_ms', 'predicted_n', 'predicted_ms']);
    expect(final['timings']).toMatchObject({ prompt_n: 14, predicted_n: 23 });
    expect(countSimTokens(streamedText(events))).toBe(23);
  });

  it('completions carry usage in the final chunk regardless of stream_options', async () => {
    const server = await sim({ zeroCost: true, personality: 'llamacpp' });
    const events = jsonEvents(await readSse(server.url + COMPLETIONS, completionBody({ max_tokens: 5, ignore_eos: true })));
    expect(events.map((event) => countSimTokens(event['choices'][0].text))).toEqual([1, 2, 2, 0]);
    expect(events.at(-1)).toMatchObject({ object: 'text_completion', choices: [{ text: '', finish_reason: 'length' }], usage: { completion_tokens: 5 } });
  });
});

describe('trtllm personality', () => {
  it('rejects a field outside its allowed set with a pydantic-like 400', async () => {
    const server = await sim({ zeroCost: true, personality: 'trtllm' });
    const response = await post(server.url + CHAT, chatBody({ frequency_penalty: 0.5 }));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; type: string; code: number } };
    expect(body.error.message).toContain('frequency_penalty');
    expect(body.error.message).toContain('Extra inputs are not permitted');
    expect(body.error.code).toBe(400);
  });

  it('accepts its allowed fields and streams like vllm', async () => {
    const server = await sim({ zeroCost: true, personality: 'trtllm' });
    const result = await readSse(server.url + CHAT, chatBody({ temperature: 0, top_p: 1, top_k: 1, seed: 1, stop: [], n: 1, ignore_eos: true, min_tokens: 1, user: 'u', stream_options: { include_usage: true } }));
    const events = jsonEvents(result);
    expect(result.status).toBe(200);
    expect(events[0]!['choices'][0].delta.role).toBe('assistant');
    expect(events.at(-1)!['usage'].completion_tokens).toBe(12);
  });
});

describe('no-usage personality', () => {
  it('sends neither a role chunk nor usage, even when asked', async () => {
    const server = await sim({ zeroCost: true, personality: 'no-usage' });
    const events = jsonEvents(await readSse(server.url + CHAT, chatBody({ ignore_eos: true, stream_options: { include_usage: true } })));
    expect(events).toHaveLength(12);
    expect(events[0]!['choices'][0].delta).toEqual({ content: expect.any(String) });
    expect(events.some((event) => 'usage' in event)).toBe(false);
    const body = (await (await post(server.url + CHAT, chatBody({ stream: false }))).json()) as Record<string, unknown>;
    expect(body['usage']).toBeUndefined();
  });
});

describe('SSE framing variants', () => {
  it('--sse-crlf ends lines with CRLF', async () => {
    const server = await sim({ zeroCost: true, sseCrlf: true });
    const result = await readSse(server.url + COMPLETIONS, completionBody({ max_tokens: 3, ignore_eos: true }));
    expect(result.raw.split('\r\n\r\n').filter(Boolean)).toHaveLength(4);
    expect(result.raw.replaceAll('\r\n', '')).not.toContain('\n');
  });

  it('--sse-no-space writes data:{…}', async () => {
    const server = await sim({ zeroCost: true, sseNoSpace: true });
    const result = await readSse(server.url + COMPLETIONS, completionBody({ max_tokens: 3, ignore_eos: true }));
    expect(result.raw.startsWith('data:{')).toBe(true);
    expect(result.raw).toContain('data:[DONE]');
    expect(result.raw).not.toContain('data: ');
  });

  it('--keepalive-ms sends comment lines while the stream is open', async () => {
    const server = await sim({ decodeBaseMs: 20, keepaliveMs: 15 });
    const result = await readSse(server.url + COMPLETIONS, completionBody({ max_tokens: 8, ignore_eos: true }));
    expect(result.comments.length).toBeGreaterThanOrEqual(3);
    expect(result.comments.every((line) => line === ': keep-alive')).toBe(true);
    expect(jsonEvents(result)).toHaveLength(8);
  });
});

describe('non-streaming', () => {
  it('returns one JSON with usage for chat and completions', async () => {
    const server = await sim({ zeroCost: true });
    const chat = (await (await post(server.url + CHAT, chatBody({ stream: false, ignore_eos: true }))).json()) as Record<string, any>;
    expect(chat).toMatchObject({ object: 'chat.completion', model: 'sim-model', usage: { prompt_tokens: 14, completion_tokens: 12 } });
    expect(chat['choices'][0].message.role).toBe('assistant');
    expect(countSimTokens(chat['choices'][0].message.content)).toBe(12);
    const completion = (await (await post(server.url + COMPLETIONS, completionBody({ stream: false, max_completion_tokens: 99 }))).json()) as Record<string, any>;
    expect(completion['object']).toBe('text_completion');
    expect(countSimTokens(completion['choices'][0].text)).toBe(completion['usage'].completion_tokens);
    expect(completion['choices'][0].finish_reason).toBe('stop');
  });
});
