/**
 * The model's tokenizer, as servebench needs it: Hugging Face tokenizer.json (+ tokenizer_config.json
 * with its chat template) from a file, a model folder, or a Hugging Face cache folder
 * (models--ORG--NAME/snapshots/REV). Counts are made the way servers count prompt tokens:
 * a completions prompt with the special tokens the tokenizer adds (BOS), a chat prompt as the
 * rendered chat template (which already holds its special tokens).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { Tokenizer } from '@huggingface/tokenizers';
import { usageError } from '../../lib/errors.ts';
import type { Api } from '../../contract/common.ts';
import type { TokenCounter } from './token-counter.ts';
import { downloadTokenizer } from './hub-download.ts';
import { resolveTokenizerLocation } from './locate.ts';

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export interface ModelTokenizer extends TokenCounter {
  /** A server's tokenizer (each call a round trip): builds prompts, never counts streamed text. */
  readonly remote?: boolean;
  /** sha256 of tokenizer.json: two runs tokenized alike iff these match. */
  readonly sha256: string;
  encode(text: string, addSpecialTokens?: boolean): number[];
  decode(ids: readonly number[]): string;
  /** Tokens of a completions prompt as the server counts them (special tokens included). */
  countPrompt(text: string): number;
  /** The rendered chat template (with the generation prompt), or null when the model has none. */
  renderChat(messages: readonly ChatMessage[]): string | null;
  /** Tokens of a chat request as the server counts them, or null without a chat template. */
  countChat(messages: readonly ChatMessage[]): number | null;
  readonly hasChatTemplate: boolean;
  /**
   * A one-message request of this API as the server counts it. Chat without a chat template
   * counts the text alone: not what the server counts, so `exact` is false.
   */
  countRequest(api: Api, text: string): { tokens: number; exact: boolean };
}

function readJson(path: string, flag: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw usageError(`${flag}: cannot read ${path} as JSON (${(error as Error).message})`);
  }
}

function chatTemplateOf(config: Record<string, unknown>): string | null {
  const template = config['chat_template'];
  if (typeof template === 'string') return template;
  // Some models ship several named templates; "default" is the one servers use.
  if (Array.isArray(template)) {
    const named = template as Array<{ name?: unknown; template?: unknown }>;
    const chosen = named.find((t) => t.name === 'default') ?? named[0];
    return typeof chosen?.template === 'string' ? chosen.template : null;
  }
  return null;
}

function tokenText(value: unknown): string {
  if (typeof value === 'string') return value;
  const content = (value as { content?: unknown } | null)?.content;
  return typeof content === 'string' ? content : '';
}

/**
 * A tokenizer by path, or by Hugging Face model id from the local cache, downloading it there from
 * the Hub first when it is not cached (set-up time, before anything is measured).
 */
export async function obtainModelTokenizer(pathOrId: string, flag = '--tokenizer', env: NodeJS.ProcessEnv = process.env): Promise<ModelTokenizer> {
  if (resolveTokenizerLocation(pathOrId, flag, env) === null) await downloadTokenizer(pathOrId, env);
  return loadModelTokenizer(pathOrId, flag, env);
}

export function loadModelTokenizer(pathOrId: string, flag = '--tokenizer', env: NodeJS.ProcessEnv = process.env): ModelTokenizer {
  const location = resolveTokenizerLocation(pathOrId, flag, env);
  if (location === null) throw usageError(`${flag}: ${pathOrId} is not in the Hugging Face cache; it is fetched from the Hub when the network allows`);
  const file = statSync(location).isDirectory() ? join(location, 'tokenizer.json') : location;
  if (!existsSync(file)) throw usageError(`${flag}: ${location} has no tokenizer.json; give the model folder or the file itself`);
  const configFile = join(dirname(file), 'tokenizer_config.json');
  const bytes = readFileSync(file);
  const json = readJson(file, flag);
  const config = existsSync(configFile) ? readJson(configFile, flag) : {};
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(json, config);
  } catch (error) {
    throw usageError(`${flag}: ${file} is not a tokenizer this library can load (${(error as Error).message})`);
  }
  return assembleTokenizer({
    name: pathOrId === location ? `${basename(dirname(file))}/${basename(file)}` : pathOrId,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    encode: (text, addSpecialTokens) => tokenizer.encode(text, { add_special_tokens: addSpecialTokens }).ids,
    decode: (ids) => tokenizer.decode([...ids], { skip_special_tokens: true }),
    chatTemplate: chatTemplateOf(config),
    bosToken: tokenText(config['bos_token']),
    eosToken: tokenText(config['eos_token']),
  });
}

/** What a tokenizer source provides; the counting rules on top are the same for every source. */
export interface TokenizerParts {
  readonly name: string;
  readonly sha256: string;
  /** Token ids of a text; with addSpecialTokens, the ones the model adds to a prompt (BOS). */
  encode(text: string, addSpecialTokens: boolean): number[];
  decode(ids: readonly number[]): string;
  readonly chatTemplate: string | null;
  readonly bosToken: string;
  readonly eosToken: string;
  /**
   * Tokens of a rendered chat prompt as the server counts them (default: encoded without adding
   * special tokens, since the template writes its own).
   */
  countRendered?(rendered: string): number;
}

/** A ModelTokenizer from its parts: how servers count completions prompts and chat requests. */
export function assembleTokenizer(parts: TokenizerParts): ModelTokenizer {
  const template = parts.chatTemplate === null ? null : new Template(parts.chatTemplate);
  const special = { bos_token: parts.bosToken, eos_token: parts.eosToken };
  const encode = (text: string, addSpecialTokens = false): number[] => parts.encode(text, addSpecialTokens);
  const countRendered = parts.countRendered ?? ((rendered: string) => encode(rendered).length);
  const renderChat = (messages: readonly ChatMessage[]): string | null =>
    template === null ? null : template.render({ messages: messages.map((m) => ({ ...m })), add_generation_prompt: true, ...special });
  return {
    name: parts.name,
    sha256: parts.sha256,
    count: (text) => encode(text).length,
    encode,
    decode: (ids) => parts.decode(ids),
    countPrompt: (text) => encode(text, true).length,
    renderChat,
    countChat(messages) {
      const rendered = renderChat(messages);
      return rendered === null ? null : countRendered(rendered);
    },
    hasChatTemplate: template !== null,
    countRequest(api, text) {
      if (api === 'completions') return { tokens: encode(text, true).length, exact: true };
      const rendered = renderChat([{ role: 'user', content: text }]);
      return rendered === null ? { tokens: encode(text).length, exact: false } : { tokens: countRendered(rendered), exact: true };
    },
  };
}
