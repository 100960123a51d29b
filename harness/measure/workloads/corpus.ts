/**
 * The natural text prompts are cut from (workloads/text/corpus.txt): loaded once, as words for
 * tokenizer-less prompts and as token ids per tokenizer for exact-length prompts.
 */
import { readFileSync } from 'node:fs';
import type { ModelTokenizer } from '../tokenizer/hf-tokenizer.ts';

const CORPUS_URL = new URL('../../../workloads/text/corpus.txt', import.meta.url);

let text: string | null = null;
let words: string[] | null = null;
const idsByTokenizer = new WeakMap<ModelTokenizer, number[]>();

export function corpusText(): string {
  text ??= readFileSync(CORPUS_URL, 'utf8');
  return text;
}

export function corpusWords(): string[] {
  words ??= corpusText().split(/\s+/).filter((w) => w !== '');
  return words;
}

export function corpusIds(tokenizer: ModelTokenizer): number[] {
  let ids = idsByTokenizer.get(tokenizer);
  if (!ids) {
    ids = tokenizer.encode(corpusText());
    idsByTokenizer.set(tokenizer, ids);
  }
  return ids;
}
