/**
 * The `docker` launcher: execa around the docker CLI. Remove the containers earlier servebench
 * processes left behind (docker-owner.ts), pull by tag (retried with backoff), record the image
 * digest, run detached (--rm, labelled with the run and its servebench) on the given GPUs only
 * (NVIDIA or AMD), publish the port on 127.0.0.1 only, mount the Hugging Face cache and pass its
 * token by name, stream the container log to a file, and always remove the container: on stop,
 * and through a watchdog when servebench dies without stopping it.
 */
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { redactArgv, redactText } from '../../contract/credentials.ts';
import { startWatchdog } from '../../lib/process/watchdog.ts';
import { LEFTOVER_PS_ARGS, leftoverContainers, OWNER_LABEL, ownerLabel, RUN_LABEL } from './docker-owner.ts';
import type { LaunchedServer } from './launched-server.ts';
import { LaunchError } from './process-launcher.ts';

/** Where the Hugging Face hub cache is mounted in the container. */
const CONTAINER_HF_HUB = '/root/.cache/huggingface/hub';

export interface DockerLaunch {
  readonly image: string;
  /** The serve command: argv[0] becomes the entrypoint, the rest its arguments. */
  readonly argv: readonly string[];
  readonly port: number;
  /** GPU indices this run owns; empty for none. */
  readonly gpus: readonly number[];
  /** Whose GPUs: NVIDIA's are handed over with --gpus, AMD's as the ROCm devices (default: nvidia). */
  readonly gpuVendor?: GpuVendor;
  readonly name: string;
  /** The run the container serves, for its servebench.run label (default: its name). */
  readonly runId?: string;
  readonly logFile: string;
  /** Host folder mounted as the container's Hugging Face cache, if any. */
  readonly hfCache: string | null;
  /** Host files or folders the command names (a local GGUF model): their folders are mounted read-only at the same path. */
  readonly hostPaths?: readonly string[];
  readonly pullAttempts?: number;
  readonly backoffMs?: number;
}

export type GpuVendor = 'nvidia' | 'amd';

/** Environment variables handed to the container by name only: docker reads their values, so a secret never appears in an argument list or a result's recorded command. */
const PASSED_ENV = ['HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN'] as const;

/** The host's GPUs: ROCm's kernel driver (/dev/kfd) without NVIDIA's means AMD. */
export function hostGpuVendor(): GpuVendor {
  return existsSync('/dev/kfd') && !existsSync('/dev/nvidiactl') ? 'amd' : 'nvidia';
}

/**
 * NVIDIA: the container toolkit's --gpus device=… exposes only the run's GPUs. AMD (ROCm's own
 * docker instructions): the compute and render devices, the video group and no seccomp filter;
 * all GPUs are visible, so HIP_VISIBLE_DEVICES keeps the run on its own.
 */
function gpuArgs(launch: DockerLaunch): string[] {
  if (launch.gpus.length === 0) return [];
  if ((launch.gpuVendor ?? 'nvidia') === 'nvidia') return ['--gpus', `"device=${launch.gpus.join(',')}"`];
  return ['--device', '/dev/kfd', '--device', '/dev/dri', '--group-add', 'video', '--security-opt', 'seccomp=unconfined', '--env', `HIP_VISIBLE_DEVICES=${launch.gpus.join(',')}`];
}

async function docker(args: readonly string[]): Promise<string> {
  const { stdout } = await execa('docker', args, { timeout: 30 * 60_000 });
  return stdout.trim();
}

async function pull(image: string, attempts: number, backoffMs: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await docker(['pull', image]);
      return;
    } catch (error) {
      if (attempt >= attempts) throw new LaunchError(redactText(`docker pull ${image} failed ${attempts} times: ${(error as Error).message.split('\n')[0]}`));
      await new Promise((resolve) => setTimeout(resolve, backoffMs * 2 ** (attempt - 1)));
    }
  }
}

/** Removes the containers of servebench processes that are gone (they hold GPUs and ports nobody will free). */
async function removeLeftovers(): Promise<void> {
  const listed = await docker(LEFTOVER_PS_ARGS).catch(() => '');
  for (const name of leftoverContainers(listed)) {
    await docker(['rm', '--force', name]).catch(() => '');
    process.stderr.write(`servebench: removed container ${name}, left by a servebench process that is gone\n`);
  }
}

