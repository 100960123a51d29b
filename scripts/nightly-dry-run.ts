#!/usr/bin/env -S npx tsx
/**
 * An end-to-end DRY RUN of the nightly pipeline on this machine, with the embedded CPU engine
 * standing in for the GPU fleet: detect (against a fake GitHub and Docker Hub) → plan → every
 * planned job → collect → verify → summarize → commit → compile → site build → regress → alert (to a fake
 * GitHub and a fake Slack webhook), each step the real CLI as a child process, as
 * .github/workflows/nightly.yml runs it on a scheduled night in direct-commit mode
 * (SERVEBENCH_COMMIT_DIRECT=true).
 *
 * Mirroring production. The temp folder is laid out as the workflow's checkout and is a git
 * repository: fleet/fleet.yaml (the dry-run fleet), fleet/detect-state.json, fleet/prices.yaml
 * and results/ are committed first; every servebench command of the workflow runs in it with
 * exactly the flags nightly.yml passes (relative paths and defaults included, so `detect` polls
 * every engine in engines/ as a scheduled night does), and each night's results and state are
 * committed as the workflow's "Commit to the branch" step does, so `summarize --base HEAD` (the
 * new files untracked) and `regress --base <the commit before the night>` (the new files through
 * git diff) both run for real. tests/pipeline/nightly-dry-run.pipeline.test.ts checks each
 * command's argv against the `run:` text of nightly.yml. What reaches GitHub, Docker Hub and the
 * webhook goes through the environment instead (SERVEBENCH_GITHUB_API_URL,
 * SERVEBENCH_REGISTRY_OVERRIDE, SERVEBENCH_WEBHOOK_URL: the loopback fakes), so no flag differs.
 *
 * This script is a test harness: it imports the loopback fakes from tests/kit/fakes/ (one server on
 * 127.0.0.1 answers for GitHub's releases and issues APIs, Docker Hub and the webhook). Nothing
 * leaves the machine, and everything is written into a temp folder (never the repository's
 * results/ or fleet/), which marks itself as a dry run (DRY-RUN.md, results/README.md).
 *
 * Three nights and the next night's poll, so that regress, alert and collect's put-back have
 * something real to find:
 * - night 1: GitHub lists node-llama-cpp 3.21.0 and 3.21.1 (detect's first sighting reports the
 *   newest) and vLLM 0.11.0 with its image (reported; the dry-run fleet does not run vLLM, so
 *   plan notes it and plans nothing for it); the other engines' repositories have no release;
 * - night 2: node-llama-cpp 3.22.0 appears (reported once), vLLM 0.11.1 without its image yet
 *   (pending, not reported); alert then runs a second time, which must write nothing;
 * - night 3: node-llama-cpp 3.23.0 appears, and the runner of its job dies (no result, no
 *   artifact): collect names the job missing, exits 0 (no --require-all in production) and puts
 *   3.23.0 back to pending in the detect state, which is committed with the results;
 * - night 4, detect only: 3.23.0 is reported new again.
 * Each night runs tests/fixtures/fleet/dry-run.yaml's jobs: the embedded engine's nightly set and
 * the new release, on the smoke workload.
 *
 * The CPU lane. llama.cpp's releases come from npm (node-llama-cpp, engines/llamacpp.yaml
 * source.npm): a fake npm registry on the same loopback server lists LLAMACPP_RELEASES (real
 * tarballs, each with a one-commit git bundle, fetched by the real `npm pack`), so detect reports
 * them with the llama.cpp tag each bundles. Each night's report is then planned on the OFFICIAL
 * fleet's CPU lane (planLane: checked, not run; the dry-run fleet has no lane, so the workflow's
 * plan step there notes the llama.cpp release and plans nothing for it). Running the lane itself
 * (a llama.cpp build and 24 measurements, hours on 2 cores) is `npm run lane:cpu`'s job.
 *
 * The planted regression. The planner cannot express a release of the simulated engine: the
 * sim reports one fixed version (`<servebench version>-sim`), has no repository for detect, and
 * `servebench run` records the version the server reports, not --engine-version. So nights 1
 * and 2 also measure a simulated release outside the plan: the real simulated engine (`servebench
 * sim`, its real cost model) behind a small front that answers GET /version with the release's
 * name and passes everything else through, measured by `servebench run --launcher external`
 * SIM_REPEATS times (repeats give regress's Welch test its variance):
 *   night 1: sim "1.0.0+dryrun", --decode-base-ms 8 (the default);
 *   night 2: sim "1.1.0+dryrun", --decode-base-ms 12, every engine step 1.5× slower
 *            (TPOT ≈ ×1.48 at concurrency 4, throughput ≈ ×0.68).
 * Every number comes from a real run against a real server; the names "+dryrun" say what they are.
 *
 *   npx tsx scripts/nightly-dry-run.ts [--keep DIR] [--json]
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { spawnSim } from '../harness/lib/process/spawn-cli.ts';
import { emptyReleases } from '../harness/contract/releases.ts';
import { checkResultText } from '../harness/store/check-result.ts';
import { listResultFiles } from '../harness/store/result-files.ts';
import { fakeGithub } from '../tests/kit/fakes/fake-github-releases.ts';
import { createFakeGitHub, type FakeGitHub } from '../tests/kit/fakes/fake-github-issues.ts';
import { groupKey, type ScenarioRef } from '../harness/pipeline/alert/groups.ts';
import { groupKeyOfBody, stateOfBody } from '../harness/pipeline/alert/markdown.ts';
import { fakeDockerHub } from '../tests/kit/fakes/fake-registries.ts';
import { startFakeServer, type FakeServer, type RecordedRequest } from '../tests/kit/fakes/fake-server.ts';
import { createFakeWebhook, WEBHOOK_PATH, type FakeWebhook } from '../tests/kit/fakes/fake-webhook.ts';
import { loadFleet, loadNewReleases, planLoadedFleet } from '../harness/pipeline/plan/inputs.ts';
import { renderLanes } from '../harness/pipeline/plan/lanes.ts';
import { renderMatrix } from '../harness/pipeline/plan/matrix.ts';
import { fakeNpmRegistry } from '../tests/pipeline/fake-npm-registry.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(REPO, 'harness', 'cli.ts');
const TSX_LOADER = import.meta.resolve('tsx');
export const DRY_RUN_FLEET = join(REPO, 'tests', 'fixtures', 'fleet', 'dry-run.yaml');
/** The workflow whose steps the dry run mirrors (the test checks every command's flags against it). */
export const NIGHTLY_WORKFLOW = join(REPO, '.github', 'workflows', 'nightly.yml');
/** Stand-in for ${{ github.repository }} (alert --repo, and $GITHUB_REPOSITORY for regress's links). */
export const GITHUB_REPO = 'servebench/servebench';
/** Stand-in for ${{ github.ref_name }} (regress --ref): the branch the night commits to. */
export const BRANCH = 'main';
/** Stand-in for $GITHUB_SERVER_URL (regress's links only; nothing is fetched from it). */
const GITHUB_SERVER_URL = 'https://github.com';
const FAKE_TOKEN = 'ghp_dry_run_fake_token_not_a_secret';
const ENGINE_REPO = 'withcatai/node-llama-cpp';
/** The identity the workflow's commit step sets (a runner has none), so the temp repository's commits read as the night's. */
const BOT = { name: 'github-actions[bot]', email: '41898282+github-actions[bot]@users.noreply.github.com' };
/** The night whose new-release job's runner dies (no result, no artifact), and the night that polls after it. */
export const RUNNER_DIES_NIGHT = 3;
export const NEXT_POLL_NIGHT = 4;
/** The new node-llama-cpp release published before each night (night 1 lists two: detect reports the newest). */
export const EMBEDDED_RELEASES: Readonly<Record<number, string>> = { 1: '3.21.1', 2: '3.22.0', 3: '3.23.0' };

