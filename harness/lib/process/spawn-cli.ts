/**
 * Start servebench's own CLI as a child process (with tsx's loader, under the same Node), e.g.
 * the simulated engine for tests, benchmarks and the quickstart: a separate process has its own
 * event loop and core, so server and client never distort each other's timestamps.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pinProcess } from './cpu-affinity.ts';

export const CLI_PATH = fileURLToPath(new URL('../../cli.ts', import.meta.url));
const TSX_LOADER = import.meta.resolve('tsx');

export interface ChildCli {
  readonly child: ChildProcess;
  /** The first line the child printed on stdout. */
  readonly firstLine: string;
  /** SIGTERM, then SIGKILL if it has not exited within the grace period. */
  stop(graceMs?: number): Promise<number | null>;
}

export interface SpawnOptions {
  /** Pin the child to one CPU (benchmarks, timing tests); ignored where that is impossible. */
  readonly cpu?: number;
  readonly startTimeoutMs?: number;
}

export async function spawnCli(args: readonly string[], options: SpawnOptions = {}): Promise<ChildCli> {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, CLI_PATH, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  if (options.cpu !== undefined && child.pid !== undefined) pinProcess(child.pid, String(options.cpu));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`servebench ${args[0]} did not start within ${options.startTimeoutMs ?? 20_000} ms: ${stderr}`));
    }, options.startTimeoutMs ?? 20_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`servebench ${args[0]} exited with ${code} before starting: ${stderr}`));
    });
  });
  return {
    child,
    firstLine,
    async stop(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export interface SimChild extends ChildCli {
  readonly url: string;
  readonly pid: number;
}

/** The simulated engine in its own process on an ephemeral loopback port. */
export async function spawnSim(simArgs: readonly string[] = [], options: SpawnOptions = {}): Promise<SimChild> {
  const cli = await spawnCli(['sim', '--port', '0', '--json', ...simArgs], options);
  const { url } = JSON.parse(cli.firstLine) as { url: string };
  return { ...cli, url, pid: cli.child.pid! };
}