export function dockerRunArgs(launch: DockerLaunch): string[] {
  const [entrypoint, ...args] = launch.argv;
  return [
    'run',
    '--detach',
    // Removed by the daemon once it stops, however it stops: a stopped container of a crashed run is not left to accumulate.
    '--rm',
    '--name',
    launch.name,
    '--label',
    `${RUN_LABEL}=${launch.runId ?? launch.name}`,
    '--label',
    `${OWNER_LABEL}=${ownerLabel()}`,
    ...gpuArgs(launch),
    '--publish',
    `127.0.0.1:${launch.port}:${launch.port}`,
    '--ipc',
    'host',
    // The host's hub folder is the container's hub folder (HF_HUB_CACHE), wherever the image puts HF_HOME.
    ...(launch.hfCache ? ['--volume', `${launch.hfCache}:${CONTAINER_HF_HUB}`, '--env', `HF_HUB_CACHE=${CONTAINER_HF_HUB}`] : []),
    ...[...new Set((launch.hostPaths ?? []).map((path) => dirname(path)))].flatMap((dir) => ['--volume', `${dir}:${dir}:ro`]),
    ...PASSED_ENV.filter((name) => process.env[name] !== undefined).flatMap((name) => ['--env', name]),
    '--entrypoint',
    entrypoint!,
    launch.image,
    ...args,
  ];
}

export async function launchDocker(launch: DockerLaunch): Promise<LaunchedServer> {
  try {
    await execa('docker', ['version', '--format', '{{.Server.Version}}'], { timeout: 20_000 });
  } catch (error) {
    throw new LaunchError(`docker is not usable here (${(error as Error).message.split('\n')[0]}); use --launcher process or external`);
  }
  await removeLeftovers();
  await pull(launch.image, launch.pullAttempts ?? 3, launch.backoffMs ?? 2000);
  const digest = await docker(['image', 'inspect', '--format', '{{index .RepoDigests 0}}', launch.image]).catch(() => '');
  try {
    await docker(dockerRunArgs(launch));
  } catch (error) {
    await docker(['rm', '--force', launch.name]).catch(() => '');
    // execa's message repeats the whole command line, and it reaches the terminal and the result's failure.
    throw new LaunchError(redactText(`docker run failed: ${(error as Error).message.split('\n')[0]}`));
  }
  // Until stop() has removed it: servebench killed with SIGKILL, which no exit hook survives.
  const watchdog = startWatchdog({ container: launch.name });
  mkdirSync(dirname(launch.logFile), { recursive: true });
  const log = createWriteStream(launch.logFile, { flags: 'a' });
  const follower: ResultPromise = execa('docker', ['logs', '--follow', launch.name], { reject: false, buffer: false, all: true });
  follower.all?.pipe(log);
  // `docker wait` prints the exit code when the container stops. Started while it runs: with --rm
  // it is gone soon after, and `docker inspect` would then find nothing.
  const waiter = execa('docker', ['wait', launch.name], { reject: false });
  let status: { code: number | null; signal: string | null } | null = null;
  let stopped = false;
  void waiter.then((ended) => {
    if (stopped) return;
    const code = String(ended.stdout ?? '').trim();
    status = { code: /^\d+$/.test(code) ? Number(code) : null, signal: null };
  });
  let stopping: Promise<void> | null = null;
  return {
    endpoint: `http://127.0.0.1:${launch.port}`,
    logFile: launch.logFile,
    launcher: 'docker',
    command: redactArgv(['docker', ...dockerRunArgs(launch)]),
    image: launch.image,
    imageDigest: digest || null,
    pid: null,
    container: launch.name,
    exitStatus: () => status,
    stop() {
      stopping ??= (async () => {
        stopped = true;
        // Gone already (it exited and --rm removed it), or removed now: else (the daemon failed us) the
        // watchdog stays armed and tries again when servebench exits.
        const removed = await docker(['rm', '--force', launch.name]).then(() => true, (error: Error) => /No such container/i.test(error.message));
        if (removed) watchdog.disarm();
        follower.kill();
        waiter.kill();
        await Promise.all([follower.catch(() => undefined), waiter.catch(() => undefined)]);
        log.end();
      })();
      return stopping;
    },
  };
}
