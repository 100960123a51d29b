/**
 * One accuracy run against a server already up: the checked dataset, the seeded slice, one greedy
 * request per problem, the block. What `servebench accuracy` does after its checks, and what `run`
 * calls after its load points (on the same server) where the weights are real.
 */
import type { AccuracyScored } from '../../contract/accuracy.ts';
import type { Api } from '../../contract/common.ts';
import type { Endpoint } from '../load/endpoint.ts';
import type { LiveCounters } from '../load/send-request.ts';
import { askProblems } from './ask-problems.ts';
import { loadGsm8k } from './gsm8k-dataset.ts';
import { GSM8K_GENERATION } from './gsm8k-task.ts';
import { problemInput } from './prompt.ts';
import { selectSlice } from './slice.ts';
import { summarizeAccuracy } from './summarize-accuracy.ts';

export interface AccuracyPlan {
  readonly endpoint: Endpoint;
  readonly model: string;
  readonly api: Api;
  readonly problems: number;
  readonly seed: number;
  readonly shots: number;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly headers: Record<string, string>;
  /** The dataset file (default: the repository's copy, checked against its sha256). */
  readonly datasetFile?: string;
}

export async function runAccuracy(plan: AccuracyPlan, signal: AbortSignal, counters?: LiveCounters): Promise<AccuracyScored> {
  const dataset = loadGsm8k(plan.datasetFile);
  const slice = selectSlice(dataset.length, plan.problems, plan.shots, plan.seed);
  const exemplars = slice.exemplarIds.map((id) => dataset[id]!);
  const problems = slice.problemIds.map((id) => dataset[id]!);
  const started = performance.now();
  const answers = await askProblems(
    {
      endpoint: plan.endpoint,
      model: plan.model,
      api: plan.api,
      headers: plan.headers,
      concurrency: plan.concurrency,
      timeoutMs: plan.timeoutMs,
      maxTokens: GSM8K_GENERATION.maxTokens,
      stop: GSM8K_GENERATION.stop,
      requestIdPrefix: `accuracy-gsm8k-${plan.seed}`,
    },
    problems.map((problem) => ({ input: problemInput(plan.api, exemplars, problem.question) })),
    signal,
    counters,
  );
  return summarizeAccuracy({ model: plan.model, api: plan.api, seed: plan.seed, slice, problems, answers, durationS: (performance.now() - started) / 1000 });
}
