/**
 * Where a tokenizer lives: a path as given, or a Hugging Face model id found in the local Hugging
 * Face cache ($HF_HUB_CACHE, $HF_HOME/hub, or ~/.cache/huggingface/hub), at the revision
 * refs/main points to (else the newest snapshot that has a tokenizer.json).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { usageError } from '../../lib/errors.ts';

export function huggingFaceCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env['HF_HUB_CACHE']) return env['HF_HUB_CACHE'];
  if (env['HF_HOME']) return join(env['HF_HOME'], 'hub');
  return join(homedir(), '.cache', 'huggingface', 'hub');
}

const MODEL_ID = /^[\w.-]+\/[\w.-]+$/;

/**
 * What may name a snapshot folder in the cache: a commit (40 hex, as the Hub names them) or
 * "main" (a download from a hub that named no commit). The name comes from a server (its
 * x-repo-commit header) or from refs/main in the cache; "../../x" must never become a path.
 */
export function isSnapshotName(text: string): boolean {
  return isCommit(text) || text === 'main';
}

/** A git commit as the Hub writes it: 40 lower-case hex digits. */
export function isCommit(text: string): boolean {
  return /^[0-9a-f]{40}$/.test(text);
}

export function isModelId(text: string): boolean {
  return MODEL_ID.test(text);
}

/** The folder or file to load, or null when a model id is not in the cache (yet). */
export function resolveTokenizerLocation(pathOrId: string, flag: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (existsSync(pathOrId)) return pathOrId;
  if (!MODEL_ID.test(pathOrId)) throw usageError(`${flag}: ${pathOrId} does not exist; give a tokenizer.json, its folder, or a Hugging Face model id (org/name)`);
  const cache = huggingFaceCacheDir(env);
  const repo = join(cache, `models--${pathOrId.replace('/', '--')}`);
  const snapshots = join(repo, 'snapshots');
  if (!existsSync(snapshots)) return null;
  const mainRef = join(repo, 'refs', 'main');
  const ref = existsSync(mainRef) ? readFileSync(mainRef, 'utf8').trim() : '';
  // A ref that is not a snapshot's name is ignored (the newest snapshot is taken), never followed out of the cache.
  if (isSnapshotName(ref) && existsSync(join(snapshots, ref, 'tokenizer.json'))) return join(snapshots, ref);
  const candidates = readdirSync(snapshots)
    .map((name) => join(snapshots, name))
    .filter((dir) => existsSync(join(dir, 'tokenizer.json')))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (candidates.length === 0) throw usageError(`${flag}: the cached ${pathOrId} has no tokenizer.json in ${snapshots}`);
  return candidates[0]!;
}
