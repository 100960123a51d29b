/**
 * A real llama-server of one of servebench's builds on 127.0.0.1, for the pipeline tests that talk
 * to upstream llama.cpp directly (servebench's own launcher is tested through `servebench run`).
 * The server's log is kept, because some of what a build does is only said there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { LlamaCppBuild } from '../../harness/measure/builds/llamacpp-build.ts';
import { freePort } from '../../harness/measure/run/free-port.ts';

export interface RunningLlamaServer {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the server printed so far (stdout and stderr). */
  log(): string;
  stop(): void;
}

const LOG_LIMIT = 4 * 1024 * 1024;

export async function startLlamaServer(build: LlamaCppBuild, model: string, args: readonly string[] = [], port?: number): Promise<RunningLlamaServer> {
  const listen = port ?? (await freePort());
  const child = spawn(build.binary('llama-server'), ['--model', model, '--host', '127.0.0.1', '--port', String(listen), '--jinja', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (chunk: Buffer): void => {
    if (log.length < LOG_LIMIT) log += chunk.toString();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = `http://127.0.0.1:${listen}`;
  const server: RunningLlamaServer = { url, child, log: () => log, stop: () => child.kill('SIGKILL') };
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new Error(`llama-server ${build.tag} exited with ${child.exitCode}:\n${log.slice(-2000)}`);
    if (await fetch(`${url}/health`).then((r) => r.status === 200, () => false)) return server;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  server.stop();
  throw new Error(`llama-server ${build.tag} did not become healthy on ${model}`);
}

/**
 * Whether this server put two BOS tokens before the chat prompts it has rendered so far. Some
 * builds (b6122, August 2025) add the model's BOS to a chat prompt whose template already starts
 * with it, and llama.cpp says so in its log (`check_double_bos_eos`): such a server evaluates one
 * token more than the rendered conversation holds, so a client counting the conversation exactly
 * is one short on every chat request. Read after at least one chat request.
 */
export function saidDoubleBos(server: RunningLlamaServer): boolean {
  return /prompt also starts with a BOS token\. So now the final prompt starts with 2 BOS tokens/.test(server.log());
}

/**
 * Whether a build doubles BOS on chat requests to this model: one chat request to a server of its
 * own, and what the server then says in its log.
 */
export async function buildDoublesChatBos(build: LlamaCppBuild, model: string): Promise<boolean> {
  const server = await startLlamaServer(build, model, ['--ctx-size', '512', '--parallel', '1']);
  try {
    const response = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'Hello' }], max_tokens: 1 }) });
    if (!response.ok) throw new Error(`llama-server ${build.tag}: chat request answered ${response.status}`);
    await response.arrayBuffer();
    return saidDoubleBos(server);
  } finally {
    server.stop();
  }
}

/** Whether the server's `timings` carry `cache_n` (the prompt tokens it took from its cache), which older builds leave out. */
export async function timingsCarryCacheN(server: RunningLlamaServer): Promise<boolean> {
  const response = await fetch(`${server.url}/completion`, { method: 'POST', body: JSON.stringify({ prompt: 'Hello', n_predict: 1 }) });
  const body = (await response.json()) as { timings?: Record<string, unknown> };
  return body.timings !== undefined && 'cache_n' in body.timings;
}
