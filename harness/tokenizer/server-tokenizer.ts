/**
 * The server's own tokenizer, through its HTTP endpoints, for prompts of exact lengths when no
 * local tokenizer is at hand (a remote llama.cpp, vLLM or SGLang server):
 *   llama.cpp:     POST /tokenize {content, add_special, parse_special} → {tokens}
 *                  POST /detokenize {tokens} → {content}; POST /apply-template {messages} → {prompt}
 *   vLLM, SGLang:  POST /tokenize {model, prompt | messages, add_special_tokens} → {count, tokens}
 *                  POST /detokenize {model, tokens} → {prompt}
 * Prompt building is synchronous (each resize depends on the last count), so the calls block on a
 * worker thread (io/blocking-http.ts). Used only before the clock starts.
 */
import { createHash } from 'node:crypto';
import { createBlockingClient, type BlockingClient } from '../io/blocking-http.ts';
import type { ChatMessage, ModelTokenizer } from './hf-tokenizer.ts';

type Style = 'llamacpp' | 'vllm';

/** A fixed text whose tokenization fingerprints the vocabulary (two servers that agree on it are recorded alike). */
const FINGERPRINT_TEXT = 'The quick brown fox — 0123456789, naïve café, 日本語, emoji 🙂, code: `x += 1;`';

function tokensOf(json: unknown): number[] | null {
  const tokens = (json as { tokens?: unknown } | null)?.tokens;
  return Array.isArray(tokens) && tokens.every((t) => Number.isInteger(t)) ? (tokens as number[]) : null;
}

function detect(client: BlockingClient, model: string): Style | null {
  // llama.cpp answers a body without "content" with {"tokens": []}, so ask it first with its own field.
  const llama = client.postJson('/tokenize', { content: 'hello world', add_special: false });
  if (llama.status === 200 && (tokensOf(llama.json)?.length ?? 0) > 0) return 'llamacpp';
  const vllm = client.postJson('/tokenize', { model, prompt: 'hello world', add_special_tokens: false });
  if (vllm.status === 200 && (tokensOf(vllm.json)?.length ?? 0) > 0) return 'vllm';
  return null;
}

function fail(what: string, reply: { status: number; error: string | null }): never {
  throw new Error(`the server's ${what} failed (${reply.error ?? `HTTP ${reply.status}`})`);
}

export async function openServerTokenizer(base: string, model: string, headers: Record<string, string>): Promise<ModelTokenizer | null> {
  const url = new URL(base);
  const client = createBlockingClient(url.origin, headers, { timeoutMs: 30_000 });
  const prefix = url.pathname.replace(/\/+$/, '');
  const post = (path: string, body: unknown) => client.postJson(`${prefix}${path}`, body);
  const style = detect({ postJson: post, close: () => {} }, model);
  if (style === null) {
    client.close();
    return null;
  }
  const encode = (text: string, addSpecial = false): number[] => {
    const reply = style === 'llamacpp'
      ? post('/tokenize', { content: text, add_special: addSpecial, parse_special: true })
      : post('/tokenize', { model, prompt: text, add_special_tokens: addSpecial });
    const tokens = reply.status === 200 ? tokensOf(reply.json) : null;
    return tokens ?? fail('/tokenize', reply);
  };
  const decode = (ids: readonly number[]): string => {
    const reply = style === 'llamacpp' ? post('/detokenize', { tokens: ids }) : post('/detokenize', { model, tokens: ids });
    const field = style === 'llamacpp' ? 'content' : 'prompt';
    const text = (reply.json as Record<string, unknown> | null)?.[field];
    return reply.status === 200 && typeof text === 'string' ? text : fail('/detokenize', reply);
  };
  const renderChat = (messages: readonly ChatMessage[]): string | null => {
    if (style !== 'llamacpp') return null;
    const reply = post('/apply-template', { messages });
    const prompt = (reply.json as { prompt?: unknown } | null)?.prompt;
    return reply.status === 200 && typeof prompt === 'string' ? prompt : null;
  };
  const countChat = (messages: readonly ChatMessage[]): number | null => {
    if (style === 'llamacpp') {
      const rendered = renderChat(messages);
      // llama-server tokenizes the rendered conversation as it does a completions prompt.
      return rendered === null ? null : encode(rendered, true).length;
    }
    const reply = post('/tokenize', { model, messages, add_generation_prompt: true });
    const count = (reply.json as { count?: unknown } | null)?.count;
    return reply.status === 200 && typeof count === 'number' ? count : null;
  };
  const hasChatTemplate = countChat([{ role: 'user', content: 'hi' }]) !== null;
  const sha256 = createHash('sha256').update(JSON.stringify([style, encode(FINGERPRINT_TEXT, true)])).digest('hex');
  return {
    name: `server:${url.host}/tokenize (${style})`,
    sha256,
    count: (text) => encode(text).length,
    encode,
    decode,
    countPrompt: (text) => encode(text, true).length,
    renderChat,
    countChat,
    hasChatTemplate,
    countRequest(api, text) {
      if (api === 'completions') return { tokens: encode(text, true).length, exact: true };
      const counted = countChat([{ role: 'user', content: text }]);
      return counted === null ? { tokens: encode(text).length, exact: false } : { tokens: counted, exact: true };
    },
  };
}
