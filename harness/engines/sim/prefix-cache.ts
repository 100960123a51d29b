/**
 * The sim's prefix cache: small and deterministic, so the cache audit can be tested without a
 * real engine. It keeps the token sequences of the last `capacity` prompts whose prefill finished
 * and answers a new prompt with its longest common prefix among them, rounded down to the
 * engine's granularity (vLLM reuses whole blocks, 16 tokens by default; SGLang's radix cache and
 * llama.cpp's slots any prefix), and never the whole prompt: every engine evaluates at least the
 * last token, for the logits of the first output token.
 */
import type { Personality } from './config.ts';
import { fnv1a } from './hash.ts';
import { CHAT_TEMPLATE_TOKENS, CHAT_TOKENS_PER_MESSAGE, type ChatMessageText } from './tokens.ts';

/** Tokens per cache block, per engine the sim imitates (vLLM: --block-size default 16; the others: token-granular). */
export function cacheGranularity(personality: Personality): number {
  return personality === 'vllm' || personality === 'no-usage' ? 16 : 1;
}

function words(text: string, into: number[]): void {
  for (const word of text.match(/\S+/g) ?? []) into.push(fnv1a(word));
}

/**
 * A prompt's tokens as the sim counts them (tokens.ts): one per word; a chat request is the
 * template's head, then per message its role markers and its words, so that a conversation's
 * earlier turns are a prefix of its later ones, as under a real chat template.
 */
export function promptTokenIds(prompt: { readonly text: string } | { readonly messages: readonly ChatMessageText[] }): Uint32Array {
  const ids: number[] = [];
  if ('text' in prompt) words(prompt.text, ids);
  else {
    for (let i = 0; i < CHAT_TEMPLATE_TOKENS; i++) ids.push(fnv1a(`<template:${i}>`));
    for (const message of prompt.messages) {
      for (let i = 0; i < CHAT_TOKENS_PER_MESSAGE; i++) ids.push(fnv1a(`<${message.role}:${i}>`));
      words(message.content, ids);
    }
  }
  return Uint32Array.from(ids);
}

export class SimPrefixCache {
  private readonly capacity: number;
  private readonly granularity: number;
  private readonly entries: Uint32Array[] = [];

  constructor(capacity: number, granularity: number) {
    this.capacity = capacity;
    this.granularity = granularity;
  }

  /** Prompt tokens this prompt finds in the cache. */
  lookup(ids: Uint32Array): number {
    let best = 0;
    for (const entry of this.entries) {
      const n = Math.min(entry.length, ids.length);
      let i = 0;
      while (i < n && entry[i] === ids[i]) i++;
      if (i > best) best = i;
    }
    const usable = Math.min(best, ids.length - 1);
    return usable <= 0 ? 0 : usable - (usable % this.granularity);
  }

  /** The prompt's prefill finished: its tokens can be reused from now on (oldest dropped first). */
  insert(ids: Uint32Array): void {
    if (this.capacity === 0) return;
    this.entries.push(ids);
    if (this.entries.length > this.capacity) this.entries.shift();
  }
}