/**
 * The node-llama-cpp releases the fake npm registry lists before each night, with the llama.cpp tag
 * each bundles (engines/llamacpp.yaml reads llama.cpp's releases from npm): night 1's first sighting
 * reports the newest, night 2 a new tag, night 3 a release that bundles night 2's tag again (seen,
 * with a note, not reported: the same engine build).
 */
export const LLAMACPP_RELEASES: Readonly<Record<number, ReadonlyArray<readonly [string, string]>>> = {
  1: [['3.21.0', 'b7000'], ['3.21.1', 'b7001']],
  2: [['3.22.0', 'b7100']],
  3: [['3.22.1', 'b7100']],
};
/** The official fleet, whose CPU lane each night's detect output is planned on (in process: the dry run's own fleet has no lane). */
export const OFFICIAL_FLEET = join(REPO, 'fleet', 'fleet.yaml');
/** Runs of the CPU lane per llama.cpp release: 4 models × 2 workloads × 3 runs. */
export const LANE_RUNS = 24;

/** The simulated releases measured each night (see the header). */
export const SIM_RELEASES = [
  { night: 1, version: '1.0.0+dryrun', decodeBaseMs: 8 },
  { night: 2, version: '1.1.0+dryrun', decodeBaseMs: 12 },
] as const;
/** Runs of each simulated release (about 2 s each): enough for regress's Welch test to see the planted change through a busy machine's noise. */
export const SIM_REPEATS = 3;
/** regress's default --threshold, which the dry run uses. */
const REGRESS_THRESHOLD_PCT = 10;
/** The step cost ratio planted between the two simulated releases. */
export const PLANTED_FACTOR = SIM_RELEASES[1].decodeBaseMs / SIM_RELEASES[0].decodeBaseMs;

export interface StepRecord {
  readonly night: number;
  readonly step: string;
  readonly command: readonly string[];
  /** The folder the command ran in: the temp checkout for the workflow's servebench steps, the repository for the jobs. */
  readonly cwd: string;
  readonly expected: readonly number[];
  readonly code: number | null;
  readonly wall_s: number;
  readonly ok: boolean;
  /** Key numbers of the step (jobs planned, files collected, regressions, issues …). */
  counts: Record<string, number | string>;
  readonly log: string;
}

export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** What each night's steps produced, parsed, for the checks (and the test). */
export interface NightOutputs {
  detect?: { new: Array<{ engine: string; version: string; tag?: string }>; pending: Array<{ engine: string; version: string }>; errors: unknown[]; notes?: Array<{ engine: string; message: string }> };
  /**
   * The night's detect output planned on the official fleet's CPU lane (not run: the real lane takes
   * hours): runs per llama.cpp version, and whether each builds its release first and runs it with
   * --engine-version and --source official, in lanes rather than the bench matrix.
   */
  lane?: { runs: Record<string, number>; lanes: number; builds: string[]; commands_ok: boolean; in_matrix: number; distinct_ids: boolean };
  plan?: { plan_id: string; jobs: Array<{ id: string; name: string; engine: string; version: string; workload: string }>; notes: string[] };
  matrix?: { include: Array<{ job_id: string; name: string; command: string; engine: string; version: string; timeout_minutes: number }> };
  /** Jobs whose runner the dry run let die (no result, no artifact). */
  died?: string[];
  /** `git rev-parse HEAD` before collect (the workflow's collect output `base`), and HEAD after the commit step. */
  base?: string;
  commit?: string;
  /** Whether the commit step committed, and the result files collect added (the workflow's `committed` and `added` outputs). */
  committed?: boolean;
  added?: number;
  collect?: {
    collected: Array<{ path: string; engine: string; version: string | null }>;
    already_present: unknown[];
    invalid: unknown[];
    conflicts: unknown[];
    missing: Array<{ job_id: string; name: string; engine: string; version: string }>;
    ignored: number;
    detect_state: { file: string; put_back: Array<{ engine: string; version: string; reason: string }>; not_put_back: unknown[]; written: boolean } | null;
  };
  /** The exit status of collect (the workflow fails the night on anything above 1). */
  collect_code?: number | null;
  /** summary.md of `servebench summarize` (the workflow appends it to the step summary). */
  summary_md?: string;
  /** Every result file in the store checked as `servebench validate` checks it (in-process: the workflow runs no validate step). */
  validate?: { files: number; problems: unknown[] };
  /** From compile's report on stderr (the workflow passes no --json). */
  compile?: { snapshot: string; tables: Record<string, number>; ingest: { valid: number } };
  /** The regressions page and which simulated releases it names. */
  site?: { pages: number; leaderboard_pages: string[]; regressions_page: boolean; regressions_page_names: string[] };
  regress?: { compared: number; regressions: DryRunRegression[] };
  /** From alert's text output (the workflow passes no --json); each issue's key (one per engine release and configuration) read back from the fake GitHub. */
  alert?: { actions: Array<{ action: string; key: string | null; issue: number | null }> };
}

/** A row of `servebench regress --json` (the fields the checks read): its configuration, and what moved. */
export interface DryRunRegression extends ScenarioRef {
  readonly key: string;
  readonly engine: string;
  readonly version: string;
  readonly previous_version: string;
  readonly metric: string;
  readonly load: string;
  readonly change_pct: number;
  readonly method: string;
}

/** The issue keys `servebench alert` files regressions under: one per engine release and configuration. */
export function expectedIssueKeys(regressions: readonly DryRunRegression[]): Set<string> {
  return new Set(regressions.map((r) => groupKey(r.engine, r.version, r)));
}

export interface DryRunReport {
  readonly ok: boolean;
  readonly dir: string;
  readonly kept: boolean;
  readonly wall_s: number;
  readonly steps: StepRecord[];
  readonly checks: Check[];
  readonly nights: Record<string, NightOutputs>;
  /** alert run again after night 2 (idempotence), and night 4's detect (the poll after the runner died). */
  readonly final: { detect?: NightOutputs['detect']; alert_rerun?: NightOutputs['alert']; alert_rerun_writes: number };
  /** The temp repository's commits, oldest first (the initial checkout, then each night that committed). */
  readonly commits: Array<{ sha: string; subject: string }>;
  readonly github: {
    /** key: the group key in the body's marker; rows: the metric × load point rows its state lists. */
    readonly issues: Array<{ number: number; title: string; state: string; labels: string[]; key: string | null; rows: Array<{ metric: string; load: string }> }>;
    readonly webhook_posts: number;
    readonly requests: number;
  };
  readonly error: string | null;
  /** SIGINT or SIGTERM when the dry run was stopped (every step's processes were stopped with it). */
  readonly interrupted: NodeJS.Signals | null;
}

