/**
 * Which problems a run asks, and which it shows as examples: the same seed picks the same ids on
 * every machine (harness/lib/rng.ts), without replacement.
 *
 * lm-eval draws gsm8k's few-shot exemplars from the train split; only the test split is here, so the
 * exemplars are test problems, kept out of the slice. Each is a seeded shuffle of all ids (Fisher–Yates)
 * on its own named stream: the exemplars are the first `shots` of one, the slice the first `problems`
 * of the other that are not exemplars. So a larger --problems extends the same slice (250 ⊂ 500), and
 * the exemplars do not depend on --problems. One set of exemplars serves every problem of a run
 * (lm-eval draws per problem): the prompts then share a prefix, as a fixed few-shot header does.
 */
import { usageError } from '../../lib/errors.ts';
import { createRng } from '../../lib/rng.ts';

export interface ProblemSlice {
  /** The problems asked, ascending. */
  readonly problemIds: number[];
  /** The exemplars, in prompt order. */
  readonly exemplarIds: number[];
}

function seededShuffle(size: number, seed: number, label: string): number[] {
  const rng = createRng(seed, label);
  const ids = Array.from({ length: size }, (_, i) => i);
  for (let i = size - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return ids;
}

export function selectSlice(size: number, problems: number, shots: number, seed: number): ProblemSlice {
  if (problems + shots > size) {
    throw usageError(`--problems ${problems} and --shots ${shots} need ${problems + shots} distinct problems; the set has ${size}: ask at most ${size - shots}`);
  }
  const exemplarIds = seededShuffle(size, seed, 'accuracy-exemplars').slice(0, shots);
  const taken = new Set(exemplarIds);
  const problemIds = seededShuffle(size, seed, 'accuracy-slice')
    .filter((id) => !taken.has(id))
    .slice(0, problems)
    .sort((a, b) => a - b);
  return { problemIds, exemplarIds };
}
