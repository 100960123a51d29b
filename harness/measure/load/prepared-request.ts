import type { PromptReuse } from '../workloads/reuse.ts';

/** A request made ready before the clock starts: its body bytes are built once, up front. */
export interface PreparedRequest {
  readonly index: number;
  readonly body: Buffer;
  /** Input tokens the workload built this request to have (exact with the model's tokenizer). */
  readonly declaredInputTokens: number;
  readonly maxTokens: number;
  /** What a perfect prefix cache could reuse of it, as the workload intends (the cache audit's theory); absent: nothing. */
  readonly reuse?: PromptReuse;
}
