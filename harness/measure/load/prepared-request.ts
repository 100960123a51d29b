/** A request made ready before the clock starts: its body bytes are built once, up front. */
export interface PreparedRequest {
  readonly index: number;
  readonly body: Buffer;
  /** Input tokens the workload built this request to have (exact with the model's tokenizer). */
  readonly declaredInputTokens: number;
  readonly maxTokens: number;
}
