/**
 * The nightly pipeline end to end (tests/kit/nightly-dry-run.ts), once: three nights of detect →
 * plan → jobs (the embedded CPU engine) → collect → summarize → commit → compile → site build →
 * regress → confirm → alert against loopback fakes, in a temp git repository laid out as the
 * workflow's checkout, with the planted regression of the simulated engine (night 2, confirmed by
 * a paired A/B before it is filed), a new release whose runner dies (night 3), and the next
 * night's detect. About four minutes on two cores (the confirm's A/B is two of them).
 *
 * The dry run is a report (what ran, how each step exited, what each night's steps produced); every
 * judgement of what the nights should have found is here, against the story the script planted
 * (tests/kit/nightly-dry-run/story.ts).
 *
 * Each servebench command's argv is checked against the `run:` text of
 * .github/workflows/nightly.yml as a scheduled night runs it, so the dry run cannot drift from
 * production's flags unnoticed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { checkResultText } from '../../harness/store/check-result.ts';
import { listResultFiles } from '../../harness/store/result-files.ts';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { groupKey } from '../../harness/pipeline/alert/groups.ts';
import { MARKER, REPORT_FILE } from '../kit/nightly-dry-run/checkout.ts';
import { runNightlyDryRun } from '../kit/nightly-dry-run/run.ts';
import {
  BRANCH,
  EMBEDDED_RELEASES,
  GITHUB_REPO,
  LANE_RUNS,
  LLAMACPP_RELEASES,
  NEXT_POLL_NIGHT,
  NIGHTLY_WORKFLOW,
  NIGHTS,
  PLANTED_FACTOR,
  REGRESSION_NIGHT,
  RUNNER_DIES_NIGHT,
  SIM_RELEASES,
  SIM_REPEATS,
  CONFIRM_CLASS,
} from '../kit/nightly-dry-run/story.ts';
import type { DryRunRegression, DryRunReport } from '../kit/nightly-dry-run/types.ts';

let dir: string;
let report: DryRunReport;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'servebench-dry-run-test-'));
  report = await runNightlyDryRun({ keep: join(dir, 'run'), log: () => {} });
}, 15 * 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const night = (n: number) => report.nights[String(n)]!;
const stepsNamed = (n: number, name: string) => report.steps.filter((s) => s.night === n && s.step === name);
const versions = (list: ReadonlyArray<{ engine: string; version: string }>) => list.map((v) => `${v.engine} ${v.version}`);
const gitIn = (...args: string[]) => execFileSync('git', args, { cwd: report.dir, encoding: 'utf8' }).trim();
/** Results stored after all nights: both jobs and the sim runs on nights 1 and 2, the nightly job alone on night 3. */
const STORED = 2 * (2 + SIM_REPEATS) + 1;
/** Results stored by the end of each night. */
const STORED_BY_NIGHT = [2 + SIM_REPEATS, 2 * (2 + SIM_REPEATS), STORED];

/** The issue keys `servebench alert` files regressions under: one per engine release and configuration. */
function expectedIssueKeys(regressions: readonly DryRunRegression[]): Set<string> {
  return new Set(regressions.map((r) => groupKey(r.engine, r.version, r)));
}

/**
 * The `npm run -s servebench -- <command> …` calls of nightly.yml's `run:` steps, with each step's
 * `args` array expanded as it is on a scheduled night (no dry_run input, no engine filter, the
 * schedule event). A condition this table does not know fails the test: a new one needs a decision.
 */
const SCHEDULED_NIGHT: Readonly<Record<string, boolean>> = {
  '[ "$DRY_RUN" = true ]': false,
  '[ "$EVENT" != repository_dispatch ]': true,
  '[ -n "$ENGINES" ]': false,
  // The lane's build step: empty on the nightly set (the installed node-llama-cpp's llama.cpp).
  '[ -n "$NODE_LLAMA_CPP" ]': false,
  // The verify step after signing: the dry run cannot reach Fulcio and Rekor, so its nights take the
  // sign step's warning path (official, unsigned) and verify requires no signature.
  '[ "$SIGNED" = true ]': false,
  // The confirm job's GPU set: the CPU lane's hosted runners have none.
  '[ -n "${SERVEBENCH_GPUS:-}" ]': false,
};

