/**
 * Roofline bounds per hardware and model (fleet/hardware.yaml, harness/store/model-sizes.ts): the
 * committed real results pass with a wide margin; issue 23's case (a 2-vCPU CPU run scaled to
 * 432,000 tokens/s and relabelled vLLM 0.11.0) is refused naming its bound; each bound bites on
 * its own. Edited real results and SYNTHETIC ones (claim-fixtures.ts).
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { acceleratorOf, hardwareTable, hostLimits } from '../../harness/store/hardware-limits.ts';
import { bitsOfPrecision, MODEL_SIZES, modelWork } from '../../harness/store/model-sizes.ts';
import { checkRoofline, rooflineBounds, SPECULATIVE_TOKENS_PER_STEP } from '../../harness/store/roofline.ts';
import { atOutputRate, committed, committedResults, problemsOf, rulesOf, synthetic } from './claim-fixtures.ts';

/** A synthetic run relabelled as Llama 3.1 8B in bf16 on `gpus` × H100 SXM (what nvidia-smi calls it). */
function onH100(gpus = 1): RunResult {
  const result = synthetic({ gpuCount: gpus });
  result.run!.model.id = 'meta-llama/Llama-3.1-8B-Instruct';
  result.run!.model.dtype = 'bfloat16';
  for (const gpu of result.run!.hardware!.gpus) gpu.name = 'NVIDIA H100 80GB HBM3';
  return result;
}

/** The cited source of an accelerator or CPU class of fleet/hardware.yaml, by id. */
function sourceOf(id: string): string {
  const table = hardwareTable();
  return [...table.accelerators, ...table.cpu_classes].find((entry) => entry.id === id)!.source;
}

