/**
 * Asks each problem once, `concurrency` at a time, with the load generator's own pieces: its body
 * builder, its closed loop and its streaming request, which never throws and classes every failure
 * the way a measured request's is classed. Only the text is wanted here, not the timings.
 */
import { Pool } from 'undici';
import type { Api } from '../../contract/common.ts';
import type { RequestFailure } from '../metrics/request-record.ts';
import { driveClosedLoop } from '../load/drive.ts';
import type { Endpoint } from '../load/endpoint.ts';
import type { PreparedRequest } from '../load/prepared-request.ts';
import { API_PATHS, requestBody, type RequestInput } from '../load/request-body.ts';
import { sendRequest, type LiveCounters, type RequestContext } from '../load/send-request.ts';
import { abortFanout } from '../load/abort-fanout.ts';

export interface Question {
  readonly input: RequestInput;
}

export interface AskPlan {
  readonly endpoint: Endpoint;
  readonly model: string;
  readonly api: Api;
  readonly headers: Record<string, string>;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly maxTokens: number;
  readonly stop: readonly string[];
  /** Prefix of each request's x-request-id, so a server's log can be matched to the problem. */
  readonly requestIdPrefix: string;
}

export interface Answer {
  /** The generated text ('' when the server stopped before any); null when the request failed. */
  readonly text: string | null;
  readonly finishReason: string | null;
  readonly failure: RequestFailure | null;
}

export async function askProblems(
  plan: AskPlan,
  questions: readonly Question[],
  signal: AbortSignal,
  counters: LiveCounters = { contentEvents: 0, requestsDone: 0, requestsFailed: 0, retries: 0 },
): Promise<Answer[]> {
  const pool = new Pool(plan.endpoint.origin, { connections: plan.concurrency, pipelining: 1 });
  const abort = abortFanout(signal);
  const ctx: RequestContext = {
    dispatcher: pool,
    path: `${plan.endpoint.basePath}${API_PATHS[plan.api]}`,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...plan.headers },
    timeoutMs: plan.timeoutMs,
    keepTexts: true,
    abort,
    counters,
  };
  const prepare = (index: number): PreparedRequest => {
    const body = requestBody(
      { model: plan.model, temperature: 0, ignoreEos: false, extraBody: { stop: plan.stop } },
      { input: questions[index]!.input, maxTokens: plan.maxTokens },
    );
    return { index, body: Buffer.from(JSON.stringify(body)), declaredInputTokens: 0, maxTokens: plan.maxTokens };
  };
  try {
    const { records } = await driveClosedLoop(
      {
        requestAt: prepare,
        count: questions.length,
        deadlineMs: null,
        send: (prepared, scheduledMs) => sendRequest(ctx, prepared, scheduledMs, `${plan.requestIdPrefix}-${prepared.index}`),
        signal,
      },
      plan.concurrency,
    );
    const answers: Answer[] = questions.map(() => ({ text: null, finishReason: null, failure: { class: 'aborted', status: null, message: 'not sent: the run was stopped' } }));
    for (const record of records) {
      // A stream that finished without text is an answer, an empty one (a model that stops at once):
      // wrong, not a failed request.
      const empty = record.failure?.class === 'no_content' && record.finishReason !== null;
      const failure = empty ? null : record.failure;
      answers[record.index] = { text: failure === null ? (record.contentTexts ?? []).join('') : null, finishReason: record.finishReason, failure };
    }
    return answers;
  } finally {
    abort.close();
    await pool.close();
  }
}
