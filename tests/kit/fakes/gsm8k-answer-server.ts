/**
 * A TEST SERVER, not an engine: an OpenAI-compatible /v1/completions and /v1/chat/completions on
 * 127.0.0.1 that answers each GSM8K question it recognizes (the last "Question: …\nAnswer:" of the
 * prompt or the last user turn) from the dataset file itself. 'oracle' streams the dataset's own
 * worked solution (accuracy 1.0); 'wrong' streams the same solution with its final number plus one
 * (accuracy 0); 'empty' finishes each stream without a word. It stands in for a model with real weights, which cannot run on this machine; the
 * stream follows OpenAI's documented chunk shape (text or delta.content, finish_reason, [DONE]).
 * Every request body is recorded, and `failEvery` answers every k-th generation with HTTP 500.
 * It answers /health and /version as vLLM does, so `servebench run --engine vllm --launcher external`
 * measures it (the load points' prompts are no questions: they get "I do not know this question.").
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { sendJson, startFakeServer, type FakeServer, type RecordedRequest } from './fake-server.ts';

export interface Gsm8kAnswerServerOptions {
  readonly mode: 'oracle' | 'wrong' | 'empty';
  readonly modelId?: string;
  /** /v1/models owned_by (the embedded engine says 'servebench-embedded'). */
  readonly ownedBy?: string;
  /** /props model_path, as llama-server reports its file; absent: no /props. */
  readonly modelPath?: string;
  /** Every k-th generation request answers HTTP 500 instead (1-based: the k-th, 2k-th, …). */
  readonly failEvery?: number;
  /** Each generation waits this long before its stream starts (a slow server, to stop a run while it asks). */
  readonly answerDelayMs?: number;
}

/** What GET /version reports, as vLLM's does ({"version": …}). */
export const GSM8K_SERVER_VERSION = '0.0.1-gsm8k-test';

const DATASET = new URL('../../../workloads/datasets/gsm8k/test.jsonl', import.meta.url);

function solutions(mode: Gsm8kAnswerServerOptions['mode']): Map<string, string> {
  const byQuestion = new Map<string, string>();
  for (const line of readFileSync(DATASET, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const { question, answer } = JSON.parse(line) as { question: string; answer: string };
    byQuestion.set(question, mode === 'oracle' ? answer : answer.replace(/#### (.*)$/, (_, n: string) => `#### ${Number(n.replace(/,/g, '')) + 1}`));
  }
  return byQuestion;
}

function lastQuestion(text: string): string {
  return text.slice(text.lastIndexOf('Question: ') + 'Question: '.length).replace(/\nAnswer:$/, '');
}

function stream(response: ServerResponse, chat: boolean, text: string): true {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const piece = Math.ceil(text.length / 3);
  const chunk = (part: string, finish: string | null): string =>
    `data: ${JSON.stringify({ object: chat ? 'chat.completion.chunk' : 'text_completion', choices: [chat ? { index: 0, delta: { content: part }, finish_reason: finish } : { index: 0, text: part, finish_reason: finish }] })}\n\n`;
  for (let i = 0; i < text.length; i += piece) response.write(chunk(text.slice(i, i + piece), null));
  response.end(`${chunk('', 'stop')}data: [DONE]\n\n`);
  return true;
}

export async function startGsm8kAnswerServer(options: Gsm8kAnswerServerOptions): Promise<FakeServer> {
  const answers = solutions(options.mode);
  const modelId = options.modelId ?? 'gsm8k-test-model';
  let generations = 0;
  return startFakeServer([
    async (request: RecordedRequest, response) => {
      if (request.method === 'GET' && request.url === '/v1/models') return sendJson(response, 200, { object: 'list', data: [{ id: modelId, object: 'model', owned_by: options.ownedBy ?? 'test' }] });
      if (request.method === 'GET' && request.url === '/props' && options.modelPath !== undefined) return sendJson(response, 200, { model_path: options.modelPath });
      if (request.method === 'GET' && request.url === '/health') return sendJson(response, 200, {});
      if (request.method === 'GET' && request.url === '/version') return sendJson(response, 200, { version: GSM8K_SERVER_VERSION });
      const chat = request.url === '/v1/chat/completions';
      if (request.method !== 'POST' || !(chat || request.url === '/v1/completions')) return false;
      generations += 1;
      if (options.answerDelayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.answerDelayMs));
      if (response.destroyed) return true;
      if (options.failEvery !== undefined && generations % options.failEvery === 0) return sendJson(response, 500, { error: { message: 'test server: planted failure' } });
      const body = JSON.parse(request.body) as { prompt?: string; messages?: Array<{ content: string }> };
      const asked = lastQuestion(chat ? body.messages!.at(-1)!.content : body.prompt!);
      return stream(response, chat, options.mode === 'empty' ? '' : ` ${answers.get(asked) ?? 'I do not know this question.'}`);
    },
  ]);
}
