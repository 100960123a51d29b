/**
 * Roofline bounds: no hardware serves a known model faster than its memory and its arithmetic
 * allow. For a point of a run whose hardware (hardware-limits.ts) and model (model-sizes.ts) are
 * known, with B the summed memory bandwidth, F the summed peak throughput at the run's precision,
 * P the parameters a token multiplies and W = P × bits / 8 the bytes of weights a step reads:
 *
 *   decode, bandwidth:  output tokens/s ≤ S × sequences × B / W   (a decode step reads the weights
 *                       once for the whole batch and gives each sequence at most S tokens)
 *   decode, compute:    output tokens/s ≤ F / (2P)                (every generated token, drafted
 *                       and verified or not, is a forward pass of 2P operations at least)
 *   prefill, compute:   (input + output) tokens/s ≤ F / (2P)      (only where no prompt token can
 *                       come from a cache: see prefillCacheFree)
 *
 * S = SPECULATIVE_TOKENS_PER_STEP covers speculative decoding (EAGLE, MTP, n-gram drafts accept
 * several tokens per step). Each bound is loose on purpose (attention, KV-cache reads and
 * activations are left out: they only add work), so a result above one did not happen.
 */
import type { Point, RunResult } from '../contract/result.ts';
import { acceleratorOf, FORMAT_BITS, hardwareTable, hostLimits, HARDWARE_FILE, type Accelerator } from './hardware-limits.ts';
import { modelWork } from './model-sizes.ts';
import type { AddProblem } from './plausibility.ts';

/** Tokens one sequence can gain from one decode step: speculative decoding accepts up to its draft length plus one. */
export const SPECULATIVE_TOKENS_PER_STEP = 16;

interface Limits {
  /** bytes/s */
  readonly bandwidth: number;
  /** operations/s at the run's precision */
  readonly peak: number;
  readonly what: string;
  readonly source: string;
}

/** The fastest format an accelerator runs weights of `bits` in: any format at least that wide (4-bit weights may run as FP4, FP8 or BF16). */
function peakFor(accelerator: Accelerator, bits: number): number {
  const usable = Object.entries(accelerator.peak_tflops).filter(([format]) => FORMAT_BITS[format as keyof typeof FORMAT_BITS] >= Math.min(Math.floor(bits), 16));
  return Math.max(0, ...usable.map(([, tflops]) => tflops!)) * 1e12;
}

function limitsOf(result: RunResult, bits: number, file: string): Limits | null {
  const run = result.run!;
  const table = hardwareTable(file);
  const gpus = run.hardware?.gpus ?? [];
  if (gpus.length > 0) {
    const accelerators = gpus.map((gpu) => acceleratorOf(table, gpu.name));
    // One GPU the table does not know and the sum is unknown: the generic per-GPU bound (physical-bounds.ts) applies.
    if (accelerators.some((a) => a === null)) return null;
    const first = accelerators[0]!;
    return {
      bandwidth: accelerators.reduce((sum, a) => sum + a!.memory_bandwidth_gb_s, 0) * 1e9,
      peak: accelerators.reduce((sum, a) => sum + peakFor(a!, bits), 0),
      what: `${gpus.length} × ${first.id}`,
      source: [...new Set(accelerators.map((a) => `${a!.id}: ${a!.source}`))].join('; '),
    };
  }
  const host = hostLimits(table, run.host);
  return {
    bandwidth: host.memoryBandwidthGbS * 1e9,
    peak: host.peakGops * 1e9,
    what: `${run.host.cpus} CPUs of class ${host.cpuClass.id} (${host.sockets} socket${host.sockets === 1 ? '' : 's'})`,
    source: `${host.cpuClass.id}: ${host.cpuClass.source}`,
  };
}

/** Sequences decoding at once at most: the closed loop's users, an open loop's cap, else every request sent. */
function sequencesOf(point: Point): number {
  const load = point.load;
  const cap = load.mode === 'closed' ? load.concurrency : (load.max_concurrency ?? point.requests_sent);
  return Math.max(1, Math.min(cap, point.requests_sent));
}

