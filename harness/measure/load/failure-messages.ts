/**
 * What a point's failed requests said, for the result: a class count says that 40 requests failed
 * with stream_error, not that llama.cpp cut them with "does not match the expected Content-only
 * format". Messages are public once written, and come from the server: each is redacted (a server
 * may echo a request's header or URL), freed of control and bidi characters (it is shown as text),
 * and cut to MAX_FAILURE_MESSAGE_CHARS, in that order, so a credential is seen whole before the cut.
 */
import { redactText } from '../../contract/credentials.ts';
import { MAX_FAILURE_MESSAGE_CHARS, MAX_FAILURE_MESSAGES, type FailureMessage } from '../../contract/result.ts';
import type { RequestRecord } from '../metrics/request-record.ts';

/** Control, invisible-format and line/paragraph separator characters, runs of them with the whitespace around. */
const HIDDEN_OR_BREAK = /\s*[\p{Cc}\p{Cf}\u2028\u2029]+\s*/gu;

export function cleanFailureMessage(raw: string): string {
  const text = redactText(raw).replace(HIDDEN_OR_BREAK, ' ').trim();
  const cut = text.slice(0, MAX_FAILURE_MESSAGE_CHARS);
  // Never half of a surrogate pair (an emoji cut in two is not text).
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** The distinct messages of each class with their counts, most frequent first; null when nothing failed. */
export function failureMessages(records: readonly RequestRecord[]): FailureMessage[] | null {
  const counts = new Map<string, FailureMessage>();
  for (const record of records) {
    if (record.failure === null) continue;
    const message = cleanFailureMessage(record.failure.message);
    const key = `${record.failure.class}\u0000${message}`;
    const seen = counts.get(key);
    counts.set(key, { class: record.failure.class, message, count: (seen?.count ?? 0) + 1 });
  }
  if (counts.size === 0) return null;
  // Ties in the order first seen (Map order; sort is stable).
  return [...counts.values()].sort((a, b) => b.count - a.count).slice(0, MAX_FAILURE_MESSAGES);
}
