/**
 * The runner: launch → wait for health (bounded) → probe → measure every load point → fidelity
 * probe and the workload's accuracy task, on the same server → teardown, teardown always (in finally, on SIGINT/SIGTERM through the abort signal, after a crash). Every
 * attempt ends as one result — completed, interrupted or failed with the phase, the error and the
 * server log's last lines — and the points that completed are kept.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { LoadConfig } from '../load/load-options.ts';
import { assembleResult, bodyOptionsOf, newRunId, runLoad, type LoadRun } from '../load/run-load.ts';
import type { PointProgress } from '../load/run-point.ts';
import { renderConfigFile, renderServeCommand } from '../engines/render.ts';
import { stringify as stringifyYaml } from 'yaml';
import type { Engine, ServeParameters } from '../../contract/engine.ts';
import { RunResultSchema, type Point, type Probe, type RunBlock, type RunResult } from '../../contract/result.ts';
import { redactValue } from '../../contract/credentials.ts';
import { engineVersion } from './engine-version.ts';
import { externalServer } from './external-server.ts';
import { fatalLine, logTail, waitHealthy } from './health.ts';
import type { ModelFileFacts } from '../models/model-ref.ts';
import { cpuTimes, harnessGit, hostFacts, modelRevision } from './host.ts';
import type { LaunchedServer } from './launched-server.ts';
import { launchProcess } from './process-launcher.ts';
import { launchDocker, type GpuVendor } from './docker-launcher.ts';
import { freePort } from './free-port.ts';
import { parseEndpoint } from '../load/endpoint.ts';
import { probeServer } from './probe.ts';
import { runFidelityProbe } from '../fidelity/run-fidelity.ts';
import type { Fidelity } from '../../contract/fidelity.ts';
import type { Accuracy, AccuracyTaskSpec } from '../../contract/accuracy.ts';
import { runAccuracy, skippedForDummyWeights, type AccuracyPlan } from '../accuracy/run-accuracy.ts';
import { resultRelativePath } from '../../contract/result-path.ts';
import { startGpuSampler, summarizeGpuWindow, type GpuSampler } from '../telemetry/gpu-sampler.ts';
import { startProcSampler, summarizeProcWindow, type ProcSampler } from '../telemetry/proc-sampler.ts';
import { EngineMetricsWatch, type PointEngineMetrics } from '../telemetry/engine-metrics.ts';
import { startDockerStatsSampler } from '../telemetry/docker-stats.ts';

export interface DockerPlan {
  readonly image: string;
  readonly gpus: readonly number[];
  readonly gpuVendor: GpuVendor;
  readonly hfCache: string | null;
  readonly port: number;
}

export interface RunPlan {
  readonly engine: Engine;
  readonly launcher: 'process' | 'docker' | 'external';
  /** With the docker launcher. */
  readonly docker?: DockerPlan;
  /** GPU indices the run owns (a process launch sees only these, through CUDA_VISIBLE_DEVICES). */
  readonly gpus: readonly number[];
  readonly params: ServeParameters;
  /** Where the server listens (the launched one's address, or the external endpoint). */
  readonly endpoint: string;
  readonly load: LoadConfig;
  readonly resultsDir: string;
  /** Who measured: the fleet (official) or a contributor (community, the default). */
  readonly source?: 'official' | 'community';
  readonly logDir: string;
  readonly argv: readonly string[];
  /** Working directory for a process launch (the sim's command is relative to the repository). */
  readonly cwd?: string;
  /** The program to run instead of the command's first word (a servebench build of the engine, or its path in the engine's image). */
  readonly program?: string;
  /** The engine's release when servebench knows it (its own build), else read from the server. */
  readonly engineVersion?: string;
  /** A model file servebench made (dummy:<shape>:<quantization>): its id in results and what it is. */
  readonly modelFile?: { readonly id: string; readonly file: ModelFileFacts };
  /** The embedded engine's dummy shape names, whose accuracy task is skipped (the CLI hands them in: measure does not import the engines). */
  readonly dummyShapes?: readonly string[];
}

/** The model, when it is a file or folder on this host: a container must see it at the same path. */
export function localModelPaths(params: ServeParameters): string[] {
  const model = params.model;
  return typeof model === 'string' && isAbsolute(model) && existsSync(model) ? [model] : [];
}

