/**
 * `servebench collect` on SYNTHETIC results (bench/lib/synthetic-results.ts) laid out in temp
 * folders as the nightly's downloaded artifacts, as a Kubernetes results claim copied out with
 * `kubectl cp`, and as a SLURM job's shared folder: valid files land at their content-derived
 * paths, a re-run writes nothing, conflicts and invalid files are refused and reported, stray
 * files are reported and left, and the plan's jobs without a result are listed (never filled in).
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatHelp } from '../../harness/lib/cli/options.ts';
import { collectCommand, runCollect } from '../../harness/pipeline/collect/command.ts';
import type { CollectReport } from '../../harness/pipeline/collect/collect.ts';
import { runDetect } from '../../harness/pipeline/detect/command.ts';
import type { DetectReport } from '../../harness/pipeline/detect/detect.ts';
import { loadDetectState, type DetectState } from '../../harness/pipeline/detect/state.ts';
import { expandPlan } from '../../harness/pipeline/plan/plan.ts';
import { type NewRelease, type Plan, type PlannedJob } from '../../harness/pipeline/plan/plan-file.ts';
import { loadFleet } from '../../harness/pipeline/plan/inputs.ts';
import { ServebenchError } from '../../harness/lib/errors.ts';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import { checkResultText } from '../../harness/store/check-result.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { syntheticResult, type SyntheticRun } from '../../bench/lib/synthetic-results.ts';
import { workloadSpecSha256 } from '../../harness/contract/workload-hash.ts';
import { fakeGithub, type FakeGithub } from '../kit/fakes/fake-github-releases.ts';
import { fakeDockerHub, type FakeDockerHub } from '../kit/fakes/fake-registries.ts';
import { startFakeServer, type FakeServer } from '../kit/fakes/fake-server.ts';
import { CLI_PATH } from '../cli/run-cli.ts';

const FLEET = 'tests/fixtures/fleet/fleet.yaml';

let dir: string;
let incoming: string;
let results: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'servebench-collect-'));
  incoming = join(dir, 'incoming');
  results = join(dir, 'results');
  mkdirSync(incoming);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const BASE: SyntheticRun = {
  engine: 'vllm',
  version: '0.11.0',
  model: 'synthetic/llama-8b',
  gpu: 'Synthetic H100',
  gpuCount: 1,
  workload: 'chat',
  date: new Date(Date.UTC(2026, 0, 2, 3, 0, 0)),
  concurrencies: [1, 4],
  tpotMs: 10,
  ttftMs: 50,
  noise: 0.02,
  seed: 1,
  source: 'official',
};

function synthetic(edit: Partial<SyntheticRun> = {}): RunResult {
  return syntheticResult({ ...BASE, ...edit });
}

/** A SYNTHETIC result as `servebench run` would have written it for this planned job (its argv recorded, as the runner does). */
function resultForJob(job: PlannedJob, seed: number, edit: Partial<SyntheticRun> = {}): RunResult {
  const load = job.load as { concurrency?: number[] };
  const result = synthetic({
    // Speeds the job's real model allows on its real GPUs (validate's roofline bounds): a 70B model decodes slower than the fixture's 8B.
    tpotMs: 40,
    ttftMs: 400,
    ...edit,
    engine: job.engine,
    // A "latest" image reports whatever release it is.
    version: job.version === 'latest' ? '0.5.9' : job.version,
    model: job.model.id,
    gpu: job.gpu.name,
    gpuCount: job.model.tp,
    workload: job.workload,
    concurrencies: load.concurrency ?? [1],
    seed,
  });
  const params: Record<string, string | number> = { model: job.model.id, tensor_parallel: job.model.tp };
  if (job.model.max_model_len !== null) params['max_model_len'] = job.model.max_model_len;
  result.run!.parameters = params;
  result.run!.model.dtype = job.model.dtype;
  result.workload.spec = { ...result.workload.spec, load: job.load };
  // As the runner records it: the hash of the spec it ran (validate recomputes it).
  result.workload.spec_sha256 = workloadSpecSha256(result.workload.spec);
  result.harness.command = ['servebench', 'run', ...job.argv.slice(1), '--gpu', '0'];
  return result;
}

