/**
 * Roofline bounds per hardware and model (fleet/hardware.yaml, harness/store/model-sizes.ts): the
 * committed real results pass with a wide margin; issue 23's case (a 2-vCPU CPU run scaled to
 * 432,000 tokens/s and relabelled vLLM 0.11.0) is refused naming its bound; each bound bites on
 * its own. Edited real results and SYNTHETIC ones (claim-fixtures.ts).
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { acceleratorOf, hardwareTable, hostLimits } from '../../harness/store/hardware-limits.ts';
import { bitsOfPrecision, modelWork } from '../../harness/store/model-sizes.ts';
import { rooflineBounds, SPECULATIVE_TOKENS_PER_STEP } from '../../harness/store/roofline.ts';
import { atOutputRate, committed, committedResults, problemsOf, rulesOf, synthetic } from './claim-fixtures.ts';

/** A synthetic run relabelled as Llama 3.1 8B in bf16 on `gpus` × H100 SXM (what nvidia-smi calls it). */
function onH100(gpus = 1): RunResult {
  const result = synthetic({ gpuCount: gpus });
  result.run!.model.id = 'meta-llama/Llama-3.1-8B-Instruct';
  result.run!.model.dtype = 'bfloat16';
  for (const gpu of result.run!.hardware!.gpus) gpu.name = 'NVIDIA H100 80GB HBM3';
  return result;
}

describe('the hardware table', () => {
  it('matches the names nvidia-smi and amd-smi report, the specific variant first', () => {
    const table = hardwareTable();
    const id = (name: string) => acceleratorOf(table, name)?.id ?? null;
    expect(id('NVIDIA H100 80GB HBM3')).toBe('h100-sxm');
    expect(id('NVIDIA H100 PCIe')).toBe('h100-pcie');
    expect(id('NVIDIA H100 NVL')).toBe('h100-nvl');
    expect(id('NVIDIA H200')).toBe('h200');
    expect(id('NVIDIA B200')).toBe('b200');
    expect(id('NVIDIA A100-SXM4-40GB')).toBe('a100-40gb');
    expect(id('NVIDIA A100-SXM4-80GB')).toBe('a100-80gb');
    expect(id('NVIDIA L40S')).toBe('l40s');
    expect(id('NVIDIA L4')).toBe('l4');
    expect(id('AMD Instinct MI300X')).toBe('mi300x');
    expect(id('MI300X-O')).toBe('mi300x');
    expect(id('AMD Instinct MI325X')).toBe('mi325x');
    expect(id('NVIDIA GeForce RTX 4090')).toBeNull();
    for (const accelerator of table.accelerators) expect(accelerator.source, accelerator.id).toMatch(/https:\/\/|datasheet/);
  });

  it('bounds a host by its CPU class: a 2-vCPU EPYC VM is one socket; an unknown CPU gets the generic class', () => {
    const table = hardwareTable();
    expect(hostLimits(table, { cpu_model: 'AMD EPYC', cpus: 2, memory_bytes: 1, os: 'linux' } as never)).toMatchObject({ cpuClass: { id: 'amd-epyc' }, sockets: 1, memoryBandwidthGbS: 614.4, peakGops: 2560 });
    expect(hostLimits(table, { cpu_model: 'AMD EPYC 9654 96-Core Processor', cpus: 384, memory_bytes: 1, os: 'linux' } as never).sockets).toBe(2);
    expect(hostLimits(table, { cpu_model: 'Synthetic CPU', cpus: 64, memory_bytes: 1, os: 'linux' } as never).cpuClass.id).toBe('generic-cpu');
  });

  it('reads the precision of quantization names at their narrowest', () => {
    expect(['bfloat16', 'fp8', 'Q8_0', 'Q4_K_M', 'IQ1_S', 'awq', 'mxfp4', 'float32'].map(bitsOfPrecision)).toEqual([16, 8, 8, 4, 1, 4, 4, 32]);
    expect(bitsOfPrecision('some-new-format')).toBeNull();
    expect(modelWork({ ...onH100().run!.model, quantization: 'some-new-format' })!.bits).toBe(1.5);
    expect(modelWork({ ...onH100().run!.model, quantization: 'fp8' })!.bits).toBe(8);
    expect(modelWork(synthetic().run!.model)).toBeNull();
  });
});

