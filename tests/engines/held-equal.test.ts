/**
 * What the fleet holds equal (fleet/fleet.yaml held_equal), as every engine is launched with it:
 * the planned `servebench run` argv of the fleet's GPU configurations (8B at tp 1, 70B at tp 2 and
 * 4, bf16, 16384 tokens, 128 concurrent at the top), rendered by `run --dry-run` for each engine's
 * docker and process launch, and checked flag by flag against the engine's own sources (cited next
 * to each flag in engines/<name>.yaml). Nothing is launched; GPU memory comes from the fake
 * nvidia-smi (tests/fixtures), the one stand-in: this machine has no GPU.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadFleet, planLoadedFleet } from '../../harness/pipeline/plan/inputs.ts';
import { loadEngine } from '../../harness/measure/engines/spec-file.ts';
import { renderServeCommand } from '../../harness/measure/engines/render.ts';
import { requestBody } from '../../harness/measure/load/request-body.ts';
import type { PlannedJob } from '../../harness/pipeline/plan/plan-file.ts';
import { missingJobs } from '../../harness/pipeline/plan/missing-jobs.ts';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { syntheticResult } from '../../bench/lib/synthetic-results.ts';
import { parseCommandArgs } from '../../harness/lib/cli/options.ts';
import { runCommand } from '../../harness/measure/run/command.ts';
import { planRun } from '../../harness/measure/run/run-plan.ts';
import { runCli } from '../cli/run-cli.ts';

const FLEET = 'fleet/fleet.yaml';
const ON_GPUS = { PATH: `${resolve('tests/fixtures/fake-nvidia-smi')}:${process.env['PATH']}` };
const dir = mkdtempSync(join(tmpdir(), 'servebench-held-'));

const plan = planLoadedFleet(FLEET, loadFleet(FLEET), { nightly: true, releases: [] });
/** The fleet's GPU configurations as plan gives vLLM's chat jobs: one per model and tp. */
const configurations = [...new Map(plan.jobs.filter((j) => j.engine === 'vllm' && j.gpu.vendor === 'nvidia' && j.workload === 'chat').map((j) => [`${j.model.id}@${j.model.tp}`, j])).values()];

/** Drops a flag and its value from an argv. */
function without(argv: string[], flag: string): string[] {
  const i = argv.indexOf(flag);
  return i < 0 ? argv : [...argv.slice(0, i), ...argv.slice(i + 2)];
}

/**
 * A planned job's run argv for another engine and launcher: the same configuration and held values,
 * less the flags `drop` names (what that engine cannot hold, which plan refuses: tested below).
 */
function runArgs(job: PlannedJob, engine: string, launcher: 'docker' | 'process', release: string | null, drop: readonly string[] = []): string[] {
  let argv = without(without([...job.argv.slice(1)], '--image'), '--results-dir');
  argv[argv.indexOf('--engine') + 1] = engine;
  argv[argv.indexOf('--launcher') + 1] = launcher;
  for (const flag of drop) argv = without(argv, flag);
  if (release !== null) argv.push('--engine-version', release);
  return [...argv, '--results-dir', dir, '--hf-cache', tmpdir(), '--dry-run'];
}

