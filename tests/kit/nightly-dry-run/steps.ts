/**
 * Running the night's steps: each command in its own process group (a timeout or Ctrl-C stops the
 * servers it started too), logged to logs/NN-night-N-<step>.log, recorded with its exit code and
 * the codes the workflow allows it. A step outside those codes stops the dry run, as it would
 * stop the workflow's job.
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './story.ts';
import type { StepRecord } from './types.ts';

const CLI = join(REPO, 'harness', 'cli.ts');
const TSX_LOADER = import.meta.resolve('tsx');
/** The identity the workflow's commit step sets (a runner has none), so the temp repository's commits read as the night's. */
const BOT = { name: 'github-actions[bot]', email: '41898282+github-actions[bot]@users.noreply.github.com' };

/** The dry run stopped: a step exited outside what the workflow allows, an output was not understood, or a signal came. */
export class StepFailed extends Error {}

export interface Context {
  /** The temp folder: the workflow's checkout (a git repository), where its servebench steps run. */
  readonly dir: string;
  readonly resultsDir: string;
  readonly runnerResults: string;
  readonly dataDir: string;
  readonly siteDir: string;
  readonly fakeUrl: string;
  /** The jobs' environment: this machine's, less anything that would reach a real service or CI. */
  readonly env: NodeJS.ProcessEnv;
  /** The workflow steps' environment: as the jobs', plus what Actions sets and the fakes' addresses. */
  readonly workflowEnv: NodeJS.ProcessEnv;
  /** The fake GitHub's issue with this number: its group key (alert's text output names the number only). */
  readonly issueKey: (issue: number) => string | null;
  readonly steps: StepRecord[];
  readonly log: (line: string) => void;
}

export interface Spawned {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Command {
  readonly program: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutS?: number;
  readonly display?: readonly string[];
  /** Default: the repository (the jobs' commands are relative to it). */
  readonly cwd?: string;
}

/** The environment of every step: this machine's, less anything that would reach a real service or CI. */
export function stepEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', OPENAI_API_KEY: '' };
  for (const name of ['GITHUB_TOKEN', 'GITHUB_ACTIONS', 'GITHUB_REPOSITORY', 'GITHUB_STEP_SUMMARY', 'SERVEBENCH_GITHUB_API_URL', 'SERVEBENCH_REGISTRY_OVERRIDE', 'SERVEBENCH_WEBHOOK_URL']) delete env[name];
  return env;
}

/** Process groups of the steps running now, and the signal that interrupted the dry run, if any. */
const groups = new Set<number>();
let interruptedBy: NodeJS.Signals | null = null;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** Stops every running step on SIGINT or SIGTERM until the returned function is called; interrupted() says which came. */
export function stopStepsOnSignals(): () => void {
  interruptedBy = null;
  const onSignal = (signal: NodeJS.Signals) => {
    interruptedBy = signal;
    for (const pid of groups) killGroup(pid, 'SIGTERM');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

export function interrupted(): NodeJS.Signals | null {
  return interruptedBy;
}

function execute(program: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutS: number, cwd: string): Promise<Spawned> {
  return new Promise((resolvePromise) => {
    const child = spawn(program, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
    const kill = (signal: NodeJS.Signals) => killGroup(child.pid!, signal);
    groups.add(child.pid!);
    const timer = setTimeout(() => {
      stderr += `\n[nightly-dry-run] timed out after ${timeoutS} s: SIGTERM, then SIGKILL\n`;
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 10_000).unref();
    }, timeoutS * 1000);
    child.on('close', (code) => {
      groups.delete(child.pid!);
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** Runs one step of the night and records it; throws StepFailed when it exits outside `expected`. */
export async function step(ctx: Context, night: number, name: string, command: Command, expected: readonly number[] = [0]): Promise<Spawned & { record: StepRecord }> {
  const display = command.display ?? [command.program, ...command.args];
  if (interruptedBy !== null) throw new StepFailed(`interrupted by ${interruptedBy}`);
  ctx.log(`[night ${night}] ${name}: ${display.join(' ')}`);
  const started = performance.now();
  const cwd = command.cwd ?? REPO;
  const outcome = await execute(command.program, command.args, command.env ?? ctx.env, command.timeoutS ?? 180, cwd);
  const wall = (performance.now() - started) / 1000;
  const log = join(ctx.dir, 'logs', `${String(ctx.steps.length + 1).padStart(2, '0')}-night-${night}-${name.replace(/[^a-z0-9.]+/gi, '-')}.log`);
  writeFileSync(log, `$ cd ${cwd} && ${display.join(' ')}\n# exit ${outcome.code}, ${wall.toFixed(1)} s\n\n## stdout\n${outcome.stdout}\n## stderr\n${outcome.stderr}`);
  const record: StepRecord = { night, step: name, command: display, cwd, expected, code: outcome.code, wall_s: Math.round(wall * 10) / 10, ok: outcome.code !== null && expected.includes(outcome.code), counts: {}, log };
  ctx.steps.push(record);
  ctx.log(`[night ${night}] ${name}: exit ${outcome.code} in ${wall.toFixed(1)} s`);
  if (interruptedBy !== null) throw new StepFailed(`interrupted by ${interruptedBy} during night ${night} ${name}`);
  if (!record.ok) throw new StepFailed(`night ${night} ${name}: exit ${outcome.code}, expected ${expected.join(' or ')}; see ${log}\n${outcome.stderr.split('\n').slice(-15).join('\n')}`);
  return { ...outcome, record };
}

/** `servebench <command> …` as a child process: this Node with tsx's loader, from the checkout. */
export function cli(command: string, args: readonly string[], extra: { env?: NodeJS.ProcessEnv; timeoutS?: number } = {}): Command {
  return { program: process.execPath, args: ['--import', TSX_LOADER, CLI, command, ...args], display: ['servebench', command, ...args], ...extra };
}

/**
 * A servebench step of nightly.yml (`npm run -s servebench -- <command> <args>`): run in the temp
 * checkout, so the workflow's relative paths and defaults (results, build/data, fleet/…) resolve
 * there, with the workflow steps' environment plus the step's own `env:`. `args` are the flags the
 * workflow passes, restated (the test compares them with nightly.yml's `run:` text).
 */
export function workflowCli(ctx: Context, command: string, args: readonly string[], ownEnv: NodeJS.ProcessEnv = {}): Command {
  return { ...cli(command, args, { env: { ...ctx.workflowEnv, ...ownEnv } }), cwd: ctx.dir };
}

/** git in the temp checkout, with the workflow's bot identity and none of this machine's git configuration (signing, hooks). */
export function gitEnv(): NodeJS.ProcessEnv {
  return {
    ...stepEnv(),
    GIT_AUTHOR_NAME: BOT.name,
    GIT_AUTHOR_EMAIL: BOT.email,
    GIT_COMMITTER_NAME: BOT.name,
    GIT_COMMITTER_EMAIL: BOT.email,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
  };
}

export function git(dir: string, args: readonly string[]): string {
  return execFileSync('git', args, { cwd: dir, env: gitEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export function readJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new StepFailed(`${what}: not JSON (${(error as Error).message}): ${text.slice(0, 300)}`);
  }
}
