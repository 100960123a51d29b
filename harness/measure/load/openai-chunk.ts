/**
 * What one OpenAI-style streaming event says: generated text, finish reason, usage, or an error.
 * Covers /v1/completions (choices[].text) and /v1/chat/completions (choices[].delta.content, and
 * reasoning text that reasoning models stream separately). A role-only delta carries no text.
 */
import { serverMessage } from './failure.ts';

export interface Usage {
  readonly promptTokens: number | null;
  readonly completionTokens: number | null;
  /** usage.prompt_tokens_details.cached_tokens: prompt tokens served from the prefix cache, where reported. */
  readonly cachedTokens: number | null;
}

/** The server's own account of a request (llama.cpp's `timings` in its final chunk). */
export interface ServerTimings {
  /** Prompt tokens evaluated (not taken from the prompt cache) and the time they took. */
  readonly promptN: number;
  readonly promptMs: number;
  /** Tokens generated, and the time from the first to the end of generation. */
  readonly predictedN: number;
  readonly predictedMs: number;
  /** Prompt tokens taken from the slot's cache (`cache_n`, from mid-2025 builds; null where absent, as in b4753). */
  readonly cacheN: number | null;
}

export type ChunkReading =
  | { readonly kind: 'done' }
  | { readonly kind: 'malformed'; readonly reason: string }
  | { readonly kind: 'error'; readonly message: string }
  | {
      readonly kind: 'chunk';
      /** Generated text in this event ('' for role-only, finish-only or usage-only chunks). */
      readonly text: string;
      readonly finishReason: string | null;
      readonly usage: Usage | null;
      readonly timings: ServerTimings | null;
    };

const DONE = '[DONE]';

/**
 * A count as the server reported it: any finite number ≥ 0, however implausible (1e300, 2.5).
 * Reported values are data; resolve-counts.ts decides whether one can be used as a count.
 */
function reportedCount(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

function readUsage(value: unknown): Usage | null {
  if (value === null || typeof value !== 'object') return null;
  const usage = value as Record<string, unknown>;
  const promptTokens = reportedCount(usage['prompt_tokens']);
  const completionTokens = reportedCount(usage['completion_tokens']);
  const details = usage['prompt_tokens_details'];
  const cachedTokens = details !== null && typeof details === 'object' ? reportedCount((details as Record<string, unknown>)['cached_tokens']) : null;
  return promptTokens === null && completionTokens === null ? null : { promptTokens, completionTokens, cachedTokens };
}

function textOf(choice: Record<string, unknown>): string {
  if (typeof choice['text'] === 'string') return choice['text'];
  const delta = choice['delta'];
  if (delta === null || typeof delta !== 'object') return '';
  const fields = delta as Record<string, unknown>;
  // Servers name streamed reasoning either reasoning_content or reasoning (vLLM renamed it);
  // one of them, never both, so text is not counted twice.
  const reasoning = typeof fields['reasoning_content'] === 'string' ? fields['reasoning_content'] : fields['reasoning'];
  const content = fields['content'];
  return (typeof reasoning === 'string' ? reasoning : '') + (typeof content === 'string' ? content : '');
}

function readTimings(value: unknown): ServerTimings | null {
  if (value === null || typeof value !== 'object') return null;
  const t = value as Record<string, unknown>;
  const promptN = reportedCount(t['prompt_n']);
  const predictedN = reportedCount(t['predicted_n']);
  const promptMs = t['prompt_ms'];
  const predictedMs = t['predicted_ms'];
  if (promptN === null || predictedN === null || typeof promptMs !== 'number' || typeof predictedMs !== 'number') return null;
  if (!Number.isFinite(promptMs) || !Number.isFinite(predictedMs) || promptMs < 0 || predictedMs < 0) return null;
  return { promptN, promptMs, predictedN, predictedMs, cacheN: reportedCount(t['cache_n']) };
}

export function readChunk(data: string): ChunkReading {
  if (data === DONE || data.trim() === DONE) return { kind: 'done' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { kind: 'malformed', reason: `invalid JSON: ${data.slice(0, 80)}` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { kind: 'malformed', reason: 'event data is not a JSON object' };
  }
  const body = parsed as Record<string, unknown>;
  // llama.cpp ends a stream it cannot finish with {"error":{"code":500,"message":…,"type":"server_error"}}.
  if (body['error'] !== undefined && body['error'] !== null) return { kind: 'error', message: serverMessage(body) };
  const choices = body['choices'];
  if (choices !== undefined && !Array.isArray(choices)) return { kind: 'malformed', reason: 'choices is not an array' };
  let text = '';
  let finishReason: string | null = null;
  for (const choice of (choices ?? []) as unknown[]) {
    if (choice === null || typeof choice !== 'object') return { kind: 'malformed', reason: 'a choice is not an object' };
    const fields = choice as Record<string, unknown>;
    text += textOf(fields);
    if (typeof fields['finish_reason'] === 'string') finishReason = fields['finish_reason'];
  }
  return { kind: 'chunk', text, finishReason, usage: readUsage(body['usage']), timings: readTimings(body['timings']) };
}
