/**
 * llama.cpp on GPUs, checked before anything launches. Two ways a llama.cpp run on a GPU measured
 * something else than it said: servebench's own build is a CPU build (`--gpu` then ran on the CPU,
 * silently), and a KV cache larger than the GPUs either failed at start or, with llama.cpp's
 * --fit, moved layers to the CPU without a word. Both are refused here, naming the fields and the
 * fix; engines/llamacpp.yaml pins full offload (--n-gpu-layers 999) and no fitting (--fit off).
 */
import { statSync } from 'node:fs';
import { readGgufFileInfo } from 'node-llama-cpp';
import { usageError } from '../../lib/errors.ts';
import type { ServeParameters } from '../../contract/engine.ts';
import { buildHasCuda, type LlamaCppBuild } from '../builds/llamacpp-build.ts';
import { gpuFacts } from '../telemetry/nvidia-smi.ts';

/** A process launch on GPUs needs a CUDA build (`servebench llamacpp build --cuda`); the default builds are CPU builds (llamacpp-build.ts CMAKE_FLAGS). */
export function refuseCpuBuildOnGpus(build: LlamaCppBuild | null, gpus: readonly number[]): void {
  if (gpus.length === 0 || (build !== null && buildHasCuda(build))) return;
  const what = build === null ? 'llama-server from PATH (no servebench build: whether it has CUDA is unknown)' : `servebench's build of llama.cpp ${build.tag}, a CPU build (its cmake flags have no -DGGML_CUDA=ON)`;
  throw usageError(
    `--gpu ${gpus.join(',')}: llama.cpp launched as a process would run ${what}, on the CPU, not on GPU ${gpus.join(',')}; ` +
      'build a CUDA one where the CUDA toolkit is (`servebench llamacpp build --cuda`), use --launcher docker (the CUDA image, engines/llamacpp.yaml image) for a GPU run, or leave --gpu out for a CPU run',
  );
}

/** Bytes per KV element of each llama.cpp cache type (ggml block size over elements per block: q8_0 packs 32 in 34 bytes). */
const KV_TYPE_BYTES: Readonly<Record<string, number>> = {
  f32: 4,
  f16: 2,
  bf16: 2,
  q8_0: 34 / 32,
  q5_1: 24 / 32,
  q5_0: 22 / 32,
  q4_1: 20 / 32,
  q4_0: 18 / 32,
  iq4_nl: 18 / 32,
};

/** What llama.cpp keeps per device beyond weights and KV: --fit's own default margin (common/arg.cpp --fit-target, 1024 MiB). */
const WORKING_MARGIN_MIB = 1024;

export interface KvShape {
  /** Bytes one token's K and V take over all layers, at the cache type. */
  readonly bytesPerToken: number;
  /** The model's trained context: the pool when no --ctx-size is given (no max_model_len). */
  readonly contextLength: number | null;
}

/** K and V elements per token from GGUF metadata (per layer: KV heads × (key + value head size)). */
export function kvShapeOf(metadata: Record<string, unknown>, cacheType: string): KvShape | null {
  const arch = (metadata['general'] as { architecture?: string } | undefined)?.architecture;
  const hp = arch ? (metadata[arch] as Record<string, unknown> | undefined) : undefined;
  const attention = hp?.['attention'] as Record<string, unknown> | undefined;
  const layers = Number(hp?.['block_count']);
  const heads = Number(attention?.['head_count']);
  const bytes = KV_TYPE_BYTES[cacheType];
  if (!hp || !attention || !Number.isInteger(layers) || bytes === undefined) return null;
  const headDim = Number(hp['embedding_length']) / heads;
  const keyLength = Number(attention['key_length'] ?? headDim);
  const valueLength = Number(attention['value_length'] ?? headDim);
  // head_count_kv is a number, or one per layer (models with layers of no attention have zeros).
  const kvHeads = attention['head_count_kv'] ?? heads;
  const perLayer: number[] = Array.isArray(kvHeads) ? kvHeads.map(Number) : Array.from({ length: layers }, () => Number(kvHeads));
  const elements = perLayer.reduce((sum, n) => sum + n * (keyLength + valueLength), 0);
  if (!Number.isFinite(elements) || elements <= 0) return null;
  const context = Number(hp['context_length']);
  return { bytesPerToken: elements * bytes, contextLength: Number.isFinite(context) && context > 0 ? context : null };
}

