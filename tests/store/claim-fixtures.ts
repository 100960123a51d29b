/**
 * Results for the tests of what a result claims (engine, version, physics, workload): SYNTHETIC
 * ones from bench/lib/synthetic-results.ts (as tests/store/fixture-results.ts makes them),
 * and the committed real ones of results/ edited into the attacks of issue 23. Checked as
 * `servebench validate` checks a file given on its own (no path rule: an edited file no longer
 * matches its name, which is not what these tests are about).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { RunResult } from '../../harness/contract/result.ts';
import { WorkloadSchema } from '../../harness/contract/workload.ts';
import { workloadSpecSha256 } from '../../harness/contract/workload-hash.ts';
import { WORKLOADS_DIR } from '../../harness/lib/specs/spec-folders.ts';
import { checkResultText, type ResultProblem } from '../../harness/store/check-result.ts';
import { listResultFiles } from '../../harness/store/result-files.ts';
import { syntheticResult, type SyntheticRun } from '../../bench/lib/synthetic-results.ts';
import { fixtureRuns } from './fixture-results.ts';

export const RESULTS_DIR = fileURLToPath(new URL('../../results', import.meta.url));

/** The fixture's first run (vllm 1.0.0, synthetic/llama-8b on 1 × Synthetic H100, chat at c=1 and c=8), with changes. */
export function synthetic(changes: Partial<SyntheticRun> = {}): RunResult {
  return syntheticResult({ ...fixtureRuns()[0]!, ...changes });
}

export function problemsOf(result: unknown): ResultProblem[] {
  return checkResultText('f.json', `${JSON.stringify(result, null, 2)}\n`, null).problems;
}

/** The rule names ("[roofline-compute]" → "roofline-compute") of a result's problems. */
export function rulesOf(result: unknown): string[] {
  return problemsOf(result).map((p) => /^\[([^\]]+)\]/.exec(p.message)?.[1] ?? p.message);
}

/** Every committed result of results/, parsed (real measurements). */
export function committedResults(): Array<{ path: string; result: RunResult }> {
  return listResultFiles(RESULTS_DIR).files.map((f) => ({ path: f.relativePath, result: JSON.parse(readFileSync(f.absolutePath, 'utf8')) as RunResult }));
}

/** The first committed result whose path contains `part`. */
export function committed(part: string): RunResult {
  const found = committedResults().find((c) => c.path.includes(part));
  if (!found) throw new Error(`no committed result matches ${part}`);
  return found.result;
}

/**
 * The result with every point's duration shortened so its output throughput is `outputPerS`
 * (the rates scaled with it, so the file's own sums and rates still agree: only the speed lies).
 */
export function atOutputRate(result: RunResult, outputPerS: number): RunResult {
  const copy = structuredClone(result);
  for (const point of copy.points) {
    const m = point.metrics;
    const k = outputPerS / (m.output_tokens / m.duration_s);
    m.duration_s /= k;
    for (const key of ['request_throughput', 'output_throughput', 'total_throughput', 'goodput'] as const) if (m[key] !== null) m[key] = m[key]! * k;
  }
  return copy;
}

/** The result with every point's token counts set to `input` and `output` per completed request (rates recomputed to agree). */
export function withLengths(result: RunResult, input: number, output: number): RunResult {
  const copy = structuredClone(result);
  for (const point of copy.points) {
    const m = point.metrics;
    m.input_tokens = m.completed * input;
    m.output_tokens = m.completed * output;
    m.output_throughput = m.output_tokens / m.duration_s;
    m.total_throughput = (m.input_tokens + m.output_tokens) / m.duration_s;
  }
  return copy;
}

/**
 * The result with every point's requests saved as `--save-requests` writes them: each completed, with
 * the point's mean lengths, a TTFT of 60 ms and a TPOT of 10 ms (so e2el = ttft + (n − 1) · tpot).
 */
export function withSavedRequests(result: RunResult): RunResult {
  for (const point of result.points) {
    const m = point.metrics;
    const [input, output] = [m.input_tokens / m.completed, m.output_tokens / m.completed];
    const [ttft, tpot] = [60, 10];
    point.requests = Array.from({ length: point.requests_sent }, (_, index) => ({
      index,
      ok: true,
      failure: null,
      status: 200,
      queue_ms: 0.1,
      ttft_ms: ttft,
      e2el_ms: ttft + (output - 1) * tpot,
      tpot_ms: tpot,
      input_tokens: input,
      output_tokens: output,
      server_prompt_tokens: input,
      server_completion_tokens: output,
      content_events: output,
      finish_reason: 'length',
    }));
  }
  return result;
}

/** A synthetic run of the shipped `name` scenario: its spec and hash as `servebench run --workload name` records them, its lengths as the spec says. */
export function ofShipped(name: string): RunResult {
  const spec = WorkloadSchema.parse(parseYaml(readFileSync(join(WORKLOADS_DIR, `${name}.yaml`), 'utf8')));
  const result = synthetic({ workload: name });
  result.workload = { ...result.workload, name, spec, spec_sha256: workloadSpecSha256(spec) };
  const fixed = (d: typeof spec.input) => (d.dist === 'fixed' ? d.tokens : 0);
  return withLengths(result, fixed(spec.input), fixed(spec.output));
}
