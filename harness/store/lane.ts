/**
 * The lane each published number was measured on, said in one line from the runs' own fields
 * (the runs table), never from what a lane is supposed to be: for the CPU lane of 2026-12-02,
 * "CPU lane: 2 vCPU AMD EPYC (KVM guest, CPU steal median 0.07%, max 5.3%), dummy-weight models,
 * engines on the CPU: embedded, llamacpp". Why (issue 25): the hardware key cpu-2x-AMD EPYC read
 * as a dual-socket server, charts said "per GPU" on a host without one, and no page said that the
 * weights were random or the CPUs a shared virtual machine's. One lane per hardware key, the key
 * every configuration and result path is named by (result-path.ts), which stays as it is.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Lane } from '../contract/site-data.ts';
import { OFFICIAL_RUN_SQL } from './official.ts';

/** What the runs of one hardware key say about where they ran; describeLane words it. */
export type LaneFacts = Omit<Lane, 'kind' | 'hardware_label' | 'throughput_per' | 'label'>;

/** systemd-detect-virt's names (host.ts records them) as their makers write them; others as recorded. */
const HYPERVISORS: Readonly<Record<string, string>> = {
  kvm: 'KVM', qemu: 'QEMU', amazon: 'AWS Nitro', google: 'Google Compute Engine', microsoft: 'Hyper-V', vmware: 'VMware', xen: 'Xen', oracle: 'VirtualBox', parallels: 'Parallels', bhyve: 'bhyve', zvm: 'z/VM', powervm: 'PowerVM', apple: 'Apple Virtualization',
};

const hypervisorName = (recorded: string) => HYPERVISORS[recorded] ?? recorded;
const isVirtual = (recorded: string) => recorded !== 'none';

/** A percentage to two significant digits: 0.0712 → "0.071", 5.325 → "5.3". */
function percent(value: number): string {
  return String(Number(value.toPrecision(2)));
}

/**
 * The host's CPUs: vCPUs on a virtual machine (a share of someone else's cores, not sockets),
 * logical CPUs on bare metal or when the runs did not record which.
 */
function hostCpus(facts: LaneFacts): string {
  const { host_cpus: cpus, virtualization } = facts;
  const count = virtualization.length > 0 && virtualization.every(isVirtual) ? `${cpus} vCPU` : `${cpus} logical CPU${cpus === 1 ? '' : 's'}`;
  return `${count} ${facts.host_cpu}`;
}

/** "KVM guest", "bare metal", "virtualization not recorded"; several when the runs differ. */
function hostKind(virtualization: readonly string[]): string {
  if (virtualization.length === 0) return 'virtualization not recorded';
  return virtualization.map((v) => (v === 'none' ? 'bare metal' : `${hypervisorName(v)} guest`)).join(' or ');
}

function steal(facts: LaneFacts): string | null {
  if (facts.steal_pct_median === null || facts.steal_pct_max === null) return null;
  return facts.runs === 1 || facts.steal_pct_median === facts.steal_pct_max ? `CPU steal ${percent(facts.steal_pct_max)}%` : `CPU steal median ${percent(facts.steal_pct_median)}%, max ${percent(facts.steal_pct_max)}%`;
}

function weights(kinds: readonly string[]): string {
  if (kinds.length === 1 && kinds[0] === 'dummy') return 'dummy-weight models (random weights of the real shape)';
  if (kinds.length === 1) return 'published model weights';
  return 'dummy-weight and published-weight models';
}

/** The hardware key as a reader should read it: "2 vCPU AMD EPYC (KVM)", "8× NVIDIA H100 80GB HBM3". */
export function hardwareDisplayLabel(facts: LaneFacts): string {
  if (facts.gpu !== null && facts.gpu_count > 0) return `${facts.gpu_count}× ${facts.gpu}`;
  const { virtualization } = facts;
  const suffix = virtualization.length > 0 && virtualization.every(isVirtual) ? ` (${virtualization.map(hypervisorName).join(' or ')})` : virtualization.length > 0 && virtualization.every((v) => v === 'none') ? ' (bare metal)' : '';
  return `${hostCpus(facts)}${suffix}`;
}

/** The lane's facts, its display label, what throughput is per, and its line. */
export function describeLane(facts: LaneFacts): Lane {
  const gpuLane = facts.gpu !== null && facts.gpu_count > 0;
  const host = [hostKind(facts.virtualization), steal(facts)].filter((part) => part !== null).join(', ');
  const label = gpuLane
    ? `GPU lane: ${hardwareDisplayLabel(facts)} (host: ${hostCpus(facts)}, ${host}), ${weights(facts.weights)}, engines: ${facts.engines.join(', ')}`
    : `CPU lane: ${hostCpus(facts)} (${host}), ${weights(facts.weights)}, engines on the CPU: ${facts.engines.join(', ')}`;
  return { ...facts, kind: gpuLane ? 'gpu' : 'cpu', hardware_label: hardwareDisplayLabel(facts), throughput_per: gpuLane ? 'GPU' : 'host', label };
}

/**
 * The facts of every hardware key of the valid runs (community and failed runs too: their rows
 * are shown as well). A lane's host CPU is the most common among its runs (a GPU lane's hosts can
 * differ; a CPU lane's key fixes it).
 */
export async function laneFacts(connection: DuckDBConnection): Promise<LaneFacts[]> {
  const rows = (await connection.runAndReadAll(`
    SELECT hardware, any_value(gpu) AS gpu, max(gpu_count)::INTEGER AS gpu_count,
      mode(host_cpu) AS host_cpu, mode(host_cpus)::INTEGER AS host_cpus,
      -- Runs that did not record it (written before the field) leave it to those that did; none did: [].
      coalesce(list_sort(list_distinct(list(host_virtualization) FILTER (WHERE host_virtualization IS NOT NULL))), []) AS virtualization,
      round(median(host_steal_pct), 3)::DOUBLE AS steal_pct_median, max(host_steal_pct)::DOUBLE AS steal_pct_max,
      list_sort(list_distinct(list(coalesce(model_weights, 'checkpoint')))) AS weights,
      -- The ranked engines (official runs): community ones are shown only behind their filter. A lane of community runs alone names its own.
      coalesce(list_sort(list_distinct(list(engine) FILTER (WHERE ${OFFICIAL_RUN_SQL}))), list_sort(list_distinct(list(engine)))) AS engines, count(*)::INTEGER AS runs
    FROM valid_runs GROUP BY hardware ORDER BY hardware`)).getRowObjectsJS() as Array<Record<string, unknown>>;
  return rows.map((r) => {
    return {
      hardware: String(r.hardware),
      gpu: (r.gpu as string | null) ?? null,
      gpu_count: Number(r.gpu_count),
      host_cpu: String(r.host_cpu),
      host_cpus: Number(r.host_cpus),
      virtualization: r.virtualization as string[],
      steal_pct_median: (r.steal_pct_median as number | null) ?? null,
      steal_pct_max: (r.steal_pct_max as number | null) ?? null,
      weights: r.weights as Array<'checkpoint' | 'dummy'>,
      engines: r.engines as string[],
      runs: Number(r.runs),
    };
  });
}

/** lanes.json: every lane, described. */
export async function compileLanes(connection: DuckDBConnection): Promise<Lane[]> {
  return (await laneFacts(connection)).map(describeLane);
}
