/**
 * One night on SLURM, for real, on this machine: `servebench plan --format slurm` for a tiny fleet
 * of the simulated engine (three jobs on a "cpu" partition, each `servebench run --launcher
 * process`, which starts `servebench sim` on 127.0.0.1 and measures it), plan/slurm/submit-all.sh
 * under the fake sbatch (tests/kit/fakes/slurm: it runs each script as a batch job would,
 * two "nodes" at a time), the wait with the fake squeue as docs/fleet.md writes it, then
 * `servebench collect --from <the shared folder> --since <submission>`: the results land in
 * results/, pass `servebench validate`, and no planned job is missing; a result deleted from the
 * shared folder is reported missing. About 30 s on two cores.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import type { CollectReport } from '../../harness/pipeline/collect/collect.ts';
import type { Plan } from '../../harness/pipeline/plan/plan-file.ts';
import { resultFilesIn, runCli } from '../cli/run-cli.ts';

const REPO = resolve(import.meta.dirname, '..', '..');
const FAKE_SLURM = join(REPO, 'tests', 'kit', 'fakes', 'slurm');
const MODELS = ['sim-a', 'sim-b', 'sim-c'];
/** docs/fleet.md's wait, with a short poll. */
const WAIT = 'ids=$(paste -sd, "$1")\nwhile [ -n "$(squeue -h -j "$ids" -o %i)" ]; do sleep 1; done\n';

// sbatch paths in #SBATCH lines are plain words (the fleet schema): mkdtemp's suffix is one.
const dir = mkdtempSync(join(tmpdir(), 'servebench-slurm-run-'));
const shared = join(dir, 'shared');
const planDir = join(dir, 'plan');
const results = join(dir, 'results');
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: `${FAKE_SLURM}:${join(REPO, 'node_modules', '.bin')}:${process.env['PATH'] ?? ''}`,
  FAKE_SLURM_STATE: join(dir, 'slurm-state'),
  FAKE_SLURM_PARTITIONS: 'cpu',
  FAKE_SLURM_NODES: '2',
  FAKE_SLURM_KILL_WAIT: '5',
  OPENAI_API_KEY: '',
};

