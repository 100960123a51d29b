/**
 * fleet/hardware.yaml: the peak memory bandwidth and dense throughput of each accelerator and CPU
 * class, each figure cited, and which recorded names each applies to. The roofline bounds
 * (roofline.ts) are computed from these; the file says why each figure is what it is.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { RunBlock } from '../contract/result.ts';
import { usageError } from '../lib/errors.ts';
import { memoByKey } from '../lib/memo.ts';

export const HARDWARE_FILE = fileURLToPath(new URL('../../fleet/hardware.yaml', import.meta.url));

/** Number formats a tensor unit computes in, with their width in bits (the widest that can run a weight format, roofline.ts). */
export const FORMAT_BITS = { fp32: 32, tf32: 19, bf16: 16, fp8: 8, int8: 8, fp4: 4 } as const;
export type Format = keyof typeof FORMAT_BITS;

const pattern = z.string().refine((text) => {
  try {
    // Stryker disable next-line StringLiteral: the i flag changes what a pattern matches, never whether it compiles.
    new RegExp(text, 'i');
  } catch {
    return false;
  }
  return true;
}, 'not a regular expression');

const AcceleratorSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/),
    name: z.string().min(1),
    match: z.array(pattern).min(1),
    memory_bandwidth_gb_s: z.number().positive(),
    peak_tflops: z.partialRecord(z.enum(Object.keys(FORMAT_BITS) as [Format, ...Format[]]), z.number().positive()),
    source: z.string().min(1),
  })
  .strict();

const CpuClassFields = {
  id: z.string().regex(/^[a-z0-9-]+$/),
  name: z.string().min(1),
  sockets_max: z.number().int().positive(),
  threads_per_socket_min: z.number().int().positive(),
  memory_bandwidth_gb_s_per_socket: z.number().positive(),
  peak_gops_per_core: z.number().positive(),
  source: z.string().min(1),
};

const HardwareFileSchema = z
  .object({
    version: z.number().int().positive(),
    accelerators: z.array(AcceleratorSchema),
    cpu_classes: z.array(z.object({ ...CpuClassFields, match: z.array(pattern).min(1) }).strict()),
    generic_cpu: z.object(CpuClassFields).strict(),
  })
  .strict();

export type Accelerator = z.infer<typeof AcceleratorSchema>;
export type HardwareTable = z.infer<typeof HardwareFileSchema>;

const tableIn = memoByKey((file: string): HardwareTable => {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw usageError(`${file} is not readable YAML (${(error as Error).message.split('\n')[0]}); fix it or restore it from git`);
  }
  const parsed = HardwareFileSchema.safeParse(raw);
  if (!parsed.success) throw usageError(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}; fix it or restore it from git`);
  return parsed.data;
});

export function hardwareTable(file: string = HARDWARE_FILE): HardwareTable {
  return tableIn(file);
}

const matches = (patterns: readonly string[], name: string) => patterns.some((p) => new RegExp(p, 'i').test(name));

export function acceleratorOf(table: HardwareTable, gpuName: string): Accelerator | null {
  return table.accelerators.find((a) => matches(a.match, gpuName)) ?? null;
}

/** The host's bounds, in units of its CPU class: the generic class when no class matches. */
export interface HostLimits {
  readonly cpuClass: { readonly id: string; readonly source: string };
  readonly memoryBandwidthGbS: number;
  readonly peakGops: number;
  readonly sockets: number;
}

export function hostLimits(table: HardwareTable, host: RunBlock['host']): HostLimits {
  const cpuClass = (host.cpu_model ? table.cpu_classes.find((c) => matches(c.match, host.cpu_model!)) : undefined) ?? table.generic_cpu;
  const cpus = Math.max(1, host.cpus);
  const sockets = Math.min(cpuClass.sockets_max, Math.max(1, Math.ceil(cpus / cpuClass.threads_per_socket_min)));
  return {
    cpuClass: { id: cpuClass.id, source: cpuClass.source },
    memoryBandwidthGbS: sockets * cpuClass.memory_bandwidth_gb_s_per_socket,
    peakGops: cpus * cpuClass.peak_gops_per_core,
    sockets,
  };
}
