/**
 * The server's own tokenizer, through its HTTP endpoints (server-calls.ts), for prompts of exact
 * lengths when no local tokenizer is at hand (a remote llama.cpp, vLLM or SGLang server). Its
 * methods are synchronous, answered from a memo; a missing answer throws AnswerNeeded, which the
 * prompt builders' callers resolve with settle() (tokenizer/deferred.ts). Used only before the
 * clock starts.
 */
import { createHash } from 'node:crypto';
import type { ChatMessage, ModelTokenizer } from './hf-tokenizer.ts';
import { AnswerNeeded, settle } from './deferred.ts';
import { serverCalls, type ServerStyle } from './server-calls.ts';

/** A fixed text whose tokenization fingerprints the vocabulary (servers that agree on it are recorded alike). */
const FINGERPRINT_TEXT = 'The quick brown fox — 0123456789, naïve café, 日本語, emoji 🙂, code: `x += 1;`';

/** Which style the server speaks, if it tokenizes and detokenizes at all. */
async function detect(base: string, model: string, headers: Record<string, string>): Promise<ServerStyle | null> {
  for (const style of ['llamacpp', 'vllm'] as const) {
    try {
      const calls = serverCalls(style, base, model, headers);
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
  const calls = serverCalls(style, base, model, headers);
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
