/**
 * Each personality on the wire, over real HTTP, held to the engine's own shapes: the recorded
 * llama-server traffic and the events derived from vLLM's, SGLang's and TensorRT-LLM's serving
 * code (tests/fixtures/streams.ts, with their sources). Shapes compare field order, null versus
 * absent, and where the role, the finish reason and the usage go; then the rules around them:
 * when usage comes, how a natural stop ends, error bodies and error events.
 */
import { describe, expect, it } from 'vitest';
import type { Personality } from '../../harness/engines/sim/config.ts';
import { SIM_EOS_TOKEN_ID } from '../../harness/engines/sim/wire-format.ts';
import { countSimTokens, outputText, promptHash } from '../../harness/engines/sim/tokens.ts';
import {
  LLAMACPP_V040_CHAT_EVENTS,
  LLAMACPP_V040_COMPLETIONS_EVENTS,
  LLAMACPP_V040_ERROR_BODIES,
  SGLANG_CHAT_EVENTS,
  SGLANG_COMPLETIONS_EVENTS,
  TRTLLM_CHAT_EVENTS,
  TRTLLM_COMPLETIONS_EVENTS,
  VLLM_CHAT_EVENTS,
  VLLM_COMPLETIONS_EVENTS,
  streamShapes,
} from '../fixtures/streams.ts';
import { chatBody, completionBody, jsonEvents, post, readSse, sim, streamedText } from './helpers.ts';

const CHAT = '/v1/chat/completions';
const COMPLETIONS = '/v1/completions';
/** The request the fixtures were recorded or derived for: what servebench's load sends. */
const FIXTURE_REQUEST = { max_tokens: 3, temperature: 0, ignore_eos: true, stream_options: { include_usage: true } };

describe('each personality streams its engine\'s shapes (tests/fixtures/streams.ts)', () => {
  const cases: Array<[Personality, 'chat' | 'completions', readonly string[]]> = [
    ['vllm', 'chat', VLLM_CHAT_EVENTS],
    ['vllm', 'completions', VLLM_COMPLETIONS_EVENTS],
    ['sglang', 'chat', SGLANG_CHAT_EVENTS],
    ['sglang', 'completions', SGLANG_COMPLETIONS_EVENTS],
    ['trtllm', 'chat', TRTLLM_CHAT_EVENTS],
    ['trtllm', 'completions', TRTLLM_COMPLETIONS_EVENTS],
    ['llamacpp', 'chat', LLAMACPP_V040_CHAT_EVENTS],
    ['llamacpp', 'completions', LLAMACPP_V040_COMPLETIONS_EVENTS],
  ];
  it.each(cases)('%s %s', async (personality, api, fixture) => {
    // Tokens take time, as on a real server: a zero time would make llama.cpp's rates infinite (null).
    const server = await sim({ personality, decodeBaseMs: 2 });
    const result = await readSse(server.url + (api === 'chat' ? CHAT : COMPLETIONS), (api === 'chat' ? chatBody : completionBody)(FIXTURE_REQUEST));
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toBe('text/event-stream');
    expect(streamShapes(result.data)).toEqual(streamShapes(fixture));
    expect(countSimTokens(streamedText(jsonEvents(result)))).toBe(3);
  });
});

describe('ids as each engine makes them', () => {
  it.each([
    ['vllm', /^chatcmpl-[0-9a-f]{32}$/, /^cmpl-[0-9a-f]{32}$/],
    ['sglang', /^[0-9a-f]{32}$/, /^[0-9a-f]{32}$/],
    ['trtllm', /^chatcmpl-\d+$/, /^cmpl-\d+$/],
    ['llamacpp', /^chatcmpl-[0-9a-f]{32}$/, /^chatcmpl-[0-9a-f]{32}$/],
  ] as const)('%s', async (personality, chatId, completionId) => {
    const server = await sim({ zeroCost: true, personality });
    expect(jsonEvents(await readSse(server.url + CHAT, chatBody()))[0]!['id']).toMatch(chatId);
    expect(jsonEvents(await readSse(server.url + COMPLETIONS, completionBody()))[0]!['id']).toMatch(completionId);
  });
});

