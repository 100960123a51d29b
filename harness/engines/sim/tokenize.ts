/**
 * The sim's POST /tokenize, in the two shapes real servers use: vLLM/SGLang/TRT-LLM style
 * ({prompt | messages} → {count, max_model_len, tokens}) and llama.cpp style ({content} → {tokens}).
 * Token ids are word hashes: only the count is meaningful, and it is the sim's own (one word,
 * one token; chat adds the template overhead), so clients can check prompt lengths against it.
 */
import type { Personality } from './config.ts';
import { RequestError } from './request.ts';
import { countChatTokens, countSimTokens } from './tokens.ts';
import { fnv1a } from './hash.ts';

function ids(count: number, seed: string): number[] {
  return Array.from({ length: count }, (_, i) => fnv1a(`${seed}:${i}`) % 100_000);
}

export function tokenizeResponse(personality: Personality, body: Record<string, unknown>, maxModelLen: number): string {
  if (personality === 'llamacpp') {
    // As llama.cpp does: a body without "content" is not an error, it tokenizes nothing.
    const content = typeof body['content'] === 'string' ? body['content'] : '';
    return JSON.stringify({ tokens: ids(countSimTokens(content), content) });
  }
  let count: number;
  if (typeof body['prompt'] === 'string') count = countSimTokens(body['prompt']);
  else if (Array.isArray(body['messages'])) {
    const messages = body['messages'] as Array<{ role?: unknown; content?: unknown }>;
    if (!messages.every((m) => typeof m.content === 'string')) throw new RequestError(400, 'every message needs string content');
    count = countChatTokens(messages as Array<{ role: string; content: string }>);
  } else throw new RequestError(400, 'give "prompt" or "messages"');
  return JSON.stringify({ count, max_model_len: maxModelLen, tokens: ids(count, JSON.stringify(body)) });
}
