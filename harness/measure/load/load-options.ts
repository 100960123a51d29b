/**
 * `servebench load` options: the command (its option table, which makes --help, is the contract's
 * LOAD_OPTIONS: validate reads a recorded command line by it too), and the one normalize step that
 * turns raw flags into a fully defaulted, validated LoadConfig (every bad value named with its fix).
 */
import { resolve } from 'node:path';
import { usageError } from '../../lib/errors.ts';
import {
  booleanOption,
  keyValueOption,
  listOption,
  numberListOption,
  numberOption,
  stringOption,
  type CommandSpec,
  type RawOptions,
} from '../../lib/cli/options.ts';
import type { Slo } from '../metrics/summarize.ts';
import { APIS, ARRIVALS, type Arrival, type Load } from '../../contract/result.ts';
import { redactText } from '../../contract/credentials.ts';
import { WorkloadSchema, type Workload } from '../../contract/workload.ts';
import { COMMAND_LINE, DEFAULT_NUM_PROMPTS, LOAD_OPTIONS } from '../../contract/command-options.ts';
import { loadWorkload } from '../workloads/spec-file.ts';
import { parseEndpoint, type Endpoint } from './endpoint.ts';
import type { IgnoreEosField } from './request-body.ts';

/** Node timers hold at most 2^31 − 1 ms; a longer timeout would fire at once. */
const MAX_TIMEOUT_S = Math.floor((2 ** 31 - 1) / 1000);
/** Fields servebench sets itself: --extra-body may not change what is measured or how it is judged. */
const RESERVED_BODY_FIELDS = ['model', 'prompt', 'messages', 'stream', 'max_tokens', 'max_completion_tokens', 'ignore_eos', 'debug_config'];

export const loadSpec: CommandSpec = {
  name: 'load',
  summary: 'drive a streaming load against an OpenAI-compatible endpoint and measure it client-side',
  usage: 'servebench load --endpoint URL --model NAME [options]',
  options: LOAD_OPTIONS,
  epilog: [
    'Examples:',
    '  servebench load --endpoint http://127.0.0.1:8000 --model m --concurrency 1,8,32 --out results-dir/',
    '  servebench load --endpoint http://127.0.0.1:8000 --model m --rate 2,4,8 --burstiness 0.5 --max-concurrency 64',
    '',
    'Exit status: 0 ok; 1 failure rate above --max-failure-rate; 2 bad input or unreachable server (nothing measured);',
    '3 the result could not be written (it went to stdout); 70 internal error (a servebench bug);',
    '129 SIGHUP, 130 SIGINT, 143 SIGTERM (completed points are kept; a second signal quits at once, without them).',
    'Metric definitions: docs/metrics.md.',
  ].join('\n'),
};

export interface LoadConfig {
  readonly endpoint: Endpoint;
  readonly model: string;
  /** The effective scenario: the named spec (or the command-line defaults) with the flags applied. */
  readonly workload: Workload;
  /** The spec's name when --workload was given, else null (a scenario made of flags). */
  readonly workloadName: string | null;
  readonly numPrompts: number | null;
  readonly durationS: number | null;
  readonly loads: readonly Load[];
  readonly extraBody: Record<string, unknown>;
  /** How the engine takes ignore_eos and the fields it always needs (servebench run sets these from engines/*.yaml). */
  readonly engineRequest?: { readonly ignoreEosField: IgnoreEosField; readonly body: Readonly<Record<string, unknown>> };
  readonly headers: Record<string, string>;
  readonly timeoutS: number;
  readonly maxFailureRate: number;
  /** --tokenizer: a path or id; "none" for approximate lengths on purpose; null to find one (tokenizer/choose.ts). */
  readonly tokenizerPath: string | null;
  /** The model as launched (servebench run: a GGUF file or a Hugging Face id), where the tokenizer may be found. */
  readonly modelSource?: string;
  /** Refuse to measure with approximate lengths (official results). */
  readonly requireExactLengths?: boolean;
  readonly out: string | null;
  readonly saveRequests: boolean;
  readonly json: boolean;
  readonly progress: boolean;
}

function required(raw: RawOptions, name: string): string {
  const value = stringOption(loadSpec, raw, name);
  if (value === undefined || value.trim() === '') throw usageError(`--${name} is required; see \`servebench load --help\``);
  return value;
}

function parseHeaders(raw: RawOptions, env: NodeJS.ProcessEnv, endpoint: Endpoint): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
  // user:password@ in the endpoint is HTTP Basic authentication; --api-key or an Authorization --header replaces it.
  if (endpoint.basicAuth) headers['authorization'] = endpoint.basicAuth;
  const apiKey = stringOption(loadSpec, raw, 'api-key') ?? env['OPENAI_API_KEY'];
  if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
  for (const item of listOption(raw, 'header')) {
    const colon = item.indexOf(':');
    const key = item.slice(0, colon).trim().toLowerCase();
    if (colon <= 0 || !/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(key)) throw usageError(`--header: "${redactText(item)}" is not "Name: value"`);
    headers[key] = item.slice(colon + 1).trim();
  }
  return headers;
}

