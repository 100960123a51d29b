/**
 * Every signal that asks servebench to stop, sent to real processes mid-measurement: from a
 * terminal (Ctrl-C's SIGINT; SIGHUP when an SSH session drops, by `kill` and by a real pty
 * hang-up), from `kill` and schedulers (SIGTERM, then SIGKILL after a grace period: Kubernetes
 * signals servebench only, SLURM every process of the job). Each time: servebench exits by itself
 * with 128 + the signal's number, the result says interrupted, and no process of the engine's
 * group is left (on a GPU host, one would hold the GPU).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH, spawnSim } from '../../harness/lib/process/spawn-cli.ts';
import { exitCodeFor, STOP_SIGNALS } from '../../harness/lib/process/stop-signals.ts';
import { killOwnedGroups } from '../../harness/lib/process/owned-groups.ts';
import { WATCHDOG_NAME } from '../../harness/lib/process/watchdog.ts';
import { freePort } from '../../harness/measure/run/free-port.ts';
import type { LaunchedServer } from '../../harness/measure/run/launched-server.ts';
import { launchProcess } from '../../harness/measure/run/process-launcher.ts';
import { RunResultSchema, type RunResult } from '../../harness/contract/result.ts';
import { resultFilesIn } from '../cli/run-cli.ts';
import { writeSimEngineVariant } from './sim-engine-spec.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** A process as /proc/<pid>/stat describes it (Linux). */
interface Proc {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.push({ pid: Number(name), state: state!, ppid: Number(ppid), pgrp: Number(pgrp) });
  }
  return out;
}

/** Live (not zombie) members of a process group. */
function groupMembers(pgid: number): number[] {
  return processes().filter((p) => p.pgrp === pgid && p.state !== 'Z').map((p) => p.pid);
}

function running(pid: number): boolean {
  return processes().some((p) => p.pid === pid && p.state !== 'Z');
}

function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** The engine's watchdogs `parent` started (sh with $0 servebench-watchdog), still running. */
function watchdogsOf(parent: number): number[] {
  return processes().filter((p) => p.ppid === parent && p.state !== 'Z' && cmdline(p.pid).includes(WATCHDOG_NAME)).map((p) => p.pid);
}

/** The engine servebench launched: its child that leads a process group of its own (its watchdog aside). */
function engineGroupOf(servebenchPid: number): number {
  const leaders = processes().filter((p) => p.ppid === servebenchPid && p.pgrp === p.pid && !cmdline(p.pid).includes(WATCHDOG_NAME));
  expect(leaders, 'servebench should have launched exactly one engine group').toHaveLength(1);
  return leaders[0]!.pid;
}

/** Groups to SIGKILL after each test, so that a failing run leaves nothing behind. */
const leftovers: number[] = [];
afterEach(() => {
  for (const pgid of leftovers.splice(0)) {
    if (!(pgid > 1)) continue; // kill(-0) would be our own group
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone: the expected case
    }
  }
});

/** Until `check` holds (polling), or false after `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
}


function onlyResult(dir: string): RunResult {
  const files = resultFilesIn(dir);
  expect(files, 'exactly one result file').toHaveLength(1);
  return RunResultSchema.parse(JSON.parse(readFileSync(files[0]!, 'utf8')));
}

/** Measured requests (not the probe's) the sim on `port` has received for point `point`. */
async function measuredRequests(port: number, point: number): Promise<number> {
  try {
    const truth = (await (await fetch(`http://127.0.0.1:${port}/ground-truth`)).json()) as { requests: Array<{ request_id: string }> };
    return truth.requests.filter((r) => r.request_id.includes(`-p${point}-`)).length;
  } catch {
    return 0; // not listening yet
  }
}

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Date.now() at the exit. */
  readonly at: number;
}

interface StartedRun {
  /** The process started: servebench itself, or npm / npx running it. */
  readonly child: ChildProcess;
  /** servebench's own process (the child, or npm's descendant that launched the engine). */
  readonly servebench: number;
  readonly port: number;
  readonly results: string;
  readonly exited: Promise<Exit>;
  /** The engine's process group, found once the run measures. */
  readonly engine: number;
  stderr(): string;
}