function json(result: RunResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

/** Puts a result into an artifact folder under incoming/, where `servebench run` would have written it in the job. */
function upload(artifact: string, result: RunResult | string, name?: string): string {
  const text = typeof result === 'string' ? result : json(result);
  const relative = name ?? resultRelativePath(result as RunResult, text);
  const path = join(incoming, artifact, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return `${artifact}/${relative}`;
}

interface Outcome {
  readonly code: number;
  readonly report: CollectReport;
  readonly stdout: string;
  readonly stderr: string;
}

async function collect(extra: readonly string[] = []): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  const code = await runCollect(['--from', incoming, '--results', results, '--json', ...extra], {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
  });
  return { code, report: JSON.parse(stdout) as CollectReport, stdout, stderr };
}

/** The fixture fleet's nightly set (and these releases) on H100, written where collect reads it. */
function writePlan(releases: readonly NewRelease[], engines: readonly string[]): { plan: Plan; file: string } {
  const loaded = loadFleet(FLEET);
  const plan = expandPlan({
    fleet: loaded.fleet,
    fleetFile: FLEET,
    fleetSha256: loaded.sha256,
    engines: loaded.engines,
    workloads: loaded.workloads,
    nightly: true,
    releases,
    engineFilter: [...engines],
    gpuTypeFilter: ['h100-sxm-80gb'],
  });
  const file = join(dir, 'plan', 'plan.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(plan, null, 2)}\n`);
  return { plan, file };
}

describe('servebench collect: artifacts into results/', () => {
  it('copies every valid result to its content-derived path, byte for byte, and ignores logs and other files', async () => {
    const a = synthetic({ seed: 11 });
    const b = synthetic({ seed: 12, engine: 'sglang', version: '0.5.3', workload: 'summarize' });
    upload('sb-vllm-h100-aaaa', a);
    upload('sb-sglang-h100-bbbb', b);
    writeFileSync(join(incoming, 'sb-vllm-h100-aaaa', 'server.log'), 'INFO: Uvicorn running\n');
    mkdirSync(join(incoming, 'sb-sglang-h100-bbbb', 'logs'));
    writeFileSync(join(incoming, 'sb-sglang-h100-bbbb', 'logs', 'job.txt'), 'done\n');

    const { code, report } = await collect();
    expect(code).toBe(0);
    expect(report.found).toBe(2);
    expect(report.ignored).toBe(2);
    expect(report.collected).toHaveLength(2);
    expect(report.invalid).toEqual([]);
    expect(report.conflicts).toEqual([]);
    for (const result of [a, b]) {
      const relative = resultRelativePath(result, json(result));
      const written = readFileSync(join(results, relative), 'utf8');
      expect(written).toBe(json(result));
      // What collect wrote passes the store's validator at its place in results/.
      expect(checkResultText(relative, written, relative).problems).toEqual([]);
      expect(report.collected.find((c) => c.run_id === result.run_id)).toMatchObject({ path: relative, engine: result.run!.engine.name, version: result.run!.engine.version, status: 'completed' });
    }
    expect(existsSync(join(results, 'server.log'))).toBe(false);
  });

  it('is idempotent: a re-run finds the same files in place and writes nothing; an artifact downloaded twice counts once', async () => {
    const a = synthetic({ seed: 21 });
    upload('first', a);
    expect((await collect()).code).toBe(0);
    const path = join(results, resultRelativePath(a, json(a)));
    const before = statSync(path).mtimeMs;

    upload('first-again', a);
    const again = await collect();
    expect(again.code).toBe(0);
    expect(again.report.collected).toEqual([]);
    expect(again.report.already_present.map((c) => c.run_id)).toEqual([a.run_id]);
    // Sorted, first-again/ comes before first/: it is the copy that counts.
    expect(again.report.duplicates).toEqual([{ file: expect.stringMatching(/^first\//), same_as: expect.stringMatching(/^first-again\//) }]);
    expect(statSync(path).mtimeMs).toBe(before);
    expect(again.report.conflicts).toEqual([]);
  });

  it('refuses a different file at the derived path, never overwriting it', async () => {
    const a = synthetic({ seed: 31 });
    const relative = resultRelativePath(a, json(a));
    mkdirSync(dirname(join(results, relative)), { recursive: true });
    writeFileSync(join(results, relative), '{"something": "else"}\n');
    upload('job', a);

    const { code, report, stderr } = await collect();
    expect(code).toBe(1);
    expect(report.collected).toEqual([]);
    expect(report.conflicts).toEqual([expect.objectContaining({ file: `job/${relative}`, message: expect.stringContaining('already exists with different contents') })]);
    expect(readFileSync(join(results, relative), 'utf8')).toBe('{"something": "else"}\n');
    expect(stderr).toBe('');
  });

  it('refuses a run_id already in results/ under another path (an edited copy is not a new run)', async () => {
    const a = synthetic({ seed: 41 });
    const relative = resultRelativePath(a, json(a));
    mkdirSync(dirname(join(results, relative)), { recursive: true });
    writeFileSync(join(results, relative), json(a));
    const edited = structuredClone(a);
    edited.run!.model.revision = 'edited';
    const file = upload('job', edited);

    const { code, report } = await collect();
    expect(code).toBe(1);
    expect(report.conflicts).toEqual([expect.objectContaining({ file, path: 'run_id', message: `[duplicate-run] run_id ${a.run_id} is already in results/${relative}` })]);
    expect(existsSync(join(results, resultRelativePath(edited, json(edited))))).toBe(false);
  });

  it('refuses both files when two artifacts hold different files of one run', async () => {
    const a = synthetic({ seed: 51 });
    const edited = structuredClone(a);
    edited.run!.model.revision = 'edited';
    upload('one', a);
    upload('two', edited);
    const { code, report } = await collect();
    expect(code).toBe(1);
    expect(report.conflicts).toHaveLength(2);
    expect(report.collected).toEqual([]);
    expect(existsSync(results)).toBe(false);
  });

  it('reports invalid files (file, JSON path, fix) and does not copy them; the valid ones still go in', async () => {
    const good = synthetic({ seed: 61 });
    const broken = synthetic({ seed: 62 });
    broken.points[0]!.requests_sent += 1;
    const goodFile = upload('job-a', good);
    const brokenFile = upload('job-b', broken);
    const notJson = upload('job-c', '{"schema_version": 1, "run_id": ', 'broken.json');
    mkdirSync(join(incoming, 'job-d'));
    symlinkSync('/etc/passwd', join(incoming, 'job-d', 'link.json'));

    const { code, report } = await collect();
    expect(code).toBe(1);
    expect(report.collected.map((c) => c.file)).toEqual([goodFile]);
    expect(report.invalid).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: brokenFile, path: 'points[0].requests_sent', fix: 'every sent request either completed or failed' }),
        expect.objectContaining({ file: notJson, path: '', message: expect.stringMatching(/^\[json\] not JSON/) }),
        expect.objectContaining({ file: 'job-d/link.json', message: '[not-a-result] a symbolic link' }),
      ]),
    );
    expect(existsSync(join(results, resultRelativePath(broken, json(broken))))).toBe(false);

    // The text form names each problem on one line: file, JSON path, message, fix.
    let text = '';
    let errors = '';
    const textCode = await runCollect(['--from', incoming, '--results', join(dir, 'other-results')], { stdout: (t) => void (text += t), stderr: (t) => void (errors += t) });
    expect(textCode).toBe(1);
    expect(text).toContain(`  invalid    ${brokenFile}: points[0].requests_sent: [sent=completed+failed] completed`);
    expect(text).toContain('(fix: every sent request either completed or failed)');
    expect(errors).toContain('invalid files were not collected');
  });
});

describe('servebench collect: the plan', () => {
  const planFile = () => writePlan([], ['vllm']);

  /** A SYNTHETIC result as `servebench run` would have written it for this job. */
  function resultFor(job: PlannedJob, seed: number): RunResult {
    return resultForJob(job, seed);
  }

  it('lists the planned jobs that left no result, in JSON and in the Markdown summary; --require-all fails on them', async () => {
    const { plan, file } = planFile();
    expect(plan.jobs.length).toBeGreaterThanOrEqual(3);
    const [lost, ...ran] = plan.jobs;
    ran.forEach((job, i) => upload(job.name, resultFor(job, 100 + i)));
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '## an earlier step\n\n');

    const { code, report } = await collect(['--plan', file, '--summary', summary]);
    expect(code).toBe(0);
    expect(report.plan).toEqual({ file, plan_id: plan.plan_id, jobs: plan.jobs.length });
    expect(report.collected).toHaveLength(ran.length);
    expect(report.missing).toEqual([
      { job_id: lost!.id, name: lost!.name, title: lost!.title, engine: 'vllm', version: '0.11.0', model: lost!.model.id, tp: lost!.model.tp, gpu_type: 'h100-sxm-80gb', workload: lost!.workload },
    ]);
    // Nothing was made up for the missing job.
    expect(report.collected.map((c) => c.file.split('/')[0]).sort()).toEqual(ran.map((j) => j.name).sort());

    const markdown = readFileSync(summary, 'utf8');
    expect(markdown.startsWith('## an earlier step\n\n## servebench collect\n')).toBe(true);
    expect(markdown).toContain('### Missing jobs');
    expect(markdown).toContain(`| ${lost!.name} | vllm | 0.11.0 | ${lost!.model.id} (tp ${lost!.model.tp}) | h100-sxm-80gb | ${lost!.workload} |`);
    expect(markdown).toContain(`${ran.length} of ${plan.jobs.length} jobs left a result; **1 missing**`);

    // The re-run with --require-all: the files are in place, the missing job fails the step.
    const strict = await collect(['--plan', file, '--require-all']);
    expect(strict.code).toBe(1);
    expect(strict.report.already_present).toHaveLength(ran.length);
    expect(strict.report.missing.map((m) => m.job_id)).toEqual([lost!.id]);
  });

  it('only results collected now account for a job: an older result of the same configuration in results/ does not', async () => {
    const { plan, file } = planFile();
    const [job] = plan.jobs;
    const old = resultFor(job!, 200);
    const relative = resultRelativePath(old, json(old));
    mkdirSync(dirname(join(results, relative)), { recursive: true });
    writeFileSync(join(results, relative), json(old));
    const { report } = await collect(['--plan', file]);
    expect(report.missing.map((m) => m.job_id)).toContain(job!.id);
    expect(report.missing).toHaveLength(plan.jobs.length);
  });

  it('a failed run accounts for its job: it is a measurement of a failure, not a gap', async () => {
    const { plan, file } = planFile();
    const [job] = plan.jobs;
    const failed = resultFor(job!, 300);
    failed.status = 'failed';
    failed.run!.failure = { phase: 'measure', message: 'the server exited during the run (code 1)', log_tail: [] };
    upload(job!.name, failed);
    const { code, report } = await collect(['--plan', file, '--require-all']);
    expect(report.collected.map((c) => c.status)).toEqual(['failed']);
    expect(report.missing.map((m) => m.job_id)).not.toContain(job!.id);
    expect(code).toBe(1);
  });
});

