/**
 * Dummy-weight llama-architecture models (as vLLM's --load-format dummy does for benchmarking):
 * the real shapes and compute of a model of a given size, seeded random weights, and a small
 * SentencePiece-style vocabulary with byte fallback (every text tokenizes) — generated into a
 * cache folder, never committed. Outputs are meaningless text; the timing is real.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusWords } from '../../measure/workloads/corpus.ts';
import { TOKEN_TYPE } from '../../measure/models/bpe-vocabulary.ts';
import { architectureMetadata, dummyTensors, parameterCount as weightParameterCount, type WeightShape } from '../../measure/models/dummy-weights.ts';
import { writeGguf, type MetadataValue } from '../../measure/models/gguf-writer.ts';

export { TOKEN_TYPE };

/** Bump when the weights or the file layout change in a way the digest below cannot see. */
const DUMMY_MODEL_FORMAT = 3;


/**
 * The dummy models' chat template, in the GGUF (llama-server and the embedded engine render it)
 * and in the tokenizer folder: role-tagged turns after the BOS, then the assistant's.
 */
export const DUMMY_CHAT_TEMPLATE =
  "{{ bos_token }}{% for message in messages %}{{ message['role'] + ': ' + message['content'] + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ 'assistant:' }}{% endif %}";

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
  const types: number[] = [TOKEN_TYPE.unknown, TOKEN_TYPE.control, TOKEN_TYPE.control];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(TOKEN_TYPE.byte);
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
    types.push(TOKEN_TYPE.normal);
    // Longer pieces score higher, so merges prefer whole words (SentencePiece picks by score).
    scores.push(piece.length - 10);
  }
  return { tokens, scores, types };
}

/** The weight shape of a dummy model: llama architecture, untied output (masked rows). */
function weightShape(shape: ModelShape, vocab: number): WeightShape {
  return {
    arch: 'llama',
    embedding: shape.embedding,
    layers: shape.layers,
    heads: shape.heads,
    kvHeads: shape.kvHeads,
    headDim: shape.embedding / shape.heads,
    feedForward: shape.feedForward,
    vocab,
    context: shape.context,
    ropeTheta: null,
    rmsEps: 1e-5,
    qkNorm: false,
    ropeFactors: [],
    tied: false,
  };
}

export function parameterCount(shape: ModelShape, vocab: number): number {
  return weightParameterCount(weightShape(shape, vocab));
}

/** `chatTemplate`: the GGUF's tokenizer.chat_template (null: none, as some model files have). */
export function writeDummyModel(path: string, shape: ModelShape, seed = 0, chatTemplate: string | null = DUMMY_CHAT_TEMPLATE): void {
  const vocab = dummyVocabulary(shape.vocabWords);
  const weights = weightShape(shape, vocab.tokens.length);
  const metadata: Array<[string, MetadataValue]> = [
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: 'servebench dummy llama' }],
    ['general.file_type', { type: 'u32', value: 1 }],
    ...architectureMetadata(weights),
    ['tokenizer.ggml.model', { type: 'string', value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'string[]', value: vocab.tokens }],
    ['tokenizer.ggml.scores', { type: 'f32[]', value: vocab.scores }],
    ['tokenizer.ggml.token_type', { type: 'i32[]', value: vocab.types }],
    ['tokenizer.ggml.unknown_token_id', { type: 'u32', value: 0 }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', value: 1 }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: 2 }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: true }],
    ...(chatTemplate === null ? [] : [['tokenizer.chat_template', { type: 'string', value: chatTemplate }] as [string, MetadataValue]]),
  ];
  writeGguf(path, metadata, dummyTensors(weights, vocab.types.map((type) => type !== TOKEN_TYPE.normal), seed));
}

/** The model file for a shape in the cache folder, written (atomically) if missing. */
export function ensureDummyModel(cacheDir: string, shapeName: string, seed = 0): string {
  const shape = SHAPES[shapeName];
  if (!shape) throw new Error(`unknown model shape ${shapeName}; known: ${Object.keys(SHAPES).join(', ')}`);
  mkdirSync(cacheDir, { recursive: true });
  // The name carries a digest of everything that defines the file, so a changed vocabulary or
  // shape never reuses a stale cached model.
  const vocab = dummyVocabulary(shape.vocabWords);
  const digest = createHash('sha256').update(JSON.stringify([DUMMY_MODEL_FORMAT, shape, vocab])).digest('hex').slice(0, 10);
  const path = join(cacheDir, `servebench-dummy-${shapeName}-seed${seed}-${digest}.gguf`);
  if (!existsSync(path)) {
    const temp = `${path}.${process.pid}.tmp`;
    writeDummyModel(temp, shape, seed);
    renameSync(temp, path);
  }
  return path;
}

/**
 * A Hugging Face tokenizer.json equivalent to the GGUF's SentencePiece vocabulary (BPE with byte
 * fallback, "▁" for spaces, merges ranked by piece score as SentencePiece picks them, BOS added),
 * plus a chat template equal to the embedded server's: so prompts for a dummy model can be built
 * to exact lengths. The tests check it tokenizes as llama.cpp does.
 */
export function dummyTokenizerJson(shape: ModelShape): { tokenizer: object; config: object } {
  const { tokens, scores } = dummyVocabulary(shape.vocabWords);
  const vocab: Record<string, number> = {};
  tokens.forEach((token, id) => (vocab[token] = id));
  const BYTE_AND_SPECIAL = 259;
  const merges = tokens
    .map((token, id) => ({ token, id, score: scores[id]! }))
    .filter(({ token, id }) => id >= BYTE_AND_SPECIAL && [...token].length > 1)
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .map(({ token }) => {
      const chars = [...token];
      return [chars.slice(0, -1).join(''), chars.at(-1)!];
    });
  const special = ['<unk>', '<s>', '</s>'];
  return {
    tokenizer: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: special.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
      normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] },
      pre_tokenizer: null,
      post_processor: {
        type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
        pair: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
        special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } },
      },
      decoder: { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '▁' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
      model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: true, byte_fallback: true, ignore_merges: false, vocab, merges },
    },
    config: {
      bos_token: '<s>',
      eos_token: '</s>',
      add_bos_token: true,
      chat_template: DUMMY_CHAT_TEMPLATE,
    },
  };
}

/** The tokenizer folder (tokenizer.json, tokenizer_config.json) of a dummy model, written if missing. */
export function ensureDummyTokenizer(modelPath: string, shapeName: string): string {
  const shape = SHAPES[shapeName];
  if (!shape) throw new Error(`unknown model shape ${shapeName}`);
  const dir = `${modelPath}.tokenizer`;
  if (!existsSync(join(dir, 'tokenizer.json'))) {
    const temp = `${dir}.${process.pid}.tmp`;
    mkdirSync(temp, { recursive: true });
    const { tokenizer, config } = dummyTokenizerJson(shape);
    writeFileSync(join(temp, 'tokenizer.json'), JSON.stringify(tokenizer));
    writeFileSync(join(temp, 'tokenizer_config.json'), JSON.stringify(config, null, 2));
    renameSync(temp, dir);
  }
  return dir;
}