/** Requests the sim on `port` has received: the probe's and the measured ones. */
async function allRequests(port: number): Promise<number> {
  try {
    return ((await (await fetch(`http://127.0.0.1:${port}/ground-truth`)).json()) as { requests: unknown[] }).requests.length;
  } catch {
    return 0;
  }
}

/**
 * How servebench is started: by node as tests and scripts do, `npx servebench` (package.json's bin,
 * bin/servebench.mjs, under npm exec's shell) or `npm run servebench --` (package.json's script).
 * npm runs offline: the package is this checkout, and nothing leaves the machine.
 */
type Entry = 'node' | 'npx' | 'npm run';

function entryCommand(entry: Entry, args: readonly string[]): [string, string[]] {
  if (entry === 'npx') return ['npx', ['--yes', 'servebench', ...args]];
  if (entry === 'npm run') return ['npm', ['run', '--silent', 'servebench', '--', ...args]];
  return [process.execPath, ['--import', 'tsx', CLI_PATH, ...args]];
}

/** Every process below `pid` (children, their children, …). */
function descendantsOf(pid: number): Proc[] {
  const all = processes();
  const found: Proc[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const next = all.filter((p) => frontier.includes(p.ppid));
    found.push(...next);
    frontier = next.map((p) => p.pid);
  }
  return found;
}

/** The process that launched the engine: the one below `root` with a child leading a group of its own (not its watchdog). */
function servebenchBelow(root: number): number | null {
  const below = [{ pid: root } as Proc, ...descendantsOf(root)];
  const launcher = below.find((p) => processes().some((c) => c.ppid === p.pid && c.pgrp === c.pid && c.pid !== root && !cmdline(c.pid).includes(WATCHDOG_NAME)));
  return launcher?.pid ?? null;
}