/**
 * Prompt tokens may be served from a prefix cache (shared prefixes, conversations, or the same
 * prompts sent again to a server that outlives the run): then prefill costs less than 2P per
 * input token, and only a fresh server on prompts that share nothing bounds it.
 */
function prefillCacheFree(result: RunResult): boolean {
  const spec = result.workload.spec;
  return result.run!.engine.launcher !== 'external' && spec.prefix_caching === 'irrelevant' && spec.shared_prefix === undefined && spec.multi_turn === undefined;
}

const si = (value: number, unit: string) => `${value.toPrecision(4)} ${unit}`;

export interface PointBounds {
  readonly output: number;
  readonly total: number;
  readonly sequences: number;
  readonly bandwidthBound: number;
  readonly computeBound: number;
  /** null: prompt tokens may have come from a cache, so prefill is not bounded. */
  readonly prefillBound: number | null;
}

export interface RooflineBounds {
  readonly weightBytes: number;
  /** The bounds' inputs and their citations, as a problem names them. */
  readonly inputs: string;
  /** One per point; null for a point of no duration. */
  readonly points: ReadonlyArray<PointBounds | null>;
}

/** The bounds of each point, or null when the model or the hardware is not in the tables (the generic bounds apply). */
export function rooflineBounds(result: RunResult, file: string = HARDWARE_FILE): RooflineBounds | null {
  if (!result.run) return null;
  const work = modelWork(result.run.model);
  if (!work) return null;
  const limits = limitsOf(result, work.bits, file);
  if (!limits) return null;
  const params = work.size.compute_parameters;
  const weightBytes = (params * work.bits) / 8;
  const computeBound = limits.peak / (2 * params);
  const cacheFree = prefillCacheFree(result);
  return {
    weightBytes,
    inputs: `${result.run.model.id}: ${si(params, 'parameters')} per token at ${work.bits} bits (${work.size.source}); ${limits.what}: ${si(limits.bandwidth / 1e9, 'GB/s')}, ${si(limits.peak / 1e12, 'T operations/s')} (${limits.source})`,
    points: result.points.map((point) => {
      const m = point.metrics;
      if (m.duration_s <= 0) return null;
      const sequences = sequencesOf(point);
      return {
        output: m.output_tokens / m.duration_s,
        total: (m.input_tokens + m.output_tokens) / m.duration_s,
        sequences,
        bandwidthBound: (SPECULATIVE_TOKENS_PER_STEP * sequences * limits.bandwidth) / weightBytes,
        computeBound,
        prefillBound: cacheFree ? computeBound : null,
      };
    }),
  };
}

export function checkRoofline(result: RunResult, add: AddProblem, file: string = HARDWARE_FILE): void {
  const bounds = rooflineBounds(result, file);
  if (!bounds) return;
  const fix = 'a result above a physical bound did not happen: keep the numbers servebench measured; if the hardware or model table is wrong, correct fleet/hardware.yaml or harness/store/model-sizes.ts with a citation';
  bounds.points.forEach((b, i) => {
    if (!b) return;
    const at = `points[${i}].metrics`;
    if (b.output > b.bandwidthBound) {
      add(`${at}.output_throughput`, `[roofline-bandwidth] ${si(b.output, 'output tokens/s')} is above the memory-bandwidth bound ${si(b.bandwidthBound, 'tokens/s')} = ${SPECULATIVE_TOKENS_PER_STEP} tokens/step × ${b.sequences} sequences × bandwidth / ${si(bounds.weightBytes / 1e9, 'GB')} of weights; ${bounds.inputs}`, fix);
    }
    if (b.output > b.computeBound) {
      add(`${at}.output_throughput`, `[roofline-compute] ${si(b.output, 'output tokens/s')} is above the compute bound ${si(b.computeBound, 'tokens/s')} = peak / (2 × parameters); ${bounds.inputs}`, fix);
    }
    if (b.prefillBound !== null && b.total > b.prefillBound) {
      add(`${at}.total_throughput`, `[roofline-prefill] ${si(b.total, 'input+output tokens/s')} is above the compute bound ${si(b.prefillBound, 'tokens/s')} = peak / (2 × parameters) on prompts no cache can serve; ${bounds.inputs}`, fix);
    }
  });
}
