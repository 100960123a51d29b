/**
 * Fault injection. Each request draws at most one fault from (seed, arrival index), so a run with
 * the same seed and arrival order sees the same faults, however the requests interleave later.
 */
import { usageError } from '../../lib/errors.ts';
import { FAULT_KINDS, validateFaultRates, type FaultKind, type FaultRates, type OutputFault } from './config.ts';
import { combine, mix32, unitInterval } from './hash.ts';

export type FinishReason = 'stop' | 'length';

/** "http500=0.02,reset=0.01" → rates; the CLI's --faults parser. */
export function parseFaultSpec(text: string, flag = 'faults'): FaultRates {
  const rates: Partial<Record<FaultKind, number>> = {};
  if (text.trim() === '') return rates;
  for (const item of text.split(',')) {
    const eq = item.indexOf('=');
    const key = item.slice(0, eq).trim();
    const valueText = item.slice(eq + 1).trim();
    if (eq < 0 || key === '') throw usageError(`--${flag}: "${item}" is not fault=probability; faults: ${FAULT_KINDS.join(', ')}`);
    if (!(FAULT_KINDS as readonly string[]).includes(key)) throw usageError(`--${flag}: unknown fault "${key}"; faults: ${FAULT_KINDS.join(', ')}`);
    const value = Number(valueText);
    if (valueText === '' || !Number.isFinite(value) || value < 0 || value > 1) {
      throw usageError(`--${flag}: ${key}=${valueText} is not a probability in [0, 1]`);
    }
    rates[key as FaultKind] = value;
  }
  try {
    validateFaultRates(rates);
  } catch (error) {
    throw usageError(`--${flag}: ${(error as Error).message.replace(/^sim: /, '')}`);
  }
  return rates;
}

/** The fault for the request with this arrival index, or null. Kinds are tried in FAULT_KINDS order. */
export function decideFault(rates: FaultRates, seed: number, arrivalIndex: number): FaultKind | null {
  const draw = unitInterval(combine(mix32(seed >>> 0), arrivalIndex >>> 0));
  let cumulative = 0;
  for (const kind of FAULT_KINDS) {
    cumulative += rates[kind] ?? 0;
    if (draw < cumulative) return kind;
  }
  return null;
}

/** The hash an answer's words derive from: the prompt's own, or another one under an output fault. */
export function answerHash(fault: OutputFault, hash: number, cachedTokens: number): number {
  const corrupt = fault === 'corrupt-output' || (fault === 'cache-differs' && cachedTokens > 0);
  return corrupt ? mix32(hash ^ 0x9e3779b9) : hash;
}

/** What the engine and the stream do for one request once its fault (if any) is known. */
export interface GenerationPlan {
  /** Tokens the engine produces before the request ends (normally or by the fault). */
  readonly outputTokens: number;
  /** Reported finish reason; null when the fault cuts the response before one is sent. */
  readonly finishReason: FinishReason | null;
  /** Pause after this many tokens (0 = before prefill), or -1. */
  readonly stallAfter: number;
  /** Insert an invalid-JSON event before this token index, or -1. */
  readonly malformedAt: number;
  /** End the stream with the engine's error after the last token (its event, or a cut: wire-*.ts), or, not streamed, answer 500. */
  readonly errorEvent?: true;
}

function half(tokens: number): number {
  return Math.max(1, Math.floor(tokens / 2));
}

/**
 * Applies a streaming fault to a request's natural output. http500, http429, http500_endless and
 * endless never reach here (they are answered without the engine: see endless.ts).
 */
export function planGeneration(fault: FaultKind | null, natural: number, maxTokens: number, naturalReason: FinishReason): GenerationPlan {
  const plan = { outputTokens: natural, finishReason: naturalReason as FinishReason | null, stallAfter: -1, malformedAt: -1 };
  switch (fault) {
    case 'reset':
    case 'truncate':
      return { ...plan, outputTokens: half(natural), finishReason: null };
    case 'error_event':
      return { ...plan, outputTokens: half(natural), finishReason: null, errorEvent: true };
    case 'early_stop':
      return { ...plan, outputTokens: half(maxTokens), finishReason: 'stop' };
    case 'malformed':
      return { ...plan, malformedAt: Math.floor(natural / 2) };
    case 'stall':
      return { ...plan, stallAfter: Math.floor(natural / 2) };
    default:
      return plan;
  }
}
