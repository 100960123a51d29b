/**
 * One non-streamed answer as the probe records it. The shapes, as the engines send them:
 * - llama.cpp (b4753, v0.4.0) on both endpoints: logprobs.content[] of { id, token, logprob, … };
 * - OpenAI completions (vLLM, SGLang): logprobs.token_logprobs[] (no ids);
 * - OpenAI chat (vLLM, SGLang): logprobs.content[] of { token, logprob } (no ids).
 */
import { createHash } from 'node:crypto';
import type { FidelityOutput } from '../../contract/fidelity.ts';
import type { Api } from '../../contract/result.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every element's field, or null when any lacks it (a partial list compares as nothing). */
function column<T>(list: readonly unknown[], field: string, ok: (value: unknown) => value is T): T[] | null {
  const values: T[] = [];
  for (const entry of list) {
    const value = isObject(entry) ? entry[field] : undefined;
    if (!ok(value)) return null;
    values.push(value);
  }
  return values;
}

const isId = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;
// A log-probability is ≤ 0; an engine that rounds may send a hair above it, which is 0.
const isLogprob = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value <= 1e-6;

/** The answer's output, or a message saying why it is not one. */
export function readAnswer(api: Api, body: unknown): FidelityOutput | string {
  const choice = isObject(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isObject(choice)) return 'the answer has no choices[0]';
  const text = api === 'chat' ? (isObject(choice.message) ? choice.message.content : undefined) : choice.text;
  if (typeof text !== 'string') return `the answer has no ${api === 'chat' ? 'choices[0].message.content' : 'choices[0].text'}`;
  const logprobs = isObject(choice.logprobs) ? choice.logprobs : null;
  const perToken = Array.isArray(logprobs?.content) ? logprobs.content : null;
  const tokenLogprobs = Array.isArray(logprobs?.token_logprobs) ? logprobs.token_logprobs : null;
  const ids = perToken ? column(perToken, 'id', isId) : null;
  const values = perToken ? column(perToken, 'logprob', isLogprob) : tokenLogprobs && tokenLogprobs.every(isLogprob) ? tokenLogprobs : null;
  return {
    text,
    text_sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
    token_ids: ids && ids.length > 0 ? ids : null,
    logprobs: values && values.length > 0 ? values.map((v) => Math.min(0, v)) : null,
  };
}