/** The alert step's confirmations, one `--confirmations <file>` per confirm job's artifact (none on a night without regressions). */
const CONFIRMATIONS = '…--confirmations';

/** Shell words, double quotes removed (the workflow's lines quote whole words only). */
function words(text: string): string[] {
  return (text.match(/"[^"]*"|\S+/g) ?? []).map((w) => w.replace(/^"(.*)"$/, '$1'));
}

function workflowCommands(): Map<string, string[]> {
  const workflow = parseYaml(readFileSync(NIGHTLY_WORKFLOW, 'utf8')) as { jobs: Record<string, { steps?: Array<{ run?: string }> }> };
  const commands = new Map<string, string[]>();
  for (const job of Object.values(workflow.jobs)) {
    for (const { run } of job.steps ?? []) {
      if (run === undefined) continue;
      let args: string[] = [];
      for (const line of run.split('\n').map((l) => l.trim())) {
        let match: RegExpExecArray | null;
        if ((match = /^args=\((.*)\)$/.exec(line))) args = words(match[1]!);
        else if ((match = /^if (\[ .* \]); then args\+=\((.*)\); fi$/.exec(line))) {
          const holds = SCHEDULED_NIGHT[match[1]!];
          if (holds === undefined) throw new Error(`nightly.yml: a condition the test does not know: ${line}`);
          if (holds) args.push(...words(match[2]!));
        } else if (/^for \w+ in \$\{ENGINES\/\/,\/ \}; do args\+=\(.*\); done$/.test(line)) {
          // ENGINES is empty on a scheduled night: no iteration.
        } else if (line === 'for file in "${files[@]}"; do args+=(--confirmations "$file"); done') {
          args.push(CONFIRMATIONS);
        } else if (line.includes('args+=')) throw new Error(`nightly.yml: an args line the test does not understand: ${line}`);
        const call = /servebench -- ([a-z-]+)(.*)$/.exec(line);
        if (call === null) continue;
        // Up to a redirection (> file) or the end of a $( … ) substitution.
        const rest = call[2]!.replace(/\s*>.*$/, '').replace(/\)\s*$/, '');
        if (commands.has(call[1]!)) throw new Error(`nightly.yml: servebench ${call[1]} is called twice; the test compares one call per command`);
        commands.set(call[1]!, words(rest).flatMap((w) => (w === '${args[@]}' ? args : [w])));
      }
    }
  }
  return commands;
}

