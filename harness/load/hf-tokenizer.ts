/**
 * A Hugging Face tokenizer (tokenizer.json, with tokenizer_config.json when present) from a local
 * file or folder, as the fallback token counter. Counts exclude special tokens: they are not
 * generated text. (Loading from the Hub cache and exact-length prompts come with workload specs.)
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { usageError } from '../errors.ts';
import type { TokenCounter } from './token-counter.ts';

export interface LoadedTokenizer extends TokenCounter {
  /** sha256 of tokenizer.json: two runs counted with the same tokenizer iff these match. */
  readonly sha256: string;
}

function readJson(path: string, flag: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw usageError(`${flag}: cannot read ${path} as JSON (${(error as Error).message})`);
  }
}

export function loadHfTokenizer(path: string, flag = '--tokenizer'): LoadedTokenizer {
  if (!existsSync(path)) throw usageError(`${flag}: ${path} does not exist; give a tokenizer.json file or a folder that holds one`);
  const file = statSync(path).isDirectory() ? join(path, 'tokenizer.json') : path;
  if (!existsSync(file)) throw usageError(`${flag}: ${path} has no tokenizer.json; give the model folder or the file itself`);
  const configFile = join(dirname(file), 'tokenizer_config.json');
  const bytes = readFileSync(file);
  const json = readJson(file, flag);
  const config = existsSync(configFile) ? readJson(configFile, flag) : {};
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(json as object, config as object);
  } catch (error) {
    throw usageError(`${flag}: ${file} is not a tokenizer this library can load (${(error as Error).message})`);
  }
  return {
    name: basename(dirname(file)) === '.' ? basename(file) : `${basename(dirname(file))}/${basename(file)}`,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    count: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids.length,
  };
}
