/**
 * The fidelity probe set: fixed prompts, cut deterministically from the corpus at mixed lengths
 * (a few words to a few hundred: short prompts test the decode path, long ones the prefill's
 * batched kernels, where precision and kernel changes show first). Changing the prompts, their
 * number or the output length is a new version: answers are only compared within one version.
 */
import { createHash } from 'node:crypto';
import { corpusWords } from '../workloads/corpus.ts';

export const PROBE_SET_VERSION = 'fidelity-v1';
/** Short enough to be cheap on a CPU lane, long enough for a divergence to show inside it. */
export const PROBE_MAX_TOKENS = 16;
/**
 * Prompt lengths in corpus words: 16 prompts from 4 to 96. The longest stays within a 512-token
 * context even where most words fall back to bytes (the micro dummy model's 300-word vocabulary:
 * about 4 tokens a word), so the probe runs on every model of the CPU lane.
 */
const LENGTHS = [4, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 56, 64, 72, 84, 96] as const;
/** Start words far apart in the corpus, so no two prompts share a prefix (no cache help within the set). */
const STRIDE = 7919;

export interface ProbeSet {
  readonly version: string;
  readonly prompts: readonly string[];
  readonly maxTokens: number;
  readonly sha256: string;
}

let memo: ProbeSet | null = null;

export function probeSet(): ProbeSet {
  if (memo !== null) return memo;
  const words = corpusWords();
  const prompts = LENGTHS.map((length, i) => {
    const start = (i * STRIDE) % (words.length - length);
    return words.slice(start, start + length).join(' ');
  });
  const sha256 = createHash('sha256').update(JSON.stringify({ prompts, max_tokens: PROBE_MAX_TOKENS })).digest('hex');
  memo = { version: PROBE_SET_VERSION, prompts, maxTokens: PROBE_MAX_TOKENS, sha256 };
  return memo;
}
