/**
 * The GPU telemetry backend for a run: nvidia-smi where it answers, else amd-smi, else none (null).
 * Both give the same samples (summarizeGpuWindow); the facts say which stack: `cuda` from
 * nvidia-smi, `rocm` from amd-smi.
 */
import * as amd from './amd-smi.ts';
import * as nvidia from './nvidia-smi.ts';

export { summarizeGpuWindow, type GpuSampler, type GpuSample, type GpuWindow } from './nvidia-smi.ts';

export async function startGpuSampler(gpus: readonly number[]): Promise<nvidia.GpuSampler | amd.AmdGpuSampler | null> {
  return (await nvidia.startGpuSampler(gpus)) ?? (await amd.startGpuSampler(gpus));
}