interface Shell {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function sh(script: string, args: readonly string[] = [], timeoutMs = 30_000): Promise<Shell> {
  return new Promise((done) => {
    execFile('bash', ['-c', script, 'bash', ...args], { cwd: dir, env, timeout: timeoutMs }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

let plan: Plan;
let since: string;
let jobIds: string[];
let submitted: Shell;
let queuedRightAway: Shell;
let waited: Shell;
let finished: Shell;

beforeAll(async () => {
  const fleet = {
    description: 'SYNTHETIC fleet for tests/pipeline/slurm-run.pipeline.test.ts: the simulated engine on a fake SLURM cluster.',
    // Absolute: the shared folder the jobs write into, outside the checkout they run in.
    results_dir: join(shared, 'results'),
    schedulers: { slurm: { workdir: REPO, log_dir: join(shared, 'logs'), account: 'servebench' } },
    gpu_types: [{ id: 'cpu', name: 'CPU', vendor: 'cpu', gpus_per_host: 1, price: null, github: { labels: ['ubuntu-latest'], set_label: null }, slurm: { partition: 'cpu' } }],
    matrix: [
      {
        name: 'the simulated engine',
        engines: ['sim'],
        models: MODELS.map((id) => ({ id, tokenizer: 'tests/fixtures/tokenizer-words', max_num_seqs: 4 })),
        workloads: ['smoke'],
        gpu_types: ['cpu'],
        nightly: true,
        time_limit_min: 5,
      },
    ],
  };
  writeFileSync(join(dir, 'fleet.yaml'), toYaml(fleet));
  const planned = await runCli(['plan', '--fleet', join(dir, 'fleet.yaml'), '--nightly', '--format', 'slurm', '--out', planDir]);
  expect(planned.code, planned.stderr).toBe(0);
  plan = JSON.parse(readFileSync(join(planDir, 'plan.json'), 'utf8')) as Plan;

  // The night: the submission time, submit from anywhere (the fleet names the workdir), wait.
  since = new Date().toISOString();
  submitted = await sh('bash "$1"', [join(planDir, 'slurm', 'submit-all.sh')]);
  jobIds = existsSync(join(planDir, 'slurm', 'job-ids')) ? readFileSync(join(planDir, 'slurm', 'job-ids'), 'utf8').trim().split('\n') : [];
  queuedRightAway = await sh('squeue');
  waited = await sh(WAIT, [join(planDir, 'slurm', 'job-ids')], 150_000);
  finished = await sh('squeue -t all -j "$(paste -sd, "$1")" -o "%i|%j|%T|%a|%P|%R"', [join(planDir, 'slurm', 'job-ids')]);
}, 200_000);

afterAll(async () => {
  // Nothing left running: a job still there is cancelled (its processes killed), then the folder goes.
  await sh('scancel --me 2>/dev/null; for _ in $(seq 50); do [ -z "$(squeue -h -o %i)" ] && break; sleep 0.2; done');
  rmSync(dir, { recursive: true, force: true });
});

describe('one night on SLURM (fake sbatch and squeue running the real scripts)', () => {
  it('plans one sbatch script per job; submit-all.sh submits each and records the job ids', () => {
    expect(plan.jobs.map((j) => j.model.id).sort()).toEqual(MODELS);
    expect(readdirSync(join(planDir, 'slurm')).filter((f) => f.endsWith('.sbatch'))).toHaveLength(MODELS.length);
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(submitted.stdout).toBe(`submitted ${MODELS.length} jobs; their ids are in ${join(planDir, 'slurm', 'job-ids')}\n`);
    expect(jobIds).toHaveLength(MODELS.length);
    expect(jobIds.every((id) => /^\d+$/.test(id))).toBe(true);
  });

  it('squeue lists them right after submission in its default format: two running, one waiting for a node', () => {
    const lines = queuedRightAway.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)');
    const rows = lines.slice(1).map((l) => l.trim().split(/\s+/));
    expect(rows.map((r) => r[0]).sort()).toEqual([...jobIds].sort());
    // NAME is cut to its 8 columns, as squeue does: every job is "sb-sim-c(pu-…)".
    expect(rows.every((r) => r[1] === 'cpu' && r[2] === 'sb-sim-c' && (r[4] === 'R' || r[4] === 'PD'))).toBe(true);
    expect(rows.filter((r) => r[4] === 'PD').length).toBeGreaterThanOrEqual(1);
  });

  it("the wait ends once every job has left the queue; each completed and wrote its log where the plan's --output says", () => {
    expect(waited.code, waited.stderr).toBe(0);
    const rows = finished.stdout.trimEnd().split('\n').slice(1).map((l) => l.split('|'));
    expect(rows.map((r) => [r[1], r[2], r[3], r[4]]).sort()).toEqual(plan.jobs.map((j) => [j.name, 'COMPLETED', 'servebench', 'cpu']).sort());
    const logs = readdirSync(join(shared, 'logs')).sort();
    expect(logs).toEqual(rows.map((r) => `${r[1]}-${r[0]}.out`).sort());
    for (const log of logs) expect(readFileSync(join(shared, 'logs', log), 'utf8')).toMatch(/servebench: wrote .*\.json/);
  });

  it('collect --from the shared folder puts every result into results/, valid, and no planned job is missing', async () => {
    const collected = await runCli(['collect', '--from', shared, '--plan', join(planDir, 'plan.json'), '--since', since, '--results', results, '--require-all', '--json']);
    expect(collected.code, collected.stderr).toBe(0);
    const report = JSON.parse(collected.stdout) as CollectReport;
    expect(report.collected).toHaveLength(MODELS.length);
    expect(report.collected.every((c) => c.engine === 'sim' && c.status === 'completed' && c.file.startsWith('results/'))).toBe(true);
    // The job logs next to the results are left alone; nothing is stray or invalid.
    expect([report.ignored, report.stray, report.invalid, report.conflicts]).toEqual([MODELS.length, [], [], []]);
    expect(report.missing).toEqual([]);
    expect(resultFilesIn(results)).toHaveLength(MODELS.length);

    const validated = await runCli(['validate', '--results', results]);
    expect(validated.code, `${validated.stdout}${validated.stderr}`).toBe(0);
  });

  it("a job whose result is gone from the shared folder is named missing (--require-all: exit 1); the others' stay accounted for", async () => {
    const files = resultFilesIn(join(shared, 'results'));
    const gone = files.find((f) => (JSON.parse(readFileSync(f, 'utf8')) as { run: { model: { id: string } } }).run.model.id === 'sim-b')!;
    unlinkSync(gone);
    const again = await runCli(['collect', '--from', shared, '--plan', join(planDir, 'plan.json'), '--since', since, '--results', results, '--require-all']);
    expect(again.code).toBe(1);
    const lost = plan.jobs.find((j) => j.model.id === 'sim-b')!;
    expect(again.stdout).toContain(`collect: 2 result files under ${shared} (${MODELS.length} other files ignored): 0 collected, 2 already in results`);
    expect(again.stdout).toContain(`plan ${plan.plan_id}: ${MODELS.length} jobs, 1 without a result created since ${since}`);
    expect(again.stdout).toContain(`  missing    ${lost.name}  sim latest · sim-b tp1 · cpu · smoke`);
    expect(again.stderr).toBe('servebench collect: 1 planned job left no result (--require-all)\n');
  });
});
