/**
 * What a perfect prefix cache could reuse, as the workload intends it (docs/metrics.md#cache-audit).
 * Each request names the prefixes it holds that an earlier request of its point also held (a
 * group's shared prefix; a conversation's earlier turns) and the prefixes it leaves behind. The
 * audit after the point (metrics/cache-audit.ts) knows which earlier requests were done in time.
 *
 * The lengths are the intended ones, never measured from what was sent: a client that rewrites
 * an earlier turn's bytes sends a prompt whose real common prefix is shorter, and only a theory
 * taken from the intent can tell that the server reused less than it should have.
 */
import type { Api } from '../../contract/common.ts';
import type { ChatMessage, ModelTokenizer } from '../tokenizer/hf-tokenizer.ts';

export interface SharedPrefix {
  /** Names the prefix within its point: `group-3`, `conversation-2-turn-0`. */
  readonly key: string;
  /** Its length in the server's tokens (exact with a local tokenizer; corpus words without one). */
  readonly tokens: number;
  /**
   * For the rewrite diagnosis: characters of the prompt (or the first message) that must be
   * byte-identical to the provider's; null: every message of the provider's request must recur.
   */
  readonly chars: number | null;
}

export interface PromptReuse {
  /** Prefixes this request holds that an earlier request may have left in the cache. */
  readonly contains: readonly SharedPrefix[];
  /** Prefixes that are in a cache once this request was processed. */
  readonly provides: readonly SharedPrefix[];
  /** Lengths in the model tokenizer's tokens (false: corpus words, no tokenizer). */
  readonly exact: boolean;
}

export const NO_REUSE: PromptReuse = { contains: [], provides: [], exact: true };

/** Length of the common prefix of two token sequences. */
export function commonPrefix(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Token ids of a one-message request as the server builds it, or null where they cannot be had here. */
function requestIds(tokenizer: ModelTokenizer, api: Api, text: string): number[] | null {
  // A server's tokenizer renders no chat template here, and each call would be a round trip.
  if (tokenizer.remote === true) return null;
  if (api === 'completions') return tokenizer.encode(text, true);
  const rendered = tokenizer.renderChat([{ role: 'user', content: text }] as ChatMessage[]);
  return rendered === null ? null : tokenizer.encode(rendered, false);
}

const memo = new WeakMap<ModelTokenizer, Map<string, number>>();

/**
 * Tokens every request of a group shares: the template's head and the prefix, measured as the
 * common prefix of two requests that differ only after it (the builder ends the prefix at a word
 * boundary, which tokenizers never merge across). Without token ids: the prefix's own length.
 */
export function sharedPrefixTokens(tokenizer: ModelTokenizer | null, api: Api, prefix: string, prefixTokens: number): { tokens: number; exact: boolean } {
  if (tokenizer === null) return { tokens: prefixTokens, exact: false };
  let byPrefix = memo.get(tokenizer);
  if (!byPrefix) memo.set(tokenizer, (byPrefix = new Map()));
  const key = `${api}\u0000${prefix}`;
  const known = byPrefix.get(key);
  if (known !== undefined) return { tokens: known, exact: true };
  const a = requestIds(tokenizer, api, `${prefix} alpha`);
  const b = requestIds(tokenizer, api, `${prefix} omega`);
  if (a === null || b === null) return { tokens: prefixTokens, exact: false };
  const tokens = commonPrefix(a, b);
  byPrefix.set(key, tokens);
  return { tokens, exact: true };
}
