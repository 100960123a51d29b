/**
 * The command that reproduces a run (the last line of its Reproduce block): the same servebench
 * command with the engine image pinned by the digest the run recorded. The command is rendered
 * only from its parsed form (recorded-argv.ts): the subcommand and each flag's name come from
 * servebench's own option table, the values were checked against their types, and every word is
 * shell-quoted; nothing else of the recorded argv reaches the block. Options that only name the
 * original machine's folders or terminal are left out.
 */
import type { RecordedCommand, RecordedOption } from '../cli/recorded-argv.ts';
import { shellQuote } from './quote.ts';

export interface RunToReproduce {
  /** The command the result recorded (harness.command), as read by its option table. */
  readonly command: RecordedCommand;
  /** The engine image as launched (a tag), and the digest docker resolved it to ("repo@sha256:…" or "sha256:…"). */
  readonly image: string | null;
  readonly imageDigest: string | null;
}

/**
 * Provenance a reader's own run may not claim: whatever the original was, a run reproduced from
 * this block is a community result (only the fleet's pipeline makes official ones).
 */
const NOT_CLAIMED = new Set(['source']);

/** "repo@sha256:…": the image the run used, pinned; null without a digest. */
export function pinnedImage(image: string | null, digest: string | null): string | null {
  if (digest === null || digest === '') return null;
  if (digest.includes('@')) return digest;
  if (image === null) return null;
  // Drop a tag (after the last "/", a ":") or an older digest before pinning.
  const name = image.split('@')[0]!.replace(/(\/[^/:]+|^[^/:]+):[^/]+$/, '$1');
  return `${name}@${digest}`;
}

/** A flag and its value as servebench's parser takes them back (a value starting with "-" only inline). */
function words(name: string, value: string | null): string[] {
  if (value === null) return [`--${name}`];
  return value.startsWith('-') ? [`--${name}=${value}`] : [`--${name}`, value];
}

/** The argv to type: machine-local options out, the image pinned by digest when one was recorded. */
export function reproducibleArgv(run: RunToReproduce): string[] {
  const out = ['servebench', run.command.command];
  const pinned = pinnedImage(run.image, run.imageDigest);
  const kept = run.command.options.filter((option: RecordedOption) => !option.spec.machineLocal && !NOT_CLAIMED.has(option.spec.name));
  for (const { spec, value } of kept) out.push(...words(spec.name, spec.name === 'image' ? (pinned ?? value) : value));
  // A docker run on the engine's default image recorded no --image: pin the one it used.
  if (pinned !== null && run.command.command === 'run' && !kept.some((option) => option.spec.name === 'image')) out.push('--image', pinned);
  return out;
}

/** The Reproduce block's last line, `npx servebench run …` shell-quoted: what compile publishes per run (runs.reproduce_line; the block around it: harness/contract/reproduce-block.ts). */
export function reproduceLine(run: RunToReproduce): string {
  return `npx ${shellQuote(reproducibleArgv(run))}`;
}