export interface FitInputs {
  readonly weightBytes: number;
  readonly kv: KvShape;
  readonly params: ServeParameters;
  readonly gpuMemoryMiB: readonly number[];
}

/** The KV pool engines/llamacpp.yaml makes: --ctx-size the KV budget, else max_model_len × max_num_seqs, else (no -c) the trained context. */
export function kvPoolTokens(params: ServeParameters, contextLength: number | null): number | null {
  if (params.kv_budget_tokens !== undefined) return Number(params.kv_budget_tokens);
  if (params.max_model_len !== undefined && params.max_num_seqs !== undefined) return Number(params.max_model_len) * Number(params.max_num_seqs);
  return contextLength;
}

const GIB = 1024 ** 3;
const gib = (bytes: number): string => `${(bytes / GIB).toFixed(1)} GiB`;

/** Why the configuration cannot fit on the GPUs (the fields, the sizes and the fix), or null. */
export function fitProblem({ weightBytes, kv, params, gpuMemoryMiB }: FitInputs): string | null {
  const pool = kvPoolTokens(params, kv.contextLength);
  if (pool === null) return null;
  const total = gpuMemoryMiB.reduce((sum, mib) => sum + mib, 0) * 1024 ** 2;
  const margin = gpuMemoryMiB.length * WORKING_MARGIN_MIB * 1024 ** 2;
  const kvBytes = pool * kv.bytesPerToken;
  if (weightBytes + kvBytes + margin <= total) return null;
  const fits = Math.max(0, Math.floor((total - weightBytes - margin) / kv.bytesPerToken));
  const sizing = params.kv_budget_tokens !== undefined ? `--kv-budget-tokens ${params.kv_budget_tokens}` : params.max_model_len !== undefined ? `--max-num-seqs ${params.max_num_seqs} × --max-model-len ${params.max_model_len}` : "the model's trained context, no --max-model-len given";
  return (
    `llama.cpp cannot hold this configuration on ${gpuMemoryMiB.length} GPU(s) of ${gib(total)}: weights ${gib(weightBytes)} + a KV cache of ${pool.toLocaleString('en')} tokens ` +
    `(${sizing}, ${(kv.bytesPerToken / 1024).toFixed(0)} KiB a token at ${String(params.kv_cache_dtype ?? 'auto')}) = ${gib(kvBytes)} + ${WORKING_MARGIN_MIB} MiB a GPU for working buffers; ` +
    `it would fail to start (or, fitting, move layers to the CPU). ${params.kv_budget_tokens !== undefined ? 'Lower --kv-budget-tokens to' : 'Lower --max-num-seqs or --max-model-len until their product is'} at most ${fits.toLocaleString('en')} tokens, or give a smaller --kv-cache-dtype (q8_0)`
  );
}

/**
 * Refuses a GPU launch of llama.cpp whose weights and KV cache exceed its GPUs. Checked only where
 * both are known: a GGUF file on this host and nvidia-smi's memory of the run's GPUs.
 */
export async function refuseWhatCannotFit(modelPath: string | null, params: ServeParameters, gpus: readonly number[]): Promise<void> {
  if (gpus.length === 0 || modelPath === null || !modelPath.endsWith('.gguf')) return;
  const facts = await gpuFacts(gpus);
  if (facts === null || facts.gpus.length === 0) return;
  let metadata: Record<string, unknown>;
  try {
    metadata = (await readGgufFileInfo(modelPath, { readTensorInfo: false })).metadata as unknown as Record<string, unknown>;
  } catch (error) {
    throw usageError(`--model ${modelPath}: not a GGUF file llama.cpp can load (${(error as Error).message})`);
  }
  // servebench's auto and fp16 are llama.cpp's f16 (engines/llamacpp.yaml kv_cache_dtype values).
  const cacheType = params.kv_cache_dtype === undefined || params.kv_cache_dtype === 'auto' || params.kv_cache_dtype === 'fp16' ? 'f16' : String(params.kv_cache_dtype);
  const kv = kvShapeOf(metadata, cacheType);
  if (kv === null) return;
  const problem = fitProblem({ weightBytes: statSync(modelPath).size, kv, params, gpuMemoryMiB: facts.gpus.map((g) => g.memory_total_mib) });
  if (problem !== null) throw usageError(problem);
}
