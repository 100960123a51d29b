/**
 * The one builder of OpenAI request bodies, for /v1/completions and /v1/chat/completions: the
 * measured requests and the runner's probe alike, so what the probe learns holds for the run.
 */
import type { Api } from '../../contract/result.ts';

/** How an engine is told to ignore end-of-sequence: a top-level field, MLC's debug_config, or not at all. */
export type IgnoreEosField = 'body' | 'debug_config' | 'unsupported';

export interface BodyOptions {
  readonly model: string;
  readonly temperature: number;
  readonly ignoreEos: boolean;
  /** Where ignore_eos goes (default: the top-level field vLLM, SGLang, llama.cpp and others take). */
  readonly ignoreEosField?: IgnoreEosField;
  /** The engine's own fields, always sent because its defaults differ (engines/*.yaml explicit_body). */
  readonly engineBody?: Readonly<Record<string, unknown>>;
  /** Merged last: the user's engine-specific fields (those servebench sets itself are refused upstream). */
  readonly extraBody: Readonly<Record<string, unknown>>;
}

export type RequestInput = { readonly prompt: string } | { readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string }> };

export const API_PATHS: Record<Api, string> = {
  completions: '/v1/completions',
  chat: '/v1/chat/completions',
};

function ignoreEosFields(options: BodyOptions): Record<string, unknown> {
  if (!options.ignoreEos) return {};
  switch (options.ignoreEosField ?? 'body') {
    case 'body':
      return { ignore_eos: true };
    case 'debug_config':
      return { debug_config: { ignore_eos: true } };
    case 'unsupported':
      return {};
  }
}

export function requestBody(options: BodyOptions, request: { readonly input: RequestInput; readonly maxTokens: number }): Record<string, unknown> {
  return {
    model: options.model,
    ...request.input,
    max_tokens: request.maxTokens,
    temperature: options.temperature,
    stream: true,
    stream_options: { include_usage: true },
    ...ignoreEosFields(options),
    ...options.engineBody,
    ...options.extraBody,
  };
}
