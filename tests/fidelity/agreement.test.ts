/**
 * The agreement maths and the verdict's edges, on hand-made answers (SYNTHETIC: no engine made
 * them), and the probe set's stability.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FidelityOutput } from '../../harness/contract/fidelity.ts';
import { probeSet, PROBE_SET_VERSION } from '../../harness/measure/fidelity/probe-set.ts';
import { compareAnswers, fidelityVerdict, MAX_LOGPROB_DRIFT, MIN_IDENTICAL_SHARE, type Agreement } from '../../harness/store/fidelity-agreement.ts';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const byIds = (ids: number[], logprobs: number[] | null = null): FidelityOutput => ({ text: ids.join(','), text_sha256: sha(ids.join(',')), token_ids: ids, logprobs });
const byText = (text: string): FidelityOutput => ({ text, text_sha256: sha(text), token_ids: null, logprobs: null });

describe('the probe set', () => {
  it('is fixed: 16 prompts of mixed length, the same prompts and hash on every call, the hash of its prompts', () => {
    const set = probeSet();
    expect(set.version).toBe(PROBE_SET_VERSION);
    expect(set.prompts).toHaveLength(16);
    const words = set.prompts.map((p) => p.split(' ').length);
    expect(Math.min(...words)).toBe(4);
    expect(Math.max(...words)).toBe(96);
    expect(new Set(set.prompts.map((p) => p.split(' ')[0])).size).toBeGreaterThan(8);
    expect(set.sha256).toBe(sha(JSON.stringify({ prompts: set.prompts, max_tokens: set.maxTokens })));
    // The committed value: a change of prompts or length must come with a new version.
    expect(set.sha256.slice(0, 12)).toBe(FROZEN_SHA_PREFIX);
  });
});
const FROZEN_SHA_PREFIX = '89376d311eab';

describe('agreement with the reference', () => {
  it('by token ids: identical share, first divergence, logprob drift over the common prefix only', () => {
    const reference = [byIds([1, 2, 3, 4], [-1, -1, -1, -1]), byIds([5, 6, 7, 8], [-2, -2, -2, -2]), byIds([9, 9], [-0.5, -0.5])];
    const run = [byIds([1, 2, 3, 4], [-1.1, -0.9, -1, -1]), byIds([5, 6, 0, 8], [-2.2, -2, -9, -9]), byIds([7, 9], [-3, -3])];
    const a = compareAnswers(run, reference)!;
    expect(a).toMatchObject({ prompts: 3, unit: 'token' });
    expect(a.identicalShare).toBeCloseTo(1 / 3, 12);
    expect(a.meanDivergence).toBeCloseTo((2 + 0) / 2, 12);
    // |Δ| over 4 + 2 + 0 common tokens: 0.1 + 0.1 + 0 + 0 + 0.2 + 0 = 0.4.
    expect(a.logprobDrift).toBeCloseTo(0.4 / 6, 12);
  });

  it('by text where an engine gives no ids: characters; no logprobs, no drift', () => {
    const a = compareAnswers([byText(' the river'), byText(' the rover')], [byText(' the river'), byText(' the river')])!;
    expect(a).toMatchObject({ identicalShare: 0.5, meanDivergence: 6, unit: 'character', logprobDrift: null });
  });

  it('nothing to compare: a failed probe, or another number of prompts', () => {
    expect(compareAnswers([], [byText('a')])).toBeNull();
    expect(compareAnswers([byText('a')], [byText('a'), byText('b')])).toBeNull();
  });

  it('the verdict at its edges: the share at the threshold passes, below fails; drift at the limit passes, above fails', () => {
    const at = (identicalShare: number, logprobDrift: number | null): Agreement => ({ prompts: 16, identicalShare, meanDivergence: null, unit: 'token', logprobDrift });
    expect(fidelityVerdict(at(MIN_IDENTICAL_SHARE, null))).toBe('pass');
    expect(fidelityVerdict(at(MIN_IDENTICAL_SHARE - 1 / 16, null))).toBe('fail');
    expect(fidelityVerdict(at(1, MAX_LOGPROB_DRIFT))).toBe('pass');
    expect(fidelityVerdict(at(1, MAX_LOGPROB_DRIFT * 1.01))).toBe('fail');
  });
});
