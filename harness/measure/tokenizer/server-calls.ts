/**
 * A server's own tokenizer endpoints, in the two shapes servers use:
 *   llama.cpp:     POST /tokenize {content, add_special, parse_special} → {tokens}
 *                  POST /detokenize {tokens} → {content}; POST /apply-template {messages} → {prompt}
 *   vLLM, SGLang:  POST /tokenize {model, prompt | messages, add_special_tokens} → {count, tokens}
 *                  POST /detokenize {model, tokens} → {prompt} (SGLang: {text}; it counts no messages)
 * One place for both the prompt builder (server-tokenizer.ts) and the length check before a run
 * (workloads/verify-lengths.ts). Every reply is bounded in size and time.
 */
import { requestBounded, type ReadLimits } from '../../lib/io/bounded-body.ts';
import type { ChatMessage } from './hf-tokenizer.ts';

export type ServerStyle = 'llamacpp' | 'vllm';

/**
 * A /tokenize answer for a long prompt is its ids as JSON (a 128k-token prompt is about 1 MB;
 * vLLM may add each token's text); 32 MiB is far above that. 30 s: one call tokenizes one prompt.
 */
export const TOKENIZE_LIMITS: ReadLimits = { maxBytes: 32 * 1024 * 1024, timeoutMs: 30_000 };

export async function postJson(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await requestBounded(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) }, TOKENIZE_LIMITS);
  return { status: response.status, json: response.json() };
}

function field(json: unknown, name: string): unknown {
  return json !== null && typeof json === 'object' ? (json as Record<string, unknown>)[name] : undefined;
}

function tokensOf(json: unknown): number[] | null {
  const tokens = field(json, 'tokens');
  return Array.isArray(tokens) && tokens.every((t) => Number.isInteger(t)) ? (tokens as number[]) : null;
}

export interface ServerCalls {
  /** Token ids of a text; throws when the server cannot say. */
  encode(text: string, addSpecial: boolean): Promise<number[]>;
  decode(ids: readonly number[]): Promise<string>;
  /** Tokens of a completions prompt as the server counts it (special tokens added), or null. */
  countPrompt(text: string): Promise<number | null>;
  /** Tokens of a chat request as the server counts it, or null when it cannot tell. */
  countChat(messages: readonly ChatMessage[]): Promise<number | null>;
}

export function serverCalls(style: ServerStyle, base: string, model: string, headers: Record<string, string>): ServerCalls {
  const post = (path: string, body: unknown) => postJson(`${base}${path}`, headers, body);
  const tokenizeBody = (text: string, addSpecial: boolean): unknown =>
    style === 'llamacpp' ? { content: text, add_special: addSpecial, parse_special: true } : { model, prompt: text, add_special_tokens: addSpecial };
  const encode = async (text: string, addSpecial: boolean): Promise<number[]> => {
    const reply = await post('/tokenize', tokenizeBody(text, addSpecial));
    const tokens = reply.status === 200 ? tokensOf(reply.json) : null;
    if (tokens === null) throw new Error(`the server's /tokenize failed (HTTP ${reply.status})`);
    return tokens;
  };
  // A count must be positive: llama.cpp answers a body in the other shape with {"tokens": []}.
  const positive = (n: unknown): number | null => (typeof n === 'number' && n > 0 ? n : null);
  const countPrompt = async (text: string): Promise<number | null> => {
    const reply = await post('/tokenize', tokenizeBody(text, true));
    if (reply.status !== 200) return null;
    return positive(style === 'vllm' ? field(reply.json, 'count') : tokensOf(reply.json)?.length);
  };
  return {
    encode,
    async decode(ids) {
      const reply = style === 'llamacpp' ? await post('/detokenize', { tokens: ids }) : await post('/detokenize', { model, tokens: ids });
      const text = style === 'llamacpp' ? field(reply.json, 'content') : (field(reply.json, 'prompt') ?? field(reply.json, 'text'));
      if (reply.status !== 200 || typeof text !== 'string') throw new Error(`the server's /detokenize failed (HTTP ${reply.status})`);
      return text;
    },
    countPrompt,
    async countChat(messages) {
      if (style === 'llamacpp') {
        // The server's own rendering of its template (which drops the template's BOS text as a chat
        // request does), then counted as llama-server tokenizes every prompt.
        const rendered = await post('/apply-template', { messages });
        const prompt = field(rendered.json, 'prompt');
        return rendered.status === 200 && typeof prompt === 'string' ? countPrompt(prompt) : null;
      }
      const reply = await post('/tokenize', { model, messages, add_generation_prompt: true });
      return reply.status === 200 ? positive(field(reply.json, 'count')) : null;
    },
  };
}