/** A rendered command with its program replaced (a build's absolute path). */
export function withProgram(argv: readonly string[], program: string | undefined): string[] {
  return program === undefined ? [...argv] : [program, ...argv.slice(1)];
}

/** The run's one result, not yet written: the command writes it (or prints it when it cannot). */
export interface RunOutcome {
  readonly result: RunResult;
  /** The file's text, exactly as it is to be written. */
  readonly text: string;
  /** Its path under the results folder, derived from the content. */
  readonly relativePath: string;
  readonly path: string;
}

type Phase = NonNullable<RunBlock['failure']>['phase'];

const LAUNCH_ATTEMPTS = 3;
const LAUNCH_BACKOFF_MS = 1000;
const TRANSIENT_LAUNCH = /address already in use|EADDRINUSE|bind\(\) .*failed|TLS handshake timeout|i\/o timeout/i;

/** Writes the engine's settings file (if it takes one) next to the logs; its path, or the placeholder. */
function writeEngineConfig(plan: RunPlan, runId: string): string | undefined {
  const config = renderConfigFile(plan.engine, plan.params);
  if (config === null) return undefined;
  mkdirSync(plan.logDir, { recursive: true });
  const path = join(plan.logDir, `${runId}-engine-config.yaml`);
  writeFileSync(path, stringifyYaml(config));
  return path;
}

function launch(plan: RunPlan, runId: string, logFile: string, configPath: string | undefined): Promise<LaunchedServer> {
  const command = plan.launcher === 'external' ? [] : withProgram(renderServeCommand(plan.engine, plan.params, configPath, plan.gpus.length > 0), plan.program);
  if (plan.launcher === 'process') {
    const env = plan.gpus.length > 0 ? { ...process.env, CUDA_VISIBLE_DEVICES: plan.gpus.join(','), HIP_VISIBLE_DEVICES: plan.gpus.join(',') } : process.env;
    return launchProcess({ argv: command, endpoint: plan.endpoint, logFile, env, ...(plan.cwd ? { cwd: plan.cwd } : {}) });
  }
  if (plan.launcher === 'docker') {
    const docker = plan.docker!;
    return launchDocker({ image: docker.image, argv: command, port: docker.port, gpus: docker.gpus, gpuVendor: docker.gpuVendor, name: `servebench-${runId}`, runId, logFile, hfCache: docker.hfCache, hostPaths: [...localModelPaths(plan.params), ...(configPath ? [configPath] : [])] });
  }
  return Promise.resolve(externalServer(plan.endpoint));
}

/** The workload's accuracy task on the server just measured, with the load's model, api, headers and timeout; skipped, saying why, on dummy weights. */
async function scoreAccuracy(plan: RunPlan, task: AccuracyTaskSpec, signal: AbortSignal): Promise<Accuracy> {
  const load = plan.load;
  const accuracyPlan: AccuracyPlan = { ...task, endpoint: load.endpoint, model: load.model, api: load.workload.api, timeoutMs: load.timeoutS * 1000, headers: load.headers };
  const skipped = await skippedForDummyWeights(accuracyPlan, { flag: 'auto', fileWeights: plan.modelFile?.file.weights ?? null, embeddedShapes: plan.dummyShapes ?? [] });
  return skipped ?? (await runAccuracy(accuracyPlan, signal));
}

/** The same plan on another free port (server flags, client endpoint and container mapping). */
export async function onFreshPort(plan: RunPlan): Promise<RunPlan> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    ...plan,
    params: { ...plan.params, port },
    endpoint,
    load: { ...plan.load, endpoint: parseEndpoint(endpoint) },
    ...(plan.docker ? { docker: { ...plan.docker, port } } : {}),
  };
}

