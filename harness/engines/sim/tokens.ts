/**
 * The sim's tokenizer and output text. One token is one whitespace-separated word, on both sides,
 * so a test can count tokens in what the client received with countSimTokens and compare it with
 * the usage the server reported, without a real tokenizer.
 */
import { combine, fnv1a, mix32 } from './hash.ts';

/**
 * Output vocabulary. The multi-byte entries are deliberate: UTF-8 sequences of 2, 3 and 4 bytes
 * end up split across TCP reads, so a client that decodes each read on its own corrupts them.
 * The quote and backslash entries make clients unescape JSON strings properly.
 */
export const SIM_VOCABULARY: readonly string[] = [
  'the', 'of', 'and', 'to', 'in', 'is', 'that', 'for', 'it', 'as', 'was', 'with', 'be', 'by', 'on',
  'not', 'he', 'this', 'are', 'or', 'his', 'from', 'at', 'which', 'but', 'have', 'an', 'had', 'they',
  'you', 'were', 'their', 'one', 'all', 'we', 'can', 'her', 'has', 'there', 'been', 'if', 'more',
  'when', 'will', 'would', 'who', 'so', 'no', 'she', 'other', 'its', 'may', 'these', 'what', 'them',
  'than', 'some', 'him', 'time', 'into', 'only', 'do', 'could', 'new', 'about', 'two', 'first', 'then',
  'also', 'any', 'like', 'our', 'made', 'over', 'such', 'after', 'where', 'most', 'well', 'should',
  'between', 'years', 'world', 'state', 'used', 'people', 'very', 'many', 'through', 'before', 'must',
  'water', 'work', 'life', 'because', 'each', 'under', 'same', 'back', 'system', 'part', 'general',
  'number', 'still', 'while', 'public', 'great', 'however', 'place', 'without', 'against', 'school',
  'during', 'small', 'power', 'group', 'house', 'model', 'order', 'light', 'early', 'point', 'value',
  'human', 'form', 'local', 'level', 'large', 'market', 'future', 'simple', 'engine', 'token', 'stream',
  'server', 'request', 'batch', 'memory', 'cache', 'latency', 'answer', 'question', 'river', 'mountain',
  'city', 'garden', 'music', 'paper', 'window', 'morning', 'evening', 'summer', 'winter', 'ocean',
  'forest', 'bridge', 'letter', 'story', 'history', 'science', 'energy', 'signal', 'center', 'process',
  'result', 'method', 'design', 'reason', 'nature', 'friend', 'family', 'country', 'table', 'street',
  'journey', 'silver', 'golden', 'quiet', 'bright', 'gentle', 'careful', 'rapid', 'steady', 'clear',
  'open', 'ready', 'simply', 'often', 'always', 'never', 'perhaps', 'together', 'again', 'almost',
  // Multi-byte UTF-8 (2, 3 and 4 bytes per code point).
  'café', 'naïve', 'über', 'façade', 'résumé', 'Zürich', 'señor', 'π', '€', '—', '日本語', '東京', 'Привет',
  '🙂', '🚀',
  // JSON escaping.
  '"quoted"', 'back\\slash',
];

/** Exact JSON string literal of each token (" " + word), precomputed so streaming never stringifies. */
export const TOKEN_TEXT: readonly string[] = SIM_VOCABULARY.map((word) => ` ${word}`);
export const TOKEN_JSON: readonly string[] = TOKEN_TEXT.map((text) => JSON.stringify(text));

/** A fixed overhead per chat message and per conversation, standing in for a chat template. */
export const CHAT_TOKENS_PER_MESSAGE = 4;
export const CHAT_TEMPLATE_TOKENS = 3;

/** The sim's tokenizer: the number of whitespace-separated words. */
export function countSimTokens(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

export interface ChatMessageText {
  readonly role: string;
  readonly content: string;
}

/** Words in every message plus CHAT_TOKENS_PER_MESSAGE each, plus CHAT_TEMPLATE_TOKENS. */
export function countChatTokens(messages: readonly ChatMessageText[]): number {
  let total = CHAT_TEMPLATE_TOKENS;
  for (const message of messages) total += countSimTokens(message.content) + CHAT_TOKENS_PER_MESSAGE;
  return total;
}

/** The hash every output decision of a request derives from (its words and its natural length). */
export function promptHash(promptText: string, seed: number): number {
  return combine(fnv1a(promptText), seed >>> 0);
}

/** Chat prompts hash role and content of each message, separated so that ["ab"] ≠ ["a","b"]. */
export function chatPromptText(messages: readonly ChatMessageText[]): string {
  return messages.map((message) => `${message.role}\u0000${message.content}`).join('\u0001');
}

/** Vocabulary index of output token `index`. */
export function outputWord(hash: number, index: number): number {
  return combine(hash, index) % SIM_VOCABULARY.length;
}

/** The full generated text of the first `count` tokens (what the client should reassemble). */
export function outputText(hash: number, count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) text += TOKEN_TEXT[outputWord(hash, i)];
  return text;
}

/**
 * Where a request stops on its own (EOS) when ignore_eos is off: a deterministic length in
 * [max(1, minTokens), maxTokens].
 */
export function naturalLength(hash: number, maxTokens: number, minTokens: number): number {
  const length = 1 + (mix32(hash ^ 0x5bd1e995) % maxTokens);
  return Math.min(maxTokens, Math.max(length, minTokens));
}