describe('the nightly dry run: the CPU lane', () => {
  it('detect reads llama.cpp from the (fake) npm registry; each night plans the official CPU lane for it: 6 runs per release, built first, in lanes', () => {
    const llamacpp = (d: NonNullable<DryRunReport['final']['detect']>) => d.new.filter((v) => v.engine === 'llamacpp').map((v) => [v.version, v.tag]);
    // Night 1 the newest of two, night 2 a new tag, night 3 a release bundling night 2's tag (seen, not reported), the next poll nothing.
    expect([...NIGHTS.map((n) => night(n).detect!), report.final.detect!].map(llamacpp)).toEqual([[[LLAMACPP_RELEASES[1]![1]![0], LLAMACPP_RELEASES[1]![1]![1]]], [[...LLAMACPP_RELEASES[2]![0]!]], [], []]);
    expect(night(RUNNER_DIES_NIGHT).detect!.notes!.map((n) => n.message)).toContain('3.22.1 recorded as seen, not reported: it bundles llama.cpp b7100, as 3.22.0 does (the same engine build)');
    const newRelease: Record<number, string | null> = { 1: '3.21.1', 2: '3.22.0', [RUNNER_DIES_NIGHT]: null };
    for (const n of NIGHTS) {
      const lane = night(n).lane!;
      const release = newRelease[n]!;
      expect(lane.runs, `night ${n}`).toEqual(release === null ? { latest: LANE_RUNS } : { latest: LANE_RUNS, [release]: LANE_RUNS });
      // In lanes, not the bench matrix; every run its own id.
      expect({ night: n, in_matrix: lane.in_matrix, lanes: lane.lanes > 0, distinct: new Set(lane.jobs.map((j) => j.id)).size === lane.jobs.length }).toEqual({ night: n, in_matrix: 0, lanes: true, distinct: true });
      // Each run builds its release first, then runs it pinned (--engine-version) as an official result.
      for (const job of lane.jobs) {
        const pinned = job.version === 'latest' ? [] : ['--engine-version', job.version];
        expect({ night: n, in_lane: job.in_lane, build: job.build }).toEqual({ night: n, in_lane: true, build: job.version === 'latest' ? ['llamacpp', 'build'] : ['llamacpp', 'build', '--node-llama-cpp', job.version] });
        expect(job.argv.slice(0, 5 + pinned.length)).toEqual(['run', '--engine', 'llamacpp', '--launcher', 'process', ...pinned]);
        expect(job.argv.join(' ')).toContain('--source official');
      }
    }
    expect(night(1).lane!.builds).toEqual(['npx tsx harness/cli.ts llamacpp build', 'npx tsx harness/cli.ts llamacpp build --node-llama-cpp 3.21.1']);
    // The dry-run fleet has no lane: its plan notes the release and plans nothing for it.
    expect(night(1).plan!.notes).toContain('llamacpp 3.21.1 (new): no matrix entry with new_versions: true runs llamacpp; nothing planned');
  });
});