function parseExtraBody(raw: RawOptions): Record<string, unknown> {
  const text = stringOption(loadSpec, raw, 'extra-body');
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text it failed on, which may hold a key: the message goes out redacted.
    throw usageError(`--extra-body: not valid JSON (${redactText((error as Error).message)}); write e.g. '{"top_k":1}'`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw usageError('--extra-body: must be a JSON object');
  const reserved = Object.keys(value).filter((key) => RESERVED_BODY_FIELDS.includes(key));
  if (reserved.length > 0) {
    throw usageError(`--extra-body: ${reserved.join(', ')} ${reserved.length > 1 ? 'are' : 'is'} set by servebench; use --model, --output-len, --api or --no-ignore-eos`);
  }
  return value as Record<string, unknown>;
}

function parseSlo(raw: RawOptions): Slo | null {
  const pairs = keyValueOption(loadSpec, raw, 'slo', ['ttft_ms', 'tpot_ms', 'e2el_ms']);
  if (pairs.size === 0) return null;
  const slo: Record<string, number> = {};
  for (const [key, value] of pairs) {
    const number = Number(value);
    if (value === '' || !Number.isFinite(number) || number <= 0) throw usageError(`--slo: ${key}=${value} must be a positive number of milliseconds`);
    slo[key] = number;
  }
  return slo as Slo;
}

/** The scenario used when no --workload is given; every field can be overridden by a flag. */
export function commandLineWorkload(): Workload {
  return WorkloadSchema.parse({
    name: 'command-line',
    description: 'A scenario made of command-line flags.',
    api: COMMAND_LINE.api,
    input: { dist: 'fixed', tokens: COMMAND_LINE.inputTokens },
    output: { dist: 'fixed', tokens: COMMAND_LINE.outputTokens },
    requests: { count: DEFAULT_NUM_PROMPTS, warmup: COMMAND_LINE.warmup },
    load: { concurrency: [1] },
    prefix_caching: 'irrelevant',
  });
}

function given(raw: RawOptions, name: string): boolean {
  return raw[name] !== undefined;
}

/** The load part of the spec, with --concurrency / --rate and their companions applied. */
function overrideLoad(raw: RawOptions, base: Workload['load']): Workload['load'] {
  const concurrency = numberListOption(loadSpec, raw, 'concurrency', { min: 1 }, true);
  const rates = numberListOption(loadSpec, raw, 'rate', { min: 0, exclusiveMin: true });
  if (concurrency && rates) throw usageError('give either --concurrency (closed loop) or --rate (open loop), not both');
  const openLoopFlags = ['max-concurrency', 'arrival', 'burstiness'].filter((flag) => given(raw, flag));
  let load = base;
  if (concurrency) load = { concurrency };
  // New rates keep the spec's arrival process and cap when it already was an open loop.
  if (rates) {
    const rateList = rates.map((rate): number | 'inf' => (Number.isFinite(rate) ? rate : 'inf'));
    load = 'rates' in base ? { ...base, rates: rateList } : { rates: rateList, arrival: 'poisson', burstiness: 1 };
  }
  if ('trace' in load) {
    const traceOnly = ['arrival', 'burstiness'].filter((flag) => given(raw, flag));
    if (traceOnly.length > 0) throw usageError(`--${traceOnly[0]} does not apply to a trace replay (its arrival times come from the trace)`);
    const maxConcurrency = numberOption(loadSpec, raw, 'max-concurrency', { min: 1 }, true) ?? load.trace.max_concurrency;
    return { trace: { ...load.trace, ...(maxConcurrency !== undefined ? { max_concurrency: maxConcurrency } : {}) } };
  }
  if (!('rates' in load)) {
    if (openLoopFlags.length > 0) throw usageError(`--${openLoopFlags[0]} applies to open loop only; use it with --rate`);
    return load;
  }
  const burstiness = numberOption(loadSpec, raw, 'burstiness', { min: 0, exclusiveMin: true }) ?? load.burstiness;
  const arrivalText = stringOption(loadSpec, raw, 'arrival');
  if (arrivalText !== undefined && !(ARRIVALS as readonly string[]).includes(arrivalText)) {
    throw usageError(`--arrival: "${arrivalText}" is not one of ${ARRIVALS.join(', ')}`);
  }
  const arrival = (arrivalText ?? (given(raw, 'burstiness') ? (burstiness === 1 ? 'poisson' : 'gamma') : load.arrival)) as Arrival;
  if (arrival === 'poisson' && burstiness !== 1) throw usageError('--arrival poisson has burstiness 1; use --arrival gamma with --burstiness');
  const maxConcurrency = numberOption(loadSpec, raw, 'max-concurrency', { min: 1 }, true) ?? load.max_concurrency;
  return { ...load, arrival, burstiness, ...(maxConcurrency !== undefined ? { max_concurrency: maxConcurrency } : {}) };
}

/** The scenario with every flag that was given applied, validated again as a whole. */
function effectiveWorkload(raw: RawOptions, base: Workload, fromFlags: boolean): Workload {
  const int = (name: string, min: number): number | undefined => numberOption(loadSpec, raw, name, { min }, true);
  const api = stringOption(loadSpec, raw, 'api');
  if (api !== undefined && !(APIS as readonly string[]).includes(api)) throw usageError(`--api: "${api}" is not one of ${APIS.join(', ')}`);
  const inputLen = int('input-len', 1);
  const outputLen = int('output-len', 1);
  const count = int('num-prompts', 1);
  const durationS = numberOption(loadSpec, raw, 'duration', { min: 0, exclusiveMin: true });
  if (durationS !== undefined && !Number.isFinite(durationS)) throw usageError('--duration must be finite');
  const warmup = int('warmup', 0);
  const seed = numberOption(loadSpec, raw, 'seed', { min: 0, max: 2 ** 32 - 1 }, true);
  const temperature = numberOption(loadSpec, raw, 'temperature', { min: 0 });
  if (temperature !== undefined && !Number.isFinite(temperature)) throw usageError('--temperature must be finite');
  // Count and duration both bound a point (whichever comes first); each flag replaces its field.
  const requests = {
    ...base.requests,
    ...(durationS !== undefined ? { duration_s: durationS } : {}),
    ...(count !== undefined ? { count } : {}),
    ...(warmup !== undefined ? { warmup } : {}),
  };
  // Without a scenario, --duration alone means "for that long" (the default count would cap it).
  if (fromFlags && durationS !== undefined && count === undefined) delete (requests as { count?: number }).count;
  const sloFlags = parseSlo(raw);
  const slo = sloFlags === null ? null : { ...base.slo, ...sloFlags };
  const datasetPath = stringOption(loadSpec, raw, 'dataset');
  if (datasetPath !== undefined && base.dataset === undefined) {
    throw usageError('--dataset replaces the file of a dataset scenario; use it with e.g. --workload sharegpt');
  }
  const candidate = {
    ...base,
    ...(datasetPath !== undefined && base.dataset ? { dataset: { ...base.dataset, path: resolve(datasetPath) } } : {}),
    ...(api !== undefined ? { api } : {}),
    ...(inputLen !== undefined ? { input: { dist: 'fixed', tokens: inputLen } } : {}),
    ...(outputLen !== undefined ? { output: { dist: 'fixed', tokens: outputLen } } : {}),
    requests,
    load: overrideLoad(raw, base.load),
    ...(slo !== null ? { slo } : {}),
    sampling: {
      temperature: temperature ?? base.sampling.temperature,
      ignore_eos: booleanOption(raw, 'no-ignore-eos') ? false : base.sampling.ignore_eos,
    },
    ...(seed !== undefined ? { seed } : {}),
  };
  const parsed = WorkloadSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw usageError(`the flags make an invalid scenario: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

export function loadsOf(workload: Workload): Load[] {
  const load = workload.load;
  if ('concurrency' in load) return load.concurrency.map((concurrency) => ({ mode: 'closed', concurrency }));
  if ('trace' in load) return [{ mode: 'trace', time_scale: load.trace.time_scale, max_concurrency: load.trace.max_concurrency ?? null }];
  return load.rates.map((rate) => ({
    mode: 'open',
    rate,
    arrival: load.arrival,
    burstiness: load.burstiness,
    max_concurrency: load.max_concurrency ?? null,
  }));
}

export function normalizeLoadOptions(raw: RawOptions, env: NodeJS.ProcessEnv = process.env): LoadConfig {
  const endpoint = parseEndpoint(required(raw, 'endpoint'));
  const model = required(raw, 'model');
  const workloadName = stringOption(loadSpec, raw, 'workload') ?? null;
  const workload = effectiveWorkload(raw, workloadName === null ? commandLineWorkload() : loadWorkload(workloadName), workloadName === null);
  const numPrompts = workload.requests.count ?? null;
  const loads = loadsOf(workload);
  if (numPrompts === null && loads.some((load) => load.mode === 'open' && load.rate === 'inf')) {
    throw usageError('--rate inf sends everything at once and needs --num-prompts');
  }
  return {
    endpoint,
    model,
    workload,
    workloadName: workloadName === null ? null : workload.name,
    numPrompts,
    durationS: workload.requests.duration_s ?? null,
    loads,
    extraBody: parseExtraBody(raw),
    headers: parseHeaders(raw, env, endpoint),
    timeoutS: numberOption(loadSpec, raw, 'timeout', { min: 0, exclusiveMin: true, max: MAX_TIMEOUT_S })!,
    maxFailureRate: numberOption(loadSpec, raw, 'max-failure-rate', { min: 0, max: 1 })!,
    tokenizerPath: stringOption(loadSpec, raw, 'tokenizer') ?? null,
    out: stringOption(loadSpec, raw, 'out') ?? null,
    saveRequests: booleanOption(raw, 'save-requests'),
    json: booleanOption(raw, 'json'),
    progress: !booleanOption(raw, 'no-progress'),
  };
}
