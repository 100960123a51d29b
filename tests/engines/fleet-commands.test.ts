/**
 * What `servebench run --dry-run` renders for the fleet's GPU configurations (fleet/fleet.yaml's
 * models at the top of their concurrency sweep), per engine, docker and process launches, held to
 * the flags each engine's own sources define at the release its file was checked against (the
 * citations are in engines/<name>.yaml next to each flag). Nothing is launched: the dry run prints
 * the command `run` would start. GPU memory comes from the fake nvidia-smi (tests/fixtures), the
 * only stand-in: this machine has no GPU.
 */
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { writeGguf } from '../../harness/measure/models/gguf-writer.ts';
import { requestBody } from '../../harness/measure/load/request-body.ts';
import { loadEngine } from '../../harness/measure/engines/spec-file.ts';
import { resolveImage } from '../../harness/pipeline/plan/plan.ts';
import { FleetEngineSchema, GpuTypeSchema } from '../../harness/contract/fleet.ts';
import { runCli } from '../cli/run-cli.ts';

const FAKE_NVIDIA_SMI = resolve('tests/fixtures/fake-nvidia-smi');
/** The fake's GPUs: "NVIDIA H100 80GB HBM3, 81559" MiB each. */
const H100_MIB = 81559;

interface FleetModel {
  readonly id: string;
  readonly tp?: number;
  readonly dtype?: string;
  readonly max_model_len?: number;
}
interface FleetEntry {
  readonly gpu_types: string[];
  readonly models: FleetModel[];
  readonly workloads: Array<string | { name: string; concurrency?: number[] }>;
}

/** The fleet's GPU configurations: each model of a GPU entry, its batch cap the top of the entry's concurrency sweep. */
function fleetGpuConfigurations(): Array<{ model: FleetModel; maxNumSeqs: number }> {
  const fleet = parseYaml(readFileSync('fleet/fleet.yaml', 'utf8')) as { matrix: FleetEntry[] };
  const configurations = new Map<string, { model: FleetModel; maxNumSeqs: number }>();
  for (const entry of fleet.matrix.filter((e) => !e.gpu_types.includes('cpu'))) {
    const top = Math.max(...entry.workloads.flatMap((w) => (typeof w === 'string' ? [] : (w.concurrency ?? []))));
    for (const model of entry.models) configurations.set(`${model.id}@${model.tp ?? 1}`, { model, maxNumSeqs: top });
  }
  return [...configurations.values()];
}

function configArgs(model: FleetModel, maxNumSeqs: number): string[] {
  return ['--model', model.id, '--tp', String(model.tp ?? 1), ...(model.dtype ? ['--dtype', model.dtype] : []), ...(model.max_model_len ? ['--max-model-len', String(model.max_model_len)] : []), '--max-num-seqs', String(maxNumSeqs)];
}

/** The `command:` line of a dry run (the argv run would start, as a shell shows it). */
function commandLine(stdout: string): string {
  return stdout.split('\n').find((line) => line.startsWith('command:'))!.slice('command:'.length).trim();
}

async function dryRun(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli(['run', ...args, '--workload', 'chat', '--hf-cache', tmpdir(), '--dry-run'], 60_000, env);
}

const configurations = fleetGpuConfigurations();