describe('the nightly dry run', () => {
  it('ran every step, each exiting as the workflow expects it to', () => {
    expect(report.error).toBeNull();
    for (const s of report.steps) expect({ step: `${s.night} ${s.step}`, code: s.code }).toEqual({ step: `${s.night} ${s.step}`, code: s.expected[0] });
    const order = (n: number) => report.steps.filter((s) => s.night === n).map((s) => s.step.replace(/^job .*/, 'job').replace(/^sim .* run \d$/, 'sim run'));
    const tail = ['collect', 'verify', 'summarize', 'commit', 'compile', 'site build', 'regress', 'alert'];
    const pipeline = ['detect', 'plan', 'job', 'job', ...Array<string>(SIM_REPEATS).fill('sim run'), ...tail];
    expect(order(1)).toEqual(pipeline);
    // The confirm job runs on the night regress found something, between regress and alert; its A/B is then filed and committed.
    expect(order(2)).toEqual([...pipeline.slice(0, -1), 'confirm', 'alert', 'file-comparisons', 'commit comparisons', 'alert again']);
    // Night 3: the new release's job never ran (its runner died), and there is no simulated release.
    expect(order(RUNNER_DIES_NIGHT)).toEqual(['detect', 'plan', 'job', ...tail]);
    expect(order(NEXT_POLL_NIGHT)).toEqual(['detect']);
    // regress says "regressions found" with exit 1: on night 2 only.
    expect(NIGHTS.map((n) => stepsNamed(n, 'regress')[0]!.code)).toEqual(NIGHTS.map((n) => (n === REGRESSION_NIGHT ? 1 : 0)));
    expect(report.ok).toBe(true);
  });

  it('writes its report where it ran: report.json, and the same in Markdown at the end of DRY-RUN.md', () => {
    expect(JSON.parse(readFileSync(join(report.dir, REPORT_FILE), 'utf8'))).toEqual(JSON.parse(JSON.stringify(report)));
    const markdown = readFileSync(join(report.dir, 'DRY-RUN.md'), 'utf8');
    expect(markdown.startsWith(MARKER)).toBe(true);
    expect(markdown).toContain('## servebench nightly dry run: OK: every step exited as the workflow allows');
    const rows = markdown.split('\n').filter((l) => /^\| \d+ \| /.test(l));
    expect(rows.map((r) => r.split(' | ').slice(0, 4).join(' | '))).toEqual(report.steps.map((s) => `| ${s.night} | ${s.step} | ${s.code} | ${s.expected.join(' or ')}`));
    // The report is not committed: the checkout holds the marker as the first night found it.
    expect(gitIn('show', 'HEAD:DRY-RUN.md')).toBe(MARKER.trimEnd());
  });

  it("calls every servebench command of nightly.yml, each with exactly the workflow's flags, in the checkout", () => {
    const workflow = workflowCommands();
    expect([...workflow.keys()].sort()).toEqual(['alert', 'collect', 'compile', 'confirm', 'detect', 'file-confirmations', 'llamacpp', 'plan', 'regress', 'sign', 'summarize', 'verify']);
    // The confirm job's class the dry run stands in for is the workflow's CPU-lane entry.
    const confirmJob = (parseYaml(readFileSync(NIGHTLY_WORKFLOW, 'utf8')) as { jobs: { confirm: { strategy: { matrix: { include: unknown[] } } } } }).jobs.confirm;
    expect(confirmJob.strategy.matrix.include).toContainEqual(expect.objectContaining(CONFIRM_CLASS));
    // The lane job's build (`llamacpp build`) and `sign` are the commands the dry run does not call:
    // the lane's build and runs take hours (the lane's plan and commands are checked instead,
    // above); signing needs Fulcio and Rekor (tests/store/verify.test.ts signs against stand-ins).
    workflow.delete('llamacpp');
    workflow.delete('sign');
    const called = report.steps.filter((s) => s.command[0] === 'servebench');
    // Every servebench step is a workflow command, but the simulated releases' runs (outside the plan; see the script's header).
    expect(new Set(called.map((s) => s.command[1]))).toEqual(new Set([...workflow.keys(), 'run']));
    for (const s of called) {
      if (s.command[1] === 'run') {
        expect(s.step).toMatch(/^sim /);
        continue;
      }
      // The workflow's variables, as the dry run stands in for them (the step summary: any file).
      const standIns: Record<string, string | undefined> = { $BASE: report.nights[String(s.night)]?.base, $BRANCH: BRANCH, $REPO: GITHUB_REPO, $GITHUB_STEP_SUMMARY: undefined, $HARDWARE: CONFIRM_CLASS.hardware };
      let listed = workflow.get(s.command[1]!)!;
      if (listed.at(-1) === CONFIRMATIONS) {
        // One pair per confirm job's artifact, as download-artifact lays them out: on the night regress found something only.
        const pairs = s.command.slice(2 + listed.length - 1);
        expect({ step: `${s.night} ${s.step}`, pairs }).toEqual({ step: `${s.night} ${s.step}`, pairs: s.night === REGRESSION_NIGHT ? ['--confirmations', `confirmations/confirmations-${CONFIRM_CLASS.class}/confirmations.json`] : [] });
        listed = [...listed.slice(0, -1), ...pairs];
      }
      // "${files[@]}" (the last word of verify and file-confirmations): verify's the night's new files under results/,
      // file-confirmations' the confirm jobs' confirmations.json under confirmations/; one or more.
      const variadic = listed.at(-1) === '${files[@]}';
      const under = s.command[1] === 'file-confirmations' ? 'confirmations/' : 'results/';
      const wanted = variadic ? listed.slice(0, -1) : listed;
      const argv = variadic ? s.command.slice(2, 2 + wanted.length) : s.command.slice(2);
      if (variadic) expect({ step: `${s.night} ${s.step}`, files: s.command.slice(2 + wanted.length).every((f) => f.startsWith(under)) && s.command.length > 2 + wanted.length }).toEqual({ step: `${s.night} ${s.step}`, files: true });
      expect({ step: `${s.night} ${s.step}`, argv: argv.length }).toEqual({ step: `${s.night} ${s.step}`, argv: wanted.length });
      wanted.forEach((word, i) => {
        if (!word.includes('$')) expect({ step: `${s.night} ${s.step}`, word: argv[i] }).toEqual({ step: `${s.night} ${s.step}`, word });
        else {
          expect(Object.keys(standIns)).toContain(word);
          const value = standIns[word];
          if (value === undefined) expect(argv[i]!.length).toBeGreaterThan(0);
          else expect({ step: `${s.night} ${s.step}`, [word]: argv[i] }).toEqual({ step: `${s.night} ${s.step}`, [word]: value });
        }
      });
      expect(s.cwd).toBe(report.dir);
    }
    // What the reviewer found: collect without --require-all, with the detect state; regress scoped by --base.
    for (const s of called.filter((c) => c.command[1] === 'collect')) {
      expect(s.command).not.toContain('--require-all');
      expect(s.command).toContain('--detect-state');
    }
    for (const n of NIGHTS) expect(stepsNamed(n, 'regress')[0]!.command.slice(2, 4)).toEqual(['--base', night(n).base]);
  });

  it('the temp folder is a git repository: the initial checkout, then one commit of results and state per night, and one of comparisons after confirm', () => {
    expect(existsSync(join(report.dir, '.git'))).toBe(true);
    const comparisons = `comparisons: nightly confirmations dry-run-${REGRESSION_NIGHT}`;
    expect(report.commits.map((c) => c.subject)).toEqual(['dry run: the checkout the first night starts from', ...NIGHTS.flatMap((n) => [`results: nightly run dry-run-${n}`, ...(n === REGRESSION_NIGHT ? [comparisons] : [])])]);
    // The file-comparisons job's commit holds the comparisons it filed, nothing else.
    const filedCommit = report.commits.find((c) => c.subject === comparisons)!;
    expect(gitIn('show', '--name-only', '--format=', filedCommit.sha).split('\n').filter((f) => f !== '')).toEqual(night(REGRESSION_NIGHT).file_comparisons!.filed);
    expect(gitIn('show', '--name-only', '--format=', report.commits[0]!.sha).split('\n').sort()).toEqual(['.gitignore', 'DRY-RUN.md', 'fleet/detect-state.json', 'fleet/fleet.yaml', 'fleet/prices.yaml', 'fleet/releases.json', 'results/README.md']);
    NIGHTS.forEach((n) => {
      // base: the commit before the night (what regress --base got); the night's commit holds exactly what collect added.
      const at = report.commits.findIndex((c) => c.subject === `results: nightly run dry-run-${n}`);
      expect(night(n).base).toBe(report.commits[at - 1]!.sha);
      expect(night(n).commit).toBe(report.commits[at]!.sha);
      const changed = gitIn('diff', '--name-only', night(n).base!, night(n).commit!).split('\n');
      expect(changed.filter((f) => f.startsWith('results/'))).toHaveLength(night(n).collect!.collected.length);
      // The state, and the known-release list exactly on a night whose detect reported a release new.
      const reportedNew = night(n).detect!.new.length > 0;
      expect(changed.filter((f) => !f.startsWith('results/'))).toEqual(reportedNew ? ['fleet/detect-state.json', 'fleet/releases.json'] : ['fleet/detect-state.json']);
      expect(night(n).added).toBe(night(n).collect!.collected.length);
    });
    // Every result is committed: nothing in results/ is left untracked.
    expect(gitIn('ls-files', '--others', '--exclude-standard', '--', 'results')).toBe('');
    expect(gitIn('ls-files', '--', 'results').split('\n').filter((f) => f.endsWith('.json') && !f.startsWith('results/comparisons/'))).toHaveLength(STORED);
    expect(gitIn('ls-files', '--', 'results/comparisons').split('\n').filter((f) => f.endsWith('.json'))).toEqual(night(REGRESSION_NIGHT).file_comparisons!.filed);
  });

  it('detect reported each new release once, kept vLLM 0.11.1 pending, and re-reported the release whose runner died', () => {
    // llama.cpp's npm releases are checked by 'the nightly dry run: the CPU lane' above.
    const notLlamacpp = (list: Parameters<typeof versions>[0]): string[] => versions(list).filter((v) => !v.startsWith('llamacpp '));
    expect(notLlamacpp(night(1).detect!.new).sort()).toEqual(['embedded 3.21.1', 'vllm 0.11.0']);
    expect(notLlamacpp(night(2).detect!.new)).toEqual(['embedded 3.22.0']);
    expect(versions(night(2).detect!.pending)).toEqual(['vllm 0.11.1']);
    expect(notLlamacpp(night(RUNNER_DIES_NIGHT).detect!.new)).toEqual([`embedded ${EMBEDDED_RELEASES[RUNNER_DIES_NIGHT]}`]);
    // The next poll: the release whose runner died, and nothing else.
    expect(versions(report.final.detect!.new)).toEqual([`embedded ${EMBEDDED_RELEASES[RUNNER_DIES_NIGHT]}`]);
    // vLLM 0.11.1 has no image yet: pending on every poll after its release.
    for (const d of [night(2).detect!, night(RUNNER_DIES_NIGHT).detect!, report.final.detect!]) expect(versions(d.pending)).toEqual(['vllm 0.11.1']);
    for (const d of [night(1).detect!, night(2).detect!, night(RUNNER_DIES_NIGHT).detect!, report.final.detect!]) expect(d.errors).toEqual([]);
  });

  it('the plan matrix holds the jobs, and each that ran ran with the exact command it gives', () => {
    for (const n of NIGHTS) {
      const matrix = night(n).matrix!.include;
      expect(matrix.map((j) => `${j.engine} ${j.version}`).sort()).toEqual([`embedded ${EMBEDDED_RELEASES[n]}`, 'embedded latest']);
      expect(night(n).plan!.jobs.map((j) => j.id).sort()).toEqual(matrix.map((j) => j.job_id).sort());
      for (const job of matrix) {
        expect(job.command).toMatch(/^npx tsx harness\/cli\.ts run --engine embedded --launcher process /);
        const ran = report.steps.find((s) => s.night === n && s.command[0] === job.command);
        if (night(n).died!.includes(job.job_id)) expect(ran).toBeUndefined();
        else expect(ran?.code).toBe(0);
      }
    }
    // vLLM's and llama.cpp's releases are not in the dry-run fleet: noted, not planned.
    expect(night(1).plan!.notes).toEqual([expect.stringContaining('llamacpp 3.21.1 (new): no matrix entry'), expect.stringContaining('vllm 0.11.0 (new): no matrix entry')]);
  });

  it("night 3: collect names the dead runner's job missing, exits 0, and puts the release back to pending in the committed state", () => {
    const n3 = night(RUNNER_DIES_NIGHT);
    const release = EMBEDDED_RELEASES[RUNNER_DIES_NIGHT]!;
    const job = n3.plan!.jobs.find((j) => j.version === release)!;
    expect(n3.died).toEqual([job.id]);
    expect(n3.collect!.missing.map((m) => ({ job_id: m.job_id, engine: m.engine, version: m.version }))).toEqual([{ job_id: job.id, engine: 'embedded', version: release }]);
    expect(n3.collect_code).toBe(0);
    expect(n3.collect!.detect_state).toMatchObject({ written: true, put_back: [{ engine: 'embedded', version: release }] });
    expect(n3.collect!.detect_state!.put_back).toHaveLength(1);
    expect(n3.committed).toBe(true);
    // The state the night committed (what the next night's detect reads): pending again, no longer seen.
    const state = JSON.parse(gitIn('show', `${n3.commit}:fleet/detect-state.json`)) as { engines: Record<string, { seen: Record<string, string>; pending: Record<string, { reason: string }> }> };
    expect(state.engines['embedded']!.pending[release]!.reason).toMatch(/^no result from 1 planned job/);
    expect(state.engines['embedded']!.seen).not.toHaveProperty(release);
    // The night before, every job left a result: nothing missing, nothing put back.
    for (const n of [1, 2]) expect({ missing: night(n).collect!.missing, put_back: night(n).collect!.detect_state?.put_back ?? [] }).toEqual({ missing: [], put_back: [] });
    // The step summary names the missing job.
    expect(readFileSync(join(report.dir, `night-${RUNNER_DIES_NIGHT}`, 'step-summary.md'), 'utf8')).toContain(release);
  });

  it('collect put every result into results/, and every one validates; each was measured by `servebench run`', () => {
    NIGHTS.forEach((n, i) => {
      const collect = night(n).collect!;
      expect(collect.collected).toHaveLength(night(n).plan!.jobs.length - night(n).died!.length + (SIM_RELEASES.some((r) => r.night === n) ? SIM_REPEATS : 0));
      expect(collect.missing).toHaveLength(night(n).died!.length);
      expect(collect.invalid).toEqual([]);
      expect(collect.conflicts).toEqual([]);
      expect(night(n).summary_md!.length).toBeGreaterThan(0);
      // After each night's commit, every result stored so far validates.
      expect(night(n).validate).toEqual({ files: STORED_BY_NIGHT[i], problems: [] });
    });
    const { files, problems } = listResultFiles(join(report.dir, 'results'));
    expect(problems).toEqual([]);
    expect(files).toHaveLength(STORED);
    expect(night(RUNNER_DIES_NIGHT).validate).toEqual({ files: files.length, problems: [] });
    for (const file of files) {
      const text = readFileSync(file.absolutePath, 'utf8');
      expect(checkResultText(file.relativePath, text, file.relativePath).problems).toEqual([]);
      const result = RunResultSchema.parse(JSON.parse(text));
      expect(result.source).toBe('official');
      expect(result.status).toBe('completed');
      expect(result.harness.command.slice(0, 2)).toEqual(['servebench', 'run']);
      // Every engine launched by servebench: the embedded jobs, and the sim at its releases (which confirm launches again).
      expect(result.run!.engine.launcher).toBe('process');
    }
  });

  it('compile produced the snapshot and the site data, and the built site has the leaderboard pages', () => {
    const data = join(report.dir, 'build', 'data');
    const manifest = JSON.parse(readFileSync(join(data, 'MANIFEST.json'), 'utf8')) as { snapshot: string; runs: number };
    expect(manifest.snapshot).toBe(night(RUNNER_DIES_NIGHT).compile!.snapshot);
    expect(manifest.runs).toBe(STORED);
    expect(NIGHTS.map((n) => night(n).compile!.tables['runs'])).toEqual(STORED_BY_NIGHT);
    expect(NIGHTS.map((n) => night(n).compile!.ingest.valid)).toEqual(STORED_BY_NIGHT);
    expect(existsSync(join(data, 'parquet', 'snapshots', manifest.snapshot))).toBe(true);
    expect(readdirSync(join(data, 'parquet', 'snapshots'))).toHaveLength(NIGHTS.length);
    for (const file of ['leaderboard.json', 'deltas.json', 'scenarios.json']) expect(existsSync(join(data, 'site', file))).toBe(true);

    const site = join(report.dir, 'build', 'site');
    expect(existsSync(join(site, 'index.html'))).toBe(true);
    const leaderboards = night(RUNNER_DIES_NIGHT).site!.leaderboard_pages;
    // One scenario for the embedded engine, one for the simulated releases.
    expect(leaderboards).toHaveLength(2);
    for (const page of leaderboards) expect(readFileSync(join(site, page), 'utf8')).toMatch(/Leaderboard at c=\d/);
    // Every night's site: both scenarios' leaderboards and the regressions page, which names the planted release.
    for (const n of NIGHTS) expect({ night: n, leaderboards: night(n).site!.leaderboard_pages.length, regressions: night(n).site!.regressions_page }).toEqual({ night: n, leaderboards: 2, regressions: true });
    expect(night(REGRESSION_NIGHT).site!.regressions_page_names).toContain(SIM_RELEASES[1].version);
  });

  it('regress --base found the planted regression of the simulated engine on night 2, and only that', () => {
    expect(night(1).regress!.regressions).toEqual([]);
    expect(night(RUNNER_DIES_NIGHT).regress!.regressions).toEqual([]);
    const found = night(2).regress!.regressions;
    expect(found.length).toBeGreaterThan(0);
    for (const r of found) expect(r).toMatchObject({ engine: 'sim', previous_version: SIM_RELEASES[0].version, version: SIM_RELEASES[1].version });
    const tpot = found.find((r) => r.metric === 'tpot_ms_p50')!;
    // The step cost went ×1.5, so the time per output token goes up by about as much (about +48%
    // here); the bounds leave room for a busy machine, the lower one is regress's threshold.
    expect(tpot.change_pct).toBeGreaterThanOrEqual(10);
    expect(tpot.change_pct).toBeLessThan((PLANTED_FACTOR - 1) * 100 * 1.6);
    expect(found.map((r) => r.metric)).toContain('output_throughput');
  });

  it('confirm: one paired A/B of 1.0.0+dryrun against 1.1.0+dryrun confirms the planted change on the regressed metrics (the issue files only those)', () => {
    expect(night(1).confirm).toBeUndefined();
    expect(night(RUNNER_DIES_NIGHT).confirm).toBeUndefined();
    const confirm = night(REGRESSION_NIGHT).confirm!;
    expect(confirm).toMatchObject({ status: 'completed', ab_runs: 1, bisections: 0 });
    expect(confirm.confirmations.map((c) => c.key).sort()).toEqual(night(REGRESSION_NIGHT).regress!.regressions.map((r) => r.key).sort());
    const throughput = confirm.confirmations.find((c) => c.metric === 'output_throughput')!;
    expect(throughput).toMatchObject({ status: 'confirmed', reason: 'slower', paired: { verdict: 'slower', derived: false } });
    // Every cost 1.5×: throughput 1/1.5 (−33%), a little less for the costs the plant does not scale.
    expect(throughput.paired!.effect!).toBeGreaterThan(1 / PLANTED_FACTOR - 1 - 0.04);
    expect(throughput.paired!.effect!).toBeLessThan(1 / PLANTED_FACTOR - 1 + 0.04);
    // The file-comparisons job filed that A/B into results/comparisons/ and committed it; the nights after compile it.
    expect(night(REGRESSION_NIGHT).file_comparisons).toEqual({ filed: [expect.stringMatching(/^results\/comparisons\/.*\/sim\/.*\/ab-.*\.json$/)], committed: true });
    expect(night(1).file_comparisons).toBeUndefined();
  });

  it('the planted regression opened exactly one issue (one release on one configuration) listing every regressed metric at every load point; the re-run of alert wrote nothing', () => {
    const found = night(2).regress!.regressions;
    // One sim release on one scenario: however many metrics and load points regressed, one issue.
    const keys = expectedIssueKeys(found);
    expect(keys.size).toBe(1);
    const issues = report.github.issues;
    expect(issues).toHaveLength(1);
    const [issue] = issues;
    expect(issue!.key).toBe([...keys][0]);
    expect(issue!.state).toBe('open');
    // Its rows: what regress found and confirm confirmed.
    const confirmed = new Set(night(REGRESSION_NIGHT).confirm!.confirmations.filter((c) => c.status === 'confirmed').map((c) => c.key));
    expect(issue!.rows.map((r) => `${r.metric} @ ${r.load}`).sort()).toEqual(found.filter((r) => confirmed.has(r.key)).map((r) => `${r.metric} @ ${r.load}`).sort());
    expect([...issue!.labels].sort()).toEqual(['engine:sim', 'regression', 'servebench']);
    expect(issue!.title).toContain(`sim ${SIM_RELEASES[1].version} vs ${SIM_RELEASES[0].version} on `);
    expect(night(2).alert!.actions).toEqual([{ action: 'create', key: issue!.key, issue: issue!.number }]);
    expect(night(1).alert!.actions).toEqual([]);
    expect(night(RUNNER_DIES_NIGHT).alert!.actions).toEqual([]);
    expect(report.github.webhook_posts).toBe(1);
    // Filed once confirmed: the issue holds each row's paired verdict.
    expect(issue!.paired).toEqual(issue!.rows.map((r) => ({ ...r, verdict: 'slower' })));
    expect(report.final.alert_rerun_writes).toBe(0);
    expect(report.final.alert_rerun!.actions.map((a) => a.action)).toEqual(['unchanged']);
  });
});
