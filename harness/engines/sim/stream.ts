/**
 * One generation response on the wire. The engine appends tokens during a step; flush() writes
 * everything buffered for this response in one write and timestamps it, which is what the ground
 * truth records. Buffering per response also means that in zero-cost mode the events of several
 * steps leave in one write (one HTTP chunk), like cork/uncork but without per-event framing.
 */
import type { ServerResponse } from 'node:http';
import type { FaultKind, Personality } from './config.ts';
import type { FinishReason, GenerationPlan } from './faults.ts';
import type { GroundTruthRecord } from './ground-truth.ts';
import { errorResponseBody, responseBody, streamFormat, type ResponseView, type SseFraming, type StreamFormat, type UsageCounts } from './personalities.ts';
import type { FailureReason, SimMetrics } from './prometheus.ts';
import type { SimRequest } from './request.ts';
import type { Sequence } from './scheduler.ts';
import { TOKEN_JSON, TOKEN_TEXT, outputWord } from './tokens.ts';
import { sendJson } from './http-io.ts';

export interface StreamHost {
  readonly personality: Personality;
  readonly framing: SseFraming;
  readonly keepaliveMs: number;
  /** Close the connection once a streamed response is out, without having announced it. */
  readonly closeAfterStream: boolean;
  /** vLLM's and SGLang's usage carries cached tokens only when started to (SimConfig.reportCachedTokens). */
  readonly reportCachedTokens: boolean;
  readonly metrics: SimMetrics;
  /** The response has bytes to write at the next flush. */
  markDirty(stream: SimStream): void;
  /** The response is over (any outcome): stop tracking it, drop it from the engine if needed. */
  release(stream: SimStream): void;
}

export interface StreamInit {
  readonly res: ServerResponse;
  readonly record: GroundTruthRecord;
  readonly request: SimRequest;
  readonly plan: GenerationPlan;
  readonly fault: FaultKind | null;
  readonly view: ResponseView;
  readonly host: StreamHost;
  /** Prompt tokens the prefix cache held for this request. */
  readonly cachedTokens: number;
}

/**
 * What upstream llama-server streams when its chat output parser refuses what the model generated
 * (a forced length that ends inside a character, with --jinja): seen cutting streams in real runs.
 */
export const LLAMACPP_CONTENT_ONLY_ERROR = 'The model produced output that does not match the expected Content-only format';

type Ending = 'finish' | 'reset' | 'truncate' | 'error';

export class SimStream {
  sequence: Sequence<SimStream> | null = null;
  readonly record: GroundTruthRecord;
  private readonly res: ServerResponse;
  private readonly request: SimRequest;
  private readonly plan: GenerationPlan;
  private readonly fault: FaultKind | null;
  private readonly view: ResponseView;
  private readonly host: StreamHost;
  private readonly cachedTokens: number;
  private readonly format: StreamFormat | null;
  private pending = '';
  private pendingTokens = 0;
  /** Tokens held back for a multi-token event (llama.cpp), or the whole text when not streaming. */
  private groupText = '';
  private groupCount = 0;
  private eventIndex = 0;
  private finishSent = false;
  private ending: Ending | null = null;
  /** The response is aborted rather than ended: no terminating chunk, the connection cut. */
  private cut = false;
  private ended = false;
  private dirty = false;
  private keepalive: NodeJS.Timeout | null = null;

  constructor(init: StreamInit) {
    this.res = init.res;
    this.record = init.record;
    this.request = init.request;
    this.plan = init.plan;
    this.fault = init.fault;
    this.view = init.view;
    this.host = init.host;
    this.cachedTokens = init.cachedTokens;
    this.format = init.request.stream ? streamFormat(init.host.personality, init.host.framing, init.view) : null;
    this.record.status = 200;
    this.res.on('close', this.onClose);
    if (this.format !== null) {
      this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': init.record.request_id });
      // Headers go out before the first token, as with real engines: TTFT must not count them.
      this.res.flushHeaders();
      const { keepaliveMs } = init.host;
      if (keepaliveMs > 0) this.keepalive = setInterval(this.writeKeepalive, keepaliveMs);
    }
  }

  /** The engine produced output token `index` (0-based) for this response. */
  onToken(index: number): void {
    const word = outputWord(this.request.hash, index);
    const format = this.format;
    const isLast = index === this.plan.outputTokens - 1;
    if (format === null) {
      this.groupText += TOKEN_TEXT[word];
      return;
    }
    if (index === 0) this.pending += format.rolePrelude;
    if (index === this.plan.malformedAt) this.pending += format.malformed();
    const perEvent = format.tokensPerEvent(this.eventIndex);
    if (perEvent === 1 && this.groupCount === 0) {
      const reason = this.plan.finishReason;
      const last = isLast && reason !== null ? format.lastContent(TOKEN_JSON[word]!, reason) : null;
      this.finishSent = last !== null;
      this.pending += last ?? format.content(TOKEN_JSON[word]!);
      this.pendingTokens++;
      this.eventIndex++;
    } else {
      this.groupText += TOKEN_TEXT[word];
      this.groupCount++;
      if (this.groupCount === perEvent || isLast) {
        this.pending += format.content(JSON.stringify(this.groupText));
        this.pendingTokens += this.groupCount;
        this.groupText = '';
        this.groupCount = 0;
        this.eventIndex++;
      }
    }
    this.markDirty();
  }

