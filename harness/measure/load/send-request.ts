/**
 * One streaming request, start to end, recorded as raw facts (token counts are resolved after the
 * point, off the clock: see resolve-counts.ts). Never throws: every way a request
 * can go wrong ends as a classified failure in its record, and a timer bounds it.
 * Uses undici's dispatch API directly: no stream objects on the hot path, one timestamp per read.
 */
import type { Dispatcher } from 'undici';
import { emptyRecord, type RequestRecord } from '../metrics/request-record.ts';
import { readChunk } from './openai-chunk.ts';
import { classifyError, failure, RequestAbortedError, RequestTimeoutError, serverMessage } from './failure.ts';
import type { PreparedRequest } from './prepared-request.ts';
import { createSseDecoder, MAX_SSE_BUFFER_BYTES } from './sse-decoder.ts';
import type { AbortFanout } from './abort-fanout.ts';

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
  /** Stops every request in flight (the run is interrupted). */
  readonly abort: AbortFanout;
  readonly counters: LiveCounters;
}

/**
 * An answer that is not the measured stream (an error status, a JSON body) is only quoted: this
 * much of it is kept, and the rest may take this long after the headers. Then the request ends,
 * classified by its status, and its connection is closed: an error body that never ends (a broken
 * proxy) must not hold the request to its timeout, nor be called a timeout.
 */
export const ERROR_BODY_BYTES = 8 * 1024;
export const ERROR_BODY_DEADLINE_MS = 2000;

/**
 * Events a stream may carry per token of max_tokens, and beyond that, before it is a runaway: a
 * token gives at most one event (an empty chunk for a token held back, part of a character,
 * included), and a stream adds a role chunk, a finish chunk, a usage chunk and [DONE]. Four times
 * leaves room for what servers may yet do (logprobs or reasoning sent apart from the text). A
 * server past it is not generating this request any more; reading on only costs memory (one that
 * streamed valid tokens for ever took a single request to 1.26 GB in 40 s).
 */
export const RUNAWAY_EVENTS_PER_TOKEN = 4;
export const RUNAWAY_EXTRA_EVENTS = 32;
/** Generated text per token of max_tokens (the longest vocabulary entries, runs of spaces or dashes, are a few hundred characters). */
export const RUNAWAY_CHARS_PER_TOKEN = 1024;

/** The most a request's stream may carry before it fails as runaway_stream. */
export function runawayLimits(maxTokens: number): { readonly events: number; readonly chars: number } {
  return {
    events: RUNAWAY_EVENTS_PER_TOKEN * maxTokens + RUNAWAY_EXTRA_EVENTS,
    chars: RUNAWAY_CHARS_PER_TOKEN * (maxTokens + RUNAWAY_EXTRA_EVENTS),
  };
}
/** Re-sends of one request whose connection closed before any response byte. */
export const MAX_RESENDS = 3;

