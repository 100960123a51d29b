/**
 * One night of .github/workflows/nightly.yml, step by step in the temp checkout: detect, plan, the
 * matrix jobs one after another on this "runner" (and the simulated release's runs, outside the
 * plan), collect, verify, summarize, commit, compile, the site build, regress, confirm (when regress
 * found something), alert, and file-comparisons with its commit (when confirm ran). Each step's output is parsed into the night's NightOutputs for the report.
 */
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { WEBHOOK_PATH } from '../fakes/fake-webhook.ts';
import { planLane } from './lane.ts';
import { htmlFiles, parseAlertText, parseCompileReport, validateStore } from './outputs.ts';
import { cli, git, gitEnv, readJson, step, workflowCli, type Context } from './steps.ts';
import { BRANCH, CONFIRM_CLASS, FAKE_TOKEN, GITHUB_REPO, REGRESSION_NIGHT, RUNNER_DIES_NIGHT, SIM_RELEASES, SIM_REPEATS, SIM_TOKENIZER } from './story.ts';
import type { AlertOutput, ConfirmOutput, DetectOutput, NightOutputs } from './types.ts';

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

/** The files a night's workflow steps write at the checkout's root (each night's runners start without them). */
export const NIGHT_FILES = ['detected.json', 'plan', 'incoming', 'collect.json', 'summary.md', 'regressions.json', 'regressions.md', 'report', 'confirmations'];

/** Moves the night's working files into night-N/ (kept for reading), so the next night starts from a clean checkout as fresh runners do. */
export function archiveNight(ctx: Context, night: number): void {
  const nightDir = join(ctx.dir, `night-${night}`);
  mkdirSync(nightDir, { recursive: true });
  for (const name of NIGHT_FILES) if (existsSync(join(ctx.dir, name))) renameSync(join(ctx.dir, name), join(nightDir, name));
}

/** nightly.yml's detect step on a scheduled night: every engine (ENGINES is empty), the state at its default fleet/detect-state.json. */
export async function detectStep(ctx: Context, night: number, name = 'detect'): Promise<DetectOutput> {
  // Exit 1 ("some engine could not be polled") is tolerated by the workflow, but every repository is faked here: 0 only.
  const ran = await step(ctx, night, name, workflowCli(ctx, 'detect', ['--out', 'detected.json'], { GITHUB_TOKEN: FAKE_TOKEN }));
  const report = readJson<DetectOutput>(readFileSync(join(ctx.dir, 'detected.json'), 'utf8'), 'detected.json');
  ran.record.counts = { new: report.new.map((v) => `${v.engine} ${v.version}`).join(', ') || 'none', pending: report.pending.length };
  return report;
}

