/**
 * Fetching a model's tokenizer files from the Hugging Face Hub into the local Hugging Face cache
 * (models--ORG--NAME/snapshots/REV/, refs/main), so later runs and other tools find them offline.
 * $HF_ENDPOINT picks another hub (a mirror, or the tests' local fake); $HF_TOKEN authenticates
 * gated models. Only at set-up, never while measuring.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, interceptors, request } from 'undici';
import { usageError } from '../errors.ts';
import { huggingFaceCacheDir } from './locate.ts';

// The Hub redirects large files to its CDN.
const FOLLOW_REDIRECTS = new Agent().compose(interceptors.redirect({ maxRedirections: 5 }));

const FILES = [
  { name: 'tokenizer.json', required: true },
  { name: 'tokenizer_config.json', required: false },
] as const;

export async function downloadTokenizer(modelId: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const endpoint = (env['HF_ENDPOINT'] ?? 'https://huggingface.co').replace(/\/+$/, '');
  const headers: Record<string, string> = env['HF_TOKEN'] ? { authorization: `Bearer ${env['HF_TOKEN']}` } : {};
  const fetched: Array<{ name: string; bytes: Buffer; revision: string | null }> = [];
  for (const file of FILES) {
    let response;
    try {
      response = await request(`${endpoint}/${modelId}/resolve/main/${file.name}`, { headers, dispatcher: FOLLOW_REDIRECTS, headersTimeout: 30_000, bodyTimeout: 60_000 });
    } catch (error) {
      throw usageError(`--tokenizer: cannot reach ${endpoint} for ${modelId} (${(error as Error).message}); download the tokenizer files yourself and give their folder`);
    }
    const bytes = Buffer.from(await response.body.arrayBuffer());
    if (response.statusCode === 200) {
      const revision = response.headers['x-repo-commit'];
      fetched.push({ name: file.name, bytes, revision: typeof revision === 'string' ? revision : null });
    } else if (file.required) {
      const hint = response.statusCode === 401 || response.statusCode === 403 ? '; a gated model needs HF_TOKEN' : '';
      throw usageError(`--tokenizer: ${endpoint} answered ${response.statusCode} for ${modelId}/${file.name}${hint}`);
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
