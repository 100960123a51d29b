/** `servebench sim` as a child process: the listening line, SIGTERM → exit 0, bad flags → exit 2. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function spawnSim(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', 'harness/cli.ts', 'sim', ...args], { cwd: ROOT, stdio: 'pipe' });
}

async function firstLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  let buffer = '';
  for await (const chunk of child.stdout) {
    buffer += String(chunk);
    const newline = buffer.indexOf('\n');
    if (newline >= 0) return buffer.slice(0, newline);
  }
  throw new Error(`sim exited before printing a line`);
}

async function exitOf(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

describe('servebench sim CLI', () => {
  it('prints one JSON line, serves, and exits 0 on SIGTERM', async () => {
    const child = spawnSim(['--port', '0', '--json', '--personality', 'llamacpp', '--zero-cost']);
    const exit = exitOf(child);
    const info = JSON.parse(await firstLine(child)) as { url: string; port: number; personality: string };
    expect(info.personality).toBe('llamacpp');
    expect(info.url).toBe(`http://127.0.0.1:${info.port}`);
    expect(await (await fetch(`${info.url}/health`)).json()).toEqual({ status: 'ok' });
    child.kill('SIGTERM');
    expect((await exit).code).toBe(0);
  }, 20_000);

  it('prints the plain listening line without --json and exits 0 on SIGINT', async () => {
    const child = spawnSim(['--port', '0']);
    const exit = exitOf(child);
    expect(await firstLine(child)).toMatch(/^servebench sim listening on http:\/\/127\.0\.0\.1:\d+ \(personality vllm\)$/);
    child.kill('SIGINT');
    expect((await exit).code).toBe(0);
  }, 20_000);

  it('reports the release given by --engine-version on /version', async () => {
    const child = spawnSim(['--port', '0', '--json', '--zero-cost', '--engine-version', '1.4.0', '--performance-changes', '1.3.0:1.5']);
    const exit = exitOf(child);
    const info = JSON.parse(await firstLine(child)) as { url: string };
    expect(await (await fetch(`${info.url}/version`)).json()).toEqual({ version: '1.4.0', personality: 'vllm' });
    child.kill('SIGTERM');
    expect((await exit).code).toBe(0);
  }, 20_000);

  it.each([
    [['--personality', 'tgi'], /--personality: unknown "tgi"; allowed: vllm, sglang, llamacpp, trtllm, no-usage/],
    [['--host', '0.0.0.0'], /--host: "0.0.0.0" is not a loopback address/],
    [['--faults', 'explode=0.1'], /--faults: unknown fault "explode"/],
    [['--decode-base-ms', 'fast'], /--decode-base-ms: "fast" is not a number/],
    [['--max-num-seqs', '0'], /--max-num-seqs: 0 is too small/],
    [['--performance-changes', '1.3.0=1.5'], /--performance-changes: "1.3.0=1.5" is not version:factor/],
    [['--engine-version', 'v1.4.0', '--performance-changes', '1.3.0:1.5'], /--engine-version: "v1.4.0" is not a version such as 1.3.0/],
    [['--bogus'], /Unknown option '--bogus'/],
  ])('rejects %j with exit 2', async (args, message) => {
    const child = spawnSim(['--port', '0', ...args]);
    const { code, stderr } = await exitOf(child);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  }, 20_000);
});
