/**
 * The server's own tokenizer, through its HTTP endpoints, for prompts of exact lengths when no
 * local tokenizer is at hand (a remote llama.cpp, vLLM or SGLang server):
 *   llama.cpp:     POST /tokenize {content, add_special, parse_special} → {tokens}
 *                  POST /detokenize {tokens} → {content}; POST /apply-template {messages} → {prompt}
 *   vLLM, SGLang:  POST /tokenize {model, prompt | messages, add_special_tokens} → {count, tokens}
 *                  POST /detokenize {model, tokens} → {prompt} (SGLang: {text}; it counts no messages)
 * Its methods are synchronous, answered from a memo; a missing answer throws AnswerNeeded, which
 * the prompt builders' callers resolve with settle() (tokenizer/deferred.ts). Used only before
 * the clock starts. Every reply is bounded in size and time.
 */
import { createHash } from 'node:crypto';
import { request } from 'undici';
import type { ChatMessage, ModelTokenizer } from './hf-tokenizer.ts';
import { AnswerNeeded, settle } from './deferred.ts';

type Style = 'llamacpp' | 'vllm';

/** A fixed text whose tokenization fingerprints the vocabulary (servers that agree on it are recorded alike). */
const FINGERPRINT_TEXT = 'The quick brown fox — 0123456789, naïve café, 日本語, emoji 🙂, code: `x += 1;`';
const TIMEOUT_MS = 30_000;
const MAX_REPLY_BYTES = 32 * 1024 * 1024;

async function postJson(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await request(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_REPLY_BYTES) {
      response.body.destroy();
      throw new Error(`${url} answered more than ${MAX_REPLY_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return { status: response.statusCode, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { status: response.statusCode, json: null };
  }
}

function tokensOf(json: unknown): number[] | null {
  const tokens = (json as { tokens?: unknown } | null)?.tokens;
  return Array.isArray(tokens) && tokens.every((t) => Number.isInteger(t)) ? (tokens as number[]) : null;
}

function field(json: unknown, name: string): unknown {
  return json !== null && typeof json === 'object' ? (json as Record<string, unknown>)[name] : undefined;
}

interface Calls {
  encode(text: string, addSpecial: boolean): Promise<number[]>;
  decode(ids: readonly number[]): Promise<string>;
  /** Tokens of a chat request as the server counts it, or null when it cannot tell. */
  countChat(messages: readonly ChatMessage[]): Promise<number | null>;
}

function callsOf(style: Style, base: string, model: string, headers: Record<string, string>): Calls {
  const post = (path: string, body: unknown) => postJson(`${base}${path}`, headers, body);
  const fail = (what: string, status: number): never => {
    throw new Error(`the server's ${what} failed (HTTP ${status})`);
  };
  const encode = async (text: string, addSpecial: boolean): Promise<number[]> => {
    const reply = style === 'llamacpp'
      ? await post('/tokenize', { content: text, add_special: addSpecial, parse_special: true })
      : await post('/tokenize', { model, prompt: text, add_special_tokens: addSpecial });
    return (reply.status === 200 ? tokensOf(reply.json) : null) ?? fail('/tokenize', reply.status);
  };
  return {
    encode,
    async decode(ids) {
      const reply = style === 'llamacpp' ? await post('/detokenize', { tokens: ids }) : await post('/detokenize', { model, tokens: ids });
      // vLLM answers {prompt}, SGLang {text}.
      const text = style === 'llamacpp' ? field(reply.json, 'content') : (field(reply.json, 'prompt') ?? field(reply.json, 'text'));
      return reply.status === 200 && typeof text === 'string' ? text : fail('/detokenize', reply.status);
    },
    async countChat(messages) {
      if (style === 'llamacpp') {
        // The server's own template rendering (it drops the template's BOS text as a chat request does),
        // then tokenized as llama-server tokenizes every prompt.
        const rendered = await post('/apply-template', { messages });
        const prompt = field(rendered.json, 'prompt');
        return rendered.status === 200 && typeof prompt === 'string' ? (await encode(prompt, true)).length : null;
      }
      const reply = await post('/tokenize', { model, messages, add_generation_prompt: true });
      const count = field(reply.json, 'count');
      return reply.status === 200 && typeof count === 'number' ? count : null;
    },
  };
}

/** Which style the server speaks, if it tokenizes and detokenizes at all. */
async function detect(base: string, model: string, headers: Record<string, string>): Promise<Style | null> {
  for (const style of ['llamacpp', 'vllm'] as const) {
    try {
      const calls = callsOf(style, base, model, headers);
      // llama.cpp answers a body without "content" with {"tokens": []}: ask each style in its own words.
      const ids = await calls.encode('hello world', false);
      if (ids.length === 0) continue;
      if ((await calls.decode(ids)).includes('world')) return style;
    } catch {
      // not this style
    }
  }
  return null;
}

export async function openServerTokenizer(base: string, model: string, headers: Record<string, string>): Promise<ModelTokenizer | null> {
  const style = await detect(base, model, headers);
  if (style === null) return null;
  const calls = callsOf(style, base, model, headers);
  const memo = new Map<string, unknown>();
  /** The answer from the memo, or AnswerNeeded with the fetch that puts it there. */
  const answer = <T>(key: string, fetch: () => Promise<T>): T => {
    if (memo.has(key)) return memo.get(key) as T;
    throw new AnswerNeeded(async () => {
      memo.set(key, await fetch());
    });
  };
  const encode = (text: string, addSpecial = false): number[] => answer(`e${addSpecial ? 1 : 0}\u0000${text}`, () => calls.encode(text, addSpecial));
  const decode = (ids: readonly number[]): string => answer(`d\u0000${ids.join(',')}`, () => calls.decode(ids));
  const countChat = (messages: readonly ChatMessage[]): number | null => answer(`c\u0000${JSON.stringify(messages)}`, () => calls.countChat(messages));
  const hasChatTemplate = (await settle(() => countChat([{ role: 'user', content: 'hi' }]))) !== null;
  const fingerprint = await settle(() => encode(FINGERPRINT_TEXT, true));
  return {
    name: `server:${new URL(base).host}/tokenize (${style})`,
    remote: true,
    sha256: createHash('sha256').update(JSON.stringify([style, fingerprint])).digest('hex'),
    count: (text) => encode(text).length,
    encode,
    decode,
    countPrompt: (text) => encode(text, true).length,
    renderChat: () => null,
    countChat,
    hasChatTemplate,
    countRequest(api, text) {
      if (api === 'completions') return { tokens: encode(text, true).length, exact: true };
      const counted = countChat([{ role: 'user', content: text }]);
      return counted === null ? { tokens: encode(text).length, exact: false } : { tokens: counted, exact: true };
    },
  };
}
