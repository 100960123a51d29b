/**
 * Token ids → text deltas for a stream. A byte-fallback vocabulary splits a multi-byte character
 * over several tokens, so the text is decoded from all tokens so far and a delta that ends inside
 * a character is held back — for at most 3 more tokens (a UTF-8 character has at most 4 bytes):
 * bytes that never form a character are released as they decode (U+FFFD), not swallowed.
 */
const MAX_HELD_TOKENS = 3;

export class TextStream {
  private tokens: number[] = [];
  private emitted = '';
  private held = 0;
  private readonly detokenize: (tokens: readonly number[]) => string;

  constructor(detokenize: (tokens: readonly number[]) => string) {
    this.detokenize = detokenize;
  }

  /** The new text this token completes ('' while a character may still be incomplete). */
  push(token: number): string {
    this.tokens.push(token);
    const text = this.detokenize(this.tokens);
    if (text.endsWith('\uFFFD') && this.held < MAX_HELD_TOKENS) {
      this.held += 1;
      return '';
    }
    this.held = 0;
    return this.release(text);
  }

  /** Whatever is still held back, at the end of the stream. */
  flush(): string {
    return this.release(this.detokenize(this.tokens));
  }

  private release(text: string): string {
    const delta = text.slice(this.emitted.length);
    this.emitted = text;
    return delta;
  }
}
