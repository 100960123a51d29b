/**
 * A result measures the scenario it records. Two rules and one fact:
 * - [spec-hash] workload.spec_sha256 is recomputed from the recorded workload.spec: a spec edited
 *   after the run (or a hash copied from another run) is refused.
 * - [workload-lengths] the measured lengths fit the recorded spec's length distributions: the mean
 *   input and output per completed request of every point and, where saved, every request's. A run
 *   of an easier workload (short prompts) filed under a scenario's spec is refused.
 * - workloadUsesShippedSpec: whether the spec is the one workloads/<name>.yaml holds today. A
 *   result may record a scenario's name with another spec (flags that override its fields; a spec
 *   changed since): it is not refused (older results keep validating as the shipped specs move on),
 *   it is a configuration of its own (the scenario key includes workload_sha256) and compile says
 *   it is not the shipped scenario (runs.workload_spec_shipped).
 *
 * Tolerances: lengths built with the model's tokenizer ("exact") are what the server counted, off
 * by a few tokens where its template differs (input_tokens_mismatched counts those requests);
 * "approximate" lengths are corpus words, which a subword tokenizer counts as one to a few tokens
 * each. Outputs are at most max_tokens; with ignore_eos and the server's own counts, exactly it
 * (fewer is a failed request, short_output).
 */
import type { Point, RunResult } from '../contract/result.ts';
import { WorkloadSchema, smallestLength, type LengthDistribution, type Workload } from '../contract/workload.ts';
import { workloadSpecSha256 } from '../contract/workload-hash.ts';
import { usageError } from '../lib/errors.ts';
import { memoByKey } from '../lib/memo.ts';
import { WORKLOADS_DIR } from '../lib/specs/spec-folders.ts';
import { checkYamlSpec, formatProblems, listSpecFiles } from '../lib/specs/yaml-spec.ts';
import type { AddProblem } from './plausibility.ts';

/** Exact lengths: the server's count may differ from the built one by its template's few tokens. */
const EXACT = { low: 0.9, lowSlack: 16, high: 1.1, highSlack: 16 } as const;
/** Approximate lengths (corpus words), and exact ones the server counted differently: a word is one to a few tokens, and a chat template adds at most a few hundred. */
const APPROXIMATE = { low: 0.5, lowSlack: 0, high: 4, highSlack: 256 } as const;
/** Outputs counted from the stream or the tokenizer (no usage) may differ from max_tokens by a little. */
const OUTPUT = { high: 1.1, slack: 16 } as const;
/** Chat template tokens around each turn of a conversation's history (role markers, separators). */
const TEMPLATE_PER_TURN = 64;

type Range = readonly [number, number];

const shippedIn = memoByKey((dir: string): ReadonlyMap<string, string> => {
  const hashes = new Map<string, string>();
  for (const file of listSpecFiles(dir)) {
    const { spec, problems } = checkYamlSpec(file, WorkloadSchema);
    if (!spec) throw usageError(`invalid workload spec (validate reads workloads/ to know the shipped scenarios)\n${formatProblems(problems)}`);
    hashes.set(spec.name, workloadSpecSha256(spec));
  }
  return hashes;
});

/** The hash of workloads/<name>.yaml as `servebench run --workload <name>` records it without overrides; null: no such scenario. */
export function shippedSpecHash(name: string, dir: string = WORKLOADS_DIR): string | null {
  return shippedIn(dir).get(name) ?? null;
}

export function workloadUsesShippedSpec(result: RunResult, dir: string = WORKLOADS_DIR): boolean {
  const name = result.workload.name;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: no name would look up no hash (null), which never equals a recorded sha256; the test narrows the type.
  if (name === null || name === undefined) return false;
  return shippedSpecHash(name, dir) === result.workload.spec_sha256;
}

function rangeOf(dist: LengthDistribution): Range {
  switch (dist.dist) {
    // Stryker disable next-line ConditionalExpression: without its case a fixed length would fall through to range_ratio's SGLang branch, [tokens, tokens] all the same.
    case 'fixed':
      return [dist.tokens, dist.tokens];
    case 'range_ratio':
      return [smallestLength(dist), dist.convention === 'vllm' ? Math.ceil(dist.tokens * (1 + dist.ratio)) : dist.tokens];
    // Stryker disable next-line ConditionalExpression,StringLiteral: empirical lengths come only with a dataset (the schema), whose filters inputRange and outputRange read instead.
    case 'empirical':
      // Stryker disable next-line ArrayDeclaration: as above, never reached through the schema.
      return [1, Infinity];
    default:
      return [dist.min, dist.max];
  }
}

function outputRange(spec: Workload): Range {
  if (spec.dataset) return [spec.dataset.min_output_tokens ?? 1, spec.dataset.max_output_tokens ?? Infinity];
  return rangeOf(spec.output);
}

/** A request's prompt: its distribution's; in a conversation, the whole history resent with the new message. */
function inputRange(spec: Workload): Range {
  if (spec.dataset) return [spec.dataset.min_input_tokens ?? 1, spec.dataset.max_input_tokens ?? Infinity];
  const [low, high] = rangeOf(spec.input);
  if (!spec.multi_turn) return [low, high];
  return [low, spec.multi_turn.turns * (high + outputRange(spec)[1] + TEMPLATE_PER_TURN)];
}

