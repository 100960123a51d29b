/**
 * Seeded random weights for llama-family transformers (llama.cpp's `llama` and `qwen3`
 * architectures), as GGUF tensors plus the architecture's metadata keys, with the tokens a real
 * server must never stream masked out: the compute and memory traffic of the real shape, outputs
 * that are meaningless text, timings that are real.
 */
import { createRng } from '../../lib/rng.ts';
import { GGML_TYPE, type MetadataValue, type TensorSpec } from './gguf-writer.ts';

/** A llama-family transformer's dimensions, as its config.json gives them. */
export interface TransformerDims {
  /** llama.cpp's architecture name (general.architecture). */
  readonly arch: 'llama' | 'qwen3';
  readonly embedding: number;
  readonly layers: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly feedForward: number;
}

export interface WeightShape extends TransformerDims {
  /** Rows of the embedding (and output) matrix. */
  readonly vocab: number;
  readonly context: number;
  readonly ropeTheta: number | null;
  readonly rmsEps: number;
  readonly qkNorm: boolean;
  /** Llama 3 rope frequency factors (the rope_freqs tensor), or none. */
  readonly ropeFactors: readonly number[];
  /**
   * Whether the output projection is the embedding matrix (tie_word_embeddings, as in Qwen3-0.6B and
   * Llama-3.2-1B): no output.weight is written, and llama.cpp reuses token_embd.
   */
  readonly tied: boolean;
}

/** The residual dimension held constant, its value, and the output weight that masks a token. */
const HELD_DIMENSION = 0;
const HELD_VALUE = 4;
const MASK_WEIGHT = 4;

export function architectureMetadata(shape: WeightShape): Array<[string, MetadataValue]> {
  const a = shape.arch;
  const u32 = (value: number): MetadataValue => ({ type: 'u32', value });
  return [
    [`${a}.context_length`, u32(shape.context)],
    [`${a}.embedding_length`, u32(shape.embedding)],
    [`${a}.block_count`, u32(shape.layers)],
    [`${a}.feed_forward_length`, u32(shape.feedForward)],
    [`${a}.attention.head_count`, u32(shape.heads)],
    [`${a}.attention.head_count_kv`, u32(shape.kvHeads)],
    // Given whenever head_dim ≠ embedding / heads (Qwen3: 128 on a 1024 residual with 16 heads).
    ...(shape.headDim !== shape.embedding / shape.heads ? ([[`${a}.attention.key_length`, u32(shape.headDim)], [`${a}.attention.value_length`, u32(shape.headDim)]] as Array<[string, MetadataValue]>) : []),
    [`${a}.rope.dimension_count`, u32(shape.headDim)],
    ...(shape.ropeTheta !== null ? ([[`${a}.rope.freq_base`, { type: 'f32', value: shape.ropeTheta }]] as Array<[string, MetadataValue]>) : []),
    [`${a}.attention.layer_norm_rms_epsilon`, { type: 'f32', value: shape.rmsEps }],
    [`${a}.vocab_size`, u32(shape.vocab)],
  ];
}

/**
 * The tensors, filled when written. Random weights must never generate a token a real server
 * refuses to stream (`masked`). Residual dimension 0 is held at a positive constant: every
 * embedding has it, no layer writes to it (row 0 of the attention output and of the FFN down
 * projection is zero), so after the final RMS norm it is positive at every position of a text
 * token; the output rows of masked tokens weigh only that dimension, negatively, so their logits
 * sit far below every other token's at any temperature. Tied: the masked tokens' embedding rows
 * are those output rows (only their own positions are affected, never the next token's logits).
 */
export function dummyTensors(shape: WeightShape, masked: readonly boolean[], seed: number): TensorSpec[] {
  const n = shape.vocab;
  const e = shape.embedding;
  const q = shape.headDim * shape.heads;
  const kv = shape.headDim * shape.kvHeads;
  const rng = createRng(seed, 'dummy-weights');
  const random = (scale: number) => (out: Float32Array) => {
    for (let i = 0; i < out.length; i++) out[i] = (rng.next() * 2 - 1) * scale;
  };
  const ones = (out: Float32Array): void => void out.fill(1);
  const matrix = (name: string, cols: number, rows: number, adjust?: (out: Float32Array) => void): TensorSpec => ({
    name,
    dims: [cols, rows],
    type: GGML_TYPE.F16,
    fill(out) {
      random(1 / Math.sqrt(cols))(out);
      adjust?.(out);
    },
  });
  const vector = (name: string, length: number, fill: (out: Float32Array) => void = ones): TensorSpec => ({ name, dims: [length], type: GGML_TYPE.F32, fill });
  const noWriteToHeld = (cols: number) => (out: Float32Array): void => void out.fill(0, HELD_DIMENSION * cols, (HELD_DIMENSION + 1) * cols);
  const maskRows = (out: Float32Array, heldForText: number): void => {
    for (let token = 0; token < n; token++) {
      const row = token * e;
      if (masked[token]) out.fill(0, row, row + e);
      out[row + HELD_DIMENSION] = masked[token] ? -MASK_WEIGHT : heldForText;
    }
  };
  const tensors: TensorSpec[] = [
    matrix('token_embd.weight', e, n, (out) => {
      if (shape.tied) maskRows(out, HELD_VALUE);
      else for (let token = 0; token < n; token++) out[token * e + HELD_DIMENSION] = HELD_VALUE;
    }),
  ];
  if (shape.ropeFactors.length > 0) tensors.push(vector('rope_freqs.weight', shape.ropeFactors.length, (out) => out.set(shape.ropeFactors)));
  for (let layer = 0; layer < shape.layers; layer++) {
    const b = `blk.${layer}`;
    tensors.push(
      vector(`${b}.attn_norm.weight`, e),
      matrix(`${b}.attn_q.weight`, e, q),
      matrix(`${b}.attn_k.weight`, e, kv),
      matrix(`${b}.attn_v.weight`, e, kv),
      ...(shape.qkNorm ? [vector(`${b}.attn_q_norm.weight`, shape.headDim), vector(`${b}.attn_k_norm.weight`, shape.headDim)] : []),
      matrix(`${b}.attn_output.weight`, q, e, noWriteToHeld(q)),
      vector(`${b}.ffn_norm.weight`, e),
      matrix(`${b}.ffn_gate.weight`, e, shape.feedForward),
      matrix(`${b}.ffn_up.weight`, e, shape.feedForward),
      matrix(`${b}.ffn_down.weight`, shape.feedForward, e, noWriteToHeld(shape.feedForward)),
    );
  }
  tensors.push(vector('output_norm.weight', e));
  if (!shape.tied) tensors.push(matrix('output.weight', e, n, (out) => maskRows(out, 0)));
  return tensors;
}

/** Parameters of the shape (the embedding counted once when tied). */
export function parameterCount(shape: WeightShape): number {
  const q = shape.headDim * shape.heads;
  const kv = shape.headDim * shape.kvHeads;
  const perLayer = 2 * shape.embedding * q + 2 * shape.embedding * kv + 3 * shape.embedding * shape.feedForward + 2 * shape.embedding + (shape.qkNorm ? 2 * shape.headDim : 0);
  return shape.layers * perLayer + (shape.tied ? 1 : 2) * shape.vocab * shape.embedding + shape.embedding;
}
