/**
 * GPU telemetry from amd-smi (ROCm's AMD SMI CLI), the AMD counterpart of nvidia-smi.ts: static
 * facts once (`amd-smi static --asic --board --vram --driver --json`, `amd-smi version` for the
 * ROCm version), then `amd-smi metric --json` polled for the whole run, each answer stamped on
 * arrival. The samples are the same GpuSample as NVIDIA's (smClockMHz holds the GFX clock), so
 * summarizeGpuWindow applies unchanged. Where amd-smi is missing, there is no GPU telemetry (null).
 *
 * Why a poll and not `amd-smi metric --watch`: --watch takes whole seconds (argparse positive
 * int; 1 s is the finest), its JSON mode printed nothing before ROCm/amdsmi#168 was fixed
 * (ROCm/rocm-systems#2720, 2026), and it prints one multi-line JSON document per tick, which is
 * fragile to split from a stream. A fresh `amd-smi metric --json` every SAMPLE_MS (never two at a
 * time) works on every version; amd-smi is a Python program, so one call itself takes a while and
 * bounds the real rate. Only the four sections we read are asked for: the default also queries
 * PCIe, ECC, fan, voltage curve and more, which makes every call slower.
 *
 * The JSON, as amd-smi writes it (amdsmi_cli/amdsmi_commands.py, amdsmi_helpers.unit_format):
 * - the document is a list of per-GPU objects (ROCm 6.x), or {"gpu_data": [...]} (amd-smi 26+,
 *   ROCm 7), each with "gpu": <amd-smi GPU id>;
 * - a measurement is {"value": 234, "unit": "W"}; an unavailable one is the string "N/A" (older
 *   versions wrote bare numbers, so those are read too);
 * - memory is labelled "MB" but is bytes // (1024*1024), i.e. MiB (mem_usage.used_vram,
 *   vram.size); power.socket_power is W; usage.gfx_activity is %; clock.gfx_<n>.clk is MHz,
 *   one gfx_<n> per XCD/graphics clock domain (8 on an MI300X): the mean of those available is
 *   the GFX clock.
 * The GPU ids are passed to `-g` as given (the ids the run was told to use); on hosts where
 * amd-smi's ids and HIP's differ (an iGPU next to a dGPU) they may name different devices.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import type { GpuFacts, GpuSample, GpuSampler } from './nvidia-smi.ts';

/** The hardware facts with the ROCm version: which stack the GPUs ran on. */
export interface AmdGpuFacts extends GpuFacts {
  readonly rocm: string | null;
}

export interface AmdGpuSampler extends GpuSampler {
  readonly facts: AmdGpuFacts;
}

/** The least time between the starts of two polls (a poll never overlaps the previous one). */
const SAMPLE_MS = 250;
const PROGRAM = 'amd-smi';
const MAX_BUFFER = 16 * 1024 * 1024;

/** stdout, also of a non-zero exit that still printed something; null when nothing ran. */
function run(args: readonly string[], timeout = 15_000): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(PROGRAM, args, { timeout, maxBuffer: MAX_BUFFER }, (error, stdout) => resolve(error && stdout.trim() === '' ? null : stdout));
  });
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The per-GPU objects of an amd-smi JSON document: a list, {"gpu_data": [...]}, or one object.
 * Text before the JSON (a "WARNING: User is missing the following required groups" line) is
 * skipped; anything unreadable is no GPUs.
 */
