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
import type { TokenCounter } from './token-counter.ts';

/**
 * `tokenizer` counts generated text (a local one: never a server's, whose round trips per event
 * would dwarf the point); `builtExact` says the prompt was built to its length by a tokenizer.
 */
export function resolveCounts(record: RequestRecord, prepared: PreparedRequest, tokenizer: TokenCounter | null, ignoreEos: boolean, builtExact = tokenizer !== null): void {
  if (tokenizer && record.contentTexts) record.contentTokens = record.contentTexts.map((text) => tokenizer.count(text));

  if (record.serverCompletionTokens !== null) {
    record.outputTokens = record.serverCompletionTokens;
    record.outputTokensSource = 'usage';
  } else if (tokenizer && record.contentTexts) {
    record.outputTokens = tokenizer.count(record.contentTexts.join(''));
    record.outputTokensSource = 'tokenizer';
  } else {
    record.outputTokens = record.contentTimesMs.length;
    record.outputTokensSource = 'events';
  }

  if (record.serverPromptTokens !== null) {
    record.inputTokens = record.serverPromptTokens;
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
