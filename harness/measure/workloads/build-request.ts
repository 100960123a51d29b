/**
 * One request of a scenario, deterministically from (seed, point, purpose, index): its lengths
 * drawn from the spec's distributions, its text synthesized to those lengths, shaped as a plain
 * prompt, a chat message, a shared-prefix request or a turn of a conversation.
 *
 * Exactness: with the model's tokenizer, a single-turn request measures exactly its drawn input
 * length the way the server counts it (special tokens, chat template); in a conversation, each
 * user message and each (pre-written) assistant reply has exactly its drawn length. A shared
 * prefix ends at a word boundary and the rest starts with a space, a boundary that byte-level and
 * SentencePiece tokenizers never merge across, so the group shares it token for token.
 */
import { createRng } from '../../lib/rng.ts';
import type { Dataset, Workload } from '../../contract/workload.ts';
import { loadDataset, type DatasetEntry } from './datasets.ts';
import type { ChatMessage, ModelTokenizer } from '../tokenizer/hf-tokenizer.ts';
import { sampleLength } from './lengths.ts';
import { corpusWordText, exactText } from './synthesize.ts';
import { NO_REUSE, sharedPrefixTokens, type PromptReuse, type SharedPrefix } from './reuse.ts';

export type Purpose = 'measure' | 'warmup';

export interface BuiltRequest {
  /** A completions prompt or a chat conversation. */
  readonly input: { readonly prompt: string } | { readonly messages: readonly ChatMessage[] };
  /** Input tokens as the server should count them: exact with a tokenizer, else the drawn length. */
  readonly inputTokens: number;
  readonly maxTokens: number;
  /** What a perfect prefix cache could reuse of it (reuse.ts). */
  readonly reuse: PromptReuse;
}

export interface BuildContext {
  readonly workload: Workload;
  readonly tokenizer: ModelTokenizer | null;
}

function user(content: string): ChatMessage {
  return { role: 'user', content };
}

/** Measures a user message the way the server will count the request. */
function requestMeasure(ctx: BuildContext): (text: string) => number {
  const { tokenizer, workload } = ctx;
  if (!tokenizer) throw new Error('requestMeasure needs a tokenizer');
  return (text) => tokenizer.countRequest(workload.api, text).tokens;
}

const pieces = new WeakMap<BuildContext, Map<string, string>>();

/** A message of exactly `tokens` tokens; cached, since every later turn of a conversation resends it. */
function piece(ctx: BuildContext, label: string, tokens: number): string {
  let cache = pieces.get(ctx);
  if (!cache) pieces.set(ctx, (cache = new Map()));
  const key = `${label}:${tokens}`;
  let text = cache.get(key);
  if (text === undefined) {
    text = makePiece(ctx, label, tokens);
    cache.set(key, text);
  }
  return text;
}

function makePiece(ctx: BuildContext, label: string, tokens: number): string {
  const rng = createRng(ctx.workload.seed, label);
  if (!ctx.tokenizer) return corpusWordText(rng, tokens);
  const tokenizer = ctx.tokenizer;
  // Trimmed, so it can be joined at a word boundary; measured as trimmed, so it stays exact.
  return exactText(tokenizer, rng, tokens, tokens, (text) => tokenizer.count(text.trim())).trim();
}

function singleTurn(ctx: BuildContext, label: string, inputTokens: number, prefix: string | null): { text: string; tokens: number } {
  const rng = createRng(ctx.workload.seed, `${label}-text`);
  const join = (body: string): string => (prefix === null ? body : `${prefix} ${body.trimStart()}`);
  if (!ctx.tokenizer) {
    const prefixWords = prefix === null ? 0 : prefix.split(' ').length;
    return { text: join(corpusWordText(rng, Math.max(1, inputTokens - prefixWords))), tokens: inputTokens };
  }
  const measure = requestMeasure(ctx);
  const fixed = measure(join(''));
  const body = exactText(ctx.tokenizer, rng, inputTokens, inputTokens - fixed, (text) => measure(join(text)));
  return { text: join(body), tokens: inputTokens };
}

function conversation(ctx: BuildContext, label: string, turn: number, lengths: (t: number) => { input: number; output: number }): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let t = 0; t <= turn; t++) {
    const { input, output } = lengths(t);
    messages.push(user(piece(ctx, `${label}-turn-${t}-user`, input)));
    if (t < turn) messages.push({ role: 'assistant', content: piece(ctx, `${label}-turn-${t}-assistant`, output) });
  }
  return messages;
}

const orders = new WeakMap<readonly DatasetEntry[], Map<string, number[]>>();

/** A seeded shuffle of the dataset per point and purpose (computed once). */
function datasetOrder(entries: readonly DatasetEntry[], seed: number, label: string): number[] {
  let byLabel = orders.get(entries);
  if (!byLabel) orders.set(entries, (byLabel = new Map()));
  let order = byLabel.get(label);
  if (!order) {
    const rng = createRng(seed, label);
    order = entries.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    byLabel.set(label, order);
  }
  return order;
}

