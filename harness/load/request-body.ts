/** OpenAI request bodies for /v1/completions and /v1/chat/completions, serialized once up front. */
import type { Api } from '../schema/result.ts';
import type { BuiltRequest } from '../workloads/build-request.ts';

export interface BodyOptions {
  readonly model: string;
  readonly temperature: number;
  readonly ignoreEos: boolean;
  /** Merged last: engine-specific fields (those servebench sets itself are refused upstream). */
  readonly extraBody: Readonly<Record<string, unknown>>;
}

export const API_PATHS: Record<Api, string> = {
  completions: '/v1/completions',
  chat: '/v1/chat/completions',
};

export function requestBody(options: BodyOptions, request: BuiltRequest): Record<string, unknown> {
  return {
    model: options.model,
    ...request.input,
    max_tokens: request.maxTokens,
    temperature: options.temperature,
    stream: true,
    stream_options: { include_usage: true },
    ...(options.ignoreEos ? { ignore_eos: true } : {}),
    ...options.extraBody,
  };
}
