/** A request made ready before the clock starts: its body bytes are built once, up front. */
export interface PreparedRequest {
  readonly index: number;
  readonly body: Buffer;
  /** The prompt as sent (for a tokenizer fallback count of input tokens). */
  readonly promptText: string;
  /** Input length the workload declared for this prompt. */
  readonly declaredInputTokens: number;
  readonly maxTokens: number;
}
