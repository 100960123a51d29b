/**
 * The raw facts one request leaves behind. Workers only record these; the metric math lives in
 * summarize.ts and nowhere else. Times are client-side performance.now() milliseconds, taken
 * when the bytes arrived (all events of one TCP read share one timestamp).
 */
import type { CountSource, FailureClass } from '../../contract/vocabulary.ts';

export interface RequestFailure {
  readonly class: FailureClass;
  /** HTTP status for http_error, else null. */
  readonly status: number | null;
  readonly message: string;
}

export interface RequestRecord {
  /** Position of the prompt in the point's prompt list. */
  readonly index: number;
  /** Sent as x-request-id, so server logs and ground truth can be matched to this record. */
  readonly requestId: string;
  /** When the schedule said to send it (open loop) or when its worker became free (closed loop). */
  readonly scheduledMs: number;
  sendMs: number;
  /** First byte of the response body, or null if none arrived. */
  firstByteMs: number | null;
  /** Arrival time of every content event (an event carrying generated text). */
  readonly contentTimesMs: number[];
  /** Characters of generated text in each content event (for estimated per-event token splits). */
  readonly contentChars: number[];
  /** Generated text of each content event, kept only when a tokenizer will count it afterwards. */
  readonly contentTexts: string[] | null;
  /** Tokens in each content event when a tokenizer counted them, else null. */
  contentTokens: number[] | null;
  /** When the stream ended or the request failed. */
  endMs: number;
  failure: RequestFailure | null;
  inputTokens: number | null;
  inputTokensSource: CountSource | null;
  outputTokens: number | null;
  outputTokensSource: CountSource | null;
  /** usage.prompt_tokens exactly as the server reported it, for drift checks. */
  serverPromptTokens: number | null;
  /** usage.completion_tokens exactly as the server reported it. */
  serverCompletionTokens: number | null;
  /** The server's usage was not a count it could have meant (see resolve-counts.ts); the counts came from elsewhere. */
  usageImplausible: boolean;
  finishReason: string | null;
  /** Times it was re-sent because its connection closed before any response byte. */
  retries: number;
  /** The server's own timings of the request, where it reports them (llama.cpp; cacheN from mid-2025 builds). */
  serverTimings: { promptN: number; promptMs: number; predictedN: number; predictedMs: number; cacheN: number | null } | null;
  /** usage.prompt_tokens_details.cached_tokens exactly as the server reported it (the cache audit's evidence). */
  serverCachedTokens: number | null;
}

/** A record before anything happened: filled in by the request as facts arrive. */
export function emptyRecord(index: number, requestId: string, scheduledMs: number, keepTexts: boolean): RequestRecord {
  return {
    index,
    requestId,
    scheduledMs,
    sendMs: 0,
    firstByteMs: null,
    contentTimesMs: [],
    contentChars: [],
    contentTexts: keepTexts ? [] : null,
    contentTokens: null,
    endMs: 0,
    failure: null,
    inputTokens: null,
    inputTokensSource: null,
    outputTokens: null,
    outputTokensSource: null,
    serverPromptTokens: null,
    serverCompletionTokens: null,
    usageImplausible: false,
    finishReason: null,
    retries: 0,
    serverTimings: null,
    serverCachedTokens: null,
  };
}
