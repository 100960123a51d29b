/** Facts about the machine a run happened on (GPU facts come from telemetry). */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { huggingFaceCacheDir } from '../tokenizer/locate.ts';
import { cpus, release, totalmem, type } from 'node:os';
import { fileURLToPath } from 'node:url';

export function hostFacts(): { cpu_model: string; cpus: number; memory_bytes: number; os: string } {
  return { cpu_model: cpus()[0]?.model.trim() ?? 'unknown', cpus: cpus().length, memory_bytes: totalmem(), os: `${type()} ${release()}` };
}

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

/** The harness checkout's commit and whether it had uncommitted changes (null outside git). */
export function harnessGit(): { commit: string | null; dirty: boolean | null } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { commit, dirty: status.trim() !== '' };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** Largest local model file hashed for provenance; larger ones are identified by size and mtime. */
const HASH_LIMIT_BYTES = 512 * 1024 * 1024;

/**
 * Which exact model a run used: for a Hugging Face id in the local cache, the revision refs/main
 * points to; for a local file, its sha256 (or size and mtime when it is too large to hash now).
 */
export function modelRevision(model: string): string | null {
  if (existsSync(model) && statSync(model).isFile()) {
    const { size, mtimeMs } = statSync(model);
    if (size > HASH_LIMIT_BYTES) return `size:${size},mtime:${Math.round(mtimeMs)}`;
    return `sha256:${createHash('sha256').update(readFileSync(model)).digest('hex')}`;
  }
  const ref = join(huggingFaceCacheDir(), `models--${model.replace('/', '--')}`, 'refs', 'main');
  return existsSync(ref) ? readFileSync(ref, 'utf8').trim() : null;
}
