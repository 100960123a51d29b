/**
 * A tokenizer as the load generator sees it: counts tokens in a piece of text. Used only as the
 * fallback when the server reports no usage; its name is recorded with every count it makes.
 */
export interface TokenCounter {
  readonly name: string;
  count(text: string): number;
}
