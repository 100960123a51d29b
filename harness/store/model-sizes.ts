/**
 * How much work a token of a known model is, for the roofline bounds (roofline.ts): the
 * parameters a token's forward pass multiplies (FLOPs per token ≥ 2 × these) and reads (the
 * weights a decode step streams from memory), and how many bits each weight takes at the
 * recorded precision. A model that is not here gets only the generic bounds (physical-bounds.ts).
 *
 * `compute_parameters` are the parameters active for one token less an untied input embedding
 * (a table lookup: no multiplication, one row read), rounded down: the bound must stay above what
 * the model can do. Each figure cites the model's published card or config.json.
 */
import type { RunBlock } from '../contract/result.ts';

export interface ModelSize {
  readonly compute_parameters: number;
  /** Bits per weight of the published checkpoint (gpt-oss ships MXFP4 experts, DeepSeek-V3 FP8). */
  readonly checkpoint_bits: number;
  readonly source: string;
}

const llama = (source: string, computeParameters: number): ModelSize => ({ compute_parameters: computeParameters, checkpoint_bits: 16, source });

const LLAMA_31_8B = llama(
  'https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/blob/main/config.json: 8,030,261,248 parameters, untied embedding 128,256 × 4,096 = 525,336,576',
  7_500_000_000,
);
const LLAMA_70B = llama(
  'https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct/blob/main/config.json: 70,553,706,496 parameters (as Llama 3.1 70B), untied embedding 128,256 × 8,192 = 1,050,673,152',
  69_500_000_000,
);
const LLAMA_32_1B = llama('https://huggingface.co/meta-llama/Llama-3.2-1B-Instruct/blob/main/config.json: 1,235,814,400 parameters, embedding tied (it is the output head too)', 1_235_000_000);
const LLAMA_32_3B = llama('https://huggingface.co/meta-llama/Llama-3.2-3B-Instruct/blob/main/config.json: 3,212,749,824 parameters, embedding tied', 3_212_000_000);
const QWEN3_06B = llama('https://huggingface.co/Qwen/Qwen3-0.6B (0.6B, 0.44B non-embedding; embedding 151,936 × 1,024 tied): 596,049,920 as servebench counts its GGUF', 596_000_000);
const QWEN3_8B = llama('https://huggingface.co/Qwen/Qwen3-8B (8.2B, 6.95B non-embedding; untied output head 151,936 × 4,096 = 622,329,856)', 7_570_000_000);
const QWEN3_32B = llama('https://huggingface.co/Qwen/Qwen3-32B (32.8B, 31.2B non-embedding; untied output head 151,936 × 5,120 = 777,912,320)', 31_900_000_000);
const QWEN3_30B_A3B = llama('https://huggingface.co/Qwen/Qwen3-30B-A3B (30.5B total, 3.3B activated, less the untied embedding 151,936 × 2,048 = 311,164,928)', 2_980_000_000);
const QWEN3_235B_A22B = llama('https://huggingface.co/Qwen/Qwen3-235B-A22B (235B total, 22B activated, less the untied embedding 151,936 × 4,096)', 21_300_000_000);
const MISTRAL_7B = llama('https://huggingface.co/mistralai/Mistral-7B-Instruct-v0.3 (7.25B; untied embedding 32,768 × 4,096 = 134,217,728)', 7_110_000_000);
const MIXTRAL_8X7B = llama('https://mistral.ai/news/mixtral-of-experts (46.7B total, 12.9B used per token; untied embedding 32,000 × 4,096)', 12_700_000_000);
const MIXTRAL_8X22B = llama('https://mistral.ai/news/mixtral-8x22b (141B total, 39B active; untied embedding 32,768 × 6,144)', 38_700_000_000);
const DEEPSEEK_V3: ModelSize = {
  compute_parameters: 36_000_000_000,
  checkpoint_bits: 8,
  source: 'https://huggingface.co/deepseek-ai/DeepSeek-V3 (671B total, 37B activated per token; FP8 weights; untied embedding 129,280 × 7,168 = 926,679,040)',
};
const GPT_OSS_120B: ModelSize = {
  compute_parameters: 4_500_000_000,
  checkpoint_bits: 4.25,
  source: 'https://huggingface.co/openai/gpt-oss-120b (117B parameters, 5.1B active per token; MoE weights in MXFP4, 4.25 bits; untied embedding 201,088 × 2,880 = 579,133,440)',
};
const GPT_OSS_20B: ModelSize = {
  compute_parameters: 3_000_000_000,
  checkpoint_bits: 4.25,
  source: 'https://huggingface.co/openai/gpt-oss-20b (21B parameters, 3.6B active per token; MXFP4 MoE weights; untied embedding 201,088 × 2,880)',
};

