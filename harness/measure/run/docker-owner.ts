/**
 * Which servebench a container belongs to, and removing the ones whose servebench is gone. Every
 * container servebench starts carries two labels: servebench.run (the run id) and servebench.owner
 * (the servebench process). A servebench killed before it could remove its container (and before
 * its watchdog could: the host rebooted, the watchdog was killed too) left it running, holding its
 * GPUs, with nothing to stop it; `run` now removes such leftovers before it starts a container.
 *
 * The owner is "<pid>:<start ticks>:<boot>:<pid namespace>". A pid alone would not do: pids are
 * reused, and a servebench in another container sharing the docker daemon has pids of its own
 * namespace. A container is a leftover only when its owner lived in this boot and this pid
 * namespace and that process is gone; anything else (another host on the same daemon, another
 * namespace, a label not ours) is left alone, since from here it cannot be told apart from a live run.
 */
import { createHash } from 'node:crypto';
import { bootId, pidNamespace, processStartTicks, sameProcessAlive } from '../../lib/process/process-identity.ts';

export const RUN_LABEL = 'servebench.run';
export const OWNER_LABEL = 'servebench.owner';

interface Owner {
  readonly pid: number;
  readonly startTicks: string;
  readonly boot: string;
  readonly namespace: string;
}

/** The boot id, hashed: enough to tell boots apart, and nothing about the machine in a published command. */
function bootTag(): string {
  return createHash('sha256').update(bootId() ?? 'unknown').digest('hex').slice(0, 12);
}

/** This servebench process, as the owner label's value. */
export function ownerLabel(): string {
  return `${process.pid}:${processStartTicks(process.pid) ?? '-'}:${bootTag()}:${pidNamespace() ?? '-'}`;
}

function parseOwner(text: string): Owner | null {
  const match = /^(\d+):(\d+|-):([0-9a-f]{12}):(\d+|-)$/.exec(text.trim());
  return match ? { pid: Number(match[1]), startTicks: match[2]!, boot: match[3]!, namespace: match[4]! } : null;
}

/** Whether the labelled owner is known, from here, to be gone (never true for an owner this host cannot check). */
export function ownerGone(label: string): boolean {
  const owner = parseOwner(label);
  if (owner === null || owner.boot !== bootTag() || owner.namespace !== (pidNamespace() ?? '-')) return false;
  return !sameProcessAlive(owner.pid, owner.startTicks === '-' ? null : owner.startTicks);
}

/** `docker ps` lines as the format below prints them: "<name>\t<owner label>". */
export const LEFTOVER_PS_ARGS = ['ps', '--all', '--filter', `label=${OWNER_LABEL}`, '--format', `{{.Names}}\t{{.Label "${OWNER_LABEL}"}}`] as const;

/** The containers among `docker ps` output whose owner is gone. */
export function leftoverContainers(psOutput: string): string[] {
  return psOutput
    .split('\n')
    .map((line) => line.split('\t'))
    .filter(([name, owner]) => name && owner !== undefined && ownerGone(owner))
    .map(([name]) => name!);
}
