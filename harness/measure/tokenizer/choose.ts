/**
 * Which tokenizer builds the prompts, so that their lengths are exact by default. In order:
 * --tokenizer as given; the GGUF model file's own vocabulary (llama.cpp tokenizes); the server's
 * own /tokenize and /detokenize; the model's Hugging Face tokenizer already in the local cache.
 * None of them: lengths are approximate (corpus words), and the caller says so loudly.
 */
import { existsSync } from 'node:fs';
import { isGgufPath, loadGgufTokenizer } from './gguf-tokenizer.ts';
import { loadModelTokenizer, obtainModelTokenizer, type ModelTokenizer } from './hf-tokenizer.ts';
import { isModelId, resolveTokenizerLocation } from './locate.ts';
import { openServerTokenizer } from './server-tokenizer.ts';
import type { TokenizerSource } from '../../contract/vocabulary.ts';


export interface TokenizerChoice {
  readonly tokenizer: ModelTokenizer | null;
  readonly source: TokenizerSource | null;
}

export interface TokenizerHints {
  /** --tokenizer, if given ("none": approximate lengths on purpose). */
  readonly flag: string | null;
  /** The model as launched: a local GGUF file or a Hugging Face id (servebench run). */
  readonly model: string | null;
  /** The name the server serves the model under. */
  readonly servedModel: string;
  /** The server's base URL (origin + base path), for its /tokenize. */
  readonly server: string;
  readonly headers: Record<string, string>;
  /** Whether the server's /tokenize may build the prompts (not for datasets). */
  readonly allowServer?: boolean;
}

function cachedHubTokenizer(id: string): ModelTokenizer | null {
  if (!isModelId(id)) return null;
  try {
    return resolveTokenizerLocation(id, '--model') === null ? null : loadModelTokenizer(id, '--model');
  } catch {
    return null;
  }
}

export async function chooseTokenizer(hints: TokenizerHints): Promise<TokenizerChoice> {
  if (hints.flag === 'none') return { tokenizer: null, source: null };
  if (hints.flag !== null) {
    const tokenizer = isGgufPath(hints.flag) ? await loadGgufTokenizer(hints.flag) : await obtainModelTokenizer(hints.flag);
    return { tokenizer, source: 'flag' };
  }
  if (hints.model !== null && isGgufPath(hints.model) && existsSync(hints.model)) {
    return { tokenizer: await loadGgufTokenizer(hints.model), source: 'gguf' };
  }
  const server = hints.allowServer === false ? null : await openServerTokenizer(hints.server, hints.servedModel, hints.headers);
  if (server !== null) return { tokenizer: server, source: 'server' };
  for (const id of [hints.model, hints.servedModel]) {
    const cached = id === null ? null : cachedHubTokenizer(id);
    if (cached !== null) return { tokenizer: cached, source: 'hf_cache' };
  }
  return { tokenizer: null, source: null };
}