/** What every roofline problem of onH100() names after its bound: the model, its parameters and bits, and the hardware, with their citations. */
function h100Inputs(hardware: string): string {
  return `meta-llama/Llama-3.1-8B-Instruct: 7.500e+9 parameters per token at 16 bits (${MODEL_SIZES.get('meta-llama/llama-3.1-8b-instruct')!.source}); ${hardware}`;
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

  it.each([
    ['a scenario that expects a prefix cache', (r: RunResult) => void (r.workload.spec.prefix_caching = 'expected')],
    ['prompts with a shared prefix', (r: RunResult) => void (r.workload.spec.shared_prefix = { tokens: 256, groups: 2 })],
    ['a conversation (the history resent)', (r: RunResult) => void (r.workload.spec.multi_turn = { turns: 3 })],
    ['a server started by someone else (it may have seen the prompts)', (r: RunResult) => void (r.run!.engine.launcher = 'external')],
  ])('leaves prefill unbounded for each way a prompt may come from a cache: %s', (_what, edit) => {
    const result = onH100();
    edit(result);
    expect(rooflineBounds(result)!.points.map((b) => b!.prefillBound)).toEqual([null, null]);
  });

  it('a rate exactly at a bound is allowed (the bound is what the hardware can do)', () => {
    const added: string[] = [];
    const check = (result: RunResult) => checkRoofline(result, (path, message) => added.push(`${path}: ${message.split(' ')[0]}`));
    // One second of exactly the bandwidth bound: 16 × 1 sequence × 3,900 GB/s / 15 GB = 4,160 tokens/s.
    const atBandwidth = onH100();
    Object.assign(atBandwidth.points[0]!.metrics, { duration_s: 1, input_tokens: 0, output_tokens: 4160 });
    check(atBandwidth);
    // 64 sequences lift the bandwidth bound far above the compute bound; output alone at it, so input + output at the prefill bound too.
    const atCompute = onH100();
    const point = atCompute.points[1]!;
    point.load = { mode: 'closed', concurrency: 64 };
    const computeBound = rooflineBounds(atCompute)!.points[1]!.computeBound;
    Object.assign(point.metrics, { duration_s: 1, input_tokens: 0, output_tokens: computeBound });
    check(atCompute);
    expect(added).toEqual([]);
    point.metrics.output_tokens = computeBound * (1 + 1e-12);
    check(atCompute);
    expect(added).toEqual(['points[1].metrics.output_throughput: [roofline-compute]', 'points[1].metrics.total_throughput: [roofline-prefill]']);
  });

  it('checks no point of no duration, and no result of an unknown model', () => {
    const added: string[] = [];
    const zero = atOutputRate(onH100(), 1e9);
    zero.points[0]!.metrics.duration_s = 0;
    checkRoofline(zero, (path) => added.push(path));
    expect(added.every((path) => path.startsWith('points[1]'))).toBe(true);
    expect(added.length).toBeGreaterThan(0);
    added.length = 0;
    checkRoofline(atOutputRate(synthetic(), 1e9), (path) => added.push(path));
    expect(added).toEqual([]);
  });

  it('an unknown model or GPU gets only the generic bounds', () => {
    expect(rooflineBounds(synthetic())).toBeNull();
    const unknownGpu = onH100();
    unknownGpu.run!.hardware!.gpus[0]!.name = 'NVIDIA GeForce RTX 4090';
    expect(rooflineBounds(unknownGpu)).toBeNull();
    // One GPU of two unknown: the sum is unknown.
    const oneUnknown = onH100(2);
    oneUnknown.run!.hardware!.gpus[1]!.name = 'NVIDIA GeForce RTX 4090';
    expect(rooflineBounds(oneUnknown)).toBeNull();
    const noRun = onH100();
    delete (noRun as { run?: unknown }).run;
    expect(rooflineBounds(noRun)).toBeNull();
  });

  it('sums the GPUs of a mixed machine, named by the first, each citation once', () => {
    const mixed = onH100(2);
    mixed.run!.hardware!.gpus[1]!.name = 'NVIDIA H200';
    // 3,900 + 4,800 GB/s (H100 SXM as the table raises it, H200); BF16 989.4 TF each.
    expect(rooflineBounds(mixed)!.inputs).toBe(h100Inputs(`2 × h100-sxm: 8700 GB/s, 1979 T operations/s (h100-sxm: ${sourceOf('h100-sxm')}; h200: ${sourceOf('h200')})`));
    expect(rooflineBounds(onH100(2))!.inputs).toBe(h100Inputs(`2 × h100-sxm: 7800 GB/s, 1979 T operations/s (h100-sxm: ${sourceOf('h100-sxm')})`));
  });

  it('names a CPU host by its CPUs, class and sockets', () => {
    const real = committed('llamacpp/dummy-qwen3-0.6b/cpu-2x-amd-epyc/cpu-chat');
    // 2 vCPUs of an EPYC: one socket's bandwidth (614.4 GB/s), 2 × 1,280 GOPS.
    expect(rooflineBounds(real)!.inputs).toMatch(/; 2 CPUs of class amd-epyc \(1 socket\): 614\.4 GB\/s, 2\.560 T operations\/s \(amd-epyc: /);
    real.run!.host.cpus = 384;
    expect(rooflineBounds(real)!.inputs).toMatch(/; 384 CPUs of class amd-epyc \(2 sockets\): 1229 GB\/s, 491\.5 T operations\/s \(amd-epyc: /);
    expect(rooflineBounds(real)!.inputs.endsWith(`(amd-epyc: ${sourceOf('amd-epyc')})`)).toBe(true);
  });

  it('each problem states the bound, its formula and every input with its citation', () => {
    const result = onH100(2);
    result.run!.hardware!.gpus[1]!.name = 'NVIDIA H200';
    // 16 tokens/step × 1 sequence × 8,700 GB/s / 15 GB of weights (7.5e9 parameters × 2 bytes) = 9,280 tokens/s at c=1.
    const bound = rooflineBounds(result)!.points[0]!;
    expect(bound.bandwidthBound).toBeCloseTo(9280, 6);
    const inputs = h100Inputs(`2 × h100-sxm: 8700 GB/s, 1979 T operations/s (h100-sxm: ${sourceOf('h100-sxm')}; h200: ${sourceOf('h200')})`);
    const problem = problemsOf(atOutputRate(result, 1.5 * 9280)).find((p) => p.path === 'points[0].metrics.output_throughput')!;
    expect(problem.message).toBe(`[roofline-bandwidth] 1.392e+4 output tokens/s is above the memory-bandwidth bound 9280 tokens/s = 16 tokens/step × 1 sequences × bandwidth / 15.00 GB of weights; ${inputs}`);
    expect(problem.fix).toBe('a result above a physical bound did not happen: keep the numbers servebench measured; if the hardware or model table is wrong, correct fleet/hardware.yaml or harness/store/model-sizes.ts with a citation');
    // Prefill: 512 in and 128 out per request, so total = 5 × output; the bound is 2 × 989.4 TF / (2 × 7.5e9) = 131,920 tokens/s.
    const prefill = problemsOf(atOutputRate(result, 0.5 * 131_920)).find((p) => p.path === 'points[1].metrics.total_throughput')!;
    expect(prefill.message).toBe(`[roofline-prefill] 3.298e+5 input+output tokens/s is above the compute bound 1.319e+5 tokens/s = peak / (2 × parameters) on prompts no cache can serve; ${inputs}`);
  });

  it('counts the sequences decoding at once: the closed loop\'s users, an open loop\'s cap, else every request sent', () => {
    const result = onH100();
    const open = (max_concurrency: number | null) => ({ mode: 'open' as const, rate: 10, arrival: 'poisson' as const, burstiness: 1, max_concurrency });
    result.points[0]!.load = open(4);
    result.points[1]!.load = open(null);
    const sequences = () => rooflineBounds(result)!.points.map((b) => b!.sequences);
    // 64 requests sent at each point.
    expect(sequences()).toEqual([4, 64]);
    result.points[0]!.load = open(1000);
    result.points[1]!.load = { mode: 'trace', time_scale: 1, max_concurrency: 16 };
    expect(sequences()).toEqual([64, 16]);
  });

  it('bounds no point of no duration (there is no rate to bound)', () => {
    const result = onH100();
    result.points[0]!.metrics.duration_s = 0;
    expect(rooflineBounds(result)!.points[0]).toBeNull();
    expect(rooflineBounds(result)!.points[1]).not.toBeNull();
  });
});