export interface DryRunOptions {
  /** Keep the temp folder here (created; must be empty if it exists). Default: a new temp folder, removed after a clean run. */
  readonly keep?: string;
  /** Progress lines (default: stderr). */
  readonly log?: (line: string) => void;
}

class StepFailed extends Error {}

interface Context {
  /** The temp folder: the workflow's checkout (a git repository), where its servebench steps run. */
  readonly dir: string;
  readonly resultsDir: string;
  readonly runnerResults: string;
  readonly dataDir: string;
  readonly siteDir: string;
  readonly stateFile: string;
  readonly fleetFile: string;
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

interface Spawned {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment of every step: this machine's, less anything that would reach a real service or CI. */
function stepEnv(): NodeJS.ProcessEnv {
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

/** Runs a command in its own process group (a timeout or Ctrl-C stops the servers it started too). */
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

interface Command {
  readonly program: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutS?: number;
  readonly display?: readonly string[];
  /** Default: the repository (the jobs' commands are relative to it). */
  readonly cwd?: string;
}

async function step(ctx: Context, night: number, name: string, command: Command, expected: readonly number[] = [0]): Promise<Spawned & { record: StepRecord }> {
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
function cli(command: string, args: readonly string[], extra: { env?: NodeJS.ProcessEnv; timeoutS?: number } = {}): Command {
  return { program: process.execPath, args: ['--import', TSX_LOADER, CLI, command, ...args], display: ['servebench', command, ...args], ...extra };
}

/**
 * A servebench step of nightly.yml (`npm run -s servebench -- <command> <args>`): run in the temp
 * checkout, so the workflow's relative paths and defaults (results, build/data, fleet/…) resolve
 * there, with the workflow steps' environment plus the step's own `env:`. `args` are the flags the
 * workflow passes, restated (the test compares them with nightly.yml's `run:` text).
 */
function workflowCli(ctx: Context, command: string, args: readonly string[], stepEnv: NodeJS.ProcessEnv = {}): Command {
  return { ...cli(command, args, { env: { ...ctx.workflowEnv, ...stepEnv } }), cwd: ctx.dir };
}

/** git in the temp checkout, with the workflow's bot identity and none of this machine's git configuration (signing, hooks). */
function gitEnv(): NodeJS.ProcessEnv {
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

function git(dir: string, args: readonly string[]): string {
  return execFileSync('git', args, { cwd: dir, env: gitEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function readJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new StepFailed(`${what}: not JSON (${(error as Error).message}): ${text.slice(0, 300)}`);
  }
}

/**
 * The simulated release's server: `servebench sim` (its real cost model) behind a front that
 * answers GET /version with the release's name (see the header) and passes the rest through.
 */
async function startSimRelease(version: string, decodeBaseMs: number): Promise<{ url: string; close: () => Promise<void> }> {
  const sim = await spawnSim(['--decode-base-ms', String(decodeBaseMs), '--model-name', 'sim-model']);
  const target = new URL(sim.url);
  const front: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/version') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ version, note: `servebench sim behind scripts/nightly-dry-run.ts, --decode-base-ms ${decodeBaseMs}` }));
      return;
    }
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    // A client that gives up (timeout, cancel) ends the stream on the sim too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((done) => front.listen(0, '127.0.0.1', done));
  const { port } = front.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      front.closeAllConnections();
      await new Promise<void>((done) => front.close(() => done()));
      await sim.stop();
    },
  };
}

/** "upload-artifact": what the job left in its results folder, plus its console log, becomes incoming/<name>/. */
function uploadArtifact(ctx: Context, incoming: string, name: string, consoleText: string): number {
  const artifact = join(incoming, name);
  if (existsSync(ctx.runnerResults)) renameSync(ctx.runnerResults, artifact);
  else mkdirSync(artifact, { recursive: true });
  mkdirSync(ctx.runnerResults, { recursive: true });
  const files = readdirSync(artifact, { recursive: true }).filter((f) => String(f).endsWith('.json')).length;
  writeFileSync(join(artifact, 'job.log'), consoleText);
  return files;
}

function htmlFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.html')) : [];
}

/** The files a night's workflow steps write at the checkout's root (each night's runners start without them). */
const NIGHT_FILES = ['detected.json', 'plan', 'incoming', 'collect.json', 'summary.md', 'regressions.json', 'regressions.md'];

/** Moves the night's working files into night-N/ (kept for reading), so the next night starts from a clean checkout as fresh runners do. */
function archiveNight(ctx: Context, night: number): void {
  const nightDir = join(ctx.dir, `night-${night}`);
  mkdirSync(nightDir, { recursive: true });
  for (const name of NIGHT_FILES) if (existsSync(join(ctx.dir, name))) renameSync(join(ctx.dir, name), join(nightDir, name));
}

/** nightly.yml's detect step on a scheduled night: every engine (ENGINES is empty), the state at its default fleet/detect-state.json. */
async function detectStep(ctx: Context, night: number, name = 'detect'): Promise<NonNullable<NightOutputs['detect']>> {
  // Exit 1 ("some engine could not be polled") is tolerated by the workflow, but every repository is faked here: 0 only.
  const ran = await step(ctx, night, name, workflowCli(ctx, 'detect', ['--out', 'detected.json'], { GITHUB_TOKEN: FAKE_TOKEN }));
  const report = readJson<NonNullable<NightOutputs['detect']>>(readFileSync(join(ctx.dir, 'detected.json'), 'utf8'), 'detected.json');
  ran.record.counts = { new: report.new.map((v) => `${v.engine} ${v.version}`).join(', ') || 'none', pending: report.pending.length };
  return report;
}

/** compile's report on stderr (the workflow passes no --json): valid runs, table sizes and the snapshot. */
function parseCompileReport(text: string): NonNullable<NightOutputs['compile']> {
  const valid = /; (\d+) valid runs/.exec(text);
  const tables = /^tables: (.*)$/m.exec(text);
  const snapshot = /^snapshot (\S+)/m.exec(text);
  if (!valid || !tables || !snapshot) throw new StepFailed(`compile: its report on stderr was not understood: ${text.slice(0, 300)}`);
  const sizes = Object.fromEntries(tables[1]!.split(', ').map((entry) => {
    const at = entry.lastIndexOf(' ');
    return [entry.slice(0, at), Number(entry.slice(at + 1))];
  }));
  return { snapshot: snapshot[1]!, tables: sizes, ingest: { valid: Number(valid[1]) } };
}

const ALERT_VERBS: Readonly<Record<string, string>> = { created: 'create', updated: 'update', reopened: 'reopen', closed: 'close', unchanged: 'unchanged', skipped: 'skip-closed', retired: 'retire' };

/** alert's text output (the workflow passes no --json): one line per action, `<verb> #<issue> …`. */
function parseAlertText(ctx: Context, text: string): NonNullable<NightOutputs['alert']> {
  const actions: NonNullable<NightOutputs['alert']>['actions'] = [];
  for (const line of text.split('\n')) {
    const match = /^(created|updated|reopened|closed|unchanged|skipped|retired)\s+(?:#(\d+) )?/.exec(line);
    if (!match) continue;
    const issue = match[2] === undefined ? null : Number(match[2]);
    actions.push({ action: ALERT_VERBS[match[1]!]!, key: issue === null ? null : ctx.issueKey(issue), issue });
  }
  return { actions };
}

/** Every result file in the store, checked as `servebench validate` checks it. */
function validateStore(resultsDir: string): NonNullable<NightOutputs['validate']> {
  const { files, problems } = listResultFiles(resultsDir);
  const all: unknown[] = [...problems];
  for (const file of files) all.push(...checkResultText(file.relativePath, readFileSync(file.absolutePath, 'utf8'), file.relativePath).problems);
  return { files: files.length, problems: all };
}

/**
 * The CPU lane of fleet/fleet.yaml planned for the night's detect output, as the workflow's plan job
 * plans it (the same functions as `servebench plan --format matrix`): checked, not run. One lane job
 * builds llama.cpp (minutes) and runs 24 measurements (about two hours on 2 cores); the dry run stays
 * at a few minutes, so it verifies the runs' commands instead (tests/pipeline/lane-plan.test.ts
 * checks them against `servebench run`'s and `servebench llamacpp`'s option tables).
 */
function planLane(detected: string): NonNullable<NightOutputs['lane']> {
  const loaded = loadFleet(OFFICIAL_FLEET);
  const plan = planLoadedFleet(OFFICIAL_FLEET, loaded, {
    nightly: true,
    releases: loadNewReleases(detected),
    engineFilter: ['llamacpp'],
  });
  const runs: Record<string, number> = {};
  for (const job of plan.jobs) runs[job.version] = (runs[job.version] ?? 0) + 1;
  const lanes = renderLanes(plan, loaded.fleet).include;
  const inLanes = new Set(lanes.flatMap((l) => l.jobs.map((j) => j.job_id)));
  const commandsOk = plan.jobs.every((job) => {
    const pinned = job.version === 'latest' ? [] : ['--engine-version', job.version];
    const build = job.version === 'latest' ? ['llamacpp', 'build'] : ['llamacpp', 'build', '--node-llama-cpp', job.version];
    const argv = job.argv.join(' ');
    return (
      inLanes.has(job.id) &&
      JSON.stringify(job.build?.argv) === JSON.stringify(build) &&
      argv.startsWith(['run', '--engine', 'llamacpp', '--launcher', 'process', ...pinned].join(' ')) &&
      argv.includes('--source official')
    );
  });
  return {
    runs,
    lanes: lanes.length,
    builds: [...new Set(lanes.map((l) => l.build))].sort(),
    commands_ok: commandsOk,
    in_matrix: renderMatrix(plan, loaded.fleet).include.length,
    distinct_ids: new Set(plan.jobs.map((j) => j.id)).size === plan.jobs.length,
  };
}

async function runNight(ctx: Context, night: number): Promise<NightOutputs> {
  const out: NightOutputs = {};
  const nightDir = join(ctx.dir, `night-${night}`);
  mkdirSync(nightDir, { recursive: true });
  const incoming = join(ctx.dir, 'incoming');
  mkdirSync(incoming, { recursive: true });
  // Stand-in for $GITHUB_STEP_SUMMARY: the night's step summary, outside the checkout.
  const summary = join(nightDir, 'step-summary.md');

  out.detect = await detectStep(ctx, night);
  out.lane = planLane(join(ctx.dir, 'detected.json'));

  const plan = await step(ctx, night, 'plan', workflowCli(ctx, 'plan', ['--new', 'detected.json', '--format', 'matrix', '--out', 'plan', '--nightly']));
  out.matrix = readJson(plan.stdout, 'plan');
  out.plan = readJson(readFileSync(join(ctx.dir, 'plan', 'plan.json'), 'utf8'), 'plan.json');
  plan.record.counts = { jobs: out.plan!.jobs.length, notes: out.plan!.notes.length };

  // The matrix jobs, one after another on this "runner", each with a fresh results folder.
  out.died = [];
  for (const job of out.matrix!.include) {
    if (night === RUNNER_DIES_NIGHT && job.version !== 'latest') {
      // The runner of the new release's job dies: no result and no artifact (its upload step never ran).
      ctx.log(`[night ${night}] job ${job.engine} ${job.version}: its runner "died" (not run; no artifact)`);
      out.died.push(job.job_id);
      continue;
    }
    const ran = await step(ctx, night, `job ${job.engine} ${job.version}`, { program: 'bash', args: ['-c', job.command], timeoutS: job.timeout_minutes * 60, display: [job.command] });
    ran.record.counts = { results: uploadArtifact(ctx, incoming, `result-${job.job_id}`, `${ran.stdout}${ran.stderr}`) };
  }

  // The planted regression's measurements (outside the plan; see the header).
  const release = SIM_RELEASES.find((r) => r.night === night);
  if (release !== undefined) {
    const server = await startSimRelease(release.version, release.decodeBaseMs);
    try {
      for (let repeat = 1; repeat <= SIM_REPEATS; repeat++) {
        const ran = await step(
          ctx,
          night,
          `sim ${release.version} run ${repeat}`,
          cli('run', ['--engine', 'sim', '--launcher', 'external', '--endpoint', server.url, '--engine-version', release.version, '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '4', '--num-prompts', '16', '--source', 'official', '--tokenizer', 'tests/fixtures/tokenizer-words', '--results-dir', ctx.runnerResults]),
        );
        ran.record.counts = { results: uploadArtifact(ctx, incoming, `sim-release-${night}-${repeat}`, `${ran.stdout}${ran.stderr}`) };
      }
    } finally {
      await server.close();
    }
  }

  // The collect job: base = the branch's head before the night's results.
  out.base = git(ctx.dir, ['rev-parse', 'HEAD']);
  // Exit 1 (invalid or conflicting files) is the workflow's ::error, not a failed night; no such file is planted here, so 0.
  const collect = await step(ctx, night, 'collect', workflowCli(ctx, 'collect', ['--plan', 'plan/plan.json', '--from', 'incoming', '--results', 'results', '--detect-state', 'fleet/detect-state.json', '--summary', summary, '--json']));
  writeFileSync(join(ctx.dir, 'collect.json'), collect.stdout);
  out.collect = readJson(collect.stdout, 'collect');
  out.collect_code = collect.code;
  out.added = git(ctx.dir, ['ls-files', '--others', '--exclude-standard', '--', 'results']).split('\n').filter((f) => f.endsWith('.json')).length;
  collect.record.counts = { collected: out.collect!.collected.length, present: out.collect!.already_present.length, invalid: out.collect!.invalid.length, conflicts: out.collect!.conflicts.length, missing: out.collect!.missing.length, put_back: out.collect!.detect_state?.put_back.length ?? 0, ignored: out.collect!.ignored };

  // "Sign the new results" is the collect step the dry run leaves out: Fulcio and Rekor cannot be
  // reached from here, so its nights go out as that step's warning path sends a night whose
  // signing failed: official, unsigned. "Verify the new results" then runs as the workflow runs it
  // then (no --require-signature), on the night's new files.
  const newFiles = git(ctx.dir, ['ls-files', '--others', '--exclude-standard', '--', 'results']).split('\n').filter((f) => f !== '');
  if (newFiles.length > 0) await step(ctx, night, 'verify', workflowCli(ctx, 'verify', ['--results', 'results', ...newFiles]));

  // "Describe the new results": exit 1 (problems) is written into the summary, not fatal; none is expected here.
  const summarize = await step(ctx, night, 'summarize', workflowCli(ctx, 'summarize', ['--base', 'HEAD', '--results', 'results', '--expect-source', 'official', '--markdown', 'summary.md']));
  out.summary_md = readFileSync(join(ctx.dir, 'summary.md'), 'utf8');
  appendFileSync(summary, out.summary_md);
  summarize.record.counts = { chars: out.summary_md.length };

  // "Commit to the branch" (SERVEBENCH_COMMIT_DIRECT=true), less the fetch, rebase and push: the
  // temp repository has no remote. RUN_ID stands in for ${{ github.run_id }}.
  const commit = await step(ctx, night, 'commit', {
    program: 'bash',
    args: ['-c', 'git add -- results fleet/detect-state.json fleet/releases.json\nif git diff --cached --quiet; then echo "committed=false"; exit 0; fi\ngit commit -q -m "results: nightly run $RUN_ID"\necho "committed=true"'],
    env: { ...gitEnv(), RUN_ID: `dry-run-${night}` },
    cwd: ctx.dir,
    display: ['git', 'add', '--', 'results', 'fleet/detect-state.json', 'fleet/releases.json', '&&', 'git', 'commit', '-q', '-m', `results: nightly run dry-run-${night}`],
  });
  out.committed = commit.stdout.includes('committed=true');
  out.commit = git(ctx.dir, ['rev-parse', 'HEAD']);
  commit.record.counts = { committed: String(out.committed), head: out.commit.slice(0, 12) };
  out.validate = validateStore(ctx.resultsDir);

  // The site job. Production checks out the base plus the night's collected files; here they are committed on top of it: the same tree.
  const compile = await step(ctx, night, 'compile', workflowCli(ctx, 'compile', ['--results', 'results', '--out', 'build/data']));
  out.compile = parseCompileReport(compile.stderr);
  compile.record.counts = { runs: out.compile.tables['runs'] ?? 0, points: out.compile.tables['points'] ?? 0, deltas: out.compile.tables['deltas'] ?? 0, snapshot: out.compile.snapshot };

  rmSync(ctx.siteDir, { recursive: true, force: true });
  await step(ctx, night, 'site build', { program: 'npm', args: ['run', 'site:build', '--silent'], env: { ...ctx.env, SERVEBENCH_DATA: ctx.dataDir, SERVEBENCH_SITE_OUT: ctx.siteDir }, timeoutS: 300, display: [`SERVEBENCH_DATA=${ctx.dataDir}`, `SERVEBENCH_SITE_OUT=${ctx.siteDir}`, 'npm', 'run', 'site:build'] });
  const pages = htmlFiles(ctx.siteDir);
  out.site = {
    pages: pages.length,
    leaderboard_pages: pages.filter((p) => p.startsWith('scenario/') && readFileSync(join(ctx.siteDir, p), 'utf8').includes('data-leaderboard')),
    regressions_page: pages.includes(join('regressions', 'index.html')),
    regressions_page_names: [],
  };
  if (out.site.regressions_page) {
    const html = readFileSync(join(ctx.siteDir, 'regressions', 'index.html'), 'utf8');
    out.site.regressions_page_names = SIM_RELEASES.map((r) => r.version).filter((version) => html.includes(version));
  }
  ctx.steps.at(-1)!.counts = { pages: out.site.pages, leaderboard_pages: out.site.leaderboard_pages.length };

  // The alert job: regress scoped to what was added since the commit before the night. Exit 1 is
  // regress's "regressions found": expected on night 2 only.
  const regress = await step(ctx, night, 'regress', workflowCli(ctx, 'regress', ['--base', out.base, '--ref', BRANCH, '--json', '--markdown', 'regressions.md']), [night === 2 ? 1 : 0]);
  writeFileSync(join(ctx.dir, 'regressions.json'), regress.stdout);
  out.regress = readJson(regress.stdout, 'regress');
  regress.record.counts = { compared: out.regress!.compared, regressions: out.regress!.regressions.length };

  out.alert = await alert(ctx, night, 'alert');
  return out;
}

/** nightly.yml's "File issues and notify" (not a dry run: issues are filed, in the fake GitHub). */
async function alert(ctx: Context, night: number, name: string): Promise<NonNullable<NightOutputs['alert']>> {
  const ran = await step(ctx, night, name, workflowCli(ctx, 'alert', ['--regressions', 'regressions.json', '--repo', GITHUB_REPO], { GITHUB_TOKEN: FAKE_TOKEN, SERVEBENCH_WEBHOOK_URL: `${ctx.fakeUrl}${WEBHOOK_PATH}` }));
  const summary = parseAlertText(ctx, ran.stdout);
  const count = (kind: string) => summary.actions.filter((a) => a.action === kind).length;
  ran.record.counts = { issues: summary.actions.length, created: count('create'), updated: count('update'), closed: count('close'), unchanged: count('unchanged') };
  return summary;
}

const isWrite = (request: RecordedRequest) => request.method !== 'GET' && request.method !== 'HEAD';

function checksOf(report: Pick<DryRunReport, 'nights' | 'final' | 'github' | 'commits'>, issuesFake: FakeGitHub, webhook: FakeWebhook): Check[] {
  const checks: Check[] = [];
  const check = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });
  const [n1, n2, n3] = [report.nights['1']!, report.nights['2']!, report.nights[String(RUNNER_DIES_NIGHT)]!];
  const next = report.final.detect!;
  const names = (list: ReadonlyArray<{ engine: string; version: string }>) => list.map((v) => `${v.engine} ${v.version}`);

  const sightings = [n1.detect, n2.detect, n3.detect, next].flatMap((d) => d?.new ?? []).filter((v) => v.engine === 'embedded' && v.version === '3.22.0');
  check('detect reported the new embedded release 3.22.0 exactly once', sightings.length === 1 && n2.detect!.new.some((v) => v.version === '3.22.0'), `${sightings.length} report(s); night 2 new: ${names(n2.detect!.new).join(', ')}`);
  check('detect kept vLLM 0.11.1 pending (no image yet)', [n2.detect!, n3.detect!, next].every((d) => d.pending.some((v) => v.engine === 'vllm' && v.version === '0.11.1')), `pending on the last poll: ${names(next.pending).join(', ')}`);

  // llama.cpp from npm, and the official CPU lane planned on each night's report.
  const llamacpp = (d: NonNullable<NightOutputs['detect']>) => d.new.filter((v) => v.engine === 'llamacpp').map((v) => `${v.version} ${v.tag ?? '?'}`);
  const fromNpm = [n1.detect!, n2.detect!, n3.detect!, next].map(llamacpp);
  check(
    'detect read llama.cpp releases from the npm registry: night 1 the newest (3.21.1, b7001), night 2 3.22.0 (b7100); 3.22.1 bundles b7100 again: seen, not reported',
    JSON.stringify(fromNpm) === JSON.stringify([['3.21.1 b7001'], ['3.22.0 b7100'], [], []]) && (n3.detect!.notes ?? []).some((n) => n.engine === 'llamacpp' && n.message.includes('3.22.1') && n.message.includes('b7100')),
    `new per poll: ${fromNpm.map((l) => l.join(', ') || 'none').join(' | ')}`,
  );
  for (const [night, outputs, version] of [[1, n1, '3.21.1'], [2, n2, '3.22.0'], [RUNNER_DIES_NIGHT, n3, null]] as const) {
    const lane = outputs.lane!;
    const wanted = version === null ? { latest: LANE_RUNS } : { [version]: LANE_RUNS, latest: LANE_RUNS };
    check(
      `night ${night}: the official CPU lane plans ${LANE_RUNS} runs per llama.cpp release (nightly${version ? ` and ${version}` : ''}), each built first and run with --engine-version and --source official, in lanes, not the bench matrix`,
      JSON.stringify(Object.entries(lane.runs).sort()) === JSON.stringify(Object.entries(wanted).sort()) && lane.commands_ok && lane.in_matrix === 0 && lane.distinct_ids && lane.lanes > 0,
      `runs ${JSON.stringify(lane.runs)}; ${lane.lanes} lanes; builds: ${lane.builds.join(' | ')}`,
    );
  }

  // Night 3: the new release's runner died.
  const lost = `embedded ${EMBEDDED_RELEASES[RUNNER_DIES_NIGHT]}`;
  const putBack = n3.collect!.detect_state?.put_back ?? [];
  check(`night ${RUNNER_DIES_NIGHT}: collect named the dead runner's job missing and exited 0 (no --require-all)`, n3.collect_code === 0 && JSON.stringify(n3.collect!.missing.map((m) => m.job_id)) === JSON.stringify(n3.died), `exit ${n3.collect_code}; missing ${names(n3.collect!.missing).join(', ') || 'none'}; died ${n3.died!.join(', ')}`);
  check(`night ${RUNNER_DIES_NIGHT}: collect put ${lost} back to pending in the detect state, and it was committed`, JSON.stringify(names(putBack)) === JSON.stringify([lost]) && n3.collect!.detect_state!.written && n3.committed === true, `put back: ${names(putBack).join(', ') || 'none'}`);
  check(`night ${NEXT_POLL_NIGHT}: detect reported ${lost} new again, and nothing else`, JSON.stringify(names(next.new)) === JSON.stringify([lost]), `new: ${names(next.new).join(', ') || 'none'}`);

  // The temp repository: the initial checkout, then one commit per night; each night's regress based on the commit before it.
  const nightly = [n1, n2, n3];
  check(
    'each night committed its results onto the one before, and regress ran --base the commit before the night',
    report.commits.length === 1 + nightly.length && nightly.every((n, i) => n.committed === true && n.base === report.commits[i]!.sha && n.commit === report.commits[i + 1]!.sha),
    report.commits.map((c) => `${c.sha.slice(0, 8)} ${c.subject}`).join('; '),
  );

  let stored = 0;
  for (const [night, outputs] of [['1', n1], ['2', n2], [String(RUNNER_DIES_NIGHT), n3]] as const) {
    const versions = outputs.plan!.jobs.map((j) => `${j.engine} ${j.version}`).sort();
    const wanted = [`embedded ${EMBEDDED_RELEASES[Number(night)]}`, 'embedded latest'];
    check(`night ${night}: the plan has the embedded nightly and new-release jobs`, JSON.stringify(versions) === JSON.stringify(wanted) && outputs.matrix!.include.length === outputs.plan!.jobs.length, versions.join(', '));
    const ran = outputs.plan!.jobs.length - outputs.died!.length;
    const expected = ran + (SIM_RELEASES.some((r) => String(r.night) === night) ? SIM_REPEATS : 0);
    check(`night ${night}: collect took every result there was, none invalid or conflicting`, outputs.collect!.collected.length === expected && outputs.added === expected && outputs.collect!.missing.length === outputs.died!.length && outputs.collect!.invalid.length === 0 && outputs.collect!.conflicts.length === 0, `${outputs.collect!.collected.length} collected of ${expected}, ${outputs.collect!.missing.length} missing`);
    stored += outputs.collect!.collected.length;
    check(`night ${night}: every result in the store validates, and compile took them all`, outputs.validate!.problems.length === 0 && outputs.validate!.files === stored && outputs.compile!.tables['runs'] === stored, `${outputs.validate!.files} files, ${outputs.validate!.problems.length} problems, ${outputs.compile!.tables['runs']} runs compiled`);
    check(`night ${night}: the site has its leaderboard pages`, outputs.site!.leaderboard_pages.length >= 2 && outputs.site!.regressions_page, `${outputs.site!.pages} pages, leaderboards: ${outputs.site!.leaderboard_pages.join(', ')}`);
  }
  check('night 2: the site\'s regressions page lists the simulated release', n2.site!.regressions_page_names.includes(SIM_RELEASES[1].version), `names ${n2.site!.regressions_page_names.join(', ') || 'none'}`);
  check('night 1: no regression (one release of each engine so far)', n1.regress!.regressions.length === 0 && n1.alert!.actions.length === 0, `${n1.regress!.regressions.length} regressions`);
  check(`night ${RUNNER_DIES_NIGHT}: no regression (only the embedded nightly run was added)`, n3.regress!.regressions.length === 0 && n3.alert!.actions.length === 0, `${n3.regress!.regressions.length} regressions`);

  const found = n2.regress!.regressions;
  const tpot = found.find((r) => r.metric === 'tpot_ms_p50');
  const expectedPct = (PLANTED_FACTOR - 1) * 100;
  check(
    `night 2: regress found the planted sim regression (TPOT p50 up by at least regress's ${REGRESS_THRESHOLD_PCT}%) and nothing else`,
    found.length > 0 && found.every((r) => r.engine === 'sim' && r.previous_version === SIM_RELEASES[0].version && r.version === SIM_RELEASES[1].version) && tpot !== undefined && tpot.change_pct >= REGRESS_THRESHOLD_PCT && tpot.change_pct < expectedPct * 1.6,
    `planted ≈ +${expectedPct.toFixed(0)}% TPOT; ${found.length} regressions: ${found.map((r) => `${r.metric} ${r.change_pct > 0 ? '+' : ''}${r.change_pct.toFixed(1)}%`).join(', ')}`,
  );
  // One issue per engine release and configuration: the planted regression (one sim release on one scenario) is one issue, listing every row.
  const keys = expectedIssueKeys(found);
  const issues = issuesFake.issues;
  const cells = (rows: ReadonlyArray<{ metric: string; load: string }>) => JSON.stringify(rows.map((r) => `${r.metric} @ ${r.load}`).sort());
  check(
    'the fake GitHub got exactly one issue for the planted regression (one release on one configuration), listing every regressed metric at every load point, labelled regression, servebench and engine:sim',
    keys.size === 1 && issues.length === 1 && report.github.issues.every((i) => i.key !== null && keys.has(i.key) && i.state === 'open' && cells(i.rows) === cells(found) && JSON.stringify([...i.labels].sort()) === JSON.stringify(['engine:sim', 'regression', 'servebench'])),
    `${issues.length} issues (${report.github.issues.map((i) => `#${i.number}: ${i.rows.length} rows`).join(', ')}) for ${found.length} regressions in ${keys.size} configurations`,
  );
  check('the webhook got one message about the new issue', webhook.posts.length === 1, `${webhook.posts.length} posts`);
  check('alert run again: no writes, its one issue unchanged', report.final.alert_rerun_writes === 0 && report.final.alert_rerun!.actions.length === 1 && report.final.alert_rerun!.actions.every((a) => a.action === 'unchanged'), `${report.final.alert_rerun_writes} writes; ${report.final.alert_rerun!.actions.map((a) => a.action).join(', ')}`);
  return checks;
}

function prepareDir(keep: string | undefined): string {
  if (keep === undefined) return mkdtempSync(join(tmpdir(), 'servebench-nightly-dry-run-'));
  const dir = resolve(keep);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`--keep: ${dir} is not empty; give a new or empty folder`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const MARKER = `# DRY RUN of the servebench nightly pipeline

Written by scripts/nightly-dry-run.ts. Nothing here is an official result:
- the "GPU fleet" is the embedded CPU engine (llama.cpp with a dummy-weight model) on this machine;
- GitHub, Docker Hub and the webhook were loopback fakes (tests/kit/fakes/); the git repository here
  has no remote, and its commits are the dry run's;
- the simulated engine's releases "1.0.0+dryrun" and "1.1.0+dryrun" are names this dry run gave
  \`servebench sim\` runs with --decode-base-ms 8 and 12 (a planted 1.5x slower step), so that
  regress and alert have a real regression to find.
Every result was measured by \`servebench run\` against a real (embedded or simulated) server.
`;

export async function runNightlyDryRun(options: DryRunOptions = {}): Promise<DryRunReport> {
  const started = performance.now();
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const dir = prepareDir(options.keep);
  const ctx: Context = {
    dir,
    resultsDir: join(dir, 'results'),
    runnerResults: join(dir, 'runner', 'results'),
    dataDir: join(dir, 'build', 'data'),
    siteDir: join(dir, 'build', 'site'),
    // The workflow's default paths, inside the temp checkout.
    stateFile: join(dir, 'fleet', 'detect-state.json'),
    fleetFile: join(dir, 'fleet', 'fleet.yaml'),
    fakeUrl: '',
    // The checkout's known-release list is the repository's (validate reads the harness's own
    // fleet/releases.json): the one detect appends to inside the temp checkout is read beside it.
    env: { ...stepEnv(), SERVEBENCH_EXTRA_RELEASES: [process.env['SERVEBENCH_EXTRA_RELEASES'], join(dir, 'fleet', 'releases.json')].filter(Boolean).join(delimiter) },
    workflowEnv: {},
    issueKey: () => null,
    steps: [],
    log,
  };
  for (const sub of ['logs', 'results', 'runner/results', 'fleet']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, 'DRY-RUN.md'), MARKER);
  writeFileSync(join(ctx.resultsDir, 'README.md'), MARKER);
  // The dry-run fleet at the workflow's default fleet/fleet.yaml, with its runs' results folder inside this temp folder.
  const fleet = parseYaml(readFileSync(DRY_RUN_FLEET, 'utf8')) as Record<string, unknown>;
  fleet['results_dir'] = ctx.runnerResults;
  writeFileSync(ctx.fleetFile, `# Generated by scripts/nightly-dry-run.ts from tests/fixtures/fleet/dry-run.yaml: results_dir points into the dry run's temp folder.\n${toYaml(fleet)}`);
  // The state a repository starts with (nothing reported yet), and the price table compile, summarize and regress read by default.
  writeFileSync(ctx.stateFile, `${JSON.stringify({ schema_version: 1, engines: {} }, null, 2)}\n`);
  copyFileSync(join(REPO, 'fleet', 'prices.yaml'), join(dir, 'fleet', 'prices.yaml'));
  // A repository's known-release list before its first night: empty (detect appends what it reports).
  writeFileSync(join(dir, 'fleet', 'releases.json'), `${JSON.stringify(emptyReleases(), null, 2)}\n`);
  // The dry run's own folders stay out of git status, as build/ does in the repository.
  writeFileSync(join(dir, '.gitignore'), ['build/', 'logs/', 'runner/', 'night-*/', ...NIGHT_FILES.map((f) => `/${f}`), ''].join('\n'));
  git(dir, ['init', '-q', '-b', BRANCH]);
  git(dir, ['add', '--', '.gitignore', 'DRY-RUN.md', 'fleet', 'results']);
  git(dir, ['commit', '-q', '-m', 'dry run: the checkout the first night starts from']);

  const releases = fakeGithub();
  // Every engine with a repository, as a scheduled detect polls them all: those the story does not publish to have no release yet.
  for (const file of readdirSync(join(REPO, 'engines')).filter((f) => f.endsWith('.yaml'))) {
    const repository = (parseYaml(readFileSync(join(REPO, 'engines', file), 'utf8')) as { source?: { repository?: string | null } }).source?.repository;
    if (typeof repository === 'string') releases.repo(repository);
  }
  const hub = fakeDockerHub();
  const issues = createFakeGitHub({ owner: GITHUB_REPO.split('/')[0]!, repo: GITHUB_REPO.split('/')[1]!, token: FAKE_TOKEN });
  const webhook = createFakeWebhook();
  // llama.cpp's releases: node-llama-cpp's on a fake npm registry (real tarballs, read by the real `npm pack`).
  const npm = fakeNpmRegistry(() => server.url, { recorded: false });
  const server: FakeServer = await startFakeServer([releases.handler, hub.handler, issues.handler, webhook.handler, npm.handler]);
  const issueKey = (number: number) => groupKeyOfBody(issues.issues.find((i) => i.number === number)?.body ?? '');
  const workflowEnv: NodeJS.ProcessEnv = {
    ...ctx.env,
    // What Actions sets for every step (stand-ins; regress builds its links from them).
    GITHUB_SERVER_URL,
    GITHUB_REPOSITORY: GITHUB_REPO,
    // The fakes, through the environment rather than flags (--github-api, --registry-url), so every argv is the workflow's.
    SERVEBENCH_GITHUB_API_URL: server.url,
    SERVEBENCH_REGISTRY_OVERRIDE: `docker.io=${server.url}`,
    // npm's own setting, which detect's packument GET and `npm pack` of a release both follow.
    npm_config_registry: server.url,
  };
  const context: Context = { ...ctx, fakeUrl: server.url, workflowEnv, issueKey };
  const nights: Record<string, NightOutputs> = {};
  const final: DryRunReport['final'] = { alert_rerun_writes: 0 };
  let error: string | null = null;
  let checks: Check[] = [];
  interruptedBy = null;
  const onSignal = (signal: NodeJS.Signals) => {
    interruptedBy = signal;
    for (const pid of groups) killGroup(pid, 'SIGTERM');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    releases.publish(ENGINE_REPO, { tag_name: 'v3.21.0', published_at: '2026-10-01T12:00:00Z' });
    releases.publish(ENGINE_REPO, { tag_name: 'v3.21.1', published_at: '2026-10-15T12:00:00Z' });
    releases.publish('vllm-project/vllm', { tag_name: 'v0.11.0', published_at: '2026-10-02T12:00:00Z' });
    hub.push('vllm/vllm-openai', 'v0.11.0');
    for (const [version, tag] of LLAMACPP_RELEASES[1]!) npm.publish(version, tag);
    nights['1'] = await runNight(context, 1);
    archiveNight(context, 1);

    releases.publish(ENGINE_REPO, { tag_name: 'v3.22.0', published_at: '2026-11-01T12:00:00Z' });
    releases.publish('vllm-project/vllm', { tag_name: 'v0.11.1', published_at: '2026-11-02T12:00:00Z' });
    for (const [version, tag] of LLAMACPP_RELEASES[2]!) npm.publish(version, tag);
    nights['2'] = await runNight(context, 2);
    // Idempotence: the alert job run again on the same report (a re-run of the workflow) files nothing.
    const before = server.requests.length;
    final.alert_rerun = await alert(context, 2, 'alert again');
    final.alert_rerun_writes = server.requests.slice(before).filter(isWrite).length;
    context.steps.at(-1)!.counts['writes'] = final.alert_rerun_writes;
    archiveNight(context, 2);

    releases.publish(ENGINE_REPO, { tag_name: 'v3.23.0', published_at: '2026-11-15T12:00:00Z' });
    for (const [version, tag] of LLAMACPP_RELEASES[3]!) npm.publish(version, tag);
    nights[String(RUNNER_DIES_NIGHT)] = await runNight(context, RUNNER_DIES_NIGHT);
    archiveNight(context, RUNNER_DIES_NIGHT);

    // The next night's poll: the release whose runner died is new again (the state collect committed).
    final.detect = await detectStep(context, NEXT_POLL_NIGHT);
    archiveNight(context, NEXT_POLL_NIGHT);
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await server.close();
    npm.close();
  }
  const github = {
    issues: issues.issues.map((i) => ({ number: i.number, title: i.title, state: i.state, labels: [...i.labels], key: groupKeyOfBody(i.body ?? ''), rows: (stateOfBody(i.body ?? '')?.cells ?? []).map((c) => ({ metric: c.metric, load: c.load })) })),
    webhook_posts: webhook.posts.length,
    requests: server.requests.length,
  };
  let commits: DryRunReport['commits'] = [];
  try {
    commits = git(dir, ['log', '--reverse', '--format=%H %s']).split('\n').filter((l) => l !== '').map((l) => ({ sha: l.slice(0, 40), subject: l.slice(41) }));
  } catch (caught) {
    error ??= `git log in ${dir}: ${(caught as Error).message}`;
  }
  if (error === null) {
    try {
      checks = checksOf({ nights, final, github, commits }, issues, webhook);
    } catch (caught) {
      error = `a check could not be evaluated: ${(caught as Error).message}`;
    }
  }
  const ok = error === null && checks.every((c) => c.ok) && context.steps.every((s) => s.ok);
  const kept = options.keep !== undefined || !ok;
  if (!kept) rmSync(dir, { recursive: true, force: true });
  return { ok, dir, kept, wall_s: Math.round((performance.now() - started) / 100) / 10, steps: context.steps, checks, nights, final, commits, github, error, interrupted: interruptedBy };
}

export function formatReport(report: DryRunReport): string {
  const rows = report.steps.map((s) => [String(s.night), s.step, String(s.code), s.expected.join('|'), s.wall_s.toFixed(1), Object.entries(s.counts).map(([k, v]) => `${k} ${v}`).join(', ')]);
  const header = ['night', 'step', 'exit', 'expected', 'wall s', 'counts'];
  const widths = header.map((h, i) => Math.min(48, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [
    `servebench nightly dry run: ${report.ok ? 'OK' : 'FAILED'} in ${report.wall_s.toFixed(1)} s (${report.kept ? `kept in ${report.dir}` : 'temp folder removed'})`,
    '',
    line(header),
    ...rows.map(line),
    '',
    ...report.checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.detail}`),
    ...(report.error ? ['', `error: ${report.error}`] : []),
    '',
  ].join('\n');
}

const HELP = `nightly-dry-run: an end-to-end dry run of the servebench nightly pipeline on this machine

Usage: npx tsx scripts/nightly-dry-run.ts [--keep DIR] [--json]

detect (fake GitHub + Docker Hub) → plan (tests/fixtures/fleet/dry-run.yaml) → every planned job
(the embedded CPU engine) → collect → summarize → commit → compile → site build → regress → alert
(fake GitHub issues + webhook), each servebench step with the flags .github/workflows/nightly.yml
passes, in a temp folder that is a git repository laid out as the workflow's checkout. Three
nights: a planted regression of the simulated engine (1.5x slower engine step) on night 2, which
alert files (and, run again, leaves alone); on night 3 the new release's runner dies, so collect
puts it back to pending and the next night's detect reports it again. Everything on 127.0.0.1.

Options:
  --keep DIR  Run in DIR (new or empty) and keep it: results, compiled data, site, logs, reports.
              Default: a temp folder, removed after a clean run (kept, and named, after a failure).
  --json      Print the report as JSON instead of the step table.
  --help      Show this help and exit.

Exit status: 0 every step exited as expected and every check held, 1 otherwise, 2 bad usage.
`;

async function cliMain(argv: readonly string[]): Promise<number> {
  let values: { keep?: string | undefined; json?: boolean | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({ args: [...argv], options: { keep: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } }, strict: true }));
  } catch (error) {
    process.stderr.write(`nightly-dry-run: ${(error as Error).message}\n${HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  let report: DryRunReport;
  try {
    report = await runNightlyDryRun(values.keep === undefined ? {} : { keep: values.keep });
  } catch (error) {
    process.stderr.write(`nightly-dry-run: ${(error as Error).message}\n`);
    return 2;
  }
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  if (report.interrupted !== null) return report.interrupted === 'SIGINT' ? 130 : 143;
  return report.ok ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  process.exitCode = await cliMain(process.argv.slice(2));
}