describe('when a usage chunk comes', () => {
  const usageSent = async (personality: Personality, extra: Record<string, unknown>): Promise<boolean> => {
    const server = await sim({ zeroCost: true, personality });
    return jsonEvents(await readSse(server.url + CHAT, chatBody({ ignore_eos: true, ...extra }))).some((event) => event['usage'] !== null && event['usage'] !== undefined);
  };

  it('vLLM and TensorRT-LLM: whenever stream_options is sent (include_usage defaults to true there), not without it', async () => {
    for (const personality of ['vllm', 'trtllm'] as const) {
      expect(await usageSent(personality, { stream_options: {} }), personality).toBe(true);
      expect(await usageSent(personality, { stream_options: { include_usage: false } }), personality).toBe(false);
      expect(await usageSent(personality, {}), personality).toBe(false);
    }
  });

  it('SGLang: only with include_usage true (it defaults to false)', async () => {
    expect(await usageSent('sglang', { stream_options: {} })).toBe(false);
    expect(await usageSent('sglang', { stream_options: { include_usage: true } })).toBe(true);
  });

  it('llama.cpp: always', async () => {
    expect(await usageSent('llamacpp', {})).toBe(true);
  });
});

describe('a natural stop (EOS) as each engine ends it', () => {
  const lastTwo = async (personality: Personality): Promise<Record<string, any>[]> => {
    const server = await sim({ zeroCost: true, personality });
    const result = await readSse(server.url + CHAT, chatBody({ max_tokens: 50 }));
    expect(result.data.at(-1)).toBe('[DONE]');
    return jsonEvents(result).slice(-2);
  };

  it('vLLM: the EOS is a token with no text, in a chunk of its own with finish_reason stop', async () => {
    const [word, eos] = await lastTwo('vllm');
    expect(word!['choices'][0].finish_reason).toBeNull();
    expect(eos!['choices'][0]).toEqual({ index: 0, delta: { content: '' }, logprobs: null, finish_reason: 'stop', stop_reason: null, token_ids: null });
  });

  it('SGLang: the finish chunk names the EOS token it matched', async () => {
    const [, finish] = await lastTwo('sglang');
    expect(finish!['choices'][0]).toMatchObject({ delta: { role: null, content: null }, finish_reason: 'stop', matched_stop: SIM_EOS_TOKEN_ID });
  });

  it('TensorRT-LLM: an empty text chunk with finish_reason stop', async () => {
    const [, eos] = await lastTwo('trtllm');
    expect(eos!['choices'][0]).toEqual({ index: 0, delta: { content: '', reasoning_content: '' }, finish_reason: 'stop' });
  });
});

describe('error bodies as each engine answers them', () => {
  it('TensorRT-LLM: a field its request model lacks, or no model, is FastAPI\'s validation error as {"error": str(exc)}, 400', async () => {
    const server = await sim({ zeroCost: true, personality: 'trtllm' });
    // bad_words is vLLM's; TensorRT-LLM's models forbid any field they do not declare.
    const extra = await post(server.url + CHAT, chatBody({ bad_words: ['x'], frequency_penalty: 0.5 }));
    expect(extra.status).toBe(400);
    expect(await extra.json()).toEqual({ error: "[{'type': 'extra_forbidden', 'loc': ('body', 'bad_words'), 'msg': 'Extra inputs are not permitted', 'input': ['x']}]" });
    const { model: _model, ...withoutModel } = completionBody({ stream: false });
    const missing = await post(server.url + COMPLETIONS, withoutModel);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toBe(
      "[{'type': 'missing', 'loc': ('body', 'model'), 'msg': 'Field required', 'input': {'prompt': 'once upon a time there was', 'max_tokens': 12, 'stream': False}}]",
    );
    // Completions take max_tokens only; max_completion_tokens is chat's.
    expect((await post(server.url + COMPLETIONS, completionBody({ max_completion_tokens: 5 }))).status).toBe(400);
    expect((await post(server.url + CHAT, chatBody({ max_completion_tokens: 5, top_k: 1, min_p: 0, seed: 1, user: 'u' }))).status).toBe(200);
  });

  it('vLLM nests {message, type, param, code}; SGLang is flat with object "error"; llama.cpp gives {code, message, type}', async () => {
    const bodies: Record<string, unknown> = {};
    for (const personality of ['vllm', 'sglang', 'llamacpp'] as const) {
      const server = await sim({ zeroCost: true, personality });
      const response = await post(server.url + CHAT, chatBody({ model: 'other' }));
      expect(response.status).toBe(404);
      bodies[personality] = await response.json();
    }
    const message = 'The model `other` does not exist.';
    expect(JSON.stringify(bodies['vllm'])).toBe(JSON.stringify({ error: { message, type: 'NotFoundError', param: null, code: 404 } }));
    expect(JSON.stringify(bodies['sglang'])).toBe(JSON.stringify({ object: 'error', message, type: 'NotFoundError', param: null, code: 404 }));
    expect(JSON.stringify(bodies['llamacpp'])).toBe(JSON.stringify({ error: { code: 404, message, type: 'not_found_error' } }));
    // The recorded llama-server bodies have these keys in this order.
    expect(Object.keys((JSON.parse(LLAMACPP_V040_ERROR_BODIES[1]!) as { error: object }).error)).toEqual(['code', 'message', 'type']);
  });
});

