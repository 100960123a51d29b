/**
 * SimConfig: one object drives the server, the cost model and the CLI defaults, so --help and
 * startSimServer({}) cannot disagree about what a default sim does.
 */
import { usageError } from '../../lib/errors.ts';
import { SERVEBENCH_VERSION } from '../../lib/version.ts';

export const PERSONALITIES = ['vllm', 'sglang', 'llamacpp', 'trtllm', 'no-usage'] as const;
export type Personality = (typeof PERSONALITIES)[number];

// New kinds go last: a seed draws the same fault for the same request whatever was added after it.
export const FAULT_KINDS = ['http500', 'http429', 'reset', 'malformed', 'stall', 'early_stop', 'truncate', 'endless', 'http500_endless', 'error_event'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
/** Probability per request of each fault; at most one fault is drawn per request. */
export type FaultRates = Readonly<Partial<Record<FaultKind, number>>>;

/**
 * Faults in what the engine answers, not in how it streams (every request, no draw): corrupt-output
 * answers other words than the sim's deterministic ones; cache-differs does so only for a request
 * whose prompt the prefix cache held. For the fidelity probe's tests (docs/metrics.md#output-fidelity).
 */
export const OUTPUT_FAULTS = ['none', 'corrupt-output', 'cache-differs'] as const;
export type OutputFault = (typeof OUTPUT_FAULTS)[number];

/** A planted change of speed: from `version` on, every cost is `factor` times as large (> 1: slower). */
export interface PerformanceChange {
  readonly version: string;
  readonly factor: number;
}

/** The inputs of the continuous-batching cost model. */
export interface CostParams {
  readonly prefillTokensPerS: number;
  readonly decodeBaseMs: number;
  readonly decodePerSeqMs: number;
  readonly maxNumSeqs: number;
  /** KV budget in tokens; a request reserves prompt_tokens + max_tokens at admission. */
  readonly kvTokens: number;
  /** Prefill tokens per step; longer prompts are prefilled in chunks over several steps. */
  readonly maxBatchedTokens: number;
}

export interface SimConfig extends CostParams {
  readonly host: string;
  /** 0 picks an ephemeral port. */
  readonly port: number;
  readonly modelName: string;
  readonly personality: Personality;
  /** Forces every cost to 0 and lifts the batch and KV limits unless they are set explicitly. */
  readonly zeroCost: boolean;
  /** Engine steps run per event-loop turn before writes are flushed (16 with zeroCost, else 1). */
  readonly stepsPerFlush: number;
  readonly faults: FaultRates;
  readonly outputFault: OutputFault;
  readonly stallMs: number;
  /** Seeds the fault draws. */
  readonly seed: number;
  /**
   * Run-to-run noise: each launch runs all its costs at one speed factor exp(σ·z), z standard
   * normal drawn per launch (launch-noise.ts); 0: every launch alike. For testing what repeats see.
   */
  readonly runNoise: number;
  /** The release this launch plays: what GET /version reports, and what performanceChanges apply by. */
  readonly engineVersion: string;
  /**
   * Planted changes of speed by version (versioned-performance.ts): a launch runs at the product of
   * the factors of every change at or below its engineVersion. [] (the default): every version alike.
   * For testing the paired A/B and the bisection without a real engine.
   */
  readonly performanceChanges: readonly PerformanceChange[];
  readonly sseCrlf: boolean;
  readonly sseNoSpace: boolean;
  /** Interval of ": keep-alive" SSE comments on open streams; 0 disables them. */
  readonly keepaliveMs: number;
  /** An idle keep-alive connection is closed after this long (uvicorn and cpp-httplib: 5 s); 0 = never. */
  readonly idleTimeoutMs: number;
  /** Requests served per connection before it is closed (cpp-httplib: 100, announced); 0 = no limit. */
  readonly maxRequestsPerConnection: number;
  /**
   * Close the connection right after every streamed response, unannounced (its headers said
   * keep-alive): what llama-server does, since its stream provider reports the end of a stream
   * as a cancel to cpp-httplib. A client that reuses the connection at once loses the request.
   */
  readonly closeAfterStream: boolean;
  /** Prompts the prefix cache keeps (prefix-cache.ts; 0: no prefix caching, as with it switched off). */
  readonly prefixCacheSequences: number;
  /**
   * Report cached prompt tokens in usage.prompt_tokens_details, as vLLM does with
   * --enable-prompt-tokens-details and SGLang with --enable-cache-report (llama.cpp always reports them).
   */
  readonly reportCachedTokens: boolean;
}

/** How each imitated server treats connections, where the sim's defaults follow the personality. */
export const PERSONALITY_CONNECTIONS: Record<Personality, Pick<SimConfig, 'maxRequestsPerConnection' | 'closeAfterStream'>> = {
  vllm: { maxRequestsPerConnection: 0, closeAfterStream: false },
  sglang: { maxRequestsPerConnection: 0, closeAfterStream: false },
  trtllm: { maxRequestsPerConnection: 0, closeAfterStream: false },
  'no-usage': { maxRequestsPerConnection: 0, closeAfterStream: false },
  llamacpp: { maxRequestsPerConnection: 100, closeAfterStream: true },
};

export const SIM_DEFAULTS: SimConfig = {
  host: '127.0.0.1',
  port: 8000,
  modelName: 'sim-model',
  personality: 'vllm',
  prefillTokensPerS: 20_000,
  decodeBaseMs: 8,
  decodePerSeqMs: 0.06,
  maxNumSeqs: 256,
  kvTokens: 1_000_000,
  maxBatchedTokens: 8192,
  zeroCost: false,
  stepsPerFlush: 1,
  faults: {},
  outputFault: 'none',
  stallMs: 5000,
  seed: 0,
  runNoise: 0,
  engineVersion: `${SERVEBENCH_VERSION}-sim`,
  performanceChanges: [],
  sseCrlf: false,
  sseNoSpace: false,
  keepaliveMs: 0,
  idleTimeoutMs: 5000,
  prefixCacheSequences: 64,
  reportCachedTokens: false,
  ...PERSONALITY_CONNECTIONS.vllm,
};

/** What zero-cost mode uses for the fields the caller did not set. */
const ZERO_COST_LIMITS = {
  maxNumSeqs: 100_000,
  kvTokens: Number.MAX_SAFE_INTEGER,
  maxBatchedTokens: Number.MAX_SAFE_INTEGER,
  stepsPerFlush: 16,
} as const;

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function check(condition: boolean, message: string): void {
  if (!condition) throw usageError(`sim: ${message}`);
}

export function validateFaultRates(faults: FaultRates): void {
  let total = 0;
  for (const [kind, rate] of Object.entries(faults)) {
    check((FAULT_KINDS as readonly string[]).includes(kind), `unknown fault "${kind}"; allowed: ${FAULT_KINDS.join(', ')}`);
    check(typeof rate === 'number' && rate >= 0 && rate <= 1, `fault ${kind}=${rate} must be a probability in [0, 1]`);
    total += rate ?? 0;
  }
  check(total <= 1 + 1e-9, `fault probabilities add up to ${total}; at most one fault is drawn per request, so the sum must be ≤ 1`);
}

/**
 * Why `version` cannot be placed in the version order (harness/lib/version-compare.ts) that planted
 * changes are applied by, or null. It must start with a digit: the order compares part by part,
 * and a leading word ("v1.2.0") would sort after every number, so "v1.2.0" would count as later
 * than "1.3.0". No spaces, commas or colons: the CLI's list separates with them.
 */
export function versionOrderProblem(version: string): string | null {
  return /^\d[\w.+-]*$/.test(version) ? null : `"${version}" is not a version such as 1.3.0 (digits first; letters, digits, ".", "+" and "-" only)`;
}

/** Why `version` cannot be the engine version of a launch with these changes, or null. */
export function engineVersionProblem(version: string, changes: readonly PerformanceChange[]): string | null {
  if (!/^\S+$/.test(version)) return `"${version}" must be one word, not empty`;
  const problem = changes.length > 0 ? versionOrderProblem(version) : null;
  // Only a version the order can place can be compared with the changes' versions.
  return problem === null ? null : `${problem}; performance changes apply by version order, so give it as their versions are (1.2.0, not v1.2.0)`;
}

export function validatePerformanceChanges(changes: readonly PerformanceChange[]): void {
  const seen = new Set<string>();
  for (const { version, factor } of changes) {
    const problem = versionOrderProblem(version);
    check(problem === null, `performance change at ${problem}`);
    check(typeof factor === 'number' && Number.isFinite(factor) && factor > 0, `performance change ${version}:${factor}: the factor must be a finite number > 0 (1.5: every cost 1.5 times as large, slower; 0.8: faster)`);
    check(!seen.has(version), `performance change at ${version} given twice; give each version once (two changes at one version multiply: give their product)`);
    seen.add(version);
  }
}

/** Fills defaults, applies zero-cost mode and rejects impossible settings (ServebenchError, exit 2). */
export function resolveSimConfig(partial: Partial<SimConfig> = {}): SimConfig {
  const zeroCost = partial.zeroCost ?? false;
  const personality = partial.personality ?? SIM_DEFAULTS.personality;
  const config: SimConfig = {
    ...SIM_DEFAULTS,
    ...(PERSONALITY_CONNECTIONS[personality] ?? {}),
    ...(zeroCost ? ZERO_COST_LIMITS : {}),
    ...Object.fromEntries(Object.entries(partial).filter(([, value]) => value !== undefined)),
    ...(zeroCost ? { prefillTokensPerS: Number.POSITIVE_INFINITY, decodeBaseMs: 0, decodePerSeqMs: 0 } : {}),
    zeroCost,
  };
  check(isLoopbackHost(config.host), `host "${config.host}" is not loopback; the sim only binds 127.x.x.x, ::1 or localhost`);
  check(Number.isInteger(config.port) && config.port >= 0 && config.port <= 65535, `port ${config.port} must be an integer in 0..65535`);
  check(config.modelName.length > 0, 'model name must not be empty');
  check((PERSONALITIES as readonly string[]).includes(config.personality), `unknown personality "${config.personality}"; allowed: ${PERSONALITIES.join(', ')}`);
  check(config.prefillTokensPerS > 0, 'prefillTokensPerS must be > 0');
  check(config.decodeBaseMs >= 0 && Number.isFinite(config.decodeBaseMs), 'decodeBaseMs must be a finite number ≥ 0');
  check(config.decodePerSeqMs >= 0 && Number.isFinite(config.decodePerSeqMs), 'decodePerSeqMs must be a finite number ≥ 0');
  check(Number.isInteger(config.maxNumSeqs) && config.maxNumSeqs >= 1, 'maxNumSeqs must be an integer ≥ 1');
  check(Number.isInteger(config.kvTokens) && config.kvTokens >= 2, 'kvTokens must be an integer ≥ 2');
  check(Number.isInteger(config.maxBatchedTokens) && config.maxBatchedTokens >= 1, 'maxBatchedTokens must be an integer ≥ 1');
  check(Number.isInteger(config.stepsPerFlush) && config.stepsPerFlush >= 1, 'stepsPerFlush must be an integer ≥ 1');
  check(config.stallMs >= 0 && Number.isFinite(config.stallMs), 'stallMs must be a finite number ≥ 0');
  check(Number.isInteger(config.seed), 'seed must be an integer');
  check(config.runNoise >= 0 && config.runNoise <= 2, 'runNoise must be a σ of ln(speed) in [0, 2]');
  validatePerformanceChanges(config.performanceChanges);
  const versionProblem = engineVersionProblem(config.engineVersion, config.performanceChanges);
  check(versionProblem === null, `engineVersion ${versionProblem}`);
  check(config.keepaliveMs >= 0 && Number.isFinite(config.keepaliveMs), 'keepaliveMs must be a finite number ≥ 0 (0 = off)');
  check(config.idleTimeoutMs >= 0 && Number.isFinite(config.idleTimeoutMs), 'idleTimeoutMs must be a finite number ≥ 0 (0 = never)');
  check(Number.isInteger(config.maxRequestsPerConnection) && config.maxRequestsPerConnection >= 0, 'maxRequestsPerConnection must be an integer ≥ 0 (0 = no limit)');
  check(Number.isInteger(config.prefixCacheSequences) && config.prefixCacheSequences >= 0, 'prefixCacheSequences must be an integer ≥ 0 (0 = no prefix cache)');
  validateFaultRates(config.faults);
  check((OUTPUT_FAULTS as readonly string[]).includes(config.outputFault), `unknown output fault "${config.outputFault}"; allowed: ${OUTPUT_FAULTS.join(', ')}`);
  return config;
}
