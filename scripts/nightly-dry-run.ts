#!/usr/bin/env -S npx tsx
/**
 * An end-to-end DRY RUN of the nightly pipeline on this machine, with the embedded CPU engine
 * standing in for the GPU fleet: detect (against a fake GitHub and Docker Hub) → plan → every
 * planned job → collect → validate → compile → site build → regress → alert (to a fake GitHub
 * and a fake Slack webhook), each step the real CLI as a child process, as the workflow runs it.
 *
 * This script is a test harness: it imports the loopback fakes from tests/fakes/ (one server on
 * 127.0.0.1 answers for GitHub's releases and issues APIs, Docker Hub and the webhook). Nothing
 * leaves the machine, and everything is written into a temp folder (never the repository's
 * results/ or fleet/), which marks itself as a dry run (DRY-RUN.md, results/README.md).
 *
 * Two nights, so that regress and alert have something real to find:
 * - night 1: GitHub lists node-llama-cpp 3.21.0 and 3.21.1 (detect's first sighting reports the
 *   newest) and vLLM 0.11.0 with its image (reported; the dry-run fleet does not run vLLM, so
 *   plan notes it and plans nothing for it);
 * - night 2: node-llama-cpp 3.22.0 appears (reported once), vLLM 0.11.1 without its image yet
 *   (pending, not reported).
 * Each night runs tests/fixtures/fleet/dry-run.yaml's jobs: the embedded engine's nightly set and
 * the new release, on the smoke workload.
 *
 * The planted regression. The planner cannot express a release of the simulated engine: the
 * sim reports one fixed version (`<servebench version>-sim`), has no repository for detect, and
 * `servebench run` records the version the server reports, not --engine-version. So each night
 * also measures a simulated release outside the plan: the real simulated engine (`servebench
 * sim`, its real cost model) behind a small front that answers GET /version with the release's
 * name and passes everything else through, measured by `servebench run --launcher external`
 * three times (repeats give regress's Welch test its variance):
 *   night 1: sim "1.0.0+dryrun", --decode-base-ms 8 (the default);
 *   night 2: sim "1.1.0+dryrun", --decode-base-ms 12, every engine step 1.5× slower
 *            (TPOT ≈ ×1.48 at concurrency 4, throughput ≈ ×0.68).
 * Every number comes from a real run against a real server; the names "+dryrun" say what they are.
 *
 *   npx tsx scripts/nightly-dry-run.ts [--keep DIR] [--json]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { spawnSim } from '../harness/process/spawn-cli.ts';
import { fakeGithub } from '../tests/fakes/fake-github-releases.ts';
import { createFakeGitHub, type FakeGitHub } from '../tests/fakes/fake-github-issues.ts';
import { fakeDockerHub } from '../tests/fakes/fake-registries.ts';
import { startFakeServer, type FakeServer, type RecordedRequest } from '../tests/fakes/fake-server.ts';
import { createFakeWebhook, WEBHOOK_PATH, type FakeWebhook } from '../tests/fakes/fake-webhook.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(REPO, 'harness', 'cli.ts');
const TSX_LOADER = import.meta.resolve('tsx');
export const DRY_RUN_FLEET = join(REPO, 'tests', 'fixtures', 'fleet', 'dry-run.yaml');
export const GITHUB_REPO = 'servebench/servebench';
const FAKE_TOKEN = 'ghp_dry_run_fake_token_not_a_secret';
const ENGINE_REPO = 'withcatai/node-llama-cpp';

/** The simulated releases measured each night (see the header). */
export const SIM_RELEASES = [
  { night: 1, version: '1.0.0+dryrun', decodeBaseMs: 8 },
  { night: 2, version: '1.1.0+dryrun', decodeBaseMs: 12 },
] as const;
export const SIM_REPEATS = 3;
/** regress's default --threshold, which the dry run uses. */
const REGRESS_THRESHOLD_PCT = 10;
/** The step cost ratio planted between the two simulated releases. */
export const PLANTED_FACTOR = SIM_RELEASES[1].decodeBaseMs / SIM_RELEASES[0].decodeBaseMs;

