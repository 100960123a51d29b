/** Facts about the machine a run happened on (GPU facts come from telemetry). */
import { execFileSync } from 'node:child_process';
import { cpus, release, totalmem, type } from 'node:os';
import { fileURLToPath } from 'node:url';

export function hostFacts(): { cpu_model: string; cpus: number; memory_bytes: number; os: string } {
  return { cpu_model: cpus()[0]?.model.trim() ?? 'unknown', cpus: cpus().length, memory_bytes: totalmem(), os: `${type()} ${release()}` };
}

const REPO = fileURLToPath(new URL('../../', import.meta.url));

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
