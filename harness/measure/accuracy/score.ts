/**
 * Scoring one GSM8K output as lm-eval does: each filter extracts an answer (or "[invalid]"), then the
 * answer and the reference are normalized alike and compared exactly. Pure: text in, verdicts out.
 */
import type { AnswerFilter } from '../../contract/accuracy.ts';
import { FLEXIBLE_PATTERN, IGNORED_PATTERNS, NO_MATCH, STRICT_PATTERN } from './gsm8k-task.ts';

/** lm-eval's exact_match preprocessing: the ignored patterns removed in order, then lower case. */
export function normalizeAnswer(text: string): string {
  return IGNORED_PATTERNS.reduce((value, pattern) => value.replace(pattern, ''), text).toLowerCase();
}

/** The reference of a dataset answer: everything up to "#### " dropped, commas and "$" removed. */
export function referenceOf(answer: string): string {
  return normalizeAnswer(answer);
}

/** strict-match: the first "#### <number>" (RegexFilter, group_select 0), stripped. */
export function extractStrict(output: string): string {
  const match = STRICT_PATTERN.exec(output);
  return match ? match[1]!.trim() : NO_MATCH;
}

/**
 * flexible-extract: the last match of the pattern (group_select −1); of its two groups the one that
 * matched (lm-eval takes the first non-empty), stripped.
 */
export function extractFlexible(output: string): string {
  const matches = [...output.matchAll(FLEXIBLE_PATTERN)];
  const last = matches[matches.length - 1];
  if (!last) return NO_MATCH;
  return (last[1] || last[2] || '').trim();
}

export interface ScoredOutput {
  readonly extracted: Record<AnswerFilter, string>;
  readonly correct: Record<AnswerFilter, boolean>;
}

export function scoreOutput(output: string, reference: string): ScoredOutput {
  const extracted = { strict: extractStrict(output), flexible: extractFlexible(output) };
  return {
    extracted,
    correct: {
      strict: normalizeAnswer(extracted.strict) === reference,
      flexible: normalizeAnswer(extracted.flexible) === reference,
    },
  };
}
