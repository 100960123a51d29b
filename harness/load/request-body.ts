/** OpenAI request bodies for /v1/completions and /v1/chat/completions, serialized once up front. */
import type { Api } from '../schema/result.ts';

export interface BodyOptions {
  readonly api: Api;
  readonly model: string;
  readonly maxTokens: number;
  readonly temperature: number;
  readonly ignoreEos: boolean;
  /** Merged last: lets a user send engine-specific fields (or override ours). */
  readonly extraBody: Readonly<Record<string, unknown>>;
}

export const API_PATHS: Record<Api, string> = {
  completions: '/v1/completions',
  chat: '/v1/chat/completions',
};

export function requestBody(options: BodyOptions, prompt: string): Record<string, unknown> {
  const input = options.api === 'chat' ? { messages: [{ role: 'user', content: prompt }] } : { prompt };
  return {
    model: options.model,
    ...input,
    max_tokens: options.maxTokens,
    temperature: options.temperature,
    stream: true,
    stream_options: { include_usage: true },
    ...(options.ignoreEos ? { ignore_eos: true } : {}),
    ...options.extraBody,
  };
}
