/**
 * Token counts for a finished request, resolved after the point so tokenization never runs while
 * the clock does. Preference: the server's usage, then the tokenizer, then what is left (events for
 * output, the declared length for input). Every count keeps its source. Then the one judgement
 * that needs a count: with ignore_eos, fewer tokens than max_tokens is a short output, judged only
 * on the server's own count: events are a lower bound (an event may carry several tokens), and
 * re-tokenizing generated text rarely gives back the server's count (merges across fragments).
 */
import type { RequestRecord } from '../metrics/request-record.ts';
import { failure } from './failure.ts';
import type { PreparedRequest } from './prepared-request.ts';
import type { TokenCounter } from '../tokenizer/token-counter.ts';

/** Above any model's context window (the largest are ~10M tokens): a prompt count beyond it was not counted. */
const MAX_PLAUSIBLE_PROMPT_TOKENS = 2 ** 24;

/**
 * A server's count that can be taken as one: a whole number, and no more than the request allowed
 * (max_tokens for the output, a context window for the prompt). Anything else (1e300, 2.5) is
 * recorded as reported and flagged, and the count comes from the tokenizer or the stream instead.
 */
function usable(reported: number | null, ceiling: number): reported is number {
  return reported !== null && Number.isSafeInteger(reported) && reported <= ceiling;
}

/**
 * `tokenizer` counts generated text (a local one: never a server's, whose round trips per event
 * would dwarf the point); `builtExact` says the prompt was built to its length by a tokenizer.
 */
export function resolveCounts(record: RequestRecord, prepared: PreparedRequest, tokenizer: TokenCounter | null, ignoreEos: boolean, builtExact = tokenizer !== null): void {
  if (tokenizer && record.contentTexts) record.contentTokens = record.contentTexts.map((text) => tokenizer.count(text));

  const completionUsable = usable(record.serverCompletionTokens, prepared.maxTokens);
  const promptUsable = usable(record.serverPromptTokens, MAX_PLAUSIBLE_PROMPT_TOKENS);
  record.usageImplausible = (record.serverCompletionTokens !== null && !completionUsable) || (record.serverPromptTokens !== null && !promptUsable);
  if (completionUsable) {
    record.outputTokens = record.serverCompletionTokens!;
    record.outputTokensSource = 'usage';
  } else if (tokenizer && record.contentTexts) {
    record.outputTokens = tokenizer.count(record.contentTexts.join(''));
    record.outputTokensSource = 'tokenizer';
  } else {
    record.outputTokens = record.contentTimesMs.length;
    record.outputTokensSource = 'events';
  }

  if (promptUsable) {
    record.inputTokens = record.serverPromptTokens!;
    record.inputTokensSource = 'usage';
  } else if (builtExact) {
    // The tokenizer built this prompt to this length, counted as the server counts it.
    record.inputTokens = prepared.declaredInputTokens;
    record.inputTokensSource = 'tokenizer';
  } else {
    record.inputTokens = prepared.declaredInputTokens;
    record.inputTokensSource = 'declared';
  }

  if (record.failure === null && ignoreEos && record.outputTokensSource === 'usage' && record.outputTokens < prepared.maxTokens) {
    record.failure = failure(
      'short_output',
      `ignore_eos requested ${prepared.maxTokens} tokens, got ${record.outputTokens} (${record.outputTokensSource})`,
    );
  }
}