/** By model id, lower-cased, exactly as recorded (a re-upload under another name may be quantized differently: not matched). */
export const MODEL_SIZES: ReadonlyMap<string, ModelSize> = new Map([
  ['meta-llama/llama-3.1-8b', LLAMA_31_8B],
  ['meta-llama/llama-3.1-8b-instruct', LLAMA_31_8B],
  ['meta-llama/meta-llama-3.1-8b-instruct', LLAMA_31_8B],
  ['meta-llama/llama-3.1-70b', LLAMA_70B],
  ['meta-llama/llama-3.1-70b-instruct', LLAMA_70B],
  ['meta-llama/llama-3.3-70b-instruct', LLAMA_70B],
  ['meta-llama/llama-3.2-1b', LLAMA_32_1B],
  ['meta-llama/llama-3.2-1b-instruct', LLAMA_32_1B],
  ['dummy/llama-3.2-1b-instruct', LLAMA_32_1B],
  ['meta-llama/llama-3.2-3b', LLAMA_32_3B],
  ['meta-llama/llama-3.2-3b-instruct', LLAMA_32_3B],
  ['qwen/qwen3-0.6b', QWEN3_06B],
  ['dummy/qwen3-0.6b', QWEN3_06B],
  ['qwen/qwen3-8b', QWEN3_8B],
  ['qwen/qwen3-32b', QWEN3_32B],
  ['qwen/qwen3-30b-a3b', QWEN3_30B_A3B],
  ['qwen/qwen3-235b-a22b', QWEN3_235B_A22B],
  ['mistralai/mistral-7b-instruct-v0.3', MISTRAL_7B],
  ['mistralai/mixtral-8x7b-instruct-v0.1', MIXTRAL_8X7B],
  ['mistralai/mixtral-8x22b-instruct-v0.1', MIXTRAL_8X22B],
  ['deepseek-ai/deepseek-v3', DEEPSEEK_V3],
  ['deepseek-ai/deepseek-r1', DEEPSEEK_V3],
  ['openai/gpt-oss-120b', GPT_OSS_120B],
  ['openai/gpt-oss-20b', GPT_OSS_20B],
]);

/**
 * Bits per weight a precision name allows at the least (GGUF names by their smallest member:
 * Q4_K_M is ~4.8 bits, Q4_0 4.5; IQ1_S 1.56). null: a name this table does not know.
 */
export function bitsOfPrecision(name: string): number | null {
  const n = name.toLowerCase().replace(/[\s_-]/g, '');
  if (/^(fp32|float32|f32|float)$/.test(n)) return 32;
  if (/^(bf16|bfloat16|fp16|float16|f16|half)$/.test(n)) return 16;
  if (/^(fp8|float8|fp8e4m3|fp8e5m2|e4m3|w8a8|int8|modelopt|fbgemmfp8|ptpcfp8|compressedtensors8)$/.test(n)) return 8;
  // GGUF's names (Q8_0, Q4_K_M, IQ1_S), by the digit after the q.
  const gguf = /^i?q(\d)/.exec(n);
  if (gguf) return Number(gguf[1]);
  if (/^(awq|awqmarlin|gptq|gptqmarlin|int4|w4a16|w4a8|bitsandbytes|bnb4bit|nf4|marlin|fp4|nvfp4|mxfp4|modeloptfp4)$/.test(n)) return 4;
  return null;
}

/** The model's work per token at the run's precision, or null when the model is not in the table. */
export function modelWork(model: RunBlock['model']): { size: ModelSize; bits: number } | null {
  const size = MODEL_SIZES.get(model.id.toLowerCase());
  if (!size) return null;
  // The recorded quantization decides; else the dtype can only narrow the checkpoint's width; an unknown name: the narrowest anyone ships.
  const quantBits = model.quantization ? (bitsOfPrecision(model.quantization) ?? 1.5) : null;
  // "auto" is no precision name: bitsOfPrecision gives null, and the checkpoint's width stands.
  const dtypeBits = model.dtype ? bitsOfPrecision(model.dtype) : null;
  const bits = quantBits ?? Math.min(size.checkpoint_bits, dtypeBits ?? size.checkpoint_bits);
  return { size, bits };
}
