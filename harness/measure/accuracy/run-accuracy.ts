/**
 * One accuracy run against a server already up: the checked dataset, the seeded slice, one greedy
 * request per problem, the block. What `servebench accuracy` does after its checks, and what `run`
 * does after its load points, on the same server; both first ask whether the weights are dummy
 * (skippedForDummyWeights), so a skip reads the same from either.
 */
import type { AccuracyScored, AccuracySkipped, AccuracyTaskSpec } from '../../contract/accuracy.ts';
import type { Api } from '../../contract/common.ts';
import type { Endpoint } from '../load/endpoint.ts';
import type { LiveCounters } from '../load/send-request.ts';
import { askProblems } from './ask-problems.ts';
import { dummyWeightsReason, servedModel, type WeightsEvidence } from './dummy-weights.ts';
import { loadGsm8k } from './gsm8k-dataset.ts';
import { GSM8K_GENERATION } from './gsm8k-task.ts';
import { problemInput } from './prompt.ts';
import { selectSlice } from './slice.ts';
import { summarizeAccuracy } from './summarize-accuracy.ts';

/** The task as declared (a workload's `accuracy:` block, or the command's flags) and the server to ask. */
export interface AccuracyPlan extends AccuracyTaskSpec {
  readonly endpoint: Endpoint;
  readonly model: string;
  readonly api: Api;
  readonly timeoutMs: number;
  /** Sent with every request (authorization, --header); the request's own content-type and accept are added when sending. */
  readonly headers: Record<string, string>;
  /** The dataset file (default: the repository's copy, checked against its sha256). */
  readonly datasetFile?: string;
}

/** The task in a line: "gsm8k, 250 problems, 5-shot, seed 0, chat, 4 at once". */
export function describeAccuracyTask(task: AccuracyTaskSpec, api: Api): string {
  return `${task.task}, ${task.problems} problems, ${task.shots}-shot, seed ${task.seed}, ${api}, ${task.concurrency} at once`;
}

/** The skipped block when the model is known to have dummy weights (the server is asked what it serves); null: score it. */
export async function skippedForDummyWeights(plan: AccuracyPlan, weights: Omit<WeightsEvidence, 'model' | 'served'>): Promise<AccuracySkipped | null> {
  const served = await servedModel(plan.endpoint, plan.model, plan.headers);
  const reason = dummyWeightsReason({ ...weights, model: plan.model, served });
  return reason === null ? null : { status: 'skipped', task: plan.task, skipped: reason };
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
