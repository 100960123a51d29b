/**
 * `servebench run`: launch an engine (or use a running endpoint), measure a workload on it, tear
 * it down, and write one immutable result into results/ — also when the run fails.
 */
import { resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { booleanOption, parseCommandArgs, parseNumber, stringOption, numberOption, type CommandSpec, type RawOptions, type Command } from '../../lib/cli/options.ts';
import { existsSync } from 'node:fs';
import { huggingFaceCacheDir } from '../tokenizer/locate.ts';
import { dockerRunArgs, hostGpuVendor } from './docker-launcher.ts';
import { EXIT, usageError } from '../../lib/errors.ts';
import { renderConfigFile, renderServeCommand, shellQuote } from '../engines/render.ts';
import { loadEngine } from '../engines/spec-file.ts';
import { normalizeLoadOptions } from '../load/load-options.ts';
import { RUN_LOAD_FLAGS, RUN_OPTIONS } from '../../contract/command-options.ts';
import { redactArgv } from '../../contract/credentials.ts';
import { createProgressReporter } from '../load/progress.ts';
import { describeLoad } from '../load/describe-load.ts';
import { formatSummaryTable } from '../load/summary-table.ts';
import { officialImage, type ServeParameters } from '../../contract/engine.ts';
import { isDummyModelRef } from '../models/real-shape-model.ts';
import { resolveDummyModel } from '../models/model-ref.ts';
import { executeRun, localModelPaths, onFreshPort, withProgram, type RunPlan } from './runner.ts';
import { deliverResult } from '../load/deliver-result.ts';
import { chooseLlamaCppBuild } from '../builds/llamacpp-build.ts';
import { installedSource } from '../builds/llamacpp-source.ts';
import { freePort } from './free-port.ts';
import { KILL_WAIT_MS, STOP_GRACE_MS } from './process-launcher.ts';
import { killOwnedGroups } from '../../lib/process/owned-groups.ts';
import { stopOnSignal } from '../../lib/process/stop-signals.ts';
import { describePolicy, repeatPolicyOf, runRepeatGroup } from './repeats.ts';
import type { RunOutcome } from './runner.ts';
import { describeAccuracyTask } from '../accuracy/run-accuracy.ts';
import { loadGsm8k } from '../accuracy/gsm8k-dataset.ts';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

const spec: CommandSpec = {
  name: 'run',
  summary: 'launch an engine, measure a workload on it, tear it down, and write one result into results/',
  usage: 'servebench run --engine NAME --model ID_OR_PATH --workload NAME [options]',
  // The contract's table: validate reads a recorded `servebench run …` by it too.
  options: RUN_OPTIONS,
  epilog: [
    'With --repeats, each repeat writes its own result as it ends; the group stops at a failed or interrupted repeat, or one whose result',
    'could not be written, and exits with the last status other than 0 of its repeats (a refused result does not stop it).',
    'Exit status: 0 completed; 1 the run failed (launch, health, probe, measure) or the failure rate was too high; 2 bad input;',
    '3 the result could not be written (it went to stdout instead); 4 a run that did not fail wrote a result `servebench validate`',
    'refuses (each broken rule is printed; the file is kept, and results/ does not take it as it stands);',
    '70 internal error (a servebench bug); 129 SIGHUP (the terminal went away), 130 SIGINT, 143 SIGTERM: the server is always',
    `stopped and the result always written. The server gets ${STOP_GRACE_MS / 1000} s from the signal, then SIGKILL (a second signal: SIGKILL`,
    `at once); the result is written within ${(STOP_GRACE_MS + KILL_WAIT_MS) / 1000} s of the signal, inside the 30 s SLURM and Kubernetes allow by default.`,
  ].join('\n'),
};


function serveParameters(raw: RawOptions, model: string, servedName: string, port: number | null): ServeParameters {
  const int = (name: string): number | undefined => numberOption(spec, raw, name, { min: 1 }, true);
  const prefix = stringOption(spec, raw, 'prefix-caching');
  if (prefix !== undefined && prefix !== 'on' && prefix !== 'off') throw usageError(`--prefix-caching: "${prefix}" is not on or off`);
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
    ...(prefix !== undefined ? { prefix_caching: prefix === 'on' } : {}),
  };
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined)) as ServeParameters;
}