describe('roofline bounds', () => {
  it('every committed real result passes, its measured/bound ratios far below 1', () => {
    const results = committedResults();
    expect(results.length).toBeGreaterThanOrEqual(60);
    let worst = 0;
    for (const { path, result } of results) {
      const bounds = rooflineBounds(result);
      expect(bounds, path).not.toBeNull();
      for (const b of bounds!.points) {
        if (!b) continue;
        worst = Math.max(worst, b.output / b.bandwidthBound, b.output / b.computeBound, b.prefillBound === null ? 0 : b.total / b.prefillBound);
      }
      expect(rulesOf(result).filter((r) => r.startsWith('roofline')), path).toEqual([]);
    }
    // Measured on the committed CPU lane (2 vCPUs of an EPYC): the worst is the prefill bound of a cpu-chat point, 0.072.
    expect(worst).toBeGreaterThan(0.01);
    expect(worst).toBeLessThan(0.1);
  });

  it("refuses issue 23's case: a 2-vCPU CPU run scaled to 432,000 tokens/s and relabelled vLLM 0.11.0, naming the bound, its inputs and the citation", () => {
    const real = committed('llamacpp/dummy-qwen3-0.6b/cpu-2x-amd-epyc/cpu-chat');
    const forged = atOutputRate(real, 432_000);
    forged.run!.engine = { ...forged.run!.engine, name: 'vllm', version: '0.11.0' };
    // Below the generic bound (10^6 per host), which is all that stood before.
    expect(forged.points[0]!.metrics.output_throughput).toBeCloseTo(432_000, -2);
    const problems = problemsOf(forged).filter((p) => p.message.startsWith('[roofline'));
    const compute = problems.find((p) => p.message.startsWith('[roofline-compute]'))!;
    expect(compute.path).toBe('points[0].metrics.output_throughput');
    // 2 vCPUs × 1,280 GOPS / (2 × 596M parameters) = 2,148 tokens/s.
    expect(compute.message).toMatch(/^\[roofline-compute\] 4\.32\de\+5 output tokens\/s is above the compute bound 2148 tokens\/s = peak \/ \(2 × parameters\)/);
    expect(compute.message).toContain('dummy/Qwen3-0.6B');
    expect(compute.message).toContain('2 CPUs of class amd-epyc');
    expect(compute.message).toContain('huggingface.co/Qwen/Qwen3-0.6B');
    expect(compute.message).toContain('EPYC 9005');
    expect(problems.some((p) => p.message.startsWith('[roofline-bandwidth]'))).toBe(true);
    // The real file, unscaled, passes.
    expect(rulesOf(real).filter((r) => r.startsWith('roofline'))).toEqual([]);
  });

  it('decode is bounded by memory bandwidth: weights read once per step for the batch, S tokens per sequence at most', () => {
    const result = onH100();
    const bounds = rooflineBounds(result)!;
    // 3.9 TB/s over 7.5e9 parameters × 2 bytes, × 16 tokens per step × 1 sequence at c=1.
    expect(bounds.points[0]!.bandwidthBound).toBeCloseTo((SPECULATIVE_TOKENS_PER_STEP * 3900e9) / (7.5e9 * 2), 6);
    expect(rulesOf(atOutputRate(result, bounds.points[0]!.bandwidthBound * 0.99)).filter((r) => r.startsWith('roofline'))).toEqual([]);
    const above = atOutputRate(result, bounds.points[0]!.bandwidthBound * 1.01);
    expect(rulesOf(above)).toContain('roofline-bandwidth');
    expect(problemsOf(above).find((p) => p.message.startsWith('[roofline-bandwidth]'))!.message).toMatch(/16 tokens\/step × 1 sequences .*meta-llama\/Llama-3.1-8B-Instruct.*1 × h100-sxm/);
  });

  it('decode is bounded by compute: 2 × parameters per token at the peak of the precision, summed over the GPUs', () => {
    const result = onH100(2);
    const bounds = rooflineBounds(result)!;
    expect(bounds.points[1]!.computeBound).toBeCloseTo((2 * 989.4e12) / (2 * 7.5e9), 3);
    const above = atOutputRate(result, bounds.points[1]!.computeBound * 1.01);
    expect(rulesOf(above)).toContain('roofline-compute');
    // FP8 weights run at the FP8 peak (1,978.9 TF against BF16's 989.4): about twice the bound.
    const fp8 = structuredClone(result);
    fp8.run!.model.quantization = 'fp8';
    expect(rooflineBounds(fp8)!.points[1]!.computeBound / bounds.points[1]!.computeBound).toBeCloseTo(1978.9 / 989.4, 6);
  });

  it('bounds prefill only where no prompt can come from a cache (a fresh server, prompts that share nothing)', () => {
    const result = onH100();
    const fresh = rooflineBounds(result)!.points[1]!;
    expect(fresh.prefillBound).toBe(fresh.computeBound);
    // Input-heavy: 512 in, 128 out per request, so total tokens pass the compute bound before output does.
    const above = atOutputRate(result, fresh.computeBound * 0.5);
    expect(rulesOf(above)).toContain('roofline-prefill');
    expect(rulesOf(above)).not.toContain('roofline-compute');
    const external = structuredClone(above);
    external.run!.engine.launcher = 'external';
    expect(rulesOf(external)).not.toContain('roofline-prefill');
  });

  it('an unknown model or GPU gets only the generic bounds', () => {
    expect(rooflineBounds(synthetic())).toBeNull();
    const unknownGpu = onH100();
    unknownGpu.run!.hardware!.gpus[0]!.name = 'NVIDIA GeForce RTX 4090';
    expect(rooflineBounds(unknownGpu)).toBeNull();
  });
});
