/**
 * [fidelity] on each of its conditions (harness/store/fidelity-check.ts): a block as the probe
 * writes it passes, and each edit that breaks one condition is one problem at the field it names,
 * with its exact message and fix. SYNTHETIC blocks: the answer texts are short strings whose
 * sha256 is the published test vector ("abc", FIPS 180-2) or was checked with `sha256sum`.
 */
import { describe, expect, it } from 'vitest';
import type { Fidelity, FidelityOutput } from '../../harness/contract/fidelity.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { checkFidelity } from '../../harness/store/fidelity-check.ts';

/** sha256("abc"): FIPS 180-2's first test vector. */
const ABC_SHA256 = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
/** sha256 of the UTF-8 bytes of "héllo ✓" (`printf 'héllo ✓' | sha256sum`); its Latin-1 bytes hash to a1b33dfc…. */
const HELLO_SHA256 = '5657cdef8a85a584e0e961e6f8247cf5d3f8ed21496ed6fdbcfd43a761e94245';

const MAX_TOKENS = 3;

function output(fields: Partial<FidelityOutput> = {}): FidelityOutput {
  return { text: 'abc', text_sha256: ABC_SHA256, token_ids: [1, 2, 3], logprobs: [-0.5, -0.25, 0], ...fields };
}

/** Two prompts of three tokens, both answered, no cache check: what a clean probe writes. */
function block(fields: Partial<Fidelity> = {}): Fidelity {
  return {
    probe_set: { version: 'fidelity-v1', sha256: 'a'.repeat(64), prompts: 2, max_tokens: MAX_TOKENS },
    outputs: [output(), output({ text: 'héllo ✓', text_sha256: HELLO_SHA256 })],
    cache_equality: null,
    error: null,
    ...fields,
  };
}

/** The fields checkFidelity reads of a run result (the rest of the file is other rules'). */
function run(fidelity: Fidelity | undefined): RunResult {
  return { run: { fidelity } } as unknown as RunResult;
}

function problems(result: RunResult): Array<[string, string, string]> {
  const found: Array<[string, string, string]> = [];
  checkFidelity(result, (path, message, fix) => found.push([path, message, fix]));
  return found;
}

const COUNT_FIX = 'one answer per prompt and error null, or no answers and the error that stopped the probe';
const HASH_FIX = 'text_sha256 = sha256 of the UTF-8 text';
const LISTS_FIX = 'token_ids and logprobs hold one entry per generated token';
const CACHE_FIX = 'identical exactly when no answered prompt differed warm; differing indexes name answered prompts';

const differing = (verdict: 'identical' | 'differs', indexes: number[]): Fidelity['cache_equality'] => ({ verdict, differing: indexes, method: 'repeat' });

describe('[fidelity]', () => {
  const passing: Array<[string, RunResult]> = [
    ['a result without a run block (stopped before measuring)', { status: 'failed' } as unknown as RunResult],
    ['a run without a fidelity probe (older results)', run(undefined)],
    ['every prompt answered, non-ASCII text hashed as UTF-8, lists as long as asked', run(block())],
    ['no answers and the error that stopped the probe', run(block({ outputs: [], error: 'HTTP 500: boom' }))],
    ['an engine that offers neither token ids nor logprobs', run(block({ outputs: [output({ token_ids: null, logprobs: null }), output({ token_ids: null, logprobs: null })] }))],
    ['an answer that stopped before max_tokens, with ids only', run(block({ outputs: [output({ token_ids: [7], logprobs: null }), output()] }))],
    ['cache check: identical and nothing differed', run(block({ cache_equality: differing('identical', []) }))],
    ['cache check: differs at the last answered prompt', run(block({ cache_equality: differing('differs', [1]) }))],
  ];
  it.each(passing)('passes %s', (_name, result) => {
    expect(problems(result)).toEqual([]);
  });

  const broken: Array<[string, Fidelity, [string, string, string]]> = [
    ['no answers and no error', block({ outputs: [] }), ['run.fidelity.outputs', '[fidelity] 0 answers for 2 prompts, error null', COUNT_FIX]],
    ['every answer and an error too', block({ error: 'timeout' }), ['run.fidelity.outputs', '[fidelity] 2 answers for 2 prompts, error set', COUNT_FIX]],
    ['some prompts answered, error null', block({ outputs: [output()] }), ['run.fidelity.outputs', '[fidelity] 1 answers for 2 prompts, error null', COUNT_FIX]],
    ['some prompts answered, error set', block({ outputs: [output()], error: 'timeout' }), ['run.fidelity.outputs', '[fidelity] 1 answers for 2 prompts, error set', COUNT_FIX]],
    ["a hash that is not its text's", block({ outputs: [output(), output({ text_sha256: HELLO_SHA256 })] }), ['run.fidelity.outputs[1].text_sha256', '[fidelity] text_sha256 is not the sha256 of text', HASH_FIX]],
    ['more logprobs than tokens asked (no ids)', block({ outputs: [output(), output({ token_ids: null, logprobs: [-1, -1, -1, -1] })] }), ['run.fidelity.outputs[1]', '[fidelity] per-token lists of 4 entries for 3 tokens asked', LISTS_FIX]],
    ['more ids than tokens asked, as many logprobs', block({ outputs: [output({ token_ids: [1, 2, 3, 4], logprobs: [-1, -1, -1, -1] }), output()] }), ['run.fidelity.outputs[0]', '[fidelity] per-token lists of 4 and 4 entries for 3 tokens asked', LISTS_FIX]],
    ['ids and logprobs of different lengths', block({ outputs: [output({ token_ids: [1, 2], logprobs: [-1, -1, -1] }), output()] }), ['run.fidelity.outputs[0]', '[fidelity] per-token lists of 2 and 3 entries for 3 tokens asked', LISTS_FIX]],
    ['identical yet a prompt differed', block({ cache_equality: differing('identical', [1]) }), ['run.fidelity.cache_equality', '[fidelity] verdict identical with differing [1] of 2 answers', CACHE_FIX]],
    ['differs yet no prompt differed', block({ cache_equality: differing('differs', []) }), ['run.fidelity.cache_equality', '[fidelity] verdict differs with differing [] of 2 answers', CACHE_FIX]],
    ['differs at an index past the answers', block({ cache_equality: differing('differs', [0, 2]) }), ['run.fidelity.cache_equality', '[fidelity] verdict differs with differing [0, 2] of 2 answers', CACHE_FIX]],
  ];
  it.each(broken)('flags %s', (_name, fidelity, expected) => {
    expect(problems(run(fidelity))).toEqual([expected]);
  });
});