/**
 * validate's check of one written result (harness/store/check-result.ts): a line per broken rule,
 * none when it passes. The store is downstream of measure, so the CLI hands it in (harness/cli.ts).
 */
export type CheckWritten = (text: string, relativePath: string) => readonly string[];

/**
 * `run` that checks what it wrote with `checkWritten` (null: no check); `dummyShapes`: the embedded
 * engine's dummy shape names, on which a workload's accuracy task is skipped (the engines are not measure's to import).
 */
export function createRunCommand(checkWritten: CheckWritten | null, dummyShapes: readonly string[] = []): Command {
  return { spec, run: (argv) => runWith(argv, checkWritten, dummyShapes) };
}

/** The options, and a run without the check of what it wrote: the CLI runs createRunCommand with validate's check. */
export const runCommand: Command = createRunCommand(null);

async function runWith(argv: readonly string[], checkWritten: CheckWritten | null, dummyShapes: readonly string[]): Promise<number> {
  const raw = parseCommandArgs(spec, argv);
  const need = (name: string): string => {
    const value = stringOption(spec, raw, name);
    if (value === undefined || value === '') throw usageError(`--${name} is required; see \`servebench run --help\``);
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
  const params = serveParameters(raw, model, effectiveName, port);
  // In a container the server listens on all of the container's interfaces; docker publishes
  // the port on the host's 127.0.0.1 only.
  if (launcher === 'docker' && params.host !== undefined) params.host = '0.0.0.0';
  let docker: RunPlan['docker'];
  if (launcher === 'docker') {
    const version = stringOption(spec, raw, 'engine-version');
    const image =
      stringOption(spec, raw, 'image') ??
      (version ? (officialImage(engine, version) ?? undefined) : undefined);
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
      ? chooseLlamaCppBuild(stringOption(spec, raw, 'engine-version'), await installedSource().then((s) => s.commit, () => null))
      : null;
  const loadRaw: RawOptions = { endpoint, model: effectiveName, 'no-progress': true };
  for (const flag of RUN_LOAD_FLAGS) if (raw[flag] !== undefined) loadRaw[flag] = raw[flag];
  const load = normalizeLoadOptions(loadRaw);
  if (source === 'official' && raw['tokenizer'] === 'none') throw usageError('--tokenizer none: official results need exact prompt lengths');
  // Before anything is launched: a dataset that is not the one the task was defined on is refused now, not after the load points.
  if (load.workload.accuracy !== undefined) loadGsm8k();
  const repeats = repeatPolicyOf(spec, raw);
  const plan: RunPlan = {
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
    ...(build ? { program: build.binary('llama-server'), engineVersion: build.tag } : {}),
    ...(made ? { modelFile: { id: made.id, file: made.file } } : {}),
    dummyShapes,
  };
  if (booleanOption(raw, 'dry-run')) {
    const lines = [
      `engine:   ${engine.display_name} (${engine.name}), launcher ${launcher}`,
      launcher === 'process'
        ? `command:  ${shellQuote(withProgram(renderServeCommand(engine, params), plan.program))}`
        : launcher === 'docker'
          ? `command:  docker ${shellQuote(dockerRunArgs({ image: docker!.image, argv: renderServeCommand(engine, params), port: port!, gpus, gpuVendor: docker!.gpuVendor, name: 'servebench-RUN_ID', logFile: '', hfCache: docker!.hfCache, hostPaths: localModelPaths(params) }))}`
          : `endpoint: ${endpoint}`,
      ...(engine.config_file ? [`config:   ${JSON.stringify(renderConfigFile(engine, params))} (written as YAML to the <engine-config.yaml> above)`] : []),
      `health:   GET ${engine.health.path} → ${engine.health.status} within ${engine.health.timeout_s} s`,
      `workload: ${load.workload.name} (${load.workload.api}), ${load.loads.map(describeLoad).join('; ')}`,
      `results:  ${plan.resultsDir}/<date>/${engine.name}/…`,
      ...(repeats ? [`repeats:  ${describePolicy(repeats)}`] : []),
      ...(load.workload.accuracy ? [`accuracy: ${describeAccuracyTask(load.workload.accuracy, load.workload.api)}, after the load points`] : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return EXIT.ok;
  }

  // A second signal does not skip the teardown: it only takes away the engine's grace period.
  const stop = stopOnSignal({
    stopping: 'stopping the run and the server',
    again: { hint: 'again to kill the server at once', notice: 'killing the server at once', act: () => killOwnedGroups('SIGKILL') },
  });
  // Some steps do not heed the abort (the probe's requests wait up to minutes on a slow server):
  // the engine gets the same grace from the signal whatever the run was doing, then is killed,
  // which fails whatever still waits on it, so the result is written inside a scheduler's grace.
  let deadline: NodeJS.Timeout | undefined;
  stop.signal.addEventListener('abort', () => {
    deadline = setTimeout(() => killOwnedGroups('SIGKILL'), STOP_GRACE_MS).unref();
  });
  const progress = createProgressReporter(process.stderr, load.loads.length, { count: load.numPrompts, durationS: load.durationS, warmup: load.workload.requests.warmup });
  const json = booleanOption(raw, 'json');
  // A repeat is launched as a fresh run would be: on a free port of its own unless --port names one.
  const freshPort = launcher !== 'external' && raw['port'] === undefined;
  const runOnce = async (repeat = 1) =>
    executeRun(
      repeat > 1 && freshPort ? await onFreshPort(plan) : plan,
      stop.signal,
      booleanOption(raw, 'no-progress') ? undefined : (i, state) => progress.update(i, load.loads[i]!, state),
      () => progress.finishPoint(),
    );
  /** Writes one result and checks what was written; the exit status it earns. `stdout`: what it prints there (a result that cannot be written goes there whatever it says). */
  const deliver = async ({ result, text, relativePath, path }: RunOutcome, stdout: 'json' | 'summary' | 'nothing'): Promise<number> => {
    const delivered = await deliverResult({ text, path, json: stdout === 'json', summary: () => (stdout === 'summary' ? formatSummaryTable(result.points) : '') });
    // The text as written, through the code `validate` runs: a run never exits 0 with a result
    // that validate, and so results/, would refuse.
    const problems = checkWritten?.(text, relativePath) ?? [];
    for (const line of problems) process.stderr.write(`servebench: ${line}\n`);
    if (problems.length > 0) {
      const where = delivered.written ? `kept in ${path}` : 'on stdout';
      process.stderr.write(`servebench: \`servebench validate\` refuses this result (${problems.length} problem${problems.length === 1 ? '' : 's'}, above): it is ${where}, but results/ does not take it as it stands\n`);
    }
    if (result.run?.failure) process.stderr.write(`servebench: the run failed during ${result.run.failure.phase}: ${result.run.failure.message}\n`);
    // First where the result is, then that the run failed (its result may well be refused too), then the refusal.
    if (delivered.exitCode !== null) return delivered.exitCode;
    if (result.run?.failure) return stop.exitCode() ?? EXIT.thresholdExceeded;
    if (problems.length > 0) return stop.exitCode() ?? EXIT.resultRefused;
    if (result.outcome.interrupted) return stop.exitCode() ?? EXIT.interrupted;
    return result.outcome.exceeded_max_failure_rate ? EXIT.thresholdExceeded : EXIT.ok;
  };
  try {
    if (repeats === null) return await deliver(await runOnce(), json ? 'json' : 'summary');
    // Each repeat's file is written as it ends (nothing waits on the group); with --json, stdout
    // gets the group's verdicts at the end instead of each result.
    const group = await runRepeatGroup(repeats, {
      runOnce,
      deliver: (outcome) => deliver(outcome, json ? 'nothing' : 'summary'),
      announce: (line) => process.stderr.write(`servebench: ${line}\n`),
      resultsDir: plan.resultsDir,
    });
    const { exitCode, ...verdict } = group;
    if (json) process.stdout.write(`${JSON.stringify(verdict, null, 2)}\n`);
    return exitCode;
  } finally {
    clearTimeout(deadline);
    stop.dispose();
  }
}
