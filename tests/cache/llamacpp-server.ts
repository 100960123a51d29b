/** A real llama-server of one of servebench's builds on 127.0.0.1, for the cache-audit pipeline test. */
import { spawn, type ChildProcess } from 'node:child_process';
import type { LlamaCppBuild } from '../../harness/measure/builds/llamacpp-build.ts';

export interface RunningServer {
  readonly url: string;
  stop(): void;
}

export async function startLlamaServer(build: LlamaCppBuild, model: string, port: number, args: readonly string[]): Promise<RunningServer> {
  const child: ChildProcess = spawn(build.binary('llama-server'), ['--model', model, '--host', '127.0.0.1', '--port', String(port), '--jinja', ...args], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`llama-server ${build.tag} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).status === 200) return { url, stop: () => child.kill('SIGKILL') };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`llama-server ${build.tag} did not become healthy`);
}