async function dryRun(args: readonly string[], gpu = true): Promise<{ command: string; config: Record<string, unknown> | null }> {
  const run = await runCli(['run', ...args, ...(gpu ? ['--gpu', '0'] : [])], 60_000, ON_GPUS);
  expect(run.code, run.stderr).toBe(0);
  const config = /^config: {3}(\{.*\}) \(written/m.exec(run.stdout);
  return { command: run.stdout.split('\n').find((line) => line.startsWith('command:'))!.slice('command:'.length).trim(), config: config ? (JSON.parse(config[1]!) as Record<string, unknown>) : null };
}

describe('the fleet holds five things equal, and plan passes them to every job', () => {
  it('every GPU job of the nightly set carries prefix caching on, the batch cap at 128, 196608 KV tokens, bf16 KV and neutral sampling', () => {
    expect(configurations.map((j) => `${j.model.id} tp${j.model.tp}`).sort()).toEqual(['meta-llama/Llama-3.1-8B-Instruct tp1', 'meta-llama/Llama-3.3-70B-Instruct tp2', 'meta-llama/Llama-3.3-70B-Instruct tp4']);
    const gpuJobs = plan.jobs.filter((j) => j.gpu.vendor !== 'cpu');
    expect(gpuJobs.length).toBeGreaterThan(0);
    for (const job of gpuJobs) {
      expect(job.held_equal).toEqual({ prefix_caching: 'on', max_num_seqs: 128, kv_budget_tokens: 196608, kv_cache_dtype: 'bf16', sampling: 'neutral' });
      const argv = job.argv.join(' ');
      for (const flag of ['--prefix-caching on', '--max-num-seqs 128', '--kv-budget-tokens 196608', '--kv-cache-dtype bf16', '--sampling neutral']) expect(argv).toContain(flag);
    }
    // The CPU lane overrides what llama.cpp cannot hold or its history measured otherwise; its batch cap is its sweep's top (4).
    for (const job of plan.jobs.filter((j) => j.engine === 'llamacpp')) {
      expect(job.held_equal).toEqual({ prefix_caching: null, max_num_seqs: 4, kv_budget_tokens: null, kv_cache_dtype: 'fp16', sampling: 'neutral' });
      expect(job.argv).not.toContain('--prefix-caching');
    }
  });
});

describe('a run records what was held', () => {
  it('the planned argv becomes the serve parameters the result records in run.parameters (prefix caching, batch cap, KV budget, KV dtype, sampling)', async () => {
    const args = [...configurations[0]!.argv.slice(1), '--hf-cache', tmpdir()];
    const planned = await planRun(runCommand.spec, parseCommandArgs(runCommand.spec, args), args, []);
    expect(planned.params).toMatchObject({ prefix_caching: true, max_num_seqs: 128, kv_budget_tokens: 196608, kv_cache_dtype: 'bf16', sampling: 'neutral' });
  });

  it('--sampling takes only neutral', async () => {
    const run = await runCli(['run', '--engine', 'vllm', '--model', 'm', '--workload', 'chat', '--sampling', 'model', '--dry-run']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--sampling: "model" is not neutral');
  });
});

describe('each engine launched with the held values, docker and process', { timeout: 300_000 }, () => {
  it('vLLM: --enable-prefix-caching, --max-num-seqs, 12288 blocks of 16 tokens, --kv-cache-dtype bfloat16, --generation-config vllm', async () => {
    for (const job of configurations) {
      for (const launcher of ['docker', 'process'] as const) {
        const args = launcher === 'docker' ? [...runArgs(job, 'vllm', 'docker', null), '--image', 'vllm/vllm-openai:v0.26.0'] : runArgs(job, 'vllm', 'process', null);
        const { command } = await dryRun(args);
        // vllm/config/cache.py: CacheDType "bfloat16"; CacheConfig.num_gpu_blocks_override; DEFAULT_BLOCK_SIZE 16.
        expect(command).toContain(`--tensor-parallel-size ${job.model.tp} --dtype bfloat16 --max-model-len 16384 --kv-cache-dtype bfloat16 --max-num-seqs 128 --block-size 16 --num-gpu-blocks-override 12288 --enable-prefix-caching`);
        expect(command).toContain('--generation-config vllm');
      }
    }
  });

  it('SGLang: radix cache left on, --max-running-requests, --max-total-tokens, --kv-cache-dtype bf16, --sampling-defaults openai', async () => {
    for (const job of configurations) {
      for (const launcher of ['docker', 'process'] as const) {
        const { command } = await dryRun(runArgs(job, 'sglang', launcher, launcher === 'docker' ? '0.5.21' : null));
        // server_arguments.md: --kv-cache-dtype "'bf16' or 'bfloat16' for BF16 KV cache"; --max-total-tokens "the maximum number of tokens in the memory pool".
        expect(command).toContain(`--tensor-parallel-size ${job.model.tp} --dtype bfloat16 --context-length 16384 --kv-cache-dtype bf16 --max-running-requests 128 --max-total-tokens 196608`);
        expect(command).toContain('sglang.launch_server --model-path');
        expect(command).toContain('--sampling-defaults openai');
        expect(command).not.toContain('--disable-radix-cache');
      }
    }
  });

  it('TensorRT-LLM: --max_batch_size, and the settings file holds block reuse, the KV token budget and the checkpoint dtype (auto)', async () => {
    for (const job of configurations) {
      for (const launcher of ['docker', 'process'] as const) {
        const { command, config } = await dryRun(runArgs(job, 'trtllm', launcher, launcher === 'docker' ? '1.2.0' : null));
        expect(command).toContain(`--tp_size ${job.model.tp} --max_seq_len 16384 --max_batch_size 128`);
        // llm_args.py KvCacheConfig: enable_block_reuse, max_tokens ("memory corresponding to the minimum will be used"), dtype.
        expect(config).toMatchObject({ dtype: 'bfloat16', enable_chunked_prefill: true, kv_cache_config: { dtype: 'auto', enable_block_reuse: true, max_tokens: 196608 } });
      }
    }
  });

  it('LMDeploy: --enable-prefix-caching, --max-batch-size, 3072 blocks of 64 tokens, --quant-policy 0 with bf16, and repetition_penalty 1 on every request', async () => {
    for (const job of configurations) {
      for (const launcher of ['docker', 'process'] as const) {
        const { command } = await dryRun(runArgs(job, 'lmdeploy', launcher, launcher === 'docker' ? '0.12.3' : null));
        // turbomind_config.md: cache_max_entry_count "When it's an integer > 0, it represents the total number of k/v blocks"; cli/utils.py cache_block_seq_len 64.
        expect(command).toContain(`--tp ${job.model.tp} --dtype bfloat16 --session-len 16384 --quant-policy 0 --max-batch-size 128 --enable-prefix-caching --cache-block-seq-len 64 --cache-max-entry-count 3072`);
      }
    }
    const lmdeploy = loadEngine('lmdeploy');
    const body = requestBody({ model: 'm', temperature: 0, ignoreEos: true, ignoreEosField: lmdeploy.quirks.ignore_eos, engineBody: lmdeploy.quirks.explicit_body, extraBody: {} }, { input: { prompt: 'hi' }, maxTokens: 8 });
    // serve/openai/protocol.py: CompletionRequest.repetition_penalty; a model's generation_config value must not fill it.
    expect(body).toMatchObject({ top_k: 0, top_p: 1, repetition_penalty: 1 });
  });

  it('MLC-LLM (process only: no official image): radix prefix cache, max_num_sequence and max_total_seq_length in --overrides', async () => {
    for (const job of configurations) {
      const { command } = await dryRun(runArgs(job, 'mlc', 'process', null, ['--sampling', '--kv-cache-dtype', '--dtype']));
      expect(command).toContain('--prefix-cache-mode radix');
      expect(command).toContain(`--overrides 'tensor_parallel_shards=${job.model.tp};context_window_size=16384;max_num_sequence=128;max_total_seq_length=196608'`);
    }
  });

  it('llama.cpp (tp 1: it has no tensor parallelism): --parallel 128, the budget as the --ctx-size pool (not 16384 × 128), bf16 cache types; repeat_penalty 1 on every request', async () => {
    const job = configurations.find((j) => j.model.tp === 1)!;
    // The GGUF fixes the weights' dtype (no --dtype), and llama.cpp has no shared prefix cache (plan refuses it: below).
    const docker = await dryRun(runArgs(job, 'llamacpp', 'docker', 'b9603', ['--prefix-caching', '--tp', '--dtype']));
    expect(docker.command).toContain('ghcr.io/ggml-org/llama.cpp:server-cuda-b9603');
    expect(docker.command).toContain('--kv-unified --n-gpu-layers 999 --fit off');
    expect(docker.command).toContain('--ctx-size 196608 --cache-type-k bf16 --cache-type-v bf16 --parallel 128');
    expect(docker.command).not.toContain(String(16384 * 128));
    const cpu = await dryRun(runArgs(job, 'llamacpp', 'process', null, ['--prefix-caching', '--tp', '--dtype']), false);
    expect(cpu.command).toContain('--ctx-size 196608 --cache-type-k bf16 --cache-type-v bf16 --parallel 128');
    expect(loadEngine('llamacpp').quirks.explicit_body).toMatchObject({ top_k: 0, top_p: 1, min_p: 0, repeat_penalty: 1 });
  });
});

/** fleet/fleet.yaml with one more matrix entry (and any other change), written to a test folder. */
function fleetWith(change: (fleet: { held_equal?: Record<string, unknown>; matrix: Array<Record<string, unknown>> }) => void, name: string): string {
  const fleet = parseYaml(readFileSync(FLEET, 'utf8')) as { held_equal?: Record<string, unknown>; matrix: Array<Record<string, unknown>> };
  change(fleet);
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, toYaml(fleet));
  return file;
}

const GPU_ENTRY = { models: [{ id: 'meta-llama/Llama-3.1-8B-Instruct', tp: 1, dtype: 'bfloat16', max_model_len: 16384 }], workloads: [{ name: 'chat', concurrency: [1, 128] }], gpu_types: ['h100-sxm-80gb'], nightly: true };

describe('plan refuses an engine that cannot hold a value, naming the file, entry, engine, parameter and fix', () => {
  it.each([
    ['llamacpp', 'prefix_caching on', 'no shared prefix cache', {}],
    ['mlc', 'kv_cache_dtype bf16', 'no KV-cache dtype flag', {}],
    ['mlc', 'sampling neutral', 'repetition_penalty has no request field', { kv_cache_dtype: null }],
  ])('%s: %s', async (engine, held, reason, override) => {
    const file = fleetWith((f) => f.matrix.push({ name: 'held test', engines: ['vllm', engine], ...GPU_ENTRY, held_equal: override }), `refuse-${engine}-${held.split(' ')[0]}`);
    const run = await runCli(['plan', '--nightly', '--fleet', file, '--format', 'json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}: matrix.${parseYaml(readFileSync(FLEET, 'utf8')).matrix.length}.engines.1: "held test": engine ${engine} cannot hold ${held}`);
    expect(run.stderr).toContain(reason);
    expect(run.stderr).toContain(`held_equal.${held.split(' ')[0]} overridden`);
  });

  it('an entry that overrides what its engine cannot hold plans it, without that flag', async () => {
    const gguf = { id: 'dummy:llama-3.2-1b:Q4_K_M', max_model_len: 16384 };
    const file = fleetWith((f) => f.matrix.push({ name: 'llama.cpp on H100', engines: ['llamacpp'], ...GPU_ENTRY, models: [gguf], held_equal: { prefix_caching: null } }), 'override');
    const jobs = planLoadedFleet(file, loadFleet(file), { nightly: true, releases: [], engineFilter: ['llamacpp'], gpuTypeFilter: ['h100-sxm-80gb'] }).jobs;
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.argv).not.toContain('--prefix-caching');
    expect(jobs[0]!.argv.join(' ')).toContain('--max-num-seqs 128 --kv-budget-tokens 196608 --sampling neutral');
  });

  it('a batch cap below the top concurrency, a model setting a held value, and a budget below one context are refused', () => {
    const problems = (file: string): string => {
      try {
        loadFleet(file);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(problems(fleetWith((f) => f.matrix.push({ engines: ['vllm'], ...GPU_ENTRY, held_equal: { max_num_seqs: 64 } }), 'low-cap'))).toMatch(/held_equal: held_equal\.max_num_seqs 64 is below this entry's top concurrency 128/);
    expect(problems(fleetWith((f) => f.matrix.push({ engines: ['vllm'], ...GPU_ENTRY, models: [{ ...GPU_ENTRY.models[0], max_num_seqs: 256 }] }), 'model-cap'))).toMatch(/models\.0\.max_num_seqs: max_num_seqs is held equal for every engine/);
    expect(problems(fleetWith((f) => (f.held_equal = { ...f.held_equal, kv_budget_tokens: 8192 }), 'small-budget'))).toMatch(/kv_budget_tokens 8192 cannot hold one 16384-token context/);
  });

  it('two parameters that set one flag are refused (LMDeploy: the memory fraction and the KV budget are both --cache-max-entry-count); a budget is rounded up to whole blocks', () => {
    expect(() => renderServeCommand(loadEngine('lmdeploy'), { model: 'm', gpu_memory_utilization: 0.9, kv_budget_tokens: 65536 })).toThrow(/--cache-max-entry-count would be passed twice/);
    expect(renderServeCommand(loadEngine('vllm'), { model: 'm', kv_budget_tokens: 100 }).join(' ')).toContain('--block-size 16 --num-gpu-blocks-override 7');
    expect(renderServeCommand(loadEngine('lmdeploy'), { model: 'm', kv_budget_tokens: 100 }).join(' ')).toContain('--cache-block-seq-len 64 --cache-max-entry-count 2');
  });

  it('a fleet file without held_equal plans what it always did: no held flags, no held_equal in the job', () => {
    const file = fleetWith((f) => {
      delete f.held_equal;
      for (const entry of f.matrix) {
        delete entry['held_equal'];
        // The batch cap as the CPU entries gave it per model before held_equal.
        if ((entry['gpu_types'] as string[]).includes('cpu')) for (const model of entry['models'] as Array<Record<string, unknown>>) model['max_num_seqs'] = 4;
      }
    }, 'nothing-held');
    for (const job of planLoadedFleet(file, loadFleet(file), { nightly: true, releases: [] }).jobs) {
      expect(job.held_equal).toBeUndefined();
      for (const flag of ['--prefix-caching', '--kv-budget-tokens', '--sampling']) expect(job.argv).not.toContain(flag);
    }
  });
});

describe('collect matches a result to the job whose held values it recorded', () => {
  it('two entries differing only in prefix caching: a result run with it on accounts for the "on" job only, and the other way round', () => {
    const file = fleetWith((f) => {
      f.matrix = [
        { name: 'cache on', engines: ['vllm'], ...GPU_ENTRY },
        { name: 'cache off', engines: ['vllm'], ...GPU_ENTRY, held_equal: { prefix_caching: 'off' } },
      ];
    }, 'on-and-off');
    const jobs = planLoadedFleet(file, loadFleet(file), { nightly: true, releases: [] }).jobs;
    expect(jobs.map((j) => j.held_equal!.prefix_caching).sort()).toEqual(['off', 'on']);
    // A synthetic result (bench/lib/synthetic-results.ts) recording what `run` records of the job's flags.
    const resultOf = (job: PlannedJob, prefixCaching: boolean) => {
      const result = syntheticResult({ engine: 'vllm', version: '0.26.0', model: job.model.id, gpu: 'NVIDIA H100 80GB HBM3', gpuCount: 1, workload: job.workload, date: new Date(Date.UTC(2026, 11, 4)), concurrencies: [1, 128], tpotMs: 20, ttftMs: 200, noise: 0, seed: 1, source: 'official' });
      result.run!.parameters = { model: job.model.id, tensor_parallel: 1, kv_cache_dtype: 'bf16', max_model_len: 16384, max_num_seqs: 128, prefix_caching: prefixCaching, kv_budget_tokens: 196608, sampling: 'neutral' };
      result.run!.model.dtype = 'bfloat16';
      result.run!.model.quantization = null;
      result.workload.spec = { ...result.workload.spec, load: job.load };
      result.harness.command = ['servebench', 'run', ...job.argv.slice(1)];
      return RunResultSchema.parse(result);
    };
    for (const [recorded, left] of [[true, 'off'], [false, 'on']] as const) {
      const missing = missingJobs({ jobs }, [resultOf(jobs[0]!, recorded)]);
      expect(missing.map((j) => j.held_equal!.prefix_caching)).toEqual([left]);
    }
  });
});

describe('engines show NAME prints what is held equal and how the engine gets it', () => {
  it('LMDeploy renders each value; MLC says why it cannot hold neutral sampling', async () => {
    const lmdeploy = await runCli(['engines', 'show', 'lmdeploy']);
    expect(lmdeploy.code).toBe(0);
    expect(lmdeploy.stdout).toContain('held equal (fleet/fleet.yaml held_equal): how lmdeploy gets each value');
    expect(lmdeploy.stdout).toMatch(/prefix_caching +on: --enable-prefix-caching\n +off: nothing passed/);
    expect(lmdeploy.stdout).toMatch(/kv_budget_tokens +196608: --cache-block-seq-len 64 --cache-max-entry-count 3072/);
    expect(lmdeploy.stdout).toMatch(/kv_cache_dtype +bf16: --quant-policy 0\n +fp16: --quant-policy 0\n +fp8: cannot: engine lmdeploy has no kv_cache_dtype fp8/);
    expect(lmdeploy.stdout).toMatch(/sampling +neutral: always: every request carries top_k 0, top_p 1 and repetition_penalty 1/);
    const mlc = await runCli(['engines', 'show', 'mlc']);
    expect(mlc.stdout).toMatch(/sampling +cannot: repetition_penalty has no request field/);
    expect(mlc.stdout).toMatch(/kv_budget_tokens +196608: --overrides max_total_seq_length=196608/);
  });
});
