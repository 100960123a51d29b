/**
 * Prompt text of an exact token length, cut from natural text. With the model's tokenizer: take
 * a window of corpus tokens at a seeded offset, decode it, and measure the whole request the way
 * the server will (the caller's `measure`); decoding and re-encoding do not always round-trip, so
 * the window is resized by the difference and measured again until it is exact (vLLM's re-encode
 * approach, made a guarantee: failure is an error, not an off-length prompt). Without a tokenizer:
 * N corpus words, which is exact only for word-level tokenizers (the result says "approximate").
 */
import { ServebenchError } from '../../lib/errors.ts';
import type { Rng } from '../../lib/rng.ts';
import type { ModelTokenizer } from '../tokenizer/hf-tokenizer.ts';
import { corpusIds, corpusWords } from './corpus.ts';

const RESIZES_PER_OFFSET = 12;
const OFFSETS_TRIED = 8;

/** A length the tokenizer cannot produce (e.g. below the chat template's own size): bad input. */
export class LengthUnreachableError extends ServebenchError {}

function window(ids: readonly number[], offset: number, length: number): number[] {
  const out = new Array<number>(length);
  for (let i = 0; i < length; i++) out[i] = ids[(offset + i) % ids.length]!;
  return out;
}

/**
 * Text whose request measures exactly `target` tokens. `measure(text)` counts the whole request
 * built around the text (prefix, chat template, special tokens); `bare` is what the text alone
 * contributes at first guess (target minus the request's fixed overhead).
 */
export function exactText(tokenizer: ModelTokenizer, rng: Rng, target: number, bare: number, measure: (text: string) => number): string {
  // The request's fixed part alone (BOS, template) may already be the whole length.
  if (bare <= 0 && measure('') === target) return '';
  const ids = corpusIds(tokenizer);
  for (let attempt = 0; attempt < OFFSETS_TRIED; attempt++) {
    const offset = rng.int(ids.length);
    let length = Math.max(1, bare);
    for (let resize = 0; resize < RESIZES_PER_OFFSET; resize++) {
      const text = tokenizer.decode(window(ids, offset, length));
      const measured = measure(text);
      if (measured === target) return text;
      const next = Math.max(1, length + (target - measured));
      if (next === length) break;
      length = next;
    }
  }
  throw new LengthUnreachableError(
    `no prompt measures exactly ${target} tokens with this tokenizer (the request's fixed part is ${measure('')} tokens); raise the input length`,
  );
}

/** `n` natural words from a seeded offset in the corpus. */
export function corpusWordText(rng: Rng, n: number): string {
  const words = corpusWords();
  const offset = rng.int(words.length);
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = words[(offset + i) % words.length]!;
  return out.join(' ');
}
