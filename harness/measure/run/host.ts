/** Facts about the machine a run happened on (GPU facts come from telemetry). */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { huggingFaceCacheDir } from '../tokenizer/locate.ts';
import { cpus, release, totalmem, type } from 'node:os';
import { fileURLToPath } from 'node:url';

export interface HostFacts {
  cpu_model: string;
  cpus: number;
  memory_bytes: number;
  os: string;
  virtualization: string | null;
  cpu_governor: string | null;
  steal_pct: number | null;
}

/** Cumulative CPU time of all CPUs from /proc/stat (jiffies), or null where it is not readable. */
export interface CpuTimes {
  readonly total: number;
  readonly steal: number;
}

export function cpuTimes(): CpuTimes | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user)
    const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return null;
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7]! };
  } catch {
    return null;
  }
}

function readTrimmed(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/**
 * Whether the CPUs are a virtual machine's (shared with other tenants, so steal time and noisy
 * neighbours apply): the hypervisor's name (systemd-detect-virt --vm, else DMI), "none" on bare
 * metal, null when neither /proc/cpuinfo nor those say.
 */
export function virtualization(): string | null {
  const cpuinfo = readTrimmed('/proc/cpuinfo');
  if (cpuinfo === null) return null;
  if (!/^flags\s*:.*\bhypervisor\b/m.test(cpuinfo)) return 'none';
  try {
    const name = execFileSync('systemd-detect-virt', ['--vm'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim();
    if (name !== '' && name !== 'none') return name;
  } catch {
    // Not installed, or it could not tell: DMI next.
  }
  return readTrimmed('/sys/class/dmi/id/sys_vendor') ?? 'unknown hypervisor';
}

/** `since`: CPU times at the start of the window whose steal time is reported. */
export function hostFacts(since: CpuTimes | null = null): HostFacts {
  const now = since === null ? null : cpuTimes();
  const elapsed = since !== null && now !== null ? now.total - since.total : 0;
  return {
    cpu_model: cpus()[0]?.model.trim() ?? 'unknown',
    cpus: cpus().length,
    memory_bytes: totalmem(),
    os: `${type()} ${release()}`,
    virtualization: virtualization(),
    cpu_governor: readTrimmed('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor'),
    steal_pct: elapsed > 0 ? Math.round((((now!.steal - since!.steal) / elapsed) * 100) * 1000) / 1000 : null,
  };
}

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

/** The harness checkout's commit and whether it had uncommitted changes (null outside git). */
export function harnessGit(): { commit: string | null; dirty: boolean | null } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { commit, dirty: status.trim() !== '' };
  } catch {
    // The harness image has no .git; it records the commit it was built from (Dockerfile). Whether
    // that build context matched the commit is not known here.
    const revision = existsSync(join(REPO, '.image-revision')) ? readFileSync(join(REPO, '.image-revision'), 'utf8').trim() : '';
    return { commit: /^[0-9a-f]{40}$/.test(revision) ? revision : null, dirty: null };
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
