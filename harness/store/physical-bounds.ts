/**
 * Limits no honest measurement crosses, with their reasons (docs/validation.md repeats them).
 * They are deliberately loose, an order of magnitude beyond the fastest published numbers: a
 * bound that refuses one honest result is worse than one that lets a subtle fake through (the
 * identities in plausibility.ts catch most of those).
 */

/**
 * Output tokens per second per GPU (per host on CPU-only runs). The highest published serving
 * throughputs are tens of thousands of tokens/s per GPU (small models at large batch on B200-class
 * GPUs, 8 TB/s): decode reads the weights once per step, and no GPU sustains more than ~10^5 steps'
 * worth of tokens per second. 10^6 leaves a factor of ten.
 */
export const MAX_OUTPUT_TOKENS_PER_S = 1_000_000;

/** Requests per second one server completes: HTTP servers in front of an engine answer ~10^4/s at best. */
export const MAX_REQUESTS_PER_S = 100_000;

/** A floor for created_at: the harness stamps the run's start in UTC, so an earlier year is a typo or a fabrication. */
export const OLDEST_RESULT = '2024-01-01T00:00:00Z';

/** Clocks of contributors' machines drift; a day covers any time zone mistake too. */
export const FUTURE_SLACK_MS = 86_400_000;

/** A sweep that ran longer than this was not one run. */
export const MAX_RUN_DAYS = 31;
