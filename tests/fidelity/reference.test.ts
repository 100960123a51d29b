/**
 * The reference rule (harness/store/fidelity.ts) on hand-made candidates (SYNTHETIC: no engine
 * answered them): per configuration, the reference engine's known release before an unverified
 * one, the oldest release, an official run before a community one, the earliest run; other
 * engines never reference; a configuration without a reference run gets no verdict.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FidelityOutput } from '../../harness/contract/fidelity.ts';
import { judgeFidelity } from '../../harness/store/fidelity.ts';

const answer = (text: string): FidelityOutput => ({ text, text_sha256: createHash('sha256').update(text).digest('hex'), token_ids: null, logprobs: null });
const RIGHT = Array.from({ length: 4 }, (_, i) => answer(` right ${i}`));
const WRONG = Array.from({ length: 4 }, (_, i) => answer(` wrong ${i}`));

type Candidate = Parameters<typeof judgeFidelity>[0][number];
let n = 0;
function candidate(changes: Partial<Candidate>): Candidate {
  n++;
  return { file: `f${n}`, runId: `r${n}`, engine: 'llamacpp', known: true, versionOrder: '0000000002', official: true, createdAt: '2026-01-02T00:00:00', key: 'gguf-a', referenceEngine: 'llamacpp', outputs: RIGHT, ...changes };
}

describe('the reference of a configuration', () => {
  it('is the oldest known release of the reference engine, official first, earliest first', () => {
    const newer = candidate({ versionOrder: '0000000003', outputs: WRONG });
    const unverifiedOlder = candidate({ known: false, versionOrder: '0000000001', outputs: WRONG });
    const communityOldest = candidate({ official: false, outputs: WRONG });
    const officialLater = candidate({ createdAt: '2026-01-03T00:00:00' });
    const officialEarliest = candidate({ createdAt: '2026-01-01T00:00:00' });
    const otherEngine = candidate({ engine: 'vllm', versionOrder: '0000000000', outputs: WRONG });
    const rows = judgeFidelity([newer, unverifiedOlder, communityOldest, officialLater, officialEarliest, otherEngine]);
    expect(new Set(rows.map((r) => r.referenceRun))).toEqual(new Set([officialEarliest.runId]));
    expect(rows.map((r) => r.verdict)).toEqual(['fail', 'fail', 'fail', 'pass', 'pass', 'fail']);
  });

  it('is per configuration; without a run of the reference engine there is no verdict', () => {
    const a = candidate({ key: 'gguf-a' });
    const b = candidate({ key: 'gguf-b', engine: 'vllm', outputs: WRONG });
    const [ra, rb] = judgeFidelity([a, b]);
    expect(ra).toMatchObject({ verdict: 'pass', referenceRun: a.runId, identicalShare: 1 });
    expect(rb).toEqual({ file: b.file, verdict: null, identicalShare: null, meanDivergence: null, logprobDrift: null, referenceRun: null });
  });
});