export async function executeRun(
  initialPlan: RunPlan,
  signal: AbortSignal,
  onProgress?: (pointIndex: number, progress: PointProgress) => void,
  onPointDone?: () => void,
): Promise<RunOutcome> {
  let plan = initialPlan;
  let current = initialPlan;
  const createdAt = new Date();
  const cpuAtStart = cpuTimes();
  const runId = newRunId(createdAt);
  const fatalPatterns = plan.engine.fatal_log_patterns.map((pattern) => new RegExp(pattern));
  const points: Point[] = [];
  let phase: Phase = 'launch';
  let server: LaunchedServer | null = null;
  let loadRun: LoadRun | null = null;
  let probe: Probe | null = null;
  let fidelity: Fidelity | null = null;
  let accuracy: Accuracy | null = null;
  // Stopped by a signal after the points, during the fidelity probe or the accuracy task: their
  // blocks are partial or missing, so the run is interrupted, not completed.
  let stoppedAfterPoints = false;
  let version: string | null = null;
  let failure: RunBlock['failure'] = null;
  let gpu: GpuSampler | null = null;
  let proc: ProcSampler | null = null;
  const engineMetrics = new Map<number, PointEngineMetrics | null>();
  let metricsWatch: EngineMetricsWatch | null = null;
  const fail = (message: string): void => {
    failure ??= { phase, message: message.slice(0, 1000), log_tail: logTail(server?.logFile ?? null) };
  };

  try {
    // Before the launch: a run that fails to start still records the hardware it was given (the
    // collect step matches it to its planned job by GPU type), and the samples cover model loading.
    gpu = await startGpuSampler(plan.gpus);
    // A launch that fails for a transient reason (the port was taken meanwhile, a pull timed out)
    // is retried with backoff on a fresh port; the last attempt's error is the run's.
    for (let attempt = 1; ; attempt++) {
      phase = 'launch';
      const logFile = join(plan.logDir, `${runId}-${attempt}.log`);
      try {
        server = await launch(current, runId, logFile, writeEngineConfig(current, runId));
        phase = 'health';
        await waitHealthy(server, plan.engine.health, fatalPatterns, signal);
        break;
      } catch (error) {
        const tail = logTail(server?.logFile ?? null).join('\n');
        const transient = TRANSIENT_LAUNCH.test(`${(error as Error).message}\n${tail}`);
        if (!transient || attempt >= LAUNCH_ATTEMPTS || plan.launcher === 'external' || signal.aborted) {
          plan = current;
          throw error;
        }
        await server?.stop();
        server = null;
        await new Promise((resolve) => setTimeout(resolve, LAUNCH_BACKOFF_MS * 2 ** (attempt - 1)));
        current = await onFreshPort(current);
      }
    }
    plan = current;
    phase = 'probe';
    probe = await probeServer(server.endpoint, plan.engine, plan.load.workload.api, bodyOptionsOf(plan.load), plan.load.headers, signal);
    // Stopped while probing: nothing to measure. The result says interrupted, not that the (killed) server could not be reached.
    if (!signal.aborted) {
      version = plan.engineVersion ?? (await engineVersion(plan.engine, server));
      proc = server.pid !== null ? startProcSampler(server.pid) : server.container ? startDockerStatsSampler(server.container) : null;
      const watch = plan.engine.metrics ? new EngineMetricsWatch(`${server.endpoint}${plan.engine.metrics.path}`, plan.engine.name) : null;
      metricsWatch = watch;
      phase = 'measure';
      loadRun = await runLoad(plan.load, {
        signal,
        run: { id: runId, createdAt },
        argv: plan.argv,
        ...(onProgress ? { onProgress } : {}),
        onPointStart: async () => {
          await watch?.start();
        },
        onPointDone: async (i, point) => {
          engineMetrics.set(i, watch ? await watch.stop() : null);
          points.push(point);
          onPointDone?.();
        },
      });
      // After the points, on the same server: its answers then are the ones the numbers were measured with.
      if (!signal.aborted && server.exitStatus() === null) {
        const spec = plan.load.workload;
        fidelity = await runFidelityProbe({ endpoint: server.endpoint, api: spec.api, body: bodyOptionsOf(plan.load), headers: plan.load.headers, checkCache: spec.shared_prefix !== undefined || spec.multi_turn !== undefined }, signal);
      }
      if (!signal.aborted && server.exitStatus() === null && plan.load.workload.accuracy !== undefined) {
        accuracy = await scoreAccuracy(plan, plan.load.workload.accuracy, signal);
      }
      stoppedAfterPoints = signal.aborted && loadRun.result.outcome.interrupted === false;
      const exit = server.exitStatus();
      if (exit) fail(`the server exited during the run (${exit.signal ?? `code ${exit.code}`})`);
      const fatal = fatalLine(server.logFile, fatalPatterns);
      if (fatal) fail(`the server log shows a fatal error: ${fatal.slice(0, 300)}`);
    }
  } catch (error) {
    // Stopped by a signal while the server was starting: the user ended the run, the engine did
    // not fail, so the result says interrupted (as when stopped while probing or measuring).
    if (!(signal.aborted && (phase === 'launch' || phase === 'health'))) fail(error instanceof Error ? error.message : String(error));
  } finally {
    gpu?.stop();
    proc?.stop();
    metricsWatch?.dispose();
    const stopping = server;
    if (stopping) {
      phase = 'teardown';
      await stopping.stop().catch((error: unknown) => fail(`teardown: ${(error as Error).message}`));
    }
  }

  const base =
    loadRun?.result ??
    assembleResult(plan.load, {
      runId,
      createdAt,
      finishedAt: new Date(),
      argv: plan.argv,
      tokenizer: null,
      serverVersion: null,
      lengthCheck: null,
      points,
      interrupted: signal.aborted,
    });
  // Each point's server-side measurements: the samples inside its time window.
  const withTelemetry = base.points.map((point, i) => {
    const from = Date.parse(point.started_at);
    const to = from + point.metrics.duration_s * 1000;
    return {
      ...point,
      telemetry: {
        gpu: gpu ? summarizeGpuWindow(gpu.samples(), from, to) : null,
        server: proc ? summarizeProcWindow(proc.samples(), from, to) : null,
        engine_metrics: engineMetrics.get(i) ?? null,
      },
    };
  });
  const git = harnessGit();
  const host = hostFacts(cpuAtStart);
  // The launch command, the server's log tail and the failure message are recorded as well: the
  // same credential rules as the load's own fields (a token in a serve flag or a logged arg list).
  const result: RunResult = RunResultSchema.parse(redactValue({
    ...base,
    points: withTelemetry,
    kind: 'run',
    source: plan.source ?? 'community',
    status: failure ? 'failed' : stoppedAfterPoints ? 'interrupted' : base.status,
    outcome: stoppedAfterPoints ? { ...base.outcome, interrupted: true } : base.outcome,
    harness: { ...base.harness, git_commit: git.commit, git_dirty: git.dirty },
    run: {
      engine: {
        name: plan.engine.name,
        version,
        launcher: plan.launcher,
        command: server?.command.length ? [...server.command] : plan.launcher === 'external' ? [] : withProgram(renderServeCommand(plan.engine, plan.params, undefined, plan.gpus.length > 0), plan.program),
        image: server?.image ?? plan.docker?.image ?? null,
        image_digest: server?.imageDigest ?? null,
        ...(plan.engine.config_file && plan.launcher !== 'external' ? { config: renderConfigFile(plan.engine, plan.params) } : {}),
      },
      model: plan.modelFile
        ? {
            id: plan.modelFile.id,
            served_name: plan.load.model,
            revision: `sha256:${plan.modelFile.file.sha256}`,
            dtype: null,
            quantization: plan.modelFile.file.quantization,
            file: plan.modelFile.file,
          }
        : {
            id: String(plan.params.model ?? plan.load.model),
            served_name: plan.load.model,
            revision: modelRevision(String(plan.params.model ?? plan.load.model)),
            dtype: plan.params.dtype === undefined ? null : String(plan.params.dtype),
            quantization: plan.params.quantization === undefined ? null : String(plan.params.quantization),
          },
      parameters: Object.fromEntries(Object.entries(plan.params).filter(([, value]) => value !== undefined)) as Record<string, string | number | boolean>,
      host,
      hardware: gpu ? gpu.facts : null,
      probe,
      failure,
      ...(fidelity ? { fidelity } : {}),
      ...(accuracy ? { accuracy } : {}),
    },
  }));
  return outcomeOf(result, plan.resultsDir);
}

/** A result as its file: the text exactly as written and the path derived from it. */
export function outcomeOf(result: RunResult, resultsDir: string): RunOutcome {
  const text = `${JSON.stringify(result, null, 2)}\n`;
  const relativePath = resultRelativePath(result, text);
  return { result, text, relativePath, path: join(resultsDir, relativePath) };
}
