/**
 * The commands that reproduce a run, as one block for a shell: servebench at the commit that made
 * the run, its dependencies, and the same servebench command with the engine image pinned by the
 * digest the run recorded. Options that only name the original machine's folders or terminal
 * are left out; everything else is kept as recorded (secrets were redacted when it was recorded).
 */
import { shellQuote } from './quote.ts';

export interface RunToReproduce {
  /** The servebench command line the result recorded (harness.command). */
  readonly argv: readonly string[];
  readonly gitCommit: string | null;
  /** The engine image as launched (a tag), and the digest docker resolved it to ("repo@sha256:…" or "sha256:…"). */
  readonly image: string | null;
  readonly imageDigest: string | null;
}

export const DEFAULT_REPOSITORY = 'https://github.com/servebench/servebench';

/** Options whose value is a path or a setting of the original machine: not part of what was measured. */
const MACHINE_LOCAL_WITH_VALUE = new Set(['--results-dir']);
const MACHINE_LOCAL_FLAGS = new Set(['--no-progress']);

/** "repo@sha256:…": the image the run used, pinned; null without a digest. */
export function pinnedImage(image: string | null, digest: string | null): string | null {
  if (digest === null || digest === '') return null;
  if (digest.includes('@')) return digest;
  if (image === null) return null;
  // Drop a tag (after the last "/", a ":") or an older digest before pinning.
  const name = image.split('@')[0]!.replace(/(\/[^/:]+|^[^/:]+):[^/]+$/, '$1');
  return `${name}@${digest}`;
}

/** The argv to type: machine-local options out, the image pinned by digest when one was recorded. */
export function reproducibleArgv(run: RunToReproduce): string[] {
  const out: string[] = [];
  const pinned = pinnedImage(run.image, run.imageDigest);
  let sawImage = false;
  for (let i = 0; i < run.argv.length; i++) {
    const arg = run.argv[i]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, null];
    if (MACHINE_LOCAL_FLAGS.has(flag)) continue;
    if (MACHINE_LOCAL_WITH_VALUE.has(flag)) {
      if (inline === null) i++;
      continue;
    }
    if (flag === '--image') {
      sawImage = true;
      const value = inline ?? run.argv[++i] ?? '';
      out.push('--image', pinned ?? value);
      continue;
    }
    out.push(arg);
  }
  // A docker run on the engine's default image recorded no --image: pin the one it used.
  if (!sawImage && pinned !== null && out[1] === 'run') out.push('--image', pinned);
  return out;
}

/** The block: clone, check out the commit, install, run. */
export function reproduceCommand(run: RunToReproduce, repository: string | null): string {
  const repo = (repository ?? DEFAULT_REPOSITORY).replace(/\/$/, '').replace(/\.git$/, '');
  const lines = [`git clone ${shellQuote([`${repo}.git`])} servebench && cd servebench`];
  if (run.gitCommit) lines.push(`git checkout ${shellQuote([run.gitCommit])}`);
  lines.push('npm ci');
  lines.push(`npx ${shellQuote(reproducibleArgv(run))}`);
  return lines.join('\n');
}