describe('servebench collect --from a Kubernetes results claim or a SLURM shared folder', () => {
  /** Writes a result where `servebench run --results-dir <root>` puts it: <root>/<date>/<engine>/…; returns that path under `under`. */
  function runWrote(root: string, result: RunResult): string {
    const text = json(result);
    const relative = resultRelativePath(result, text);
    mkdirSync(dirname(join(root, relative)), { recursive: true });
    writeFileSync(join(root, relative), text);
    return relative;
  }

  async function collectFrom(from: string, extra: readonly string[] = []): Promise<Outcome> {
    let stdout = '';
    let stderr = '';
    const code = await runCollect(['--from', from, '--results', results, '--json', ...extra], { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
    return { code, report: JSON.parse(stdout) as CollectReport, stdout, stderr };
  }

  // The night's jobs start after submission; the claim also holds the night before.
  const SUBMITTED = '2026-01-02T01:00:00Z';
  const NIGHT = new Date(Date.UTC(2026, 0, 2, 3, 0, 0));
  const NIGHT_BEFORE = new Date(Date.UTC(2026, 0, 1, 3, 0, 0));

  it('a claim copied out with kubectl cp: results nested by day, lost+found skipped, leftovers reported as stray, the night before not counted with --since', async () => {
    const { plan, file } = writePlan([], ['vllm']);
    const claim = join(dir, 'night');
    const [lost, ...ran] = plan.jobs;
    const written = ran.map((job, i) => runWrote(claim, resultForJob(job, 700 + i, { date: NIGHT })));
    // Last night's run of the job that died tonight: still in the claim.
    const before = runWrote(claim, resultForJob(lost!, 690, { date: NIGHT_BEFORE }));
    mkdirSync(join(claim, 'lost+found'));
    chmodSync(join(claim, 'lost+found'), 0o700);
    // Tonight's run of the lost job was killed while writing its result; a deleted file was still open on NFS.
    const unfinished = `${dirname(written[0]!)}/.chat-0123456789ab.json.1a2b3c4d.tmp`;
    writeFileSync(join(claim, unfinished), '{"schema_version": 1, ');
    writeFileSync(join(claim, '.nfs000000000001c2d300000001'), '');

    const { code, report, stderr } = await collectFrom(claim, ['--plan', file, '--since', SUBMITTED]);
    expect([code, stderr]).toEqual([0, '']);
    expect(report.found).toBe(ran.length + 1);
    expect(report.ignored).toBe(1);
    expect(report.invalid).toEqual([]);
    // Every result is collected, last night's too (a measurement is never dropped) ...
    expect(report.collected.map((c) => c.file).sort()).toEqual([...written, before].sort());
    for (const c of report.collected) {
      const text = readFileSync(join(results, c.path), 'utf8');
      expect(text).toBe(readFileSync(join(claim, c.file), 'utf8'));
      expect(checkResultText(c.path, text, c.path).problems).toEqual([]);
    }
    // ... but only tonight's account for the plan: the lost job is missing.
    expect(report.plan).toEqual({ file, plan_id: plan.plan_id, jobs: plan.jobs.length, since: '2026-01-02T01:00:00.000Z' });
    expect(report.missing.map((m) => m.job_id)).toEqual([lost!.id]);
    expect(report.stray).toEqual([
      { file: '.nfs000000000001c2d300000001', path: '', message: '[not-a-result] an NFS placeholder of a file deleted while still open', fix: expect.stringContaining('goes away') },
      { file: unfinished, path: '', message: '[not-a-result] an unfinished result write (the run was killed while writing its result)', fix: expect.stringContaining('reported missing') },
    ]);

    // Without --since, last night's result would stand in for tonight's missing job.
    const unbounded = await collectFrom(claim, ['--plan', file]);
    expect(unbounded.report.missing).toEqual([]);
    expect(unbounded.report.already_present).toHaveLength(ran.length + 1);

    // The text form: one line per stray file (file, problem, fix), and the plan line names --since.
    let text = '';
    expect(await runCollect(['--from', claim, '--results', results, '--plan', file, '--since', '2026-01-02'], { stdout: (t) => void (text += t), stderr: () => {} })).toBe(0);
    expect(text).toContain(`(1 other file ignored, 2 stray)`);
    expect(text).toContain(`  stray      ${unfinished}: [not-a-result] an unfinished result write (the run was killed while writing its result) (fix: that attempt left no result;`);
    expect(text).toContain(`1 without a result created since 2026-01-02T00:00:00.000Z`);
    expect(text).toContain(`  missing    ${lost!.name}`);
  });

  it("a SLURM job's shared folder: results_dir and the job logs next to it, a copy of the plan; a deleted result is reported missing", async () => {
    const { plan, file } = writePlan([], ['vllm']);
    const shared = join(dir, 'shared');
    const written = plan.jobs.map((job, i) => `results/${runWrote(join(shared, 'results'), resultForJob(job, 800 + i, { date: NIGHT }))}`);
    mkdirSync(join(shared, 'logs', 'slurm'), { recursive: true });
    plan.jobs.forEach((job, i) => writeFileSync(join(shared, 'logs', 'slurm', `${job.name}-${4100 + i}.out`), 'servebench: wrote results/…\n'));
    // The operator planned into the shared folder too.
    mkdirSync(join(shared, 'plan', 'slurm'), { recursive: true });
    writeFileSync(join(shared, 'plan', 'plan.json'), readFileSync(file));
    writeFileSync(join(shared, 'plan', 'slurm', 'submit-all.sh'), '#!/bin/bash\n');
    writeFileSync(join(shared, 'plan', 'slurm', `${plan.jobs[0]!.name}.sbatch`), '#!/bin/bash\n');

    const first = await collectFrom(shared, ['--plan', file, '--since', SUBMITTED, '--require-all']);
    expect(first.code).toBe(0);
    expect(first.report.collected.map((c) => c.file).sort()).toEqual([...written].sort());
    expect(first.report.ignored).toBe(plan.jobs.length + 2);
    expect(first.report.stray).toEqual([{ file: 'plan/plan.json', path: '', message: '[not-a-result] a plan (`servebench plan --out`), not a result', fix: 'give it with --plan; keep the plan folder out of --from' }]);
    expect(first.report.missing).toEqual([]);

    // Collected once: the next collect finds every file in place and writes nothing.
    const again = await collectFrom(shared, ['--plan', file, '--since', SUBMITTED]);
    expect([again.code, again.report.collected, again.report.already_present.length]).toEqual([0, [], plan.jobs.length]);

    // A job whose result is gone from the shared folder is missing, even though results/ still has it.
    const gone = plan.jobs[1]!;
    unlinkSync(join(shared, written[1]!));
    const after = await collectFrom(shared, ['--plan', file, '--since', SUBMITTED, '--require-all']);
    expect(after.code).toBe(1);
    expect(after.report.missing.map((m) => m.job_id)).toEqual([gone.id]);
    let errors = '';
    expect(await runCollect(['--from', shared, '--results', results, '--plan', file, '--since', SUBMITTED, '--require-all'], { stdout: () => {}, stderr: (t) => void (errors += t) })).toBe(1);
    expect(errors).toBe('servebench collect: 1 planned job left no result (--require-all)\n');
  });

  it('per-job folders nested deeper, an archive and a linked folder (reported, never followed); --from may itself be a link', async () => {
    const a = synthetic({ seed: 901 });
    const b = synthetic({ seed: 902, workload: 'summarize' });
    const outside = synthetic({ seed: 903, workload: 'rag-shared-prefix' });
    const aFile = `sb-vllm-h100-aaaa/runner/_work/results/${runWrote(join(incoming, 'sb-vllm-h100-aaaa', 'runner', '_work', 'results'), a)}`;
    const bFile = `sb-vllm-h100-bbbb/${runWrote(join(incoming, 'sb-vllm-h100-bbbb'), b)}`;
    writeFileSync(join(incoming, 'sb-vllm-h100-aaaa', 'server.log'), 'INFO\n');
    writeFileSync(join(incoming, 'sb-vllm-h100-cccc.tar.gz'), 'not really');
    const elsewhere = join(dir, 'elsewhere');
    runWrote(elsewhere, outside);
    symlinkSync(elsewhere, join(incoming, 'linked'));
    symlinkSync(incoming, join(dir, 'incoming-link'));

    const { code, report } = await collectFrom(join(dir, 'incoming-link'));
    expect(code).toBe(0);
    expect(report.collected.map((c) => c.file).sort()).toEqual([aFile, bFile].sort());
    expect(report.stray).toEqual([
      { file: 'linked', path: '', message: '[not-a-result] a symbolic link (links are never followed)', fix: expect.stringContaining('give that folder as --from') },
      { file: 'sb-vllm-h100-cccc.tar.gz', path: '', message: '[not-a-result] an archive: the results in it are not read', fix: 'unpack it under --from (collect reads *.json files only)' },
    ]);
    expect(existsSync(join(results, resultRelativePath(outside, json(outside))))).toBe(false);
    expect(readdirSync(results)).toEqual(['2026-01-02']);

    // The Markdown summary lists them too.
    const summary = join(dir, 'summary.md');
    expect(await runCollect(['--from', incoming, '--results', results, '--summary', summary], { stdout: () => {}, stderr: () => {} })).toBe(0);
    const markdown = readFileSync(summary, 'utf8');
    expect(markdown).toContain('2 result files under --from (1 other file ignored, 2 stray)');
    expect(markdown).toContain('### Stray files (not results, left alone)');
    expect(markdown).toContain('| sb-vllm-h100-cccc.tar.gz | \\[not-a-result\\] an archive: the results in it are not read |');
  });

  /**
   * Root reads a folder whatever its mode (capabilities CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH), so
   * as root the collect runs in the real CLI with those two dropped from its bounding set (setpriv,
   * util-linux): mode 000 then holds for it as for any user. .ci/run may run as root, GitHub's runner
   * does not: both run the test.
   */
  function collectWithoutReadOverride(from: string): Promise<Outcome> {
    const argv = ['--bounding-set=-dac_override,-dac_read_search', process.execPath, '--import', 'tsx', CLI_PATH, 'collect', '--from', from, '--results', results, '--json'];
    return new Promise((resolve, reject) => {
      execFile('setpriv', argv, { timeout: 60_000 }, (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        if (code === null) return reject(new Error(`setpriv ${argv.join(' ')}: ${error!.message}\n${stderr}`));
        resolve({ code, report: JSON.parse(stdout) as CollectReport, stdout, stderr });
      });
    });
  }

  it('a folder it cannot read is a problem (results may be in it): exit 1, the rest collected', async () => {
    const a = synthetic({ seed: 911 });
    runWrote(join(incoming, 'ok'), a);
    mkdirSync(join(incoming, 'locked'));
    chmodSync(join(incoming, 'locked'), 0o000);
    try {
      const { code, report } = process.getuid?.() === 0 ? await collectWithoutReadOverride(incoming) : await collectFrom(incoming);
      expect(code).toBe(1);
      expect(report.collected).toHaveLength(1);
      expect(report.invalid).toEqual([expect.objectContaining({ file: 'locked', message: '[unreadable] cannot read the folder: EACCES' })]);
    } finally {
      chmodSync(join(incoming, 'locked'), 0o700);
    }
  });

  it('exit 2 for a checkout given as --from, a --since without its zone, and --since without --plan', async () => {
    const io = { stdout: () => {}, stderr: () => {} };
    const checkout = join(dir, 'checkout');
    mkdirSync(join(checkout, 'harness'), { recursive: true });
    writeFileSync(join(checkout, 'package.json'), '{}');
    writeFileSync(join(checkout, 'harness', 'cli.ts'), '');
    await expect(runCollect(['--from', checkout], io)).rejects.toThrow(`--from: ${checkout} is a servebench checkout, not a results folder; give the folder its runs wrote into (${join(checkout, 'results')}`);
    const { file } = writePlan([], ['vllm']);
    await expect(runCollect(['--from', incoming, '--plan', file, '--since', '2026-01-02T01:00:00'], io)).rejects.toThrow(/--since: "2026-01-02T01:00:00" is not an ISO 8601 time with its zone/);
    await expect(runCollect(['--from', incoming, '--plan', file, '--since', 'yesterday'], io)).rejects.toThrow(ServebenchError);
    await expect(runCollect(['--from', incoming, '--since', SUBMITTED], io)).rejects.toThrow(/--since needs --plan/);
  });
});

describe('servebench collect --detect-state: new releases whose jobs left no result go back to pending', () => {
  const NOW = Date.parse('2026-10-01T06:00:00Z');
  let server: FakeServer;
  let github: FakeGithub;
  let hub: FakeDockerHub;
  let answers: Array<{ url: string; status: number }>;
  let stateFile: string;

  beforeEach(async () => {
    answers = [];
    github = fakeGithub({ now: () => NOW });
    hub = fakeDockerHub();
    server = await startFakeServer([
      (request, response) => {
        response.on('finish', () => answers.push({ url: request.url!, status: response.statusCode }));
        return false;
      },
      github.handler,
      hub.handler,
    ]);
    stateFile = join(dir, 'fleet', 'detect-state.json');
  });
  afterEach(async () => server.close());

  /** `servebench detect --engine vllm` against the fakes, as detect.test.ts runs it. */
  async function detectVllm(): Promise<DetectReport> {
    let stdout = '';
    const code = await runDetect(['--engine', 'vllm', '--state', stateFile, '--github-api', server.url, '--registry-url', `docker.io=${server.url}`], {
      env: {},
      policy: { now: () => NOW, sleep: async () => {}, backoffMs: 1 },
      now: () => new Date(NOW),
      stdout: (text) => void (stdout += text),
      stderr: () => {},
    });
    expect(code).toBe(0);
    return JSON.parse(stdout) as DetectReport;
  }

  /** The night: the nightly set (vllm pinned 0.11.0, sglang "latest") and the releases detect found, on H100. */
  const nightPlan = (releases: readonly NewRelease[]) => writePlan(releases, ['vllm', 'sglang']);

  async function collectNight(extra: readonly string[]): Promise<Outcome> {
    let stdout = '';
    let stderr = '';
    const code = await runCollect(['--from', incoming, '--results', results, '--json', ...extra], {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      now: () => new Date(NOW),
    });
    return { code, report: JSON.parse(stdout) as CollectReport, stdout, stderr };
  }

  async function firstPoll(): Promise<DetectReport> {
    github.publish('vllm-project/vllm', { tag_name: 'v0.11.0', published_at: '2026-09-01T00:00:00Z' });
    github.publish('vllm-project/vllm', { tag_name: 'v0.12.0', published_at: '2026-09-30T00:00:00Z' });
    hub.push('vllm/vllm-openai', 'v0.11.0');
    hub.push('vllm/vllm-openai', 'v0.12.0');
    // detect also checks fleet/fleet.yaml's ROCm image: without it 0.12.0 would stay pending for it (detect.test.ts covers that).
    hub.push('vllm/vllm-openai-rocm', 'v0.12.0');
    const detected = await detectVllm();
    expect(detected.new.map((v) => v.version)).toEqual(['0.12.0']);
    return detected;
  }

  it('a missing job of a new release puts the release back to pending; the next detect reports it new again, even on a 304', async () => {
    const detected = await firstPoll();
    const { plan, file } = nightPlan(detected.new);
    const released = plan.jobs.filter((j) => j.triggers.includes('new'));
    const lostRelease = released[0]!;
    const lostNightly = plan.jobs.find((j) => j.engine === 'vllm' && j.version === '0.11.0')!;
    const lostLatest = plan.jobs.find((j) => j.version === 'latest')!;
    expect(released.every((j) => j.version === '0.12.0' && !j.triggers.includes('nightly'))).toBe(true);
    const lost = [lostRelease, lostNightly, lostLatest];
    plan.jobs.filter((j) => !lost.includes(j)).forEach((job, i) => upload(job.name, resultForJob(job, 500 + i)));
    const summary = join(dir, 'summary.md');

    const { code, report, stdout } = await collectNight(['--plan', file, '--detect-state', stateFile, '--summary', summary]);
    expect(code).toBe(0);
    expect(report.missing.map((m) => m.job_id).sort()).toEqual(lost.map((j) => j.id).sort());
    // Only the new release is put back: the pinned nightly job and the "latest" job leave the state alone.
    const reason = 'no result from 1 planned job on 2026-10-01';
    expect(report.detect_state).toEqual({ file: stateFile, night: '2026-10-01', put_back: [{ engine: 'vllm', version: '0.12.0', reason }], not_put_back: [], written: true });
    expect(JSON.parse(stdout)).toHaveProperty('detect_state.put_back', [{ engine: 'vllm', version: '0.12.0', reason }]);
    const markdown = readFileSync(summary, 'utf8');
    expect(markdown).toContain('### New releases to measure again');
    expect(markdown).toContain(`| vllm | 0.12.0 | ${reason} |`);

    // The state: 0.12.0 pending with what detect said of it, no longer seen; 0.11.0 still seen.
    const state = loadDetectState(stateFile);
    const vllm = state.engines['vllm']!;
    expect(vllm.seen).toEqual({ '0.11.0': '2026-10-01' });
    expect(vllm.pending).toEqual({
      '0.12.0': { tag: 'v0.12.0', release_url: 'https://github.com/vllm-project/vllm/releases/tag/v0.12.0', published_at: '2026-09-30T00:00:00Z', since: '2026-10-01', reason },
    });

    // The next poll: the listing is unchanged (304), the pending version is re-checked and reported new again.
    const again = await detectVllm();
    expect(again.new).toEqual(detected.new);
    expect(answers.filter((a) => new URL(a.url, 'http://x').pathname === '/repos/vllm-project/vllm/releases').map((a) => a.status)).toEqual([200, 304]);
    const after = loadDetectState(stateFile).engines['vllm']!;
    expect([after.pending, Object.keys(after.seen).sort()]).toEqual([{}, ['0.11.0', '0.12.0']]);
    // And the night after, once reported, it is not reported a third time.
    expect((await detectVllm()).new).toEqual([]);
  });

  it('a new release whose jobs all left a result stays seen: the state file is not touched', async () => {
    const detected = await firstPoll();
    const { plan, file } = nightPlan(detected.new);
    const lostNightly = plan.jobs.find((j) => j.engine === 'vllm' && j.version === '0.11.0')!;
    plan.jobs.filter((j) => j !== lostNightly).forEach((job, i) => upload(job.name, resultForJob(job, 600 + i)));
    const before = readFileSync(stateFile, 'utf8');
    const mtime = statSync(stateFile).mtimeMs;

    const { code, report } = await collectNight(['--plan', file, '--detect-state', stateFile]);
    expect(code).toBe(0);
    expect(report.missing.map((m) => m.job_id)).toEqual([lostNightly.id]);
    expect(report.detect_state).toEqual({ file: stateFile, night: '2026-10-01', put_back: [], not_put_back: [], written: false });
    expect(readFileSync(stateFile, 'utf8')).toBe(before);
    expect(statSync(stateFile).mtimeMs).toBe(mtime);
    expect((await detectVllm()).new).toEqual([]);
  });

  it('an engine the state does not hold is not made up (its next poll is a first sighting); --detect-state needs --plan', async () => {
    const { file } = nightPlan([{ engine: 'sglang', version: '0.5.4' }]);
    writeFileSync(join(dir, 'state.json'), `${JSON.stringify({ schema_version: 1, engines: {} })}\n`);
    const { report, stdout } = await collectNight(['--plan', file, '--detect-state', join(dir, 'state.json')]);
    expect(report.detect_state!.put_back).toEqual([]);
    expect(report.detect_state!.not_put_back).toEqual([{ engine: 'sglang', version: '0.5.4', reason: expect.stringContaining('no entry for sglang') }]);
    expect(report.detect_state!.written).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as DetectState).toEqual({ schema_version: 1, engines: {} });
    expect(stdout).toContain('not_put_back');
    await expect(runCollect(['--from', incoming, '--detect-state', stateFile], { stdout: () => {}, stderr: () => {} })).rejects.toThrow(/--detect-state needs --plan/);
  });
});

describe('servebench collect: usage', () => {
  it('exit 2 without --from, with a --from that is not a folder, or an unreadable plan', async () => {
    const io = { stdout: () => {}, stderr: () => {} };
    await expect(runCollect(['--results', results], io)).rejects.toThrow(/--from DIR is required/);
    await expect(runCollect(['--from', join(dir, 'nowhere')], io)).rejects.toThrow(/--from: no folder/);
    writeFileSync(join(dir, 'plan.json'), '{"format": "something-else"}');
    const error = await runCollect(['--from', incoming, '--plan', join(dir, 'plan.json')], io).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServebenchError);
    expect((error as ServebenchError).exitCode).toBe(2);
    expect((error as Error).message).toContain('format');
  });

  it('--help names every flag and the exit statuses', () => {
    const help = formatHelp(collectCommand.spec);
    for (const flag of ['--from DIR', '--plan FILE', '--since TIME', '--detect-state FILE', '--results DIR', '--summary FILE', '--require-all', '--json']) expect(help).toContain(flag);
    expect(help).toContain('Exit status: 0 all collected; 1 invalid files or conflicts');
  });
});