export async function runNight(ctx: Context, night: number): Promise<NightOutputs> {
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

  // The planted regression's measurements (outside the plan; see story.ts's header): the sim
  // launched at the release, its planted change from the steps' environment.
  const release = SIM_RELEASES.find((r) => r.night === night);
  if (release !== undefined) {
    for (let repeat = 1; repeat <= SIM_REPEATS; repeat++) {
      const ran = await step(
        ctx,
        night,
        `sim ${release.version} run ${repeat}`,
        cli('run', ['--engine', 'sim', '--engine-version', release.version, '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '4', '--num-prompts', '16', '--source', 'official', '--tokenizer', SIM_TOKENIZER, '--results-dir', ctx.runnerResults]),
      );
      ran.record.counts = { results: uploadArtifact(ctx, incoming, `sim-release-${night}-${repeat}`, `${ran.stdout}${ran.stderr}`) };
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
  // regress's "regressions found": expected on the planted night only.
  const regress = await step(ctx, night, 'regress', workflowCli(ctx, 'regress', ['--base', out.base, '--ref', BRANCH, '--json', '--markdown', 'regressions.md']), [night === REGRESSION_NIGHT ? 1 : 0]);
  writeFileSync(join(ctx.dir, 'regressions.json'), regress.stdout);
  out.regress = readJson(regress.stdout, 'regress');
  regress.record.counts = { compared: out.regress!.compared, regressions: out.regress!.regressions.length };

  // The confirm job, only when regress found something (its `if`).
  if (out.regress!.regressions.length > 0) out.confirm = await confirm(ctx, night, summary);
  out.alert = await alert(ctx, night, 'alert');
  // The file-comparisons job, after confirm (its `if`: confirm ran).
  if (out.confirm !== undefined) out.file_comparisons = await fileComparisons(ctx, night);
  return out;
}

/** The confirmations every confirm job left, as download-artifact lays them out (confirmations/<artifact>/confirmations.json). */
function confirmationFiles(ctx: Context): string[] {
  const folder = join(ctx.dir, 'confirmations');
  return existsSync(folder) ? readdirSync(folder).sort().map((artifact) => `confirmations/${artifact}/confirmations.json`).filter((file) => existsSync(join(ctx.dir, file))) : [];
}

/**
 * nightly.yml's file-comparisons job: "File the comparisons" (file-confirmations), then "Commit to
 * the branch" less the fetch, rebase and push, as the collect job's commit is replayed above.
 */
async function fileComparisons(ctx: Context, night: number): Promise<{ filed: string[]; committed: boolean }> {
  const ran = await step(ctx, night, 'file-comparisons', workflowCli(ctx, 'file-confirmations', ['--results', 'results', ...confirmationFiles(ctx)]));
  const filed = git(ctx.dir, ['ls-files', '--others', '--exclude-standard', '--', 'results/comparisons']).split('\n').filter((f) => f.endsWith('.json'));
  ran.record.counts = { filed: filed.length };
  const commit = await step(ctx, night, 'commit comparisons', {
    program: 'bash',
    args: ['-c', 'git add -- results/comparisons\nif git diff --cached --quiet; then echo "committed=false"; exit 0; fi\ngit commit -q -m "comparisons: nightly confirmations $RUN_ID"\necho "committed=true"'],
    env: { ...gitEnv(), RUN_ID: `dry-run-${night}` },
    cwd: ctx.dir,
    display: ['git', 'add', '--', 'results/comparisons', '&&', 'git', 'commit', '-q', '-m', `comparisons: nightly confirmations dry-run-${night}`],
  });
  return { filed, committed: commit.stdout.includes('committed=true') };
}

/**
 * The regress job's "Stage the report and its runs", the confirm job of the CPU lane's class (its
 * workspace the checkout, as a fresh runner's would hold the report), and the download of its
 * artifact for the alert job (confirmations/<artifact>/).
 */
async function confirm(ctx: Context, night: number, summary: string): Promise<ConfirmOutput> {
  const report = readJson<{ regressions: Array<{ file: string | null }> }>(readFileSync(join(ctx.dir, 'regressions.json'), 'utf8'), 'regressions.json');
  for (const file of new Set(report.regressions.flatMap((r) => (r.file === null ? [] : [r.file])))) {
    mkdirSync(dirname(join(ctx.dir, 'report', 'results', file)), { recursive: true });
    copyFileSync(join(ctx.resultsDir, file), join(ctx.dir, 'report', 'results', file));
  }
  const ran = await step(ctx, night, 'confirm', { ...workflowCli(ctx, 'confirm', ['--regressions', 'regressions.json', '--results', 'report/results', '--hardware', CONFIRM_CLASS.hardware, '--budget', '90m', '--out', 'confirmations/confirmations.json', '--markdown', summary]), timeoutS: 900 });
  const out = readJson<ConfirmOutput>(readFileSync(join(ctx.dir, 'confirmations', 'confirmations.json'), 'utf8'), 'confirmations.json');
  ran.record.counts = { confirmed: out.confirmations.filter((c) => c.status === 'confirmed').length, not_confirmed: out.confirmations.filter((c) => c.status !== 'confirmed').length, ab_runs: out.ab_runs };
  const artifact = join(ctx.dir, 'confirmations', `confirmations-${CONFIRM_CLASS.class}`);
  mkdirSync(artifact);
  for (const name of ['confirmations.json', 'confirmations.confirm']) renameSync(join(ctx.dir, 'confirmations', name), join(artifact, name));
  return out;
}

/** nightly.yml's "File issues and notify" (not a dry run: issues are filed, in the fake GitHub), with every confirm job's confirmations. */
export async function alert(ctx: Context, night: number, name: string): Promise<AlertOutput> {
  const args = ['--regressions', 'regressions.json', '--repo', GITHUB_REPO, ...confirmationFiles(ctx).flatMap((file) => ['--confirmations', file])];
  const ran = await step(ctx, night, name, workflowCli(ctx, 'alert', args, { GITHUB_TOKEN: FAKE_TOKEN, SERVEBENCH_WEBHOOK_URL: `${ctx.fakeUrl}${WEBHOOK_PATH}` }));
  const summary = parseAlertText(ctx.issueKey, ran.stdout);
  const count = (kind: string) => summary.actions.filter((a) => a.action === kind).length;
  ran.record.counts = { issues: summary.actions.length, created: count('create'), updated: count('update'), closed: count('close'), unchanged: count('unchanged') };
  return summary;
}
