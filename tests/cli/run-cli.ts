/** Runs the real CLI in a child process (Node with tsx's loader), as users and scripts do. */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI_PATH = fileURLToPath(new URL('../../harness/cli.ts', import.meta.url));

export interface CliOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function runCli(args: readonly string[], timeoutMs = 60_000, env: NodeJS.ProcessEnv = {}): Promise<CliOutcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', CLI_PATH, ...args], { timeout: timeoutMs, env: { ...process.env, OPENAI_API_KEY: '', ...env } }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every *.json under a results folder (as a run writes it: date/engine/model/hardware/…), recursively. */
export function resultFilesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.json') && statSync(join(dir, name)).isFile())
    .map((name) => join(dir, name))
    .sort();
}
