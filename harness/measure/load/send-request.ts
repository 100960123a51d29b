/**
 * One streaming request, start to end, recorded as raw facts (token counts are resolved after the
 * point, off the clock: see resolve-counts.ts). Never throws: every way a request
 * can go wrong ends as a classified failure in its record, and a timer bounds it.
 * Uses undici's dispatch API directly: no stream objects on the hot path, one timestamp per read.
 */
import type { Dispatcher } from 'undici';
import { emptyRecord, type RequestRecord } from '../metrics/request-record.ts';
import { readChunk } from './openai-chunk.ts';
import { classifyError, failure, RequestAbortedError, RequestTimeoutError } from './failure.ts';
import type { PreparedRequest } from './prepared-request.ts';
import { createSseDecoder, MAX_SSE_BUFFER_BYTES } from './sse-decoder.ts';

export interface LiveCounters {
  contentEvents: number;
  requestsDone: number;
  requestsFailed: number;
  /** Requests re-sent after their connection closed before the server answered. */
  retries: number;
}

export interface RequestContext {
  readonly dispatcher: Dispatcher;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly timeoutMs: number;
  /** Keep each event's text for a tokenizer to count after the point (never on the hot path). */
  readonly keepTexts: boolean;
  readonly signal: AbortSignal;
  readonly counters: LiveCounters;
}

const ERROR_BODY_LIMIT = 2048;
/** Re-sends of one request whose connection closed before any response byte. */
export const MAX_RESENDS = 3;

export function sendRequest(ctx: RequestContext, prepared: PreparedRequest, scheduledMs: number, requestId: string): Promise<RequestRecord> {
  return new Promise((resolve) => {
    const record = emptyRecord(prepared.index, requestId, scheduledMs, ctx.keepTexts);
    let status = 0;
    let isEventStream = false;
    let errorBody = '';
    let now = 0;
    let sawDone = false;
    let streamProblem: RequestRecord['failure'] = null;
    let settled = false;
    let controller: Dispatcher.DispatchController | null = null;

    const decoder = createSseDecoder({
      onData(data) {
        const reading = readChunk(data);
        switch (reading.kind) {
          case 'done':
            sawDone = true;
            return;
          case 'malformed':
            streamProblem ??= failure('malformed_event', reading.reason);
            return;
          case 'error':
            streamProblem ??= failure('stream_error', reading.message);
            return;
          case 'chunk':
            if (reading.text !== '') {
              record.contentTimesMs.push(now);
              record.contentChars.push(reading.text.length);
              record.contentTexts?.push(reading.text);
              ctx.counters.contentEvents += 1;
            }
            if (reading.finishReason !== null) record.finishReason = reading.finishReason;
            if (reading.usage) {
              if (reading.usage.promptTokens !== null) record.serverPromptTokens = reading.usage.promptTokens;
              if (reading.usage.completionTokens !== null) record.serverCompletionTokens = reading.usage.completionTokens;
            }
            if (reading.timings) record.serverTimings = reading.timings;
        }
      },
      onError(message) {
        // An event over the decoder's bound (a line that never ends): nothing after it can be
        // decoded, so the request fails now rather than holding its connection to the timeout.
        streamProblem ??= failure('malformed_event', `an event larger than ${MAX_SSE_BUFFER_BYTES / (1024 * 1024)} MiB: ${message}`);
        const problem = streamProblem;
        // Settled first: the abort reports back at once, as an error of its own.
        finish(problem);
        if (controller && !controller.aborted) controller.abort(new Error(problem.message));
      },
    });

    const finish = (problem: RequestRecord['failure']): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      record.endMs = performance.now();
      record.failure = problem ?? judgeStream();
      if (record.failure) ctx.counters.requestsFailed += 1;
      ctx.counters.requestsDone += 1;
      resolve(record);
    };

    const judgeStream = (): RequestRecord['failure'] => {
      if (status !== 200) return failure('http_error', `HTTP ${status}: ${errorBody.trim()}`, status);
      if (!isEventStream) return failure('no_content', `server did not stream: ${errorBody.slice(0, 200)}`);
      if (streamProblem) return streamProblem;
      if (!sawDone && record.finishReason === null) return failure('truncated_stream', 'stream ended without a finish reason or [DONE]');
      if (record.contentTimesMs.length === 0) return failure('no_content', 'no event carried generated text');
      return null;
    };

    const abortWith = (error: Error): void => {
      if (controller && !controller.aborted) controller.abort(error);
      finish(classifyError(error));
    };
    const onAbort = (): void => abortWith(new RequestAbortedError());
    const timer = setTimeout(() => abortWith(new RequestTimeoutError(ctx.timeoutMs)), ctx.timeoutMs);
    if (ctx.signal.aborted) {
      record.sendMs = performance.now();
      onAbort();
      return;
    }
    ctx.signal.addEventListener('abort', onAbort, { once: true });

    const dispatch = (): void => {
      record.sendMs = performance.now();
      ctx.dispatcher.dispatch(
        {
          path: ctx.path,
          method: 'POST',
          body: prepared.body,
          headers: { ...ctx.headers, 'x-request-id': requestId },
          headersTimeout: ctx.timeoutMs,
          bodyTimeout: ctx.timeoutMs,
        },
        {
          onRequestStart(c) {
            controller = c;
          },
          onResponseStart(_c, statusCode, headers) {
            status = statusCode;
            const contentType = headers['content-type'];
            isEventStream = String(contentType ?? '').includes('text/event-stream');
          },
          onResponseData(_c, chunk) {
            now = performance.now();
            record.firstByteMs ??= now;
            if (status === 200 && isEventStream) decoder.push(chunk);
            else if (errorBody.length < ERROR_BODY_LIMIT) errorBody += chunk.toString('utf8');
          },
          onResponseEnd() {
            if (status === 200 && isEventStream) {
              now = performance.now();
              decoder.end();
            }
            finish(null);
          },
          onResponseError(_c, error) {
            const problem = classifyError(error);
            // Closed before a single response byte: the server never started this request (a
            // keep-alive connection it closed as the request went out). Send it again; the clock
            // restarts at the re-send, and the retry is counted.
            if (!settled && problem.class === 'connection_reset' && status === 0 && record.firstByteMs === null && record.retries < MAX_RESENDS && !ctx.signal.aborted) {
              record.retries += 1;
              ctx.counters.retries += 1;
              controller = null;
              dispatch();
              return;
            }
            finish(problem);
          },
        },
      );
    };
    dispatch();
  });
}
