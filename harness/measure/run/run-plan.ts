/**
 * What `servebench run`'s flags ask for, as the runner's plan: the engine, the launch (process,
 * docker or external; the release it runs), the serve parameters and the load. One definition,
 * shared by `run` and by `ab`, whose every arm is the `run` its flags name (harness/measure/ab/).
 */
import { resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { parseNumber, stringOption, numberOption, type CommandSpec, type RawOptions } from '../../lib/cli/options.ts';
import { huggingFaceCacheDir } from '../tokenizer/locate.ts';
import { hostGpuVendor } from './docker-launcher.ts';
import { usageError } from '../../lib/errors.ts';
import { loadEngine } from '../engines/spec-file.ts';
import { normalizeLoadOptions } from '../load/load-options.ts';
import { RUN_LOAD_FLAGS } from '../../contract/command-options.ts';
import { redactArgv } from '../../contract/credentials.ts';
import { officialImage, type Engine, type ServeParameters } from '../../contract/engine.ts';
import { isDummyModelRef } from '../models/real-shape-model.ts';
import { resolveDummyModel } from '../models/model-ref.ts';
import type { RunPlan } from './runner.ts';
import { chooseLlamaCppBuild } from '../builds/llamacpp-build.ts';
import { installedSource } from '../builds/llamacpp-source.ts';
import { freePort } from './free-port.ts';
import { refuseCpuBuildOnGpus, refuseWhatCannotFit } from './llamacpp-on-gpu.ts';
import { loadGsm8k } from '../accuracy/gsm8k-dataset.ts';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

function serveParameters(spec: CommandSpec, raw: RawOptions, model: string, servedName: string, port: number | null): ServeParameters {
  const int = (name: string): number | undefined => numberOption(spec, raw, name, { min: 1 }, true);
  const prefix = stringOption(spec, raw, 'prefix-caching');
  if (prefix !== undefined && prefix !== 'on' && prefix !== 'off') throw usageError(`--prefix-caching: "${prefix}" is not on or off`);
  const sampling = stringOption(spec, raw, 'sampling');
  if (sampling !== undefined && sampling !== 'neutral') throw usageError(`--sampling: "${sampling}" is not neutral (leave it out for the engine's own defaults)`);
  const params: ServeParameters = {
    model,
    served_name: servedName,
    host: '127.0.0.1',
    ...(port !== null ? { port } : {}),
    tensor_parallel: int('tp'),
    pipeline_parallel: int('pp'),
    data_parallel: int('dp'),
    dtype: stringOption(spec, raw, 'dtype'),
    quantization: stringOption(spec, raw, 'quantization'),
    max_model_len: int('max-model-len'),
    kv_cache_dtype: stringOption(spec, raw, 'kv-cache-dtype'),
    max_num_seqs: int('max-num-seqs'),
    gpu_memory_utilization: numberOption(spec, raw, 'gpu-memory-utilization', { min: 0, exclusiveMin: true, max: 1 }),
    kv_budget_tokens: int('kv-budget-tokens'),
    ...(prefix !== undefined ? { prefix_caching: prefix === 'on' } : {}),
    sampling,
  };
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined)) as ServeParameters;
}

/**
 * The release a process launch runs, as a serve flag: only an engine whose spec has an
 * engine_version flag can be asked for one (the sim). Any other process-launched engine runs
 * whatever its command starts, so a --engine-version it would silently ignore is refused: the
 * result would record the release that answered, not the one asked for. A servebench build
 * (llama.cpp: its build by --engine-version) and docker (the image's tag) choose the release
 * their own way and take no flag.
 */