/**
 * A request from a dataset: a trace in its own (time) order; ShareGPT from one seeded shuffle, each
 * point taking the next slice of it and the warmup taking slices from the far end, so points and
 * warmup send different conversations as long as the dataset has enough of them (then it wraps).
 */
function fromDataset(ctx: BuildContext, dataset: Dataset, pointIndex: number, purpose: Purpose, index: number): BuiltRequest {
  const { workload } = ctx;
  const entries = loadDataset(dataset, workload.api, ctx.tokenizer);
  const n = entries.length;
  let position: number;
  if (dataset.format === 'trace') position = index % n;
  else {
    const order = datasetOrder(entries, workload.seed, 'dataset-order');
    position =
      purpose === 'measure'
        ? order[(pointIndex * (workload.requests.count ?? 0) + index) % n]!
        : order[n - 1 - ((pointIndex * workload.requests.warmup + index) % n)]!;
  }
  const base = `${purpose}-p${pointIndex}`;
  const entry = entries[position]!;
  const text = dataset.text === 'original' && entry.text !== null ? entry.text : singleTurn(ctx, `${base}-${index}`, entry.inputTokens, null).text;
  const input = workload.api === 'completions' ? { prompt: text } : { messages: [user(text)] };
  // Dataset conversations are sent as single prompts: nothing is shared by design.
  return { input, inputTokens: entry.inputTokens, maxTokens: entry.outputTokens, reuse: NO_REUSE };
}

/** A conversation's tokens as the server counts the request (approximate: words, without a tokenizer). */
function conversationTokens(ctx: BuildContext, messages: readonly ChatMessage[]): number {
  const { tokenizer } = ctx;
  return tokenizer
    ? (tokenizer.countChat(messages) ?? tokenizer.count(messages.map((m) => m.content).join('\n')))
    : messages.reduce((sum, m) => sum + m.content.split(' ').length, 0);
}

/**
 * Turn `turn` of a conversation holds every earlier turn's whole request (its history and user
 * message, up to the assistant's header), and leaves its own behind. The assistant replies are
 * pre-written, not the server's, so what the server generated is never part of what recurs.
 */
function conversationReuse(ctx: BuildContext, label: string, turn: number, lengths: (t: number) => { input: number; output: number }, inputTokens: number): PromptReuse {
  const key = (t: number): string => `${label}-turn-${t}`;
  const contains: SharedPrefix[] = [];
  for (let t = 0; t < turn; t++) contains.push({ key: key(t), tokens: conversationTokens(ctx, conversation(ctx, label, t, lengths)), chars: null });
  return { contains, provides: [{ key: key(turn), tokens: inputTokens, chars: null }], exact: ctx.tokenizer !== null };
}

export function buildRequest(ctx: BuildContext, pointIndex: number, purpose: Purpose, index: number): BuiltRequest {
  const { workload, tokenizer } = ctx;
  const base = `${purpose}-p${pointIndex}`;
  if (workload.dataset) return fromDataset(ctx, workload.dataset, pointIndex, purpose, index);
  const lengthsOf = (i: number): { input: number; output: number } => {
    const rng = createRng(workload.seed, `${base}-len-${i}`);
    return { input: sampleLength(workload.input, rng), output: sampleLength(workload.output, rng) };
  };

  if (workload.multi_turn) {
    const turns = workload.multi_turn.turns;
    const conversationIndex = Math.floor(index / turns);
    const turn = index % turns;
    const lengths = (t: number): { input: number; output: number } => lengthsOf(conversationIndex * turns + t);
    const label = `${base}-conversation-${conversationIndex}`;
    const messages = conversation(ctx, label, turn, lengths);
    const inputTokens = conversationTokens(ctx, messages);
    return { input: { messages }, inputTokens, maxTokens: lengths(turn).output, reuse: conversationReuse(ctx, label, turn, lengths, inputTokens) };
  }

  const { input, output } = lengthsOf(index);
  const prefix = workload.shared_prefix
    ? piece(ctx, `${base}-prefix-${index % workload.shared_prefix.groups}`, workload.shared_prefix.tokens).trimEnd()
    : null;
  const { text, tokens } = singleTurn(ctx, `${base}-${index}`, input, prefix);
  let reuse = NO_REUSE;
  if (prefix !== null) {
    const shared = sharedPrefixTokens(tokenizer, workload.api, prefix, workload.shared_prefix!.tokens);
    const group: SharedPrefix = { key: `group-${index % workload.shared_prefix!.groups}`, tokens: shared.tokens, chars: prefix.length };
    reuse = { contains: [group], provides: [group], exact: shared.exact };
  }
  if (workload.api === 'completions') return { input: { prompt: text }, inputTokens: tokens, maxTokens: output, reuse };
  return { input: { messages: [user(text)] }, inputTokens: tokens, maxTokens: output, reuse };
}