export function sendRequest(ctx: RequestContext, prepared: PreparedRequest, scheduledMs: number, requestId: string): Promise<RequestRecord> {
  return new Promise((resolve) => {
    const record = emptyRecord(prepared.index, requestId, scheduledMs, ctx.keepTexts);
    let status = 0;
    /** A 200 event stream: what is measured. Anything else is only quoted (see ERROR_BODY_BYTES). */
    let streaming = false;
    /** The headers of an answer that is not the stream arrived: its body is being quoted. */
    let quoting = false;
    const quoted: Buffer[] = [];
    let quotedBytes = 0;
    let quoteDeadline: NodeJS.Timeout | undefined;
    const limits = runawayLimits(prepared.maxTokens);
    let events = 0;
    let chars = 0;
    let now = 0;
    let sawDone = false;
    let streamProblem: RequestRecord['failure'] = null;
    let settled = false;
    let controller: Dispatcher.DispatchController | null = null;
    let unsubscribe = (): unknown => undefined;

    const decoder = createSseDecoder({
      onData(data) {
        if (++events > limits.events) return runaway(`the stream went on past ${limits.events} events (${RUNAWAY_EVENTS_PER_TOKEN} per token of max_tokens ${prepared.maxTokens}, and ${RUNAWAY_EXTRA_EVENTS}): the server did not stop generating`);
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
              chars += reading.text.length;
              if (chars > limits.chars) return runaway(`the stream carried more than ${limits.chars} characters of text (${RUNAWAY_CHARS_PER_TOKEN} per token of max_tokens ${prepared.maxTokens}, and ${RUNAWAY_EXTRA_EVENTS}): the server did not stop generating`);
              record.contentTimesMs.push(now);
              record.contentChars.push(reading.text.length);
              record.contentTexts?.push(reading.text);
              ctx.counters.contentEvents += 1;
            }
            if (reading.finishReason !== null) record.finishReason = reading.finishReason;
            if (reading.usage) {
              if (reading.usage.promptTokens !== null) record.serverPromptTokens = reading.usage.promptTokens;
              if (reading.usage.completionTokens !== null) record.serverCompletionTokens = reading.usage.completionTokens;
              if (reading.usage.cachedTokens !== null) record.serverCachedTokens = reading.usage.cachedTokens;
            }
            if (reading.timings) record.serverTimings = reading.timings;
        }
      },
      onError(message) {
        // An event over the decoder's bound (a line that never ends): nothing after it can be
        // decoded, so the request fails now rather than holding its connection to the timeout.
        streamProblem ??= failure('malformed_event', `an event larger than ${MAX_SSE_BUFFER_BYTES / (1024 * 1024)} MiB: ${message}`);
        stopWith(streamProblem);
      },
    });

    /** Ends the request now and closes its connection: nothing more is read from it. */
    const stopWith = (problem: RequestRecord['failure']): void => {
      // Settled first: the abort reports back at once, as an error of its own.
      finish(problem);
      if (controller && !controller.aborted) controller.abort(new Error(problem?.message ?? 'stopped reading'));
    };
    const runaway = (message: string): void => {
      if (!settled) stopWith(failure('runaway_stream', message));
    };
    /** The quoted answer is complete, at its bound or at its deadline: judged by its status. */
    const endQuote = (): void => stopWith(null);

    const finish = (problem: RequestRecord['failure']): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(quoteDeadline);
      unsubscribe();
      record.endMs = performance.now();
      record.failure = problem ?? judgeStream();
      if (record.failure) ctx.counters.requestsFailed += 1;
      ctx.counters.requestsDone += 1;
      resolve(record);
    };

    const judgeStream = (): RequestRecord['failure'] => {
      if (status !== 200) return failure('http_error', `HTTP ${status}: ${serverMessage(Buffer.concat(quoted).toString('utf8'))}`, status);
      if (!streaming) return failure('no_content', `server did not stream: ${Buffer.concat(quoted).toString('utf8').slice(0, 200)}`);
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
    // An answer being quoted has its status already: it is that answer, not a timeout.
    const timer = setTimeout(() => (quoting ? endQuote() : abortWith(new RequestTimeoutError(ctx.timeoutMs))), ctx.timeoutMs);
    if (ctx.abort.signal.aborted) {
      record.sendMs = performance.now();
      onAbort();
      return;
    }
    unsubscribe = ctx.abort.subscribe(onAbort);

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
            streaming = statusCode === 200 && String(headers['content-type'] ?? '').includes('text/event-stream');
            if (!streaming) {
              quoting = true;
              quoteDeadline = setTimeout(endQuote, ERROR_BODY_DEADLINE_MS);
            }
          },
          onResponseData(_c, chunk) {
            now = performance.now();
            record.firstByteMs ??= now;
            if (streaming) {
              decoder.push(chunk);
            } else if (quotedBytes < ERROR_BODY_BYTES) {
              quoted.push(chunk.subarray(0, ERROR_BODY_BYTES - quotedBytes));
              quotedBytes += chunk.length;
              if (quotedBytes >= ERROR_BODY_BYTES) endQuote();
            }
          },
          onResponseEnd() {
            if (streaming) {
              now = performance.now();
              decoder.end();
            }
            finish(null);
          },
          onResponseError(_c, error) {
            // Cut off while quoting an answer: still that answer (its status), not how the cut looked.
            if (quoting) return endQuote();
            const problem = classifyError(error);
            // Closed before a single response byte: the server never started this request (a
            // keep-alive connection it closed as the request went out). Send it again; the clock
            // restarts at the re-send, and the retry is counted.
            if (!settled && problem.class === 'connection_reset' && status === 0 && record.firstByteMs === null && record.retries < MAX_RESENDS && !ctx.abort.signal.aborted) {
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
