/**
 * The fidelity probe, run after the load points on the same server (docs/metrics.md#output-fidelity):
 * the probe set's prompts one at a time (a batch of others would change the numerics), greedy, a
 * fixed output length, with per-token log-probabilities asked for. For a workload that reuses
 * prefixes, the same requests again once their prompts are cached: a warm answer that differs
 * from the cold one is flagged. A probe that cannot complete says why; it never fails the run.
 */
import { requestBounded, type ReadLimits } from '../../lib/io/bounded-body.ts';
import { API_PATHS, requestBody, type BodyOptions } from '../load/request-body.ts';
import type { Api } from '../../contract/result.ts';
import { sameOutput, type Fidelity, type FidelityOutput } from '../../contract/fidelity.ts';
import { probeSet } from './probe-set.ts';
import { readAnswer } from './read-answer.ts';

export interface FidelityTarget {
  readonly endpoint: string;
  readonly api: Api;
  /** The run's own body options: the engine's fields and the user's --extra-body go along. */
  readonly body: BodyOptions;
  readonly headers: Record<string, string>;
  /** The workload shares prefixes or conversations: check cold and warm answers alike. */
  readonly checkCache: boolean;
}

const ERROR_QUOTE_CHARS = 200;
/**
 * One answer of 16 tokens with a logprob each is a few kilobytes (llama.cpp adds its settings and
 * timings), so 1 MiB is only reached by something that is no answer. 120 s: a long prompt's
 * prefill on a slow CPU, or the first request after the points drained.
 */
const ANSWER_LIMITS: ReadLimits = { maxBytes: 1024 * 1024, timeoutMs: 120_000 };
/** Fixed so engines that seed even greedy sampling (ties) draw alike on every run. */
const PROBE_SEED = 0;

/** The greedy request: one seed, top_k 1 where honoured, logprobs in the endpoint's own form. */
function probeRequest(target: FidelityTarget, prompt: string, maxTokens: number): string {
  const input = target.api === 'chat' ? { messages: [{ role: 'user', content: prompt }] } : { prompt };
  const logprobs = target.api === 'chat' ? { logprobs: true, top_logprobs: 1 } : { logprobs: 1 };
  const body = { ...requestBody({ ...target.body, temperature: 0, ignoreEos: true }, { input, maxTokens }), top_k: 1, seed: PROBE_SEED, ...logprobs, stream: false };
  delete (body as Record<string, unknown>).stream_options;
  return JSON.stringify(body);
}

async function ask(target: FidelityTarget, prompt: string, maxTokens: number, signal?: AbortSignal): Promise<FidelityOutput> {
  const response = await requestBounded(
    `${target.endpoint}${API_PATHS[target.api]}`,
    { method: 'POST', headers: { ...target.headers, 'content-type': 'application/json' }, body: probeRequest(target, prompt, maxTokens), ...(signal ? { signal } : {}) },
    ANSWER_LIMITS,
  );
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${response.text().slice(0, ERROR_QUOTE_CHARS)}`);
  const output = readAnswer(target.api, response.json());
  if (typeof output === 'string') throw new Error(output);
  return output;
}

export async function runFidelityProbe(target: FidelityTarget, signal?: AbortSignal): Promise<Fidelity> {
  const set = probeSet();
  const block = { probe_set: { version: set.version, sha256: set.sha256, prompts: set.prompts.length, max_tokens: set.maxTokens } };
  const outputs: FidelityOutput[] = [];
  let prompt = 0;
  let pass = 'cold';
  try {
    for (; prompt < set.prompts.length; prompt++) outputs.push(await ask(target, set.prompts[prompt]!, set.maxTokens, signal));
    if (!target.checkCache) return { ...block, outputs, cache_equality: null, error: null };
    pass = 'warm';
    const differing: number[] = [];
    for (prompt = 0; prompt < set.prompts.length; prompt++) {
      const warm = await ask(target, set.prompts[prompt]!, set.maxTokens, signal);
      if (!sameOutput(outputs[prompt]!, warm)) differing.push(prompt);
    }
    return { ...block, outputs, cache_equality: { verdict: differing.length === 0 ? 'identical' : 'differs', differing, method: 'repeat' }, error: null };
  } catch (error) {
    const message = signal?.aborted ? 'stopped by a signal' : (error as Error).message;
    return { ...block, outputs: [], cache_equality: null, error: `prompt ${prompt} (${pass}): ${message}`.slice(0, 1000) };
  }
}