  /** The engine produced the last token this response will get. */
  onFinish(): void {
    const reason = this.plan.finishReason;
    this.ending = reason !== null ? 'finish' : this.plan.errorEvent ? 'error' : this.fault === 'reset' ? 'reset' : 'truncate';
    if (this.format !== null && reason !== null) this.pending += this.format.finish(reason, this.usage(), this.finishSent);
    if (this.format !== null && this.ending === 'error') {
      const event = this.format.error(500, LLAMACPP_CONTENT_ONLY_ERROR);
      // An engine with no error event aborts the response: the connection is cut, as for a reset.
      if (event === null) this.cut = true;
      else this.pending += event;
    }
    this.markDirty();
  }

  flush(): void {
    this.dirty = false;
    if (this.ended) return;
    if (this.format === null) {
      if (this.ending !== null) this.endNonStreaming();
      return;
    }
    const now = performance.now();
    if (!this.cut && (this.ending === 'finish' || this.ending === 'truncate' || this.ending === 'error')) {
      const socket = this.res.socket;
      this.res.end(this.pending, () => {
        // Like llama-server: the terminating chunk is complete, then the socket closes.
        if (this.host.closeAfterStream && this.ending === 'finish') socket?.destroySoon();
      });
    } else if (this.pending !== '') {
      this.res.write(this.pending);
      // Node corks chunked responses until the next tick; write now so the timestamp is the send.
      this.res.socket?.uncork();
    }
    this.pending = '';
    this.recordTokens(now);
    if (this.ending === 'reset' || this.cut) this.res.socket?.destroySoon();
    if (this.ending !== null) this.finalize(now, this.ending === 'finish' ? this.plan.finishReason : null);
  }

  /** The server is shutting down: record what happened and stop writing. */
  shutdown(): void {
    if (this.ended) return;
    this.finalize(performance.now(), null, 'server_shutdown');
  }

  private markDirty(): void {
    if (this.dirty) return;
    this.dirty = true;
    this.host.markDirty(this);
  }

  private usage(): UsageCounts {
    const now = performance.now();
    const admitted = this.record.admitted_ms ?? this.record.received_ms;
    const firstToken = this.record.first_token_ms ?? now;
    return {
      promptTokens: this.request.promptTokens,
      completionTokens: this.plan.outputTokens,
      promptMs: firstToken - admitted,
      predictedMs: now - firstToken,
      cachedTokens: this.cachedTokens,
      cachedReported: this.host.reportCachedTokens,
    };
  }

  private recordTokens(now: number): void {
    const count = this.pendingTokens;
    if (count === 0) return;
    this.pendingTokens = 0;
    const record = this.record;
    if (record.first_token_ms === null) {
      record.first_token_ms = now;
      this.host.metrics.observeTtft((now - record.received_ms) / 1000);
    }
    for (let i = 0; i < count; i++) record.token_write_ms.push(now);
  }

  private endNonStreaming(): void {
    if (this.plan.errorEvent) {
      // Not streamed, the engine answers the same failure as a 500, in its own error body.
      const now = performance.now();
      sendJson(this.res, 500, errorResponseBody(this.host.personality, 500, LLAMACPP_CONTENT_ONLY_ERROR, 'InternalServerError'), { 'x-request-id': this.record.request_id });
      this.record.status = 500;
      this.finalize(now, null);
      return;
    }
    if (this.fault === 'reset') {
      this.res.socket?.destroy();
      this.finalize(performance.now(), null);
      return;
    }
    const reason: FinishReason = this.plan.finishReason ?? 'length';
    let body = responseBody(this.host.personality, this.view, this.groupText, reason, this.usage());
    // Without a stream there is no event to corrupt: malformed and truncate cut the JSON body.
    if (this.fault === 'malformed' || this.fault === 'truncate') body = body.slice(0, Math.floor(body.length / 2));
    const now = performance.now();
    this.res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-request-id': this.record.request_id,
    });
    this.res.end(body);
    this.pendingTokens = this.plan.outputTokens;
    this.recordTokens(now);
    this.finalize(now, this.fault === 'truncate' ? null : reason);
  }

  private finalize(now: number, finishReason: FinishReason | null, failure?: FailureReason): void {
    this.ended = true;
    if (this.keepalive !== null) clearInterval(this.keepalive);
    this.keepalive = null;
    const record = this.record;
    record.end_ms = now;
    record.completion_tokens = record.token_write_ms.length;
    record.finish_reason = finishReason;
    const metrics = this.host.metrics;
    if (failure !== undefined) metrics.fail(failure);
    else if (this.ending === 'error') metrics.fail('error_event');
    else if (this.ending === 'reset' || this.ending === 'truncate') metrics.fail(this.ending);
    else metrics.success++;
    this.host.release(this);
  }

  private readonly writeKeepalive = (): void => {
    if (!this.ended && this.format !== null) this.res.write(this.format.keepalive);
  };

  private readonly onClose = (): void => {
    if (this.ended) return;
    this.record.client_aborted = true;
    this.finalize(performance.now(), null, 'client_abort');
  };
}
