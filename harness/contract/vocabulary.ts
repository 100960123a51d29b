/**
 * The closed vocabularies of a result: how a request failed, where a token count came from, where
 * the tokenizer came from. The schema (result.ts) and the measuring tool both name them from here.
 */

/** How a request failed: one class each. */
export const FAILURE_CLASSES = [
  'http_error',
  'timeout',
  'connection_refused',
  'connection_reset',
  'truncated_stream',
  'malformed_event',
  'stream_error',
  'no_content',
  'runaway_stream',
  'short_output',
  'aborted',
  'other',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/**
 * Classes added after schema version 1 was published: a point's failures may lack them (results
 * written before they existed), so the schema takes them as optional and a missing one counts 0.
 */
export const LATER_FAILURE_CLASSES = ['runaway_stream'] as const satisfies readonly FailureClass[];
export type LaterFailureClass = (typeof LATER_FAILURE_CLASSES)[number];

/** Where a token count came from, in order of preference. */
export const COUNT_SOURCES = ['usage', 'tokenizer', 'events', 'declared'] as const;
export type CountSource = (typeof COUNT_SOURCES)[number];

/** Where the tokenizer that built a run's prompts came from (recorded in every result). */
export const TOKENIZER_SOURCES = ['flag', 'gguf', 'server', 'hf_cache'] as const;
export type TokenizerSource = (typeof TOKENIZER_SOURCES)[number];
