/**
 * The tables behind what a result may claim: the models whose work per token is known
 * (model-sizes.ts), the precision names and their bits, the hardware file's reading (a broken
 * file is the checkout's fault, said as such, not every result's) and the host's CPU class. The
 * hardware and engine files of the error cases are written here, as temporary files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunBlock } from '../../harness/contract/result.ts';
import { ServebenchError } from '../../harness/lib/errors.ts';
import { checkEngineName } from '../../harness/store/engine-names.ts';
import { acceleratorOf, hardwareTable, HARDWARE_FILE, hostLimits } from '../../harness/store/hardware-limits.ts';
import { bitsOfPrecision, MODEL_SIZES, modelWork } from '../../harness/store/model-sizes.ts';
import { synthetic } from './claim-fixtures.ts';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});
function tempFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-tables-'));
  folders.push(dir);
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

const model = (id: string, dtype: string | null = null, quantization: string | null = null): RunBlock['model'] => ({ id, served_name: id, revision: null, dtype, quantization });

describe('model sizes', () => {
  it('know these models, by their lower-case ids, each citing its card or config', () => {
    expect([...MODEL_SIZES.keys()]).toEqual([
      'meta-llama/llama-3.1-8b',
      'meta-llama/llama-3.1-8b-instruct',
      'meta-llama/meta-llama-3.1-8b-instruct',
      'meta-llama/llama-3.1-70b',
      'meta-llama/llama-3.1-70b-instruct',
      'meta-llama/llama-3.3-70b-instruct',
      'meta-llama/llama-3.2-1b',
      'meta-llama/llama-3.2-1b-instruct',
      'dummy/llama-3.2-1b-instruct',
      'meta-llama/llama-3.2-3b',
      'meta-llama/llama-3.2-3b-instruct',
      'qwen/qwen3-0.6b',
      'dummy/qwen3-0.6b',
      'qwen/qwen3-8b',
      'qwen/qwen3-32b',
      'qwen/qwen3-30b-a3b',
      'qwen/qwen3-235b-a22b',
      'mistralai/mistral-7b-instruct-v0.3',
      'mistralai/mixtral-8x7b-instruct-v0.1',
      'mistralai/mixtral-8x22b-instruct-v0.1',
      'deepseek-ai/deepseek-v3',
      'deepseek-ai/deepseek-r1',
      'openai/gpt-oss-120b',
      'openai/gpt-oss-20b',
    ]);
    for (const [id, size] of MODEL_SIZES) {
      expect(size.source, id).toMatch(/^https:\/\/(huggingface\.co|mistral\.ai)\/\S+ .*\d/);
      expect(size.compute_parameters, id).toBeGreaterThan(1e8);
    }
  });

  it('are found whatever the case of the recorded id; a re-upload under another name is not', () => {
    expect(modelWork(model('Meta-Llama/Llama-3.1-8B-Instruct'))!.size).toBe(MODEL_SIZES.get('meta-llama/llama-3.1-8b-instruct'));
    expect(modelWork(model('someone/Llama-3.1-8B-Instruct-AWQ'))).toBeNull();
  });

  it('the precision: the recorded quantization decides; else the dtype can only narrow the checkpoint; auto and unknown names keep it', () => {
    const bits = (dtype: string | null, quantization: string | null, id = 'meta-llama/llama-3.1-8b') => modelWork(model(id, dtype, quantization))!.bits;
    expect(bits(null, null)).toBe(16);
    expect(bits('auto', null)).toBe(16);
    expect(bits('float32', null)).toBe(16);
    expect(bits('fp8', null)).toBe(8);
    expect(bits('made-up', null)).toBe(16);
    expect(bits('bfloat16', 'awq')).toBe(4);
    expect(bits('fp8', 'float32')).toBe(32);
    // An unknown quantization: the narrowest anyone ships.
    expect(bits(null, 'some-new-format')).toBe(1.5);
    // gpt-oss ships MXFP4 experts: 4.25 bits unless a precision says otherwise.
    expect(bits(null, null, 'openai/gpt-oss-20b')).toBe(4.25);
    expect(bits('bfloat16', null, 'openai/gpt-oss-20b')).toBe(4.25);
  });

  it('reads every precision name it knows at its narrowest, whatever its case and separators', () => {
    const table: Record<string, number> = {
      fp32: 32, float32: 32, f32: 32, float: 32,
      bf16: 16, bfloat16: 16, fp16: 16, float16: 16, f16: 16, half: 16, 'BF-16': 16, 'Float 16': 16,
      fp8: 8, float8: 8, fp8_e4m3: 8, fp8_e5m2: 8, e4m3: 8, w8a8: 8, int8: 8, q8_0: 8, Q8_K: 8, modelopt: 8, fbgemm_fp8: 8, ptpc_fp8: 8, 'compressed-tensors8': 8,
      Q4_K_M: 4, Q4_0: 4, IQ1_S: 1, q2_k: 2, Q3_K_S: 3, q5_1: 5, Q6_K: 6, iq4_xs: 4,
      awq: 4, awq_marlin: 4, gptq: 4, gptq_marlin: 4, int4: 4, w4a16: 4, w4a8: 4, bitsandbytes: 4, bnb_4bit: 4, nf4: 4, marlin: 4, fp4: 4, nvfp4: 4, mxfp4: 4, modelopt_fp4: 4,
    };
    expect(Object.fromEntries(Object.keys(table).map((name) => [name, bitsOfPrecision(name)]))).toEqual(table);
    // Each list is matched whole: a known name inside another word is not that name.
    for (const unknown of ['some-new-format', 'fp', 'q', 'xfp8', 'fp8x', 'int16', 'awqx', 'xawq', 'f8', 'tf32', 'fp32x', 'xfp16', 'fp16x', 'xq8', 'xq4']) expect(bitsOfPrecision(unknown), unknown).toBeNull();
  });
});

describe('the hardware file', () => {
  it('matches accelerator names case-insensitively, first match winning', () => {
    const table = hardwareTable();
    expect(acceleratorOf(table, 'nvidia h100 80gb hbm3')?.id).toBe('h100-sxm');
    expect(acceleratorOf(table, 'NVIDIA H100 NVL')?.id).toBe('h100-nvl');
  });

  it('bounds a host by its class: sockets from its threads, at least one, at most the class allows; an empty CPU model is the generic class', () => {
    const table = hardwareTable();
    const epyc = table.cpu_classes.find((c) => c.id === 'amd-epyc')!;
    const host = (cpus: number, cpu_model = 'AMD EPYC 9654 96-Core Processor') => hostLimits(table, { cpu_model, cpus, memory_bytes: 1, os: 'linux' });
    expect(host(0)).toMatchObject({ sockets: 1, peakGops: epyc.peak_gops_per_core });
    expect(host(epyc.threads_per_socket_min).sockets).toBe(1);
    expect(host(epyc.threads_per_socket_min + 1)).toMatchObject({ sockets: 2, memoryBandwidthGbS: 2 * epyc.memory_bandwidth_gb_s_per_socket, peakGops: (epyc.threads_per_socket_min + 1) * epyc.peak_gops_per_core });
    expect(host(epyc.threads_per_socket_min * (epyc.sockets_max + 3)).sockets).toBe(epyc.sockets_max);
    expect(host(4, '').cpuClass).toEqual({ id: table.generic_cpu.id, source: table.generic_cpu.source });
  });

  it('a file that is not YAML, does not match its schema, or holds a pattern that is no regular expression stops the command, naming the file', () => {
    const thrown = (text: string) => {
      const file = tempFile('hardware.yaml', text);
      try {
        hardwareTable(file);
      } catch (error) {
        expect(error).toBeInstanceOf(ServebenchError);
        return (error as Error).message.replace(file, 'FILE');
      }
      throw new Error('no error');
    };
    // The parser's first line only (the yaml package goes on with an excerpt of the file).
    expect(thrown('version: [1\n')).toMatch(/^FILE is not readable YAML \(Flow sequence [^\n]* at line 2, column 1:\); fix it or restore it from git$/);
    expect(thrown('version: 1\naccelerators: []\ncpu_classes: []\n')).toMatch(/^FILE: generic_cpu: .+; fix it or restore it from git$/);
    expect(thrown('version: 0\naccelerators: []\ncpu_classes: []\n')).toBe('FILE: version: Too small: expected number to be >0; generic_cpu: Invalid input: expected object, received undefined; fix it or restore it from git');
    const real = hardwareTable(HARDWARE_FILE);
    const badPattern = JSON.stringify({ ...real, accelerators: [{ ...real.accelerators[0]!, match: ['(unclosed'] }] });
    expect(thrown(badPattern)).toBe('FILE: accelerators.0.match.0: not a regular expression; fix it or restore it from git');
  });
});

describe('the engine specs validate reads', () => {
  it('a broken engines/*.yaml stops the command (the checkout is broken, not the result)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-engines-'));
    folders.push(dir);
    writeFileSync(join(dir, 'broken.yaml'), 'name: broken\n');
    expect(() => checkEngineName(synthetic(), () => {}, dir)).toThrow(/^invalid engine spec \(validate reads engines\/ to know the engine names\)\n/);
  });

  it('a result without a run block names no engine to check', () => {
    const load = synthetic();
    delete (load as { run?: unknown }).run;
    const added: string[] = [];
    checkEngineName(load, (path) => added.push(path));
    expect(added).toEqual([]);
  });
});
