/**
 * Synthetic prompts of N words from a seeded stream, until the workloads issue brings exact-length
 * prompts from the model's tokenizer. N words are exactly N tokens for the simulated engine's
 * tokenizer; a real engine counts differently, which the result records through usage.prompt_tokens.
 * Every prompt starts with different random words, so no two share a cacheable prefix.
 */
import { createRng } from './rng.ts';

const WORDS = (
  'the of and to in is was for on that with as by at from his her they this have had not are but ' +
  'which one you were all their when there can been has more if will would who so no out up into ' +
  'than them only other new some could time these two may first then do any like my now over such ' +
  'our man me even most made after also did many before must through back years where much your way ' +
  'well down should because each just those people how too little state good very make world still ' +
  'own see men work long get here between both life being under never day same another know while ' +
  'last might us great old year off come since against go came right used take three place small ' +
  'found number part house water light river garden market engine model token server stream batch ' +
  'memory latency window signal answer question story music letter city country paper table'
).split(' ');

/** Word-based text of exactly `words` whitespace-separated words. */
export function syntheticText(seed: number, label: string, words: number): string {
  const rng = createRng(seed, label);
  const out = new Array<string>(words);
  for (let i = 0; i < words; i++) out[i] = WORDS[rng.int(WORDS.length)]!;
  return out.join(' ');
}
