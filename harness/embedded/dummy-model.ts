/**
 * Dummy-weight llama-architecture models (as vLLM's --load-format dummy does for benchmarking):
 * the real shapes and compute of a model of a given size, seeded random weights, and a small
 * SentencePiece-style vocabulary with byte fallback (every text tokenizes) — generated into a
 * cache folder, never committed. Outputs are meaningless text; the timing is real.
 */
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { createRng } from '../load/rng.ts';
import { corpusWords } from '../workloads/corpus.ts';
import { GGML_TYPE, writeGguf, type MetadataValue, type TensorSpec } from './gguf-writer.ts';

export interface ModelShape {
  readonly vocabWords: number;
  readonly embedding: number;
  readonly layers: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly feedForward: number;
  readonly context: number;
}

export const SHAPES: Record<string, ModelShape> = {
  // ≈ 25 M parameters.
  tiny: { vocabWords: 2000, embedding: 512, layers: 8, heads: 8, kvHeads: 8, feedForward: 1408, context: 2048 },
  // ≈ 1 M parameters, for tests.
  micro: { vocabWords: 300, embedding: 64, layers: 2, heads: 4, kvHeads: 2, feedForward: 128, context: 512 },
};

/** <unk>, <s>, </s>, 256 byte tokens, then the corpus's most frequent words as "▁word" pieces. */
export function dummyVocabulary(words: number): { tokens: string[]; scores: number[]; types: number[] } {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types = [2, 3, 3];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(6);
  }
  const counts = new Map<string, number>();
  for (const word of corpusWords()) {
    const clean = word.toLowerCase().replace(/[^a-z']/g, '');
    if (clean.length > 1) counts.set(clean, (counts.get(clean) ?? 0) + 1);
  }
  const frequent = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  // SentencePiece merges adjacent pieces only into pieces that exist, so every prefix of a word
  // is a piece too ("▁t", "▁th", "▁the"); letters cover the inside of other words.
  // "▁" alone too: a space before anything else (digits, emoji) must not fall back to its bytes.
  const pieces = new Set<string>(['▁', ...'abcdefghijklmnopqrstuvwxyz'.split('').flatMap((l) => [`▁${l}`, l])]);
  for (const [word] of frequent) {
    if (pieces.size >= words) break;
    for (let end = 2; end <= word.length; end++) pieces.add(`▁${word.slice(0, end)}`);
  }
  const scores = tokens.map(() => 0);
  for (const piece of pieces) {
    tokens.push(piece);
    types.push(1);
    // Longer pieces score higher, so merges prefer whole words (SentencePiece picks by score).
    scores.push(piece.length - 10);
  }
  return { tokens, scores, types };
}

export function parameterCount(shape: ModelShape, vocab: number): number {
  const head = shape.embedding / shape.heads;
  const kv = head * shape.kvHeads;
  const perLayer = 2 * shape.embedding * shape.embedding + 2 * shape.embedding * kv + 3 * shape.embedding * shape.feedForward + 2 * shape.embedding;
  return shape.layers * perLayer + 2 * vocab * shape.embedding + shape.embedding;
}

export function writeDummyModel(path: string, shape: ModelShape, seed = 0): void {
  const vocab = dummyVocabulary(shape.vocabWords);
  const n = vocab.tokens.length;
  const head = shape.embedding / shape.heads;
  const kv = head * shape.kvHeads;
  const metadata: Array<[string, MetadataValue]> = [
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: 'servebench dummy llama' }],
    ['general.file_type', { type: 'u32', value: 1 }],
    ['llama.context_length', { type: 'u32', value: shape.context }],
    ['llama.embedding_length', { type: 'u32', value: shape.embedding }],
    ['llama.block_count', { type: 'u32', value: shape.layers }],
    ['llama.feed_forward_length', { type: 'u32', value: shape.feedForward }],
    ['llama.attention.head_count', { type: 'u32', value: shape.heads }],
    ['llama.attention.head_count_kv', { type: 'u32', value: shape.kvHeads }],
    ['llama.rope.dimension_count', { type: 'u32', value: head }],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
    ['llama.vocab_size', { type: 'u32', value: n }],
    ['tokenizer.ggml.model', { type: 'string', value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'string[]', value: vocab.tokens }],
    ['tokenizer.ggml.scores', { type: 'f32[]', value: vocab.scores }],
    ['tokenizer.ggml.token_type', { type: 'i32[]', value: vocab.types }],
    ['tokenizer.ggml.unknown_token_id', { type: 'u32', value: 0 }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', value: 1 }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: 2 }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: true }],
  ];
  const rng = createRng(seed, 'dummy-weights');
  const random = (scale: number) => (out: Float32Array) => {
    for (let i = 0; i < out.length; i++) out[i] = (rng.next() * 2 - 1) * scale;
  };
  const ones = (out: Float32Array): void => void out.fill(1);
  const matrix = (name: string, cols: number, rows: number): TensorSpec => ({ name, dims: [cols, rows], type: GGML_TYPE.F16, fill: random(1 / Math.sqrt(cols)) });
  const norm = (name: string): TensorSpec => ({ name, dims: [shape.embedding], type: GGML_TYPE.F32, fill: ones });
  const tensors: TensorSpec[] = [matrix('token_embd.weight', shape.embedding, n)];
  for (let layer = 0; layer < shape.layers; layer++) {
    const b = `blk.${layer}`;
    tensors.push(
      norm(`${b}.attn_norm.weight`),
      matrix(`${b}.attn_q.weight`, shape.embedding, shape.embedding),
      matrix(`${b}.attn_k.weight`, shape.embedding, kv),
      matrix(`${b}.attn_v.weight`, shape.embedding, kv),
      matrix(`${b}.attn_output.weight`, shape.embedding, shape.embedding),
      norm(`${b}.ffn_norm.weight`),
      matrix(`${b}.ffn_gate.weight`, shape.embedding, shape.feedForward),
      matrix(`${b}.ffn_up.weight`, shape.embedding, shape.feedForward),
      matrix(`${b}.ffn_down.weight`, shape.feedForward, shape.embedding),
    );
  }
  tensors.push(norm('output_norm.weight'), matrix('output.weight', shape.embedding, n));
  writeGguf(path, metadata, tensors);
}

/** The model file for a shape in the cache folder, written (atomically) if missing. */
export function ensureDummyModel(cacheDir: string, shapeName: string, seed = 0): string {
  const shape = SHAPES[shapeName];
  if (!shape) throw new Error(`unknown model shape ${shapeName}; known: ${Object.keys(SHAPES).join(', ')}`);
  mkdirSync(cacheDir, { recursive: true });
  const path = join(cacheDir, `servebench-dummy-${shapeName}-seed${seed}.gguf`);
  if (!existsSync(path)) {
    const temp = `${path}.${process.pid}.tmp`;
    writeDummyModel(temp, shape, seed);
    renameSync(temp, path);
  }
  return path;
}