describe('SGLang', () => {
  it('docker: the CUDA 13 image v{version} (no -cu129: its last tag is v0.5.19-cu129), python3 -m sglang.launch_server with the configuration', { timeout: 60_000 }, async () => {
    // fleet/fleet.yaml's GPU configurations: 8B at tp 1, 70B at tp 2 and 4, bf16, 16384 tokens, 128 concurrent at the top.
    expect(configurations.map(({ model, maxNumSeqs }) => `${model.id} tp${model.tp} ${model.dtype} ${model.max_model_len} ×${maxNumSeqs}`).sort()).toEqual([
      'meta-llama/Llama-3.1-8B-Instruct tp1 bfloat16 16384 ×128',
      'meta-llama/Llama-3.3-70B-Instruct tp2 bfloat16 16384 ×128',
      'meta-llama/Llama-3.3-70B-Instruct tp4 bfloat16 16384 ×128',
    ]);
    for (const { model, maxNumSeqs } of configurations) {
      const run = await dryRun(['--engine', 'sglang', '--launcher', 'docker', '--engine-version', '0.5.21', '--gpu', '0', ...configArgs(model, maxNumSeqs)]);
      expect(run.code, run.stderr).toBe(0);
      const command = commandLine(run.stdout);
      expect(command).toContain(`--entrypoint python3 lmsysorg/sglang:v0.5.21 -m sglang.launch_server --model-path ${model.id}`);
      expect(command).not.toMatch(/cu129/);
      // server_args.py ServerArgs: flags are the field names (tp_size, alias --tensor-parallel-size; context_length; max_running_requests).
      expect(command).toContain(`--tensor-parallel-size ${model.tp} --dtype bfloat16 --context-length 16384 --max-running-requests ${maxNumSeqs} --enable-metrics`);
    }
  });

  it('a release given by its tag (v0.5.21) names the same image', async () => {
    const run = await dryRun(['--engine', 'sglang', '--launcher', 'docker', '--engine-version', 'v0.5.21', '--model', 'm']);
    expect(run.code, run.stderr).toBe(0);
    expect(commandLine(run.stdout)).toContain(' lmsysorg/sglang:v0.5.21 ');
  });
});

describe('vLLM', () => {
  it('docker: vllm as entrypoint with serve as its first argument, and no metrics flag (the /metrics route is always mounted)', { timeout: 60_000 }, async () => {
    for (const { model, maxNumSeqs } of configurations) {
      const run = await dryRun(['--engine', 'vllm', '--launcher', 'docker', '--engine-version', '0.31.0', '--gpu', '0', ...configArgs(model, maxNumSeqs)]);
      expect(run.code, run.stderr).toBe(0);
      const command = commandLine(run.stdout);
      // docker/Dockerfile, stage vllm-openai: ENTRYPOINT ["vllm", "serve"]; servebench names the program and passes serve itself.
      expect(command).toContain(`--entrypoint vllm vllm/vllm-openai:v0.31.0 serve ${model.id} --generation-config vllm`);
      // vllm/entrypoints/serve/instrumentator/metrics.py attach_router mounts /metrics with no option to turn it on.
      expect(command).not.toMatch(/--enable-metrics|--metrics\b/);
    }
  });
});

describe('LMDeploy', () => {
  it('docker: lmdeploy as entrypoint, the TurboMind backend, no metrics flag (TurboMind metrics are on unless --disable-metrics), the version read from lmdeploy --version in the container', { timeout: 60_000 }, async () => {
    for (const { model, maxNumSeqs } of configurations) {
      const run = await dryRun(['--engine', 'lmdeploy', '--launcher', 'docker', '--engine-version', '0.12.3', '--gpu', '0', ...configArgs(model, maxNumSeqs)]);
      expect(run.code, run.stderr).toBe(0);
      const command = commandLine(run.stdout);
      expect(command).toContain(`--entrypoint lmdeploy openmmlab/lmdeploy:v0.12.3-cu12.8 serve api_server ${model.id} --backend turbomind`);
      // lmdeploy/cli/serve.py builds TurbomindEngineConfig(enable_metrics=not args.disable_metrics) and
      // serve/openai/api_server.py mount_metrics mounts /metrics when enable_metrics: on by default.
      expect(command).not.toContain('--enable-metrics');
      expect(command).not.toContain('--disable-metrics');
    }
    // lmdeploy/cli/cli.py: -v/--version (argparse action 'version'); run through docker exec in the serving container.
    expect(loadEngine('lmdeploy').version).toEqual({ command: ['lmdeploy', '--version'] });
  });
});