describe('an error while streaming, as each engine sends it', () => {
  const failing = async (personality: Personality) => {
    const server = await sim({ zeroCost: true, personality, faults: { error_event: 1 } });
    return readSse(server.url + COMPLETIONS, completionBody({ max_tokens: 10, ignore_eos: true }));
  };

  it('vLLM: an error event, then [DONE]', async () => {
    const result = await failing('vllm');
    expect(result.data.at(-1)).toBe('[DONE]');
    expect(JSON.parse(result.data.at(-2)!)).toEqual({ error: { message: expect.any(String), type: 'InternalServerError', param: null, code: 500 } });
  });

  it('SGLang: the error as a 400 BadRequestError event, whatever failed, then [DONE]', async () => {
    const result = await failing('sglang');
    expect(result.data.at(-1)).toBe('[DONE]');
    expect(JSON.parse(result.data.at(-2)!)).toEqual({ error: { object: 'error', message: expect.any(String), type: 'BadRequestError', param: null, code: 400 } });
  });

  it('TensorRT-LLM: no error event; the response is aborted and the connection cut', async () => {
    const result = await failing('trtllm');
    expect(result.error).not.toBeNull();
    expect(result.data).not.toContain('[DONE]');
    expect(result.data.some((data) => data.includes('"error"'))).toBe(false);
    expect(countSimTokens(streamedText(jsonEvents(result)))).toBe(5);
  });
});

describe('vllm personality', () => {
  it('chat: one token per chunk, finish on the last token chunk, the usage chunk counts, text as generated', async () => {
    const server = await sim({ zeroCost: true });
    const result = await readSse(server.url + CHAT, chatBody({ ignore_eos: true, stream_options: { include_usage: true } }));
    expect(result.headers.get('cache-control')).toBe('no-cache');
    expect(result.headers.get('transfer-encoding')).toBe('chunked');
    const content = jsonEvents(result).slice(1, -1);
    expect(content).toHaveLength(12);
    for (const event of content) expect(countSimTokens(event['choices'][0].delta.content)).toBe(1);
    expect(content.at(-1)!['choices'][0]).toMatchObject({ finish_reason: 'length' });
    expect(jsonEvents(result).at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 7 + 4 + 3, completion_tokens: 12, total_tokens: 26 } });
    expect(streamedText(jsonEvents(result))).toBe(outputText(promptHash('user\u0000tell me a story about a river', 0), 12));
  });
});

describe('llamacpp personality', () => {
  it('1–4 tokens per chunk, then the finish chunk and the usage and timings chunk as v0.4.0 sends them', async () => {
    const server = await sim({ zeroCost: true, personality: 'llamacpp' });
    const events = jsonEvents(await readSse(server.url + CHAT, chatBody({ max_tokens: 23, ignore_eos: true })));
    expect(events.slice(1, -2).map((event) => countSimTokens(event['choices'][0].delta.content))).toEqual([1, 2, 3, 4, 1, 2, 3, 4, 1, 2]);
    const final = events.at(-1)!;
    expect(final['usage']).toEqual({ completion_tokens: 23, prompt_tokens: 14, total_tokens: 37, prompt_tokens_details: { cached_tokens: 0 } });
    const recorded = JSON.parse(LLAMACPP_V040_CHAT_EVENTS.at(-2)!) as { timings: object };
    expect(Object.keys(final['timings'])).toEqual(Object.keys(recorded.timings));
    expect(final['timings']).toMatchObject({ prompt_n: 14, predicted_n: 23 });
  });

  it('completions carry usage in the final chunk regardless of stream_options', async () => {
    const server = await sim({ zeroCost: true, personality: 'llamacpp' });
    const events = jsonEvents(await readSse(server.url + COMPLETIONS, completionBody({ max_tokens: 5, ignore_eos: true })));
    expect(events.map((event) => countSimTokens(event['choices'][0].text))).toEqual([1, 2, 2, 0]);
    expect(events.at(-1)).toMatchObject({ object: 'text_completion', choices: [{ text: '', finish_reason: 'length' }], usage: { completion_tokens: 5 } });
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
