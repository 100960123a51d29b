/**
 * A GGUF model's own vocabulary as the tokenizer: llama.cpp itself (node-llama-cpp, the model loaded
 * vocabulary-only, no weights) tokenizes, so prompt lengths are exactly what llama-server counts.
 * Counts follow llama-server: a completions prompt gets BOS when the model asks for it
 * (tokenizer.ggml.add_bos_token) and special-token text is parsed as special tokens; a chat prompt
 * is the GGUF's chat template rendered (its leading BOS text dropped when BOS is added, its
 * trailing EOS text when EOS is: common/chat.cpp), then tokenized the same way. The embedded engine
 * evaluates the tokens of these same rules (llamaServerPrompts), so what the harness builds and
 * counts is what that engine runs.
 */
import { createHash } from 'node:crypto';
import { getLlama, readGgufFileInfo, type LlamaModel, type Token } from 'node-llama-cpp';
import { usageError } from '../../lib/errors.ts';
import { assembleTokenizer, type ChatMessage, type ModelTokenizer } from './hf-tokenizer.ts';

export interface TokenizerMetadata {
  readonly ggml?: {
    readonly model?: string;
    readonly pre?: string;
    readonly tokens?: readonly string[];
    readonly merges?: readonly string[];
    readonly token_type?: readonly number[];
    readonly bos_token_id?: number;
    readonly eos_token_id?: number;
    readonly add_bos_token?: boolean;
    readonly add_eos_token?: boolean;
  };
  readonly chat_template?: string;
}

export function isGgufPath(path: string): boolean {
  return /\.gguf$/i.test(path);
}

/** Loaded vocabularies by path: one llama.cpp vocabulary per model file and process. */
const loaded = new Map<string, Promise<ModelTokenizer>>();

export function loadGgufTokenizer(path: string): Promise<ModelTokenizer> {
  let tokenizer = loaded.get(path);
  if (!tokenizer) {
    tokenizer = openGgufTokenizer(path);
    loaded.set(path, tokenizer);
    tokenizer.catch(() => loaded.delete(path));
  }
  return tokenizer;
}

async function openGgufTokenizer(path: string): Promise<ModelTokenizer> {
  let metadata: TokenizerMetadata;
  let model: LlamaModel;
  try {
    const info = await readGgufFileInfo(path, { readTensorInfo: false });
    metadata = ((info.metadata as { tokenizer?: TokenizerMetadata }).tokenizer ?? {}) as TokenizerMetadata;
    const llama = await getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: 'error' as never });
    model = await llama.loadModel({ modelPath: path, vocabOnly: true });
  } catch (error) {
    throw usageError(`${path}: cannot read its vocabulary with llama.cpp (${(error as Error).message})`);
  }
  return llamaServerPrompts(model, metadata, `gguf:${path.split('/').at(-1)}`).tokenizer;
}

/** A loaded model's requests as llama-server tokenizes them, and the tokenizer that counts them alike. */
export interface LlamaServerPrompts {
  readonly tokenizer: ModelTokenizer;
  /** A completions prompt: BOS (and EOS) as the model asks for them, special-token text parsed. */
  promptIds(text: string): number[];
  /** A chat request: the chat template rendered with the generation prompt, then tokenized; null without a template. */
  chatIds(messages: readonly ChatMessage[]): number[] | null;
}

export function llamaServerPrompts(model: LlamaModel, metadata: TokenizerMetadata, name: string): LlamaServerPrompts {
  const ggml = metadata.ggml ?? {};
  const tokens = ggml.tokens ?? [];
  // The vocabulary as the model defines it (everything that changes tokenization or the template).
  const sha256 = createHash('sha256')
    .update(JSON.stringify([ggml.model, ggml.pre, tokens, ggml.merges ?? null, ggml.token_type ?? null, ggml.bos_token_id, ggml.eos_token_id, ggml.add_bos_token, ggml.add_eos_token, metadata.chat_template ?? null]))
    .digest('hex');
  const bos = model.tokens.bos;
  const eos = model.tokens.eos;
  const addBos = bos !== null && ggml.add_bos_token !== false;
  const addEos = eos !== null && ggml.add_eos_token === true;
  const bosText = bos === null ? '' : (tokens[bos] ?? '');
  const tokenize = (text: string, addSpecial: boolean): number[] => {
    const ids = model.tokenize(text, true) as number[];
    if (!addSpecial) return ids;
    const withBos = addBos ? [bos as number, ...ids] : ids;
    return addEos ? [...withBos, eos as number] : withBos;
  };
  const eosText = eos === null ? '' : (tokens[eos] ?? '');
  // llama.cpp drops a rendered template's leading BOS text when it adds BOS itself, and its
  // trailing EOS text when it adds EOS (common/chat.cpp), so neither is doubled.
  const renderedIds = (rendered: string): number[] => {
    let text = addBos && bosText !== '' && rendered.startsWith(bosText) ? rendered.slice(bosText.length) : rendered;
    if (addEos && eosText !== '' && text.endsWith(eosText)) text = text.slice(0, -eosText.length);
    return tokenize(text, true);
  };
  const tokenizer = assembleTokenizer({
    name,
    sha256,
    encode: tokenize,
    decode: (ids) => model.detokenize(ids as Token[], false),
    chatTemplate: metadata.chat_template ?? null,
    bosToken: bosText,
    eosToken: eosText,
    countRendered: (rendered) => renderedIds(rendered).length,
  });
  return {
    tokenizer,
    promptIds: (text) => tokenize(text, true),
    chatIds(messages) {
      const rendered = tokenizer.renderChat(messages);
      return rendered === null ? null : renderedIds(rendered);
    },
  };
}