export interface StepRecord {
  readonly night: number;
  readonly step: string;
  readonly command: readonly string[];
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
  detect?: { new: Array<{ engine: string; version: string }>; pending: Array<{ engine: string; version: string }>; errors: unknown[] };
  plan?: { plan_id: string; jobs: Array<{ id: string; name: string; engine: string; version: string; workload: string }>; notes: string[] };
  matrix?: { include: Array<{ job_id: string; name: string; command: string; engine: string; version: string; timeout_minutes: number }> };
  collect?: { collected: Array<{ path: string; engine: string; version: string | null }>; already_present: unknown[]; invalid: unknown[]; conflicts: unknown[]; missing: Array<{ job_id: string }>; ignored: number };
  validate?: { files: number; problems: unknown[] };
  compile?: { snapshot: string; tables: Record<string, number>; ingest: { valid: number } };
  /** The regressions page and which simulated releases it names. */
  site?: { pages: number; leaderboard_pages: string[]; regressions_page: boolean; regressions_page_names: string[] };
  regress?: { compared: number; regressions: Array<{ key: string; engine: string; version: string; previous_version: string; metric: string; change_pct: number; method: string }> };
  alert?: { actions: Array<{ action: string; key: string; issue: number | null }> };
}

export interface DryRunReport {
  readonly ok: boolean;
  readonly dir: string;
  readonly kept: boolean;
  readonly wall_s: number;
  readonly steps: StepRecord[];
  readonly checks: Check[];
  readonly nights: Record<string, NightOutputs>;
  readonly final: { detect?: NightOutputs['detect']; alert_rerun?: NightOutputs['alert']; alert_rerun_writes: number };
  readonly github: {
    readonly issues: Array<{ number: number; title: string; labels: string[]; key: string | null }>;
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
  readonly dir: string;
  readonly resultsDir: string;
  readonly runnerResults: string;
  readonly dataDir: string;
  readonly siteDir: string;
  readonly stateFile: string;
  readonly fleetFile: string;
  readonly fakeUrl: string;
  readonly env: NodeJS.ProcessEnv;
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
function execute(program: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutS: number): Promise<Spawned> {
  return new Promise((resolvePromise) => {
    const child = spawn(program, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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

async function step(ctx: Context, night: number, name: string, command: { program: string; args: readonly string[]; env?: NodeJS.ProcessEnv; timeoutS?: number; display?: readonly string[] }, expected: readonly number[] = [0]): Promise<Spawned & { record: StepRecord }> {
  const display = command.display ?? [command.program, ...command.args];
  if (interruptedBy !== null) throw new StepFailed(`interrupted by ${interruptedBy}`);
  ctx.log(`[night ${night}] ${name}: ${display.join(' ')}`);
  const started = performance.now();
  const outcome = await execute(command.program, command.args, command.env ?? ctx.env, command.timeoutS ?? 180);
  const wall = (performance.now() - started) / 1000;
  const log = join(ctx.dir, 'logs', `${String(ctx.steps.length + 1).padStart(2, '0')}-night-${night}-${name.replace(/[^a-z0-9.]+/gi, '-')}.log`);
  writeFileSync(log, `$ ${display.join(' ')}\n# exit ${outcome.code}, ${wall.toFixed(1)} s\n\n## stdout\n${outcome.stdout}\n## stderr\n${outcome.stderr}`);
  const record: StepRecord = { night, step: name, command: display, expected, code: outcome.code, wall_s: Math.round(wall * 10) / 10, ok: outcome.code !== null && expected.includes(outcome.code), counts: {}, log };
  ctx.steps.push(record);
  ctx.log(`[night ${night}] ${name}: exit ${outcome.code} in ${wall.toFixed(1)} s`);
  if (interruptedBy !== null) throw new StepFailed(`interrupted by ${interruptedBy} during night ${night} ${name}`);
  if (!record.ok) throw new StepFailed(`night ${night} ${name}: exit ${outcome.code}, expected ${expected.join(' or ')}; see ${log}\n${outcome.stderr.split('\n').slice(-15).join('\n')}`);
  return { ...outcome, record };
}

/** `servebench <command> …` as a child process: this Node with tsx's loader, from the checkout. */
function cli(command: string, args: readonly string[], extra: { env?: NodeJS.ProcessEnv; timeoutS?: number } = {}) {
  return { program: process.execPath, args: ['--import', TSX_LOADER, CLI, command, ...args], display: ['servebench', command, ...args], ...extra };
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

async function runNight(ctx: Context, night: number): Promise<NightOutputs> {
  const out: NightOutputs = {};
  const nightDir = join(ctx.dir, `night-${night}`);
  const incoming = join(nightDir, 'incoming');
  mkdirSync(incoming, { recursive: true });
  const summary = join(nightDir, 'step-summary.md');

  const detected = join(nightDir, 'detected.json');
  const detect = await step(ctx, night, 'detect', cli('detect', ['--engine', 'embedded', '--engine', 'vllm', '--github-api', ctx.fakeUrl, '--registry-url', `docker.io=${ctx.fakeUrl}`, '--state', ctx.stateFile, '--out', detected]));
  out.detect = readJson(detect.stdout, 'detect');
  detect.record.counts = { new: out.detect!.new.map((v) => `${v.engine} ${v.version}`).join(', ') || 'none', pending: out.detect!.pending.length };

  const planDir = join(nightDir, 'plan');
  const plan = await step(ctx, night, 'plan', cli('plan', ['--fleet', ctx.fleetFile, '--new', detected, '--nightly', '--out', planDir]));
  out.matrix = readJson(plan.stdout, 'plan');
  out.plan = readJson(readFileSync(join(planDir, 'plan.json'), 'utf8'), 'plan.json');
  plan.record.counts = { jobs: out.plan!.jobs.length, notes: out.plan!.notes.length };

  // The matrix jobs, one after another on this "runner", each with a fresh results folder.
  for (const job of out.matrix!.include) {
    const ran = await step(ctx, night, `job ${job.engine} ${job.version}`, { program: 'bash', args: ['-c', job.command], timeoutS: job.timeout_minutes * 60, display: [job.command] });
    ran.record.counts = { results: uploadArtifact(ctx, incoming, job.name, `${ran.stdout}${ran.stderr}`) };
  }

  // The planted regression's measurements (outside the plan; see the header).
  const release = SIM_RELEASES.find((r) => r.night === night)!;
  const server = await startSimRelease(release.version, release.decodeBaseMs);
  try {
    for (let repeat = 1; repeat <= SIM_REPEATS; repeat++) {
      const ran = await step(
        ctx,
        night,
        `sim ${release.version} run ${repeat}`,
        cli('run', ['--engine', 'sim', '--launcher', 'external', '--endpoint', server.url, '--engine-version', release.version, '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '4', '--num-prompts', '16', '--source', 'official', '--results-dir', ctx.runnerResults]),
      );
      ran.record.counts = { results: uploadArtifact(ctx, incoming, `sim-release-${night}-${repeat}`, `${ran.stdout}${ran.stderr}`) };
    }
  } finally {
    await server.close();
  }

  const collect = await step(ctx, night, 'collect', cli('collect', ['--plan', join(planDir, 'plan.json'), '--from', incoming, '--results', ctx.resultsDir, '--require-all', '--summary', summary, '--json']));
  out.collect = readJson(collect.stdout, 'collect');
  collect.record.counts = { collected: out.collect!.collected.length, present: out.collect!.already_present.length, invalid: out.collect!.invalid.length, conflicts: out.collect!.conflicts.length, missing: out.collect!.missing.length, ignored: out.collect!.ignored };

  const validate = await step(ctx, night, 'validate', cli('validate', ['--results', ctx.resultsDir, '--json']));
  out.validate = readJson(validate.stdout, 'validate');
  validate.record.counts = { files: out.validate!.files, problems: out.validate!.problems.length };

  const compile = await step(ctx, night, 'compile', cli('compile', ['--results', ctx.resultsDir, '--out', ctx.dataDir, '--json']));
  out.compile = readJson(compile.stdout, 'compile');
  compile.record.counts = { runs: out.compile!.tables['runs'] ?? 0, points: out.compile!.tables['points'] ?? 0, deltas: out.compile!.tables['deltas'] ?? 0, snapshot: out.compile!.snapshot };

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

  const regressions = join(nightDir, 'regressions.json');
  // Exit 1 is regress's "regressions found": expected on night 2 only.
  const regress = await step(ctx, night, 'regress', cli('regress', ['--results', ctx.resultsDir, '--out', ctx.dataDir, '--json', '--markdown', join(nightDir, 'regressions.md')]), [night === 2 ? 1 : 0]);
  writeFileSync(regressions, regress.stdout);
  out.regress = readJson(regress.stdout, 'regress');
  regress.record.counts = { compared: out.regress!.compared, regressions: out.regress!.regressions.length };

  out.alert = await alert(ctx, night, 'alert', regressions);
  return out;
}

async function alert(ctx: Context, night: number, name: string, regressions: string): Promise<NightOutputs['alert']> {
  const ran = await step(ctx, night, name, cli('alert', ['--regressions', regressions, '--github-api', ctx.fakeUrl, '--repo', GITHUB_REPO, '--webhook', `${ctx.fakeUrl}${WEBHOOK_PATH}`, '--json'], { env: { ...ctx.env, GITHUB_TOKEN: FAKE_TOKEN } }));
  const summary = readJson<NonNullable<NightOutputs['alert']>>(ran.stdout, 'alert');
  const count = (kind: string) => summary.actions.filter((a) => a.action === kind).length;
  ran.record.counts = { regressions: summary.actions.length, created: count('create'), updated: count('update'), unchanged: count('unchanged') };
  return summary;
}

const isWrite = (request: RecordedRequest) => request.method !== 'GET' && request.method !== 'HEAD';

function checksOf(report: Pick<DryRunReport, 'nights' | 'final' | 'github'>, issuesFake: FakeGitHub, webhook: FakeWebhook): Check[] {
  const checks: Check[] = [];
  const check = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });
  const [n1, n2] = [report.nights['1']!, report.nights['2']!];

  const sightings = [n1.detect, n2.detect, report.final.detect].flatMap((d) => d?.new ?? []).filter((v) => v.engine === 'embedded' && v.version === '3.22.0');
  check('detect reported the new embedded release 3.22.0 exactly once', sightings.length === 1 && n2.detect!.new.some((v) => v.version === '3.22.0'), `${sightings.length} report(s); night 2 new: ${n2.detect!.new.map((v) => `${v.engine} ${v.version}`).join(', ')}`);
  check('detect kept vLLM 0.11.1 pending (no image yet) and reported nothing on the last poll', (n2.detect!.pending.some((v) => v.version === '0.11.1')) && report.final.detect!.new.length === 0, `last poll: ${report.final.detect!.new.length} new`);

  let stored = 0;
  for (const [night, outputs] of [['1', n1], ['2', n2]] as const) {
    const versions = outputs.plan!.jobs.map((j) => `${j.engine} ${j.version}`).sort();
    const wanted = night === '1' ? ['embedded 3.21.1', 'embedded latest'] : ['embedded 3.22.0', 'embedded latest'];
    check(`night ${night}: the plan has the embedded nightly and new-release jobs`, JSON.stringify(versions) === JSON.stringify(wanted) && outputs.matrix!.include.length === outputs.plan!.jobs.length, versions.join(', '));
    const expected = outputs.plan!.jobs.length + SIM_REPEATS;
    check(`night ${night}: collect took every result, none missing, invalid or conflicting`, outputs.collect!.collected.length === expected && outputs.collect!.missing.length === 0 && outputs.collect!.invalid.length === 0 && outputs.collect!.conflicts.length === 0, `${outputs.collect!.collected.length} collected of ${expected}`);
    stored += outputs.collect!.collected.length;
    check(`night ${night}: every result in the store validates, and compile took them all`, outputs.validate!.problems.length === 0 && outputs.validate!.files === stored && outputs.compile!.tables['runs'] === stored, `${outputs.validate!.files} files, ${outputs.validate!.problems.length} problems, ${outputs.compile!.tables['runs']} runs compiled`);
    check(`night ${night}: the site has its leaderboard pages`, outputs.site!.leaderboard_pages.length >= 2 && outputs.site!.regressions_page, `${outputs.site!.pages} pages, leaderboards: ${outputs.site!.leaderboard_pages.join(', ')}`);
  }
  check('night 2: the site\'s regressions page lists the simulated release', n2.site!.regressions_page_names.includes(SIM_RELEASES[1].version), `names ${n2.site!.regressions_page_names.join(', ') || 'none'}`);
  check('night 1: no regression (one release of each engine so far)', n1.regress!.regressions.length === 0 && n1.alert!.actions.length === 0, `${n1.regress!.regressions.length} regressions`);

  const found = n2.regress!.regressions;
  const tpot = found.find((r) => r.metric === 'tpot_ms_p50');
  const expectedPct = (PLANTED_FACTOR - 1) * 100;
  check(
    `night 2: regress found the planted sim regression (TPOT p50 up by at least regress's ${REGRESS_THRESHOLD_PCT}%) and nothing else`,
    found.length > 0 && found.every((r) => r.engine === 'sim' && r.previous_version === SIM_RELEASES[0].version && r.version === SIM_RELEASES[1].version) && tpot !== undefined && tpot.change_pct >= REGRESS_THRESHOLD_PCT && tpot.change_pct < expectedPct * 1.6,
    `planted ≈ +${expectedPct.toFixed(0)}% TPOT; ${found.length} regressions: ${found.map((r) => `${r.metric} ${r.change_pct > 0 ? '+' : ''}${r.change_pct.toFixed(1)}%`).join(', ')}`,
  );
  const keys = new Set(found.map((r) => r.key));
  const issues = issuesFake.issues;
  check(
    'the fake GitHub got exactly one issue per regression, labelled regression, servebench and engine:sim',
    issues.length === found.length && new Set(report.github.issues.map((i) => i.key)).size === issues.length && report.github.issues.every((i) => i.key !== null && keys.has(i.key) && JSON.stringify([...i.labels].sort()) === JSON.stringify(['engine:sim', 'regression', 'servebench'])),
    `${issues.length} issues for ${found.length} regressions`,
  );
  check('the webhook got one message about the new regressions', webhook.posts.length === 1, `${webhook.posts.length} posts`);
  check('alert run again: no writes, every issue unchanged', report.final.alert_rerun_writes === 0 && report.final.alert_rerun!.actions.every((a) => a.action === 'unchanged'), `${report.final.alert_rerun_writes} writes`);
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
- GitHub, Docker Hub and the webhook were loopback fakes (tests/fakes/);
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
    stateFile: join(dir, 'detect-state.json'),
    fleetFile: join(dir, 'fleet.yaml'),
    fakeUrl: '',
    env: stepEnv(),
    steps: [],
    log,
  };
  for (const sub of ['logs', 'results', 'runner/results']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, 'DRY-RUN.md'), MARKER);
  writeFileSync(join(ctx.resultsDir, 'README.md'), MARKER);
  // The dry-run fleet with its runs' results folder inside this temp folder.
  const fleet = parseYaml(readFileSync(DRY_RUN_FLEET, 'utf8')) as Record<string, unknown>;
  fleet['results_dir'] = ctx.runnerResults;
  writeFileSync(ctx.fleetFile, `# Generated by scripts/nightly-dry-run.ts from tests/fixtures/fleet/dry-run.yaml: results_dir points into the dry run's temp folder.\n${toYaml(fleet)}`);

  const releases = fakeGithub();
  const hub = fakeDockerHub();
  const issues = createFakeGitHub({ owner: GITHUB_REPO.split('/')[0]!, repo: GITHUB_REPO.split('/')[1]!, token: FAKE_TOKEN });
  const webhook = createFakeWebhook();
  const server: FakeServer = await startFakeServer([releases.handler, hub.handler, issues.handler, webhook.handler]);
  const context: Context = { ...ctx, fakeUrl: server.url };
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
    nights['1'] = await runNight(context, 1);

    releases.publish(ENGINE_REPO, { tag_name: 'v3.22.0', published_at: '2026-11-01T12:00:00Z' });
    releases.publish('vllm-project/vllm', { tag_name: 'v0.11.1', published_at: '2026-11-02T12:00:00Z' });
    nights['2'] = await runNight(context, 2);

    // Idempotence: the same report again files nothing; the same poll again reports nothing.
    const before = server.requests.length;
    final.alert_rerun = await alert(context, 2, 'alert again', join(dir, 'night-2', 'regressions.json'));
    final.alert_rerun_writes = server.requests.slice(before).filter(isWrite).length;
    context.steps.at(-1)!.counts['writes'] = final.alert_rerun_writes;
    const again = await step(context, 2, 'detect again', cli('detect', ['--engine', 'embedded', '--engine', 'vllm', '--github-api', server.url, '--registry-url', `docker.io=${server.url}`, '--state', ctx.stateFile]));
    final.detect = readJson(again.stdout, 'detect');
    again.record.counts = { new: final.detect!.new.length, pending: final.detect!.pending.length };
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await server.close();
  }
  const github = {
    issues: issues.issues.map((i) => ({ number: i.number, title: i.title, labels: [...i.labels], key: /<!-- servebench-regression-key: ([A-Za-z0-9._-]+) -->/.exec(i.body ?? '')?.[1] ?? null })),
    webhook_posts: webhook.posts.length,
    requests: server.requests.length,
  };
  if (error === null) {
    try {
      checks = checksOf({ nights, final, github }, issues, webhook);
    } catch (caught) {
      error = `a check could not be evaluated: ${(caught as Error).message}`;
    }
  }
  const ok = error === null && checks.every((c) => c.ok) && context.steps.every((s) => s.ok);
  const kept = options.keep !== undefined || !ok;
  if (!kept) rmSync(dir, { recursive: true, force: true });
  return { ok, dir, kept, wall_s: Math.round((performance.now() - started) / 100) / 10, steps: context.steps, checks, nights, final, github, error, interrupted: interruptedBy };
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
(the embedded CPU engine) → collect → validate → compile → site build → regress → alert (fake
GitHub issues + webhook), over two nights, with a planted regression of the simulated engine
(1.5x slower engine step) so that regress and alert have something to file; then alert and
detect once more, which must change nothing. Everything happens in a temp folder on 127.0.0.1.

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