/** `servebench run --launcher process` on the sim (or `engine`), returned once it measures (or probes). */
async function startRun(engine = 'sim', phase: 'measure' | 'probe' = 'measure', entry: Entry = 'node'): Promise<StartedRun> {
  const port = await freePort();
  const results = mkdtempSync(join(tmpdir(), 'sb-signals-'));
  // 2000 requests take a minute on the sim: every signal lands mid-measurement.
  const args = ['run', '--engine', engine, '--launcher', 'process', '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '2', '--num-prompts', '2000', '--tokenizer', 'none', '--port', String(port), '--results-dir', results, '--no-progress'];
  const [command, argv] = entryCommand(entry, args);
  // A group of its own, as a terminal's foreground job: a Ctrl-C reaches every process in it.
  const child = spawn(command, argv, { stdio: ['ignore', 'ignore', 'pipe'], cwd: REPO, env: { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' }, detached: entry !== 'node' });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  let gone = false;
  void exited.then(() => (gone = true));
  const there = await eventually(async () => gone || (phase === 'measure' ? (await measuredRequests(port, 0)) >= 4 : (await allRequests(port)) > 0), 40_000);
  expect(there && !gone, `the run should be in its ${phase} phase: ${stderr}`).toBe(true);
  if (phase === 'probe') expect(await measuredRequests(port, 0)).toBe(0);
  const servebench = entry === 'node' ? child.pid! : servebenchBelow(child.pid!);
  expect(servebench, `servebench below ${entry}`).not.toBeNull();
  const group = engineGroupOf(servebench!);
  leftovers.push(group);
  return { child, servebench: servebench!, port, results, exited, engine: group, stderr: () => stderr };
}

/** What must hold after every stop: the engine's whole group is gone, its port closed. */
async function expectEngineGone(run: { engine: number; port: number }): Promise<void> {
  // SIGKILL is delivered asynchronously: allow the kernel a moment, not the engine a grace period.
  expect(await eventually(() => groupMembers(run.engine).length === 0, 1000), `engine group ${run.engine} left: ${groupMembers(run.engine).join(', ')}`).toBe(true);
  expect(await listening(run.port)).toBe(false);
}

async function listening(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/health`).then(() => true, () => false);
}

/**
 * A scheduler: `signal` to the given processes, then SIGKILL to servebench after `graceMs` if
 * it is still there. Resolves with how servebench ended and how long after the signal.
 */
async function schedulerStop(run: StartedRun, signal: NodeJS.Signals, graceMs: number, alsoGroup = false): Promise<Exit & { afterMs: number; killed: boolean }> {
  const sentAt = Date.now();
  run.child.kill(signal);
  if (alsoGroup) process.kill(-run.engine, signal);
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    run.child.kill('SIGKILL');
  }, graceMs);
  const exit = await run.exited;
  clearTimeout(timer);
  return { ...exit, afterMs: exit.at - sentAt, killed };
}

/** An engine spec that runs the sim through `bash -c script` (model and port as $1 and $2). */
function simEngine(name: string, script: (sim: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-engines-'));
  const sim = [process.execPath, '--import', 'tsx', CLI_PATH, 'sim', '--model-name', '"$1"', '--port', '"$2"'].map((a) => (a.startsWith('"') ? a : `'${a}'`)).join(' ');
  return writeSimEngineVariant(dir, { name, command: ['bash', '-c', script(sim), 'engine', '{model}', '{port}'], modelAndPort: 'in-command' });
}

/** Its leader ignores SIGTERM (as an engine slow to shut down): only SIGKILL ends it. */
const stubbornEngine = (): string => simEngine('stubborn', (sim) => `trap '' TERM; ${sim} & while :; do sleep 0.2; done`);

describe('stop signals', () => {
  it('exit 128 + the signal number, as a shell reports a process the signal killed', () => {
    for (const signal of STOP_SIGNALS) expect(exitCodeFor(signal)).toBe(128 + constants.signals[signal]);
    expect(STOP_SIGNALS).toEqual(['SIGINT', 'SIGTERM', 'SIGHUP']);
  });
});

// Process groups and /proc are Linux's. Off Linux these blocks are skipped, and under CI=true
// (Linux) a skip would fail the run, so none is listed in tests/skips.ts.
describe.skipIf(process.platform !== 'linux')('the process launcher stops the whole group, in bounded time', () => {
  const stubbornGroup = (): Promise<LaunchedServer> =>
    launchProcess({ argv: ['bash', '-c', "trap '' TERM; sleep 60 & while :; do sleep 0.1; done"], endpoint: 'http://127.0.0.1:1', logFile: join(mkdtempSync(join(tmpdir(), 'sb-launch-')), 'log'), graceMs: 500 });

  it('a leader that ignores SIGTERM gets SIGKILL after the grace; nothing of its group is left, nor its watchdog', async () => {
    const server = await stubbornGroup();
    leftovers.push(server.pid!);
    expect(watchdogsOf(process.pid)).toHaveLength(1);
    await sleep(200);
    const started = Date.now();
    await server.stop();
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(await eventually(() => groupMembers(server.pid!).length === 0, 1000)).toBe(true);
    // Disarmed by the stop: it exits without acting.
    expect(await eventually(() => watchdogsOf(process.pid).length === 0, 2000)).toBe(true);
  });

  // Nothing runs in a process killed with SIGKILL (a scheduler's grace ran out, the OOM killer):
  // before the watchdog, the engine ran on for good.
  it('servebench killed with SIGKILL: the watchdog ends the group (SIGTERM, then SIGKILL after the grace for a leader that ignores it)', { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-kill9-'));
    const script = join(dir, 'launch.mts');
    const launcher = new URL('../../harness/measure/run/process-launcher.ts', import.meta.url).href;
    writeFileSync(
      script,
      [
        `import { launchProcess } from ${JSON.stringify(launcher)};`,
        // One polite engine, one that ignores SIGTERM (its grace: 1 s).
        `const polite = await launchProcess({ argv: ['sleep', '60'], endpoint: 'http://127.0.0.1:1', logFile: ${JSON.stringify(join(dir, 'a.log'))} });`,
        `const stubborn = await launchProcess({ argv: ['bash', '-c', "trap '' TERM; sleep 60 & while :; do sleep 0.1; done"], endpoint: 'http://127.0.0.1:1', logFile: ${JSON.stringify(join(dir, 'b.log'))}, graceMs: 1000 });`,
        'console.log(JSON.stringify([polite.pid, stubborn.pid]));',
        'setInterval(() => {}, 1000);',
      ].join('\n'),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    expect(await eventually(() => stdout.includes(']'), 20_000)).toBe(true);
    const [polite, stubborn] = JSON.parse(stdout) as [number, number];
    leftovers.push(polite, stubborn);
    await sleep(300); // bash has set its trap
    expect(watchdogsOf(child.pid!)).toHaveLength(2);
    const killedAt = Date.now();
    child.kill('SIGKILL');
    expect(await eventually(() => groupMembers(polite).length === 0, 3000), `polite group left: ${groupMembers(polite).join(', ')}`).toBe(true);
    expect(await eventually(() => groupMembers(stubborn).length === 0, 5000), `stubborn group left: ${groupMembers(stubborn).join(', ')}`).toBe(true);
    // The stubborn one was given its grace before SIGKILL.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(900);
  });

  it('killOwnedGroups (a second signal, the run\'s deadline) ends the grace at once', async () => {
    const server = await stubbornGroup();
    leftovers.push(server.pid!);
    await sleep(200);
    const started = Date.now();
    const stopping = server.stop();
    killOwnedGroups('SIGKILL');
    await stopping;
    expect(Date.now() - started).toBeLessThan(400);
    expect(await eventually(() => groupMembers(server.pid!).length === 0, 1000)).toBe(true);
  });

  it('servebench exiting before stop() (a crash) still kills the group', { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-crash-'));
    const script = join(dir, 'crash.mts');
    const launcher = new URL('../../harness/measure/run/process-launcher.ts', import.meta.url).href;
    writeFileSync(
      script,
      [
        `import { launchProcess } from ${JSON.stringify(launcher)};`,
        `const server = await launchProcess({ argv: ['sleep', '60'], endpoint: 'http://127.0.0.1:1', logFile: ${JSON.stringify(join(dir, 'log'))} });`,
        'console.log(server.pid);',
        "setTimeout(() => { throw new Error('a servebench bug'); }, 100);",
      ].join('\n'),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const pgid = Number(stdout.trim());
    leftovers.push(pgid);
    expect(code).toBe(1);
    expect(pgid).toBeGreaterThan(0);
    expect(await eventually(() => groupMembers(pgid).length === 0, 1000)).toBe(true);
  });
});

describe.skipIf(process.platform !== 'linux')('servebench run stopped by a signal (process launcher, sim engine)', () => {
  // SIGINT: Ctrl-C. SIGHUP: the terminal went away (before: killed at once, no result, the engine
  // left running). Each with SIGKILL after 5 s, so a run that does not stop by itself fails.
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    it(`${signal}: exit ${code} by itself, an interrupted result written, the engine's group gone`, { timeout: 60_000 }, async () => {
      const run = await startRun();
      const exit = await schedulerStop(run, signal, 5000);
      expect(exit.killed, run.stderr()).toBe(false);
      expect({ code: exit.code, signal: exit.signal }, run.stderr()).toEqual({ code, signal: null });
      const result = onlyResult(run.results);
      expect(result.status).toBe('interrupted');
      expect(result.outcome.interrupted).toBe(true);
      expect(run.stderr()).toContain(`servebench: ${signal}; stopping the run and the server`);
      await expectEngineGone(run);
    });
  }

  it('SIGKILL (no handler runs): the watchdog ends the engine\'s group within seconds', { timeout: 60_000 }, async () => {
    const run = await startRun();
    expect(watchdogsOf(run.child.pid!)).toHaveLength(1);
    run.child.kill('SIGKILL');
    await run.exited;
    expect(await eventually(() => groupMembers(run.engine).length === 0, 5000), `engine group ${run.engine} left: ${groupMembers(run.engine).join(', ')}`).toBe(true);
    expect(await listening(run.port)).toBe(false);
  });

  it('SLURM: SIGTERM to every process of the job (servebench and the engine), SIGKILL after a grace: exit 143 before it, result written, engine gone', { timeout: 60_000 }, async () => {
    const run = await startRun();
    const exit = await schedulerStop(run, 'SIGTERM', 5000, true);
    expect(exit.killed, run.stderr()).toBe(false);
    expect(exit.code, run.stderr()).toBe(143);
    // The engine may die before servebench notices the signal: the run is then failed as well as
    // interrupted; either way it is written.
    expect(onlyResult(run.results).outcome.interrupted).toBe(true);
    await expectEngineGone(run);
  });

  it("an engine that ignores SIGTERM: SIGKILL after the launcher's 10 s grace, so servebench exits by itself inside the schedulers' default 30 s", { timeout: 90_000 }, async () => {
    const run = await startRun(stubbornEngine());
    const exit = await schedulerStop(run, 'SIGTERM', 30_000);
    expect(exit.killed, run.stderr()).toBe(false);
    expect(exit.code, run.stderr()).toBe(143);
    expect(exit.afterMs).toBeGreaterThanOrEqual(9_000); // it did wait out the grace
    expect(exit.afterMs).toBeLessThan(16_000);
    expect(onlyResult(run.results).outcome.interrupted).toBe(true);
    await expectEngineGone(run);
  });

  it('SIGTERM while the probe waits on a server that does not answer: the probe stops at once, the run ends interrupted well inside 30 s', { timeout: 90_000 }, async () => {
    // Every response stalls for 10 minutes: a probe that did not heed the abort would wait for its own 120 s limit.
    const run = await startRun(simEngine('stalls', (sim) => `exec ${sim} --faults stall=1 --stall-ms 600000`), 'probe');
    const exit = await schedulerStop(run, 'SIGTERM', 30_000);
    expect(exit.killed, run.stderr()).toBe(false);
    expect(exit.code, run.stderr()).toBe(143);
    expect(exit.afterMs).toBeLessThan(16_000);
    const result = onlyResult(run.results);
    expect(result.outcome.interrupted).toBe(true);
    // The probe was cut short by the signal, and nothing was measured after it: interrupted, not failed.
    expect(result.run!.probe!.error).toBeTruthy();
    expect({ status: result.status, failure: result.run!.failure, points: result.points.length }).toEqual({ status: 'interrupted', failure: null, points: 0 });
    await expectEngineGone(run);
  });

  it('a second signal during teardown does not skip it: the engine is killed at once, the result written, the exit code the first signal\'s', { timeout: 60_000 }, async () => {
    const run = await startRun(stubbornEngine());
    run.child.kill('SIGTERM');
    await sleep(1000); // tearing down: the stubborn leader waits out its grace
    const sentAt = Date.now();
    run.child.kill('SIGINT');
    const exit = await run.exited;
    expect(exit.code, run.stderr()).toBe(143);
    expect(exit.at - sentAt).toBeLessThan(5000);
    expect(run.stderr()).toContain('servebench: SIGINT again; killing the server at once');
    expect(onlyResult(run.results).outcome.interrupted).toBe(true);
    await expectEngineGone(run);
  });

  // script(1) gives the run a real pty to lose. Without it the test is skipped where it runs by
  // hand; under CI=true that skip fails the run (tests/setup/skip-gate.ts): .ci/run installs bsdutils.
  it.skipIf(!existsSync('/usr/bin/script'))('a real hang-up (the pty closes under it, progress bar drawn on it): the run still stops the engine and writes its result', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const results = mkdtempSync(join(tmpdir(), 'sb-signals-'));
    const argv = [process.execPath, '--import', 'tsx', CLI_PATH, 'run', '--engine', 'sim', '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '2', '--num-prompts', '2000', '--tokenizer', 'none', '--port', String(port), '--results-dir', results];
    // script(1) runs servebench on a pty as its session leader; SIGKILL of script closes the pty's
    // master, and the kernel hangs up the session: SIGHUP, then EIO on every write to the terminal.
    const script = spawn('script', ['-qfec', `exec ${argv.map((a) => `'${a}'`).join(' ')}`, '/dev/null'], { stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      expect(await eventually(async () => (await measuredRequests(port, 0)) >= 4, 40_000), 'the run should be measuring').toBe(true);
      const servebench = processes().find((p) => p.ppid === script.pid)!.pid;
      const engine = engineGroupOf(servebench);
      leftovers.push(engine);
      script.kill('SIGKILL');
      expect(await eventually(() => !running(servebench), 15_000), 'servebench should exit by itself').toBe(true);
      const result = onlyResult(results);
      expect(result.status).toBe('interrupted');
      await expectEngineGone({ engine, port });
    } finally {
      script.kill('SIGKILL');
      script.stdin!.destroy();
    }
  });
});

// npm forwards SIGTERM to the shell it ran the command in, and that shell (dash) dies of it
// without passing it on. Before: npm and npx exited at once while servebench and its engine ran
// on, detached, and no result was written.
describe.skipIf(process.platform !== 'linux')('SIGTERM to npx servebench / npm run servebench: servebench stops as if signalled itself', () => {
  for (const entry of ['npx', 'npm run'] as const) {
    it(`${entry}: an interrupted result, and nothing below it left (servebench, its engine's group, the watchdog)`, { timeout: 90_000 }, async () => {
      const run = await startRun('sim', 'measure', entry);
      const below = descendantsOf(run.child.pid!).map((p) => p.pid);
      expect(below).toContain(run.servebench);
      run.child.kill('SIGTERM');
      await run.exited;
      expect(await eventually(() => !running(run.servebench), 20_000), `servebench (pid ${run.servebench}) should stop by itself: ${run.stderr()}`).toBe(true);
      const result = onlyResult(run.results);
      expect(result.status).toBe('interrupted');
      expect(result.outcome.interrupted).toBe(true);
      await expectEngineGone(run);
      expect(await eventually(() => below.every((pid) => !running(pid)), 5000), `left: ${below.filter(running).join(', ')}`).toBe(true);
    });
  }

  it("npx and Ctrl-C (SIGINT to the terminal's whole job): servebench takes it once; the shell's death sends no second signal", { timeout: 90_000 }, async () => {
    const run = await startRun('sim', 'measure', 'npx');
    process.kill(-run.child.pid!, 'SIGINT');
    expect(await eventually(() => !running(run.servebench), 20_000), run.stderr()).toBe(true);
    expect(onlyResult(run.results).status).toBe('interrupted');
    expect(run.stderr()).toContain('servebench: SIGINT; stopping the run and the server');
    // A second signal would have cut the engine's grace short.
    expect(run.stderr()).not.toMatch(/servebench: SIG[A-Z]+ again/);
    await expectEngineGone(run);
  });
});

describe.skipIf(process.platform !== 'linux')('servebench load stopped by SIGHUP', () => {
  it('exit 129, the completed points written', { timeout: 60_000 }, async () => {
    const sim = await spawnSim();
    try {
      const out = join(mkdtempSync(join(tmpdir(), 'sb-signals-')), 'hup.json');
      const child = spawn(process.execPath, ['--import', 'tsx', CLI_PATH, 'load', '--endpoint', sim.url, '--model', 'sim-model', '--input-len', '32', '--output-len', '16', '--warmup', '0', '--tokenizer', 'none', '--concurrency', Array(12).fill('1').join(','), '--num-prompts', '20', '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      const port = Number(new URL(sim.url).port);
      expect(await eventually(async () => (await measuredRequests(port, 1)) > 0, 30_000), stderr).toBe(true);
      child.kill('SIGHUP');
      expect(await exited, stderr).toEqual({ code: 129, signal: null });
      const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
      expect(result.status).toBe('interrupted');
      expect(result.points.length).toBeGreaterThanOrEqual(1);
    } finally {
      await sim.stop();
    }
  });
});
