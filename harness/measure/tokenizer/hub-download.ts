/**
 * Fetching a model's tokenizer files from the Hugging Face Hub into the local Hugging Face cache
 * (models--ORG--NAME/snapshots/REV/, refs/main), so later runs and other tools find them offline.
 * $HF_ENDPOINT picks another hub (a mirror, or the tests' local fake); $HF_TOKEN authenticates
 * gated models. Only at set-up, never while measuring.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, interceptors } from 'undici';
import { usageError } from '../../lib/errors.ts';
import { BoundedReadError, requestBounded, type ReadLimits } from '../../lib/io/bounded-body.ts';
import { huggingFaceCacheDir, isCommit } from './locate.ts';

// The Hub redirects large files to its CDN.
const FOLLOW_REDIRECTS = new Agent().compose(interceptors.redirect({ maxRedirections: 5 }));

/**
 * The largest tokenizer.json files (Gemma's 256k vocabulary) are about 35 MB; 128 MiB is room for
 * bigger vocabularies, not for an endless body. Three minutes for the whole file: a slow link
 * still fits, and it is set-up, not measuring.
 */
export const TOKENIZER_JSON_LIMITS: ReadLimits = { maxBytes: 128 * 1024 * 1024, timeoutMs: 180_000 };
/** tokenizer_config.json holds the chat template and the added tokens: kilobytes, rarely a megabyte. */
export const TOKENIZER_CONFIG_LIMITS: ReadLimits = { maxBytes: 16 * 1024 * 1024, timeoutMs: 60_000 };

const FILES = [
  { name: 'tokenizer.json', required: true, limits: TOKENIZER_JSON_LIMITS },
  { name: 'tokenizer_config.json', required: false, limits: TOKENIZER_CONFIG_LIMITS },
] as const;

export async function downloadTokenizer(modelId: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const endpoint = (env['HF_ENDPOINT'] ?? 'https://huggingface.co').replace(/\/+$/, '');
  const headers: Record<string, string> = env['HF_TOKEN'] ? { authorization: `Bearer ${env['HF_TOKEN']}` } : {};
  const fetched: Array<{ name: string; bytes: Buffer; revision: string | null }> = [];
  for (const file of FILES) {
    let response;
    try {
      response = await requestBounded(`${endpoint}/${modelId}/resolve/main/${file.name}`, { headers, dispatcher: FOLLOW_REDIRECTS }, file.limits);
    } catch (error) {
      if (error instanceof BoundedReadError) throw usageError(`--tokenizer: ${error.message}; download the tokenizer files yourself and give their folder`);
      throw usageError(`--tokenizer: cannot reach ${endpoint} for ${modelId} (${(error as Error).message}); download the tokenizer files yourself and give their folder`);
    }
    const bytes = response.body;
    if (response.status === 200) {
      const revision = response.headers['x-repo-commit'];
      // The commit names the snapshot folder: a mirror's "../../x" would write the file outside the cache.
      if (revision !== undefined && (typeof revision !== 'string' || !isCommit(revision))) {
        throw usageError(`--tokenizer: ${endpoint} sent x-repo-commit ${JSON.stringify(String(revision).slice(0, 80))} for ${modelId}/${file.name}, which is not a commit (40 hex digits); nothing was written. Is HF_ENDPOINT a Hugging Face hub? Else download the tokenizer files yourself and give their folder`);
      }
      fetched.push({ name: file.name, bytes, revision: revision ?? null });
    } else if (file.required) {
      const hint = response.status === 401 || response.status === 403 ? '; a gated model needs HF_TOKEN' : '';
      throw usageError(`--tokenizer: ${endpoint} answered ${response.status} for ${modelId}/${file.name}${hint}`);
    }
  }
  const revision = fetched[0]!.revision ?? 'main';
  const repo = join(huggingFaceCacheDir(env), `models--${modelId.replace('/', '--')}`);
  const snapshot = join(repo, 'snapshots', revision);
  await mkdir(snapshot, { recursive: true });
  await mkdir(join(repo, 'refs'), { recursive: true });
  for (const { name, bytes } of fetched) {
    const temp = join(snapshot, `.${name}.${process.pid}.tmp`);
    await writeFile(temp, bytes);
    await rename(temp, join(snapshot, name));
  }
  await writeFile(join(repo, 'refs', 'main'), revision);
  return snapshot;
}
