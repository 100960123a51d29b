/**
 * A Hugging Face byte-level BPE tokenizer (tokenizer.json + tokenizer_config.json) as llama.cpp's
 * GGUF tokenizer keys, the way llama.cpp's own converter writes them (convert_hf_to_gguf.py,
 * gguf-py/gguf/vocab.py): tokens by id, merges as "left right" strings, token types (vocabulary
 * entries normal, special added tokens control, other added tokens user-defined, padding rows
 * unused), the pre-tokenizer name, special ids and the chat template.
 */
import type { MetadataValue } from './gguf-writer.ts';

/** llama.cpp's token types (llama_token_type in gguf-py constants). */
export const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

interface TokenizerJson {
  readonly added_tokens: ReadonlyArray<{ id: number; content: string; special: boolean }>;
  readonly model: { type: string; vocab: Record<string, number>; merges: ReadonlyArray<string | readonly [string, string]> };
}

export interface BpeVocabularyOptions {
  /** Rows the model has (config vocab_size); ids past the tokenizer's are padding. */
  readonly size: number;
  readonly pre: string;
  readonly bosId: number;
  readonly eosId: number;
  readonly padId: number | null;
  readonly addBos: boolean;
}

export interface BpeVocabulary {
  readonly tokens: string[];
  readonly types: number[];
  readonly merges: string[];
  readonly chatTemplate: string | null;
  readonly metadata: Array<[string, MetadataValue]>;
}

/** GPT-2's byte ↔ printable character table: byte-level BPE writes every byte as one character. */
function byteDecoder(): Map<string, number> {
  const printable = [...range(0x21, 0x7e), ...range(0xa1, 0xac), ...range(0xae, 0xff)];
  const decoder = new Map<string, number>();
  let extra = 0;
  for (let byte = 0; byte < 256; byte++) {
    const code = printable.includes(byte) ? byte : 256 + extra++;
    decoder.set(String.fromCodePoint(code), byte);
  }
  return decoder;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const BYTES = byteDecoder();
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Whether a byte-level token is whole UTF-8 text on its own (not a piece of a character). */
export function decodesToText(token: string): boolean {
  const bytes: number[] = [];
  for (const char of token) {
    const byte = BYTES.get(char);
    if (byte === undefined) return false;
    bytes.push(byte);
  }
  try {
    UTF8.decode(new Uint8Array(bytes));
    return true;
  } catch {
    return false;
  }
}

export function bpeVocabulary(tokenizerJson: unknown, tokenizerConfig: unknown, options: BpeVocabularyOptions): BpeVocabulary {
  const json = tokenizerJson as TokenizerJson;
  if (json.model?.type !== 'BPE') throw new Error(`tokenizer.json: model.type is ${String(json.model?.type)}, not BPE`);
  const tokens: string[] = new Array(options.size);
  const types: number[] = new Array(options.size).fill(TOKEN_TYPE.normal);
  for (const [token, id] of Object.entries(json.model.vocab)) tokens[id] = token;
  for (const added of json.added_tokens) {
    tokens[added.id] = added.content;
    types[added.id] = added.special ? TOKEN_TYPE.control : TOKEN_TYPE.userDefined;
  }
  for (let id = 0; id < options.size; id++) {
    if (tokens[id] === undefined) {
      tokens[id] = `[PAD${id}]`;
      types[id] = TOKEN_TYPE.unused;
    }
  }
  if (tokens.length !== options.size) throw new Error(`tokenizer.json has ids beyond the model's ${options.size} rows`);
  const merges = json.model.merges.map((merge) => (typeof merge === 'string' ? merge : `${merge[0]} ${merge[1]}`));
  const chatTemplate = (tokenizerConfig as { chat_template?: unknown }).chat_template;
  const template = typeof chatTemplate === 'string' ? chatTemplate : null;
  const metadata: Array<[string, MetadataValue]> = [
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'string', value: options.pre }],
    ['tokenizer.ggml.tokens', { type: 'string[]', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'i32[]', value: types }],
    ['tokenizer.ggml.merges', { type: 'string[]', value: merges }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', value: options.bosId }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: options.eosId }],
    ...(options.padId !== null ? ([['tokenizer.ggml.padding_token_id', { type: 'u32', value: options.padId }]] as Array<[string, MetadataValue]>) : []),
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: options.addBos }],
    ...(template !== null ? ([['tokenizer.chat_template', { type: 'string', value: template }]] as Array<[string, MetadataValue]>) : []),
  ];
  return { tokens, types, merges, chatTemplate: template, metadata };
}

/**
 * The tokens random weights must never sample: every non-normal token (control tokens end or break
 * a stream; user-defined ones such as <think> switch servers into reasoning or tool parsing) and
 * normal tokens that are a piece of a UTF-8 character (the server holds them back, or emits U+FFFD).
 */
export function maskedTokens(vocabulary: Pick<BpeVocabulary, 'tokens' | 'types'>): boolean[] {
  return vocabulary.types.map((type, id) => type !== TOKEN_TYPE.normal || !decodesToText(vocabulary.tokens[id]!));
}