function versionFlag(engine: Engine, launcher: RunPlan['launcher'], version: string | undefined): ServeParameters {
  if (version === undefined || launcher !== 'process' || engine.local_build !== undefined) return {};
  if (engine.serve.flags.engine_version === undefined) {
    throw usageError(
      `--engine-version ${version}: engine ${engine.name} launched as a process runs whatever its serve command starts, and its spec has no serve flag to ask for a release; ` +
        `leave --engine-version out (the server reports its own version), use --launcher docker${engine.image ? ` (${engine.name}'s official image at that tag)` : ' --image IMAGE'}, or add serve.flags.engine_version to its spec`,
    );
  }
  return { engine_version: version };
}

/**
 * The runner's plan of `servebench run` with these flags (`spec`: the table they were parsed by,
 * whose defaults apply; `argv`: what the result records as the command line). Refuses bad input
 * before anything is launched; a dummy model is made on first use.
 */
export async function planRun(spec: CommandSpec, raw: RawOptions, argv: readonly string[], dummyShapes: readonly string[]): Promise<RunPlan> {
  const need = (name: string): string => {
    const value = stringOption(spec, raw, name);
    if (value === undefined || value === '') throw usageError(`--${name} is required; see \`servebench ${spec.name} --help\``);
    return value;
  };
  const engine = loadEngine(need('engine'));
  // A local model file or folder by its absolute path: the launch runs elsewhere (the repository, a container).
  const modelArg = need('model');
  // dummy:<shape>:<quantization>: a real model's shape with random weights, made on first use.
  const made = isDummyModelRef(modelArg) ? await resolveDummyModel(modelArg, (step) => process.stderr.write(`model: ${step}…\n`)) : null;
  const model = made?.path ?? (existsSync(modelArg) ? resolve(modelArg) : modelArg);
  if (made && raw['tokenizer'] === undefined) raw['tokenizer'] = made.tokenizerDir;
  need('workload');
  const launcher = stringOption(spec, raw, 'launcher')!;
  if (launcher !== 'process' && launcher !== 'docker' && launcher !== 'external') throw usageError(`--launcher: "${launcher}" is not one of process, docker, external`);
  const source = stringOption(spec, raw, 'source') ?? 'community';
  if (source !== 'community' && source !== 'official') throw usageError(`--source: "${source}" is not community or official`);
  const gpuText = stringOption(spec, raw, 'gpu');
  const gpus = gpuText === undefined ? [] : gpuText.split(',').map((g) => parseNumber('gpu', g, { min: 0 }, true));
  const servedName = stringOption(spec, raw, 'served-name') ?? made?.id ?? model;
  // Engines that cannot rename the model serve it under its path or id.
  const effectiveName = 'served_name' in engine.serve.unsupported ? model : servedName;
  const port = launcher === 'external' ? null : (numberOption(spec, raw, 'port', { min: 1, max: 65535 }, true) ?? (await freePort()));
  const requestedVersion = stringOption(spec, raw, 'engine-version');
  const params = { ...serveParameters(spec, raw, model, effectiveName, port), ...versionFlag(engine, launcher, requestedVersion) };
  // In a container the server listens on all of the container's interfaces; docker publishes
  // the port on the host's 127.0.0.1 only.
  if (launcher === 'docker' && params.host !== undefined) params.host = '0.0.0.0';
  let docker: RunPlan['docker'];
  if (launcher === 'docker') {
    const image = stringOption(spec, raw, 'image') ?? (requestedVersion ? (officialImage(engine, requestedVersion) ?? undefined) : undefined);
    if (image === undefined) throw usageError(`--launcher docker needs --image, or --engine-version for ${engine.name}'s official image${engine.image ? '' : ' (it has none: give --image)'}`);
    const defaultCache = huggingFaceCacheDir();
    docker = { image, gpus, gpuVendor: hostGpuVendor(), port: port!, hfCache: stringOption(spec, raw, 'hf-cache') ?? (existsSync(defaultCache) ? defaultCache : null) };
  }
  // servebench chooses these two; an engine that cannot take them keeps its own.
  if ('served_name' in engine.serve.unsupported) delete params.served_name;
  if ('host' in engine.serve.unsupported) delete params.host;
  const endpoint = launcher === 'external' ? need('endpoint') : `http://127.0.0.1:${port}`;
  // An engine servebench builds itself runs from that build, and its version is the build's release.
  const build =
    launcher === 'process' && engine.local_build === 'llamacpp'
      ? chooseLlamaCppBuild(requestedVersion, await installedSource().then((s) => s.commit, () => null), process.env, gpus.length > 0)
      : null;
  if (engine.local_build === 'llamacpp') {
    if (launcher === 'process') refuseCpuBuildOnGpus(build, gpus);
    if (launcher !== 'external') await refuseWhatCannotFit(existsSync(model) ? model : null, params, gpus);
  }
  // In a container the program is where the image puts it (llama.cpp's is not on the image's PATH).
  const program = build?.binary('llama-server') ?? (launcher === 'docker' ? engine.image?.entrypoint : undefined);
  const loadRaw: RawOptions = { endpoint, model: effectiveName, 'no-progress': true };
  for (const flag of RUN_LOAD_FLAGS) if (raw[flag] !== undefined) loadRaw[flag] = raw[flag];
  const load = normalizeLoadOptions(loadRaw);
  if (source === 'official' && raw['tokenizer'] === 'none') throw usageError('--tokenizer none: official results need exact prompt lengths');
  // Before anything is launched: a dataset that is not the one the task was defined on is refused now, not after the load points.
  if (load.workload.accuracy !== undefined) loadGsm8k();
  return {
    engine,
    launcher,
    ...(docker ? { docker } : {}),
    gpus,
    params,
    endpoint,
    load: {
      ...load,
      engineRequest: { ignoreEosField: engine.quirks.ignore_eos, body: engine.quirks.explicit_body },
      modelSource: model,
      requireExactLengths: source === 'official',
    },
    resultsDir: resolve(stringOption(spec, raw, 'results-dir')!),
    source,
    logDir: resolve(tmpdir(), 'servebench-logs'),
    argv: ['servebench', 'run', ...redactArgv(argv)],
    cwd: REPO,
    ...(program !== undefined ? { program } : {}),
    ...(build ? { engineVersion: build.tag } : {}),
    ...(made ? { modelFile: { id: made.id, file: made.file } } : {}),
    dummyShapes,
  };
}