function widen([low, high]: Range, t: { low: number; lowSlack: number; high: number; highSlack: number }): Range {
  return [Math.max(0, low * t.low - t.lowSlack), high * t.high + t.highSlack];
}

const shown = ([low, high]: Range) => `${Math.floor(low)}..${Number.isFinite(high) ? Math.ceil(high) : '∞'}`;
// Stryker disable next-line EqualityOperator: < as <= (> as >=) differ only for a mean exactly 1e-9 past a bound, which no count over completed requests lands on.
const outside = (value: number, [low, high]: Range) => value < low - 1e-9 || value > high + 1e-9;

/** Every completed output is max_tokens exactly when ignore_eos was asked and the server counted every output (fewer is short_output, a failure). Of a point where some request completed. */
function outputsAreMaxTokens(result: RunResult, point: Point): boolean {
  return result.workload.spec.sampling.ignore_eos && point.token_count_sources.output.usage === point.metrics.completed;
}

function checkPointLengths(result: RunResult, point: Point, i: number, add: AddProblem): void {
  const m = point.metrics;
  // Stryker disable next-line ConditionalExpression: with none completed the means are NaN, outside nothing, and every saved request failed; the return says so.
  if (m.completed === 0) return;
  const spec = result.workload.spec;
  const scenario = `"${(result.workload.name ?? 'command-line').slice(0, 60)}"`;
  const exact = result.workload.lengths === 'exact' && point.input_tokens_mismatched === 0;
  const inputSpec = inputRange(spec);
  const inputAllowed = widen(inputSpec, exact ? EXACT : APPROXIMATE);
  const outputSpec = outputRange(spec);
  const outputAllowed: Range = [outputsAreMaxTokens(result, point) ? outputSpec[0] : 0, outputSpec[1] * OUTPUT.high + OUTPUT.slack];
  const mode = exact ? 'exact lengths' : `${result.workload.lengths} lengths${point.input_tokens_mismatched > 0 ? `, ${point.input_tokens_mismatched} counted otherwise by the server` : ''}`;
  const fix = `a result measures the scenario it records: measure with the spec as recorded (servebench run --workload ${result.workload.name ?? '…'} as shipped), or record the spec you ran`;
  const at = `points[${i}]`;
  const meanInput = m.input_tokens / m.completed;
  if (outside(meanInput, inputAllowed)) {
    add(`${at}.metrics.input_tokens`, `[workload-lengths] ${meanInput.toFixed(1)} input tokens per completed request, outside ${shown(inputSpec)} of the scenario ${scenario} (${mode}: ${shown(inputAllowed)} allowed)`, fix);
  }
  const meanOutput = m.output_tokens / m.completed;
  if (outside(meanOutput, outputAllowed)) {
    add(`${at}.metrics.output_tokens`, `[workload-lengths] ${meanOutput.toFixed(1)} output tokens per completed request, outside ${shown(outputSpec)} of the scenario ${scenario} (${shown(outputAllowed)} allowed${outputAllowed[0] > 0 ? ': with ignore_eos every completed request has max_tokens' : ''})`, fix);
  }
  // Stryker disable next-line ArrayDeclaration: a made-up entry is no completed request, so it is skipped like none.
  const requests = point.requests ?? [];
  const offInput = requests.findIndex((r) => r.ok && r.input_tokens !== null && outside(r.input_tokens, inputAllowed));
  if (offInput >= 0) {
    add(`${at}.requests[${offInput}].input_tokens`, `[workload-lengths] a request of ${requests[offInput]!.input_tokens} input tokens, outside ${shown(inputSpec)} of the scenario ${scenario} (${mode}: ${shown(inputAllowed)} allowed)`, fix);
  }
  const offOutput = requests.findIndex((r) => r.ok && r.output_tokens !== null && outside(r.output_tokens, outputAllowed));
  if (offOutput >= 0) {
    add(`${at}.requests[${offOutput}].output_tokens`, `[workload-lengths] a request of ${requests[offOutput]!.output_tokens} output tokens, outside ${shown(outputSpec)} of the scenario ${scenario} (${shown(outputAllowed)} allowed)`, fix);
  }
}

/** `rawSpec`: workload.spec as the file holds it (the parsed result's has the schema's defaults filled in, which the hash never saw). */
export function checkWorkloadClaims(result: RunResult, rawSpec: unknown, add: AddProblem): void {
  const recomputed = workloadSpecSha256(rawSpec);
  if (recomputed !== result.workload.spec_sha256) {
    add('workload.spec_sha256', `[spec-hash] the recorded spec hashes to ${recomputed}, not ${result.workload.spec_sha256}`, 'spec_sha256 is the sha256 of workload.spec as JSON: keep the spec and the hash servebench wrote (an edited spec is another scenario)');
    return;
  }
  result.points.forEach((point, i) => checkPointLengths(result, point, i, add));
}
