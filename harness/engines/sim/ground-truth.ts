/**
 * What the sim knows about each request, in its own performance.now() clock. Load-generator tests
 * compare client-side TTFT/TPOT against these numbers, so they are taken right at the write calls.
 * GET /ground-truth and DELETE /ground-truth expose them over HTTP; they are sim-only endpoints
 * that no real engine has.
 */
import type { FaultKind, Personality } from './config.ts';

export interface GroundTruthRecord {
  request_id: string;
  path: string;
  personality: Personality;
  stream: boolean;
  /** When the request body was fully read. */
  received_ms: number;
  /** Start of the engine step that admitted it into the running batch; null if never admitted. */
  admitted_ms: number | null;
  /** Right before the write of the first chunk that carries generated text. */
  first_token_ms: number | null;
  /** One entry per generated token written: the time of the write that carried it. */
  token_write_ms: number[];
  /** When the response ended (or the connection was dropped); null while in flight. */
  end_ms: number | null;
  prompt_tokens: number;
  /** Tokens written to the client (equals token_write_ms.length once the request ended). */
  completion_tokens: number;
  /** As sent to the client; null when none was sent (error, reset, truncate, client abort). */
  finish_reason: string | null;
  /** HTTP status sent (200 for streams even if a fault cut them later). */
  status: number;
  fault: FaultKind | null;
  /** The client closed the connection before the response ended. */
  client_aborted: boolean;
}

export interface GroundTruthDocument {
  /** performance.timeOrigin of the sim process: epoch_ms = time_origin_ms + *_ms. */
  time_origin_ms: number;
  /**
   * process.hrtime (CLOCK_MONOTONIC, shared by all processes on the host) in ms at the sim's
   * performance.now() = 0. time_origin_ms differs between processes by a few hundred µs; this
   * offset lets a client on the same host convert exactly: hrtime_ms = monotonic_origin_ms + *_ms.
   */
  monotonic_origin_ms: number;
  requests: GroundTruthRecord[];
}

export function newRecord(requestId: string, path: string, personality: Personality, receivedMs: number): GroundTruthRecord {
  return {
    request_id: requestId,
    path,
    personality,
    stream: false,
    received_ms: receivedMs,
    admitted_ms: null,
    first_token_ms: null,
    token_write_ms: [],
    end_ms: null,
    prompt_tokens: 0,
    completion_tokens: 0,
    finish_reason: null,
    status: 0,
    fault: null,
    client_aborted: false,
  };
}

/** Sampled back to back, so the error is well under a microsecond. */
export function monotonicOriginMs(): number {
  const now = performance.now();
  return Number(process.hrtime.bigint()) / 1e6 - now;
}
