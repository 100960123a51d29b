/**
 * One streaming request, start to end, recorded as raw facts. Never throws: every way a request
 * can go wrong ends as a classified failure in its record, and a timer bounds it.
 * Uses undici's dispatch API directly: no stream objects on the hot path, one timestamp per read.
 */
import type { Dispatcher } from 'undici';
import { emptyRecord, type RequestRecord } from '../metrics/request-record.ts';
import { readChunk } from './openai-chunk.ts';
import { classifyError, failure, RequestAbortedError, RequestTimeoutError } from './failure.ts';
import type { PreparedRequest } from './prepared-request.ts';
import { createSseDecoder } from './sse-decoder.ts';
import type { TokenCounter } from './token-counter.ts';

export interface LiveCounters {
  contentEvents: number;
  requestsDone: number;
  requestsFailed: number;
}

export interface RequestContext {
  readonly dispatcher: Dispatcher;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly timeoutMs: number;
  /** ignore_eos was requested: fewer tokens than max_tokens is a failure (short_output). */
  readonly ignoreEos: boolean;
  readonly tokenizer: TokenCounter | null;
  readonly signal: AbortSignal;
  readonly counters: LiveCounters;
}

const ERROR_BODY_LIMIT = 2048;

export function sendRequest(ctx: RequestContext, prepared: PreparedRequest, scheduledMs: number, requestId: string): Promise<RequestRecord> {
  return new Promise((resolve) => {
    const record = emptyRecord(prepared.index, requestId, scheduledMs, ctx.tokenizer !== null);
    let status = 0;
    let isEventStream = false;
    let errorBody = '';
    let now = 0;
    let sawDone = false;
    let usageCompletion: number | null = null;
    let streamProblem: RequestRecord['failure'] = null;
    let settled = false;
    let controller: Dispatcher.DispatchController | null = null;
    let generatedText = '';

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
              if (ctx.tokenizer) {
                record.contentTokens!.push(ctx.tokenizer.count(reading.text));
                generatedText += reading.text;
              }
              ctx.counters.contentEvents += 1;
            }
            if (reading.finishReason !== null) record.finishReason = reading.finishReason;
            if (reading.usage) {
              if (reading.usage.promptTokens !== null) record.serverPromptTokens = reading.usage.promptTokens;
              if (reading.usage.completionTokens !== null) usageCompletion = reading.usage.completionTokens;
            }
        }
      },
      onError(message) {
        streamProblem ??= failure('malformed_event', message);
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
      resolveCounts(usageCompletion, generatedText);
      if (ctx.ignoreEos && record.outputTokensSource !== 'events' && record.outputTokens! < prepared.maxTokens) {
        return failure('short_output', `ignore_eos requested ${prepared.maxTokens} tokens, got ${record.outputTokens} (${record.outputTokensSource})`);
      }
      return null;
    };

    const resolveCounts = (usageCompletionTokens: number | null, text: string): void => {
      if (usageCompletionTokens !== null) {
        record.outputTokens = usageCompletionTokens;
        record.outputTokensSource = 'usage';
      } else if (ctx.tokenizer) {
        record.outputTokens = ctx.tokenizer.count(text);
        record.outputTokensSource = 'tokenizer';
      } else {
        record.outputTokens = record.contentTimesMs.length;
        record.outputTokensSource = 'events';
      }
      if (record.serverPromptTokens !== null) {
        record.inputTokens = record.serverPromptTokens;
        record.inputTokensSource = 'usage';
      } else if (ctx.tokenizer) {
        record.inputTokens = ctx.tokenizer.count(prepared.promptText);
        record.inputTokensSource = 'tokenizer';
      } else {
        record.inputTokens = prepared.declaredInputTokens;
        record.inputTokensSource = 'declared';
      }
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
          finish(classifyError(error));
        },
      },
    );
  });
}