export function amdSmiGpus(text: string): JsonObject[] {
  let doc: Json | undefined;
  const start = text.search(/^[[{]/m);
  if (start < 0) return [];
  try {
    doc = JSON.parse(text.slice(start)) as Json;
  } catch {
    return [];
  }
  if (isObject(doc) && Array.isArray(doc['gpu_data'])) doc = doc['gpu_data'];
  const list = Array.isArray(doc) ? doc : [doc];
  return list.filter((gpu): gpu is JsonObject => isObject(gpu) && typeof gpu['gpu'] === 'number');
}

/** A measurement's number and unit: {"value": 234, "unit": "W"}, 234, "234 W"; "N/A" and the like are null. */
function quantity(value: Json | undefined): { value: number; unit: string | null } | null {
  if (isObject(value)) {
    const inner = quantity(value['value']);
    if (inner === null) return null;
    return { value: inner.value, unit: typeof value['unit'] === 'string' ? value['unit'] : inner.unit };
  }
  if (typeof value === 'number') return Number.isFinite(value) ? { value, unit: null } : null;
  if (typeof value === 'string') {
    const match = value.trim().match(/^(-?\d+(?:\.\d+)?)\s*([A-Za-z%/]*)$/);
    return match ? { value: Number(match[1]), unit: match[2] || null } : null;
  }
  return null;
}

/** amd-smi's "MB" is bytes // 2^20 (MiB); no unit means its own default, MB. */
function mebibytes(value: Json | undefined): number | null {
  const q = quantity(value);
  if (q === null) return null;
  const factor: Record<string, number> = { B: 1 / 1024 ** 2, KB: 1 / 1024, MB: 1, MIB: 1, GB: 1024, GIB: 1024 };
  const scale = factor[(q.unit ?? 'MB').toUpperCase()];
  return scale === undefined ? null : q.value * scale;
}

function watts(value: Json | undefined): number | null {
  const q = quantity(value);
  if (q === null) return null;
  const scale = { W: 1, MW: 1e-3, UW: 1e-6 }[(q.unit ?? 'W').toUpperCase()];
  return scale === undefined ? null : q.value * scale;
}

function megahertz(value: Json | undefined): number | null {
  const q = quantity(value);
  if (q === null) return null;
  const scale = { MHZ: 1, GHZ: 1000, KHZ: 1e-3 }[(q.unit ?? 'MHz').toUpperCase()];
  return scale === undefined ? null : q.value * scale;
}

function percent(value: Json | undefined): number | null {
  const q = quantity(value);
  return q === null || (q.unit !== null && q.unit !== '%') ? null : q.value;
}

function section(gpu: JsonObject, key: string): JsonObject {
  const value = gpu[key];
  return isObject(value) ? value : {};
}

/** The first of these keys that holds a reading (amd-smi renamed the power fields over time). */
function firstOf<T>(object: JsonObject, keys: readonly string[], read: (value: Json | undefined) => T | null): T | null {
  for (const key of keys) {
    const value = read(object[key]);
    if (value !== null) return value;
  }
  return null;
}

/** The mean of the GFX clocks amd-smi reports (gfx_0 … gfx_7; "gfx" in old versions). */
function gfxClock(clock: JsonObject): number | null {
  const clocks = Object.entries(clock)
    .filter(([key]) => /^gfx(_\d+)?$/i.test(key))
    .map(([, domain]) => (isObject(domain) ? megahertz(domain['clk'] ?? domain['cur_clk']) : null))
    .filter((v): v is number => v !== null);
  return clocks.length === 0 ? null : clocks.reduce((a, b) => a + b, 0) / clocks.length;
}

/** One sample per GPU in an `amd-smi metric --json` answer. */
export function parseMetricJson(text: string, t: number): GpuSample[] {
  return amdSmiGpus(text).map((gpu) => ({
    t,
    index: gpu['gpu'] as number,
    memoryUsedMiB: mebibytes(section(gpu, 'mem_usage')['used_vram']),
    powerW: firstOf(section(gpu, 'power'), ['socket_power', 'current_socket_power', 'current_power', 'average_socket_power', 'average_power'], watts),
    utilizationPercent: percent(section(gpu, 'usage')['gfx_activity']),
    smClockMHz: gfxClock(section(gpu, 'clock')),
  }));
}

function text(value: Json | undefined): string | null {
  return typeof value === 'string' && value.trim() !== '' && value.trim() !== 'N/A' ? value.trim() : null;
}

/** The GPUs and driver in an `amd-smi static --json` answer (total VRAM null where it says "N/A"). */
export function parseStaticJson(json: string): { gpus: Array<{ index: number; name: string; memory_total_mib: number | null }>; driver: string | null } {
  const gpus = amdSmiGpus(json);
  return {
    gpus: gpus.map((gpu) => ({
      index: gpu['gpu'] as number,
      name: text(section(gpu, 'asic')['market_name']) ?? text(section(gpu, 'board')['product_name']) ?? 'unknown',
      memory_total_mib: mebibytes(section(gpu, 'vram')['size']),
    })),
    driver: gpus.map((gpu) => text(section(gpu, 'driver')['version']) ?? text(section(gpu, 'driver')['driver_version'])).find((v) => v !== null) ?? null,
  };
}

/** "AMDSMI Tool: 25.3.0+ede62f2 | AMDSMI Library version: 25.3.0 | ROCm version: 6.4.0 | …" → "6.4.0". */
export function parseRocmVersion(versionText: string): string | null {
  const version = versionText.match(/ROCm version:\s*([^\s|]+)/)?.[1];
  return version === undefined || version === 'N/A' ? null : version;
}

function selection(gpus: readonly number[]): string[] {
  return gpus.length > 0 ? ['-g', ...gpus.map(String)] : [];
}

const METRIC_ARGS = ['metric', '--json', '--mem-usage', '--usage', '--power', '--clock'];

export async function gpuFacts(gpus: readonly number[]): Promise<AmdGpuFacts | null> {
  const json = await run(['static', '--json', '--asic', '--board', '--vram', '--driver', ...selection(gpus)]);
  if (json === null) return null;
  const parsed = parseStaticJson(json);
  if (parsed.gpus.length === 0) return null;
  // Without a VRAM size in the static answer, the metric answer's total_vram stands in.
  let totals = new Map<number, number>();
  if (parsed.gpus.some((gpu) => gpu.memory_total_mib === null)) {
    const metric = (await run(['metric', '--json', '--mem-usage', ...selection(gpus)])) ?? '';
    totals = new Map(amdSmiGpus(metric).flatMap((gpu) => {
      const total = mebibytes(section(gpu, 'mem_usage')['total_vram']);
      return total === null ? [] : [[gpu['gpu'] as number, total] as const];
    }));
  }
  const version = await run(['version']);
  return {
    // 0 where amd-smi gives no size at all: the schema wants a number (it reads "unknown" here).
    gpus: parsed.gpus.map((gpu) => ({ ...gpu, memory_total_mib: gpu.memory_total_mib ?? totals.get(gpu.index) ?? 0 })),
    driver: parsed.driver,
    cuda: null,
    rocm: version === null ? null : parseRocmVersion(version),
  };
}

export async function startGpuSampler(gpus: readonly number[]): Promise<AmdGpuSampler | null> {
  const facts = await gpuFacts(gpus);
  if (facts === null) return null;
  const samples: GpuSample[] = [];
  const args = [...METRIC_ARGS, ...selection(gpus)];
  let stopped = false;
  let child: ChildProcess | null = null;
  let timer: NodeJS.Timeout | null = null;
  const poll = (): void => {
    if (stopped) return;
    const started = Date.now();
    child = execFile(PROGRAM, args, { timeout: 10_000, maxBuffer: MAX_BUFFER }, (_error, stdout) => {
      child = null;
      if (stopped) return;
      samples.push(...parseMetricJson(stdout, Date.now()));
      timer = setTimeout(poll, Math.max(0, SAMPLE_MS - (Date.now() - started)));
    });
    child.on('error', () => undefined);
  };
  poll();
  return {
    facts,
    samples: () => samples,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      child?.kill();
    },
  };
}