describe('TensorRT-LLM', () => {
  it('docker and process: the settings file holds the memory fraction (its kv_cache_config replaces the command line’s), chunked prefill, iteration stats and the dtype', { timeout: 60_000 }, async () => {
    const { model, maxNumSeqs } = configurations[0]!;
    for (const launcher of ['docker', 'process']) {
      const release = launcher === 'docker' ? ['--engine-version', '1.2.0'] : [];
      const run = await dryRun(['--engine', 'trtllm', '--launcher', launcher, ...release, '--gpu', '0', ...configArgs(model, maxNumSeqs), '--gpu-memory-utilization', '0.85']);
      expect(run.code, run.stderr).toBe(0);
      const command = commandLine(run.stdout);
      expect(command).toContain(launcher === 'docker' ? `--entrypoint trtllm-serve nvcr.io/nvidia/tensorrt-llm/release:1.2.0 ${model.id} --backend pytorch` : `trtllm-serve ${model.id} --backend pytorch`);
      expect(command).toContain(`--tp_size 1 --max_seq_len 16384 --max_batch_size ${maxNumSeqs}`);
      expect(command).not.toContain('--kv_cache_free_gpu_memory_fraction');
      const config = JSON.parse(/^config: {3}(\{.*\}) \(written/m.exec(run.stdout)![1]!) as Record<string, unknown>;
      expect(config).toEqual({
        return_perf_metrics: true,
        enable_iter_perf_stats: true,
        enable_chunked_prefill: true,
        dtype: 'bfloat16',
        kv_cache_config: { free_gpu_memory_fraction: 0.85 },
      });
    }
  });
});

describe('MLC-LLM', () => {
  it('every request carries neutral sampling: top_p 1 and no frequency or presence penalty, so mlc-chat-config.json does not choose them', () => {
    const mlc = loadEngine('mlc');
    const body = requestBody(
      { model: 'm', temperature: 0, ignoreEos: true, ignoreEosField: mlc.quirks.ignore_eos, engineBody: mlc.quirks.explicit_body, extraBody: {} },
      { input: { prompt: 'hello' }, maxTokens: 8 },
    );
    // cpp/serve/config.cc: a field left out takes default_config's (the model's mlc-chat-config.json) value.
    expect(body).toMatchObject({ temperature: 0, top_p: 1, frequency_penalty: 0, presence_penalty: 0, debug_config: { ignore_eos: true } });
  });
});

/** A GGUF holding only the metadata llama.cpp sizes a KV cache by: Llama-3.1-8B's shape (32 layers, 8 KV heads of 128), no weights (synthetic). */
function llama8bShapeGguf(dir: string): string {
  const path = join(dir, 'llama-3.1-8b-shape.gguf');
  writeGguf(
    path,
    [
      ['general.architecture', { type: 'string', value: 'llama' }],
      ['general.name', { type: 'string', value: 'synthetic Llama-3.1-8B shape (no weights)' }],
      ['llama.block_count', { type: 'u32', value: 32 }],
      ['llama.context_length', { type: 'u32', value: 131072 }],
      ['llama.embedding_length', { type: 'u32', value: 4096 }],
      ['llama.attention.head_count', { type: 'u32', value: 32 }],
      ['llama.attention.head_count_kv', { type: 'u32', value: 8 }],
    ],
    [],
  );
  return path;
}

/** A servebench llama.cpp build as build.json records it (synthetic: no binary is run by a dry run). */
function fakeBuild(cache: string, cmakeFlags: readonly string[], key = 'ab'.repeat(20)): string {
  const commit = 'ab'.repeat(20);
  const dir = join(cache, 'llama.cpp', key);
  mkdirSync(join(dir, 'bin'), { recursive: true });
  const manifest = { tag: 'v0.4.0', commit, node_llama_cpp: '3.21.1', targets: ['llama-server'], cmake_flags: cmakeFlags, built_at: '2026-12-01T00:00:00.000Z', build_seconds: 1, jobs: 1 };
  writeFileSync(join(dir, 'build.json'), JSON.stringify(manifest));
  return join(dir, 'bin', 'llama-server');
}

describe('llama.cpp', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-llamacpp-gpu-'));
  const gguf = llama8bShapeGguf(dir);
  const onGpus = { PATH: `${FAKE_NVIDIA_SMI}:${process.env['PATH']}` };
  /** K and V of 32 layers × 8 heads × 128 at f16: 128 KiB a token. */
  const bytesPerToken = 32 * 8 * (128 + 128) * 2;

  it('docker: server-cuda-b<N> from the build number or its tag, /app/llama-server as entrypoint, every layer offloaded, no fitting, one unified pool', { timeout: 60_000 }, async () => {
    for (const version of ['b9603', '9603']) {
      const run = await dryRun(['--engine', 'llamacpp', '--launcher', 'docker', '--engine-version', version, '--gpu', '0', '--model', gguf, '--max-model-len', '16384', '--max-num-seqs', '32'], onGpus);
      expect(run.code, run.stderr).toBe(0);
      const command = commandLine(run.stdout);
      expect(command).toContain(`--entrypoint /app/llama-server ghcr.io/ggml-org/llama.cpp:server-cuda-b9603 --model ${gguf} --cont-batching --jinja --kv-unified --n-gpu-layers 999 --fit off`);
      // 32 slots × 16384 tokens: 64 GiB of KV at f16, within the 80 GB GPU.
      expect(command).toContain('--ctx-size 524288 --parallel 32 --metrics');
      expect(command).toContain(`--volume ${dir}:${dir}:ro`);
    }
  });

  it('a release no image is tagged by (node-llama-cpp 3.21.1, the vX.Y.Z release v0.4.0) is refused, not rendered into a tag', async () => {
    for (const version of ['3.21.1', 'v0.4.0']) {
      const run = await dryRun(['--engine', 'llamacpp', '--launcher', 'docker', '--engine-version', version, '--model', gguf]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`llamacpp's official image (ghcr.io/ggml-org/llama.cpp:server-cuda-b{version}) exists only for releases matching ^\\d+$; "${version}" is not one`);
      expect(run.stdout).toBe('');
    }
  });

  it('plan refuses a GPU job of a node-llama-cpp release (the CPU lane pins those) instead of putting it in an image tag', () => {
    const h100 = GpuTypeSchema.parse({ id: 'h100-sxm-80gb', name: 'NVIDIA H100 80GB HBM3', vendor: 'nvidia', gpus_per_host: 8, price: 'H100', github: { labels: ['gpu-h100'] } });
    const llamacpp = loadEngine('llamacpp');
    expect(resolveImage(llamacpp, FleetEngineSchema.parse({ version: '3.21.1' }), h100, '3.21.1')).toEqual({
      problem: `llamacpp's official image (ghcr.io/ggml-org/llama.cpp:server-cuda-b{version}) exists only for releases matching ^\\d+$; "3.21.1" is not one (engines/llamacpp.yaml image.releases)`,
    });
    expect(resolveImage(llamacpp, FleetEngineSchema.parse({ version: 'b9603' }), h100, 'b9603')).toEqual({ image: 'ghcr.io/ggml-org/llama.cpp:server-cuda-b9603', launcher: 'docker' });
  });

  it("the fleet's 8B configuration (16384 tokens × 128 slots: 256 GiB of KV) is refused on an 80 GB GPU, naming the fields and how many tokens fit", { timeout: 60_000 }, async () => {
    const { model, maxNumSeqs } = configurations.find((c) => c.model.id.includes('8B'))!;
    const run = await dryRun(['--engine', 'llamacpp', '--launcher', 'docker', '--engine-version', 'b9603', '--gpu', '0', '--model', gguf, '--max-model-len', String(model.max_model_len), '--max-num-seqs', String(maxNumSeqs)], onGpus);
    expect(run.code).toBe(2);
    const fits = Math.floor((H100_MIB * 1024 ** 2 - 1024 * 1024 ** 2 - statSync(gguf).size) / bytesPerToken);
    expect(run.stderr).toContain('llama.cpp cannot hold this configuration on 1 GPU(s) of 79.6 GiB');
    expect(run.stderr).toContain(`a KV cache of 2,097,152 tokens (--max-num-seqs 128 × --max-model-len 16384, 128 KiB a token at auto) = 256.0 GiB`);
    expect(run.stderr).toContain(`Lower --max-num-seqs or --max-model-len until their product is at most ${fits.toLocaleString('en')} tokens`);
    expect(run.stdout).toBe('');
  });

  it('process with --gpu: refused on servebench’s CPU build (or llama-server from PATH), naming the option and the fixes; a CUDA build runs on the GPU; without --gpu nothing changes', { timeout: 60_000 }, async () => {
    const cpu = mkdtempSync(join(tmpdir(), 'sb-cache-'));
    fakeBuild(cpu, ['-DCMAKE_BUILD_TYPE=Release', '-DGGML_NATIVE=OFF']);
    // The CPU lane's launch (no --gpu) is what it was: no GPU arguments, the pool split per slot, as older releases (b4753) take it.
    const lane = await dryRun(['--engine', 'llamacpp', '--launcher', 'process', '--model', gguf, '--max-model-len', '2048', '--max-num-seqs', '4'], { SERVEBENCH_CACHE: cpu });
    expect(lane.code, lane.stderr).toBe(0);
    expect(commandLine(lane.stdout)).toBe(`${join(cpu, 'llama.cpp', 'ab'.repeat(20), 'bin', 'llama-server')} --model ${gguf} --cont-batching --jinja --alias ${gguf} --host 127.0.0.1 --port ${/--port (\d+)/.exec(lane.stdout)![1]} --ctx-size 8192 --parallel 4 --metrics`);
    const refused = await dryRun(['--engine', 'llamacpp', '--launcher', 'process', '--gpu', '0', '--model', gguf, '--max-model-len', '2048', '--max-num-seqs', '4'], { SERVEBENCH_CACHE: cpu, ...onGpus });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--gpu 0: llama.cpp launched as a process would run servebench's build of llama.cpp v0.4.0, a CPU build (its cmake flags have no -DGGML_CUDA=ON), on the CPU, not on GPU 0; build a CUDA one where the CUDA toolkit is (`servebench llamacpp build --cuda`), use --launcher docker (the CUDA image, engines/llamacpp.yaml image) for a GPU run, or leave --gpu out for a CPU run");
    const none = await dryRun(['--engine', 'llamacpp', '--launcher', 'process', '--gpu', '0', '--model', gguf], { SERVEBENCH_CACHE: mkdtempSync(join(tmpdir(), 'sb-cache-')), ...onGpus });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('would run llama-server from PATH (no servebench build: whether it has CUDA is unknown)');

    const cuda = mkdtempSync(join(tmpdir(), 'sb-cache-'));
    const program = fakeBuild(cuda, ['-DCMAKE_BUILD_TYPE=Release', '-DGGML_CUDA=ON', '-DCMAKE_CUDA_ARCHITECTURES=90']);
    // What its build.json records is what `llamacpp list` says of it.
    expect((await runCli(['llamacpp', 'list'], 30_000, { SERVEBENCH_CACHE: cuda })).stdout).toContain('(node-llama-cpp 3.21.1, bundle ababababab), a CUDA build,');
    expect((await runCli(['llamacpp', 'list'], 30_000, { SERVEBENCH_CACHE: cpu })).stdout).toContain(', a CPU build,');
    const run = await dryRun(['--engine', 'llamacpp', '--launcher', 'process', '--gpu', '0', '--model', gguf, '--max-model-len', '2048', '--max-num-seqs', '4'], { SERVEBENCH_CACHE: cuda, ...onGpus });
    expect(run.code, run.stderr).toBe(0);
    expect(commandLine(run.stdout)).toContain(`${program} --model ${gguf} --cont-batching --jinja --kv-unified --n-gpu-layers 999 --fit off`);

    // Both builds of one release in one cache (`llamacpp build` and `llamacpp build --cuda --cuda-arch 90`): --gpu runs the CUDA one, the CPU lane the CPU one.
    const both = mkdtempSync(join(tmpdir(), 'sb-cache-'));
    const cpuProgram = fakeBuild(both, ['-DCMAKE_BUILD_TYPE=Release', '-DGGML_NATIVE=OFF']);
    const gpuProgram = fakeBuild(both, ['-DCMAKE_BUILD_TYPE=Release', '-DGGML_NATIVE=OFF', '-DGGML_CUDA=ON', '-DCMAKE_CUDA_ARCHITECTURES=90'], `${'ab'.repeat(20)}-cuda-90`);
    for (const version of [[], ['--engine-version', 'v0.4.0']]) {
      const onGpu = await dryRun(['--engine', 'llamacpp', '--launcher', 'process', ...version, '--gpu', '0', '--model', gguf, '--max-model-len', '2048', '--max-num-seqs', '4'], { SERVEBENCH_CACHE: both, ...onGpus });
      expect(onGpu.code, onGpu.stderr).toBe(0);
      expect(commandLine(onGpu.stdout).startsWith(`${gpuProgram} `)).toBe(true);
      const onCpu = await dryRun(['--engine', 'llamacpp', '--launcher', 'process', ...version, '--model', gguf, '--max-model-len', '2048', '--max-num-seqs', '4'], { SERVEBENCH_CACHE: both });
      expect(onCpu.code, onCpu.stderr).toBe(0);
      expect(commandLine(onCpu.stdout).startsWith(`${cpuProgram} `)).toBe(true);
    }
  });
});
