/**
 * The fake SLURM (tests/kit/fakes/slurm) keeps only what servebench's scripts use: this holds it to
 * that list from both sides. Every #SBATCH option and sbatch flag in the scripts of real plans (the
 * official fleet's nightly set and new releases, the fixture fleet with an account, a workdir and
 * a gres without a type) must be one the fake implements, read to the values the plan meant; every
 * squeue call docs/fleet.md's wait and submit-all.sh's note write must run; and anything else is
 * refused with the one "not implemented: …" error. A new option in the plan fails here until the
 * fake learns it faithfully. slurm-run.pipeline.test.ts then runs a whole night under the fake.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { loadFleet, loadNewReleases, planLoadedFleet } from '../../harness/pipeline/plan/inputs.ts';
import { renderSlurm, submitAllScript, type SlurmScript } from '../../harness/pipeline/plan/slurm.ts';
import type { PlannedJob } from '../../harness/pipeline/plan/plan-file.ts';
import { IMPLEMENTED_OPTIONS, parseSbatchArgs, readBatchScript, type SbatchOptions } from '../kit/fakes/slurm/batch-script.ts';

const REPO = resolve(import.meta.dirname, '..', '..');
const FAKE_SLURM = join(REPO, 'tests', 'kit', 'fakes', 'slurm');
const dir = mkdtempSync(join(tmpdir(), 'servebench-slurm-fake-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Planned {
  readonly jobs: readonly PlannedJob[];
  readonly scripts: readonly SlurmScript[];
  readonly submitAll: string;
}

function planned(fleetFile: string, releasesFile?: string): Planned {
  const loaded = loadFleet(fleetFile);
  const plan = planLoadedFleet(fleetFile, loaded, { nightly: true, releases: releasesFile ? loadNewReleases(releasesFile) : [], engineFilter: [], gpuTypeFilter: [] });
  const scripts = renderSlurm(plan, loaded.fleet);
  return { jobs: plan.jobs, scripts, submitAll: submitAllScript(scripts, loaded.fleet) };
}

function editedFleet(name: string, edit: (fleet: Record<string, any>) => void): string {
  const fleet = parseYaml(readFileSync('tests/fixtures/fleet/fleet.yaml', 'utf8')) as Record<string, any>;
  edit(fleet);
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, toYaml(fleet));
  return file;
}

const PLANS: ReadonlyArray<readonly [string, () => Planned]> = [
  ['the official fleet (nightly set and new releases)', () => planned('fleet/fleet.yaml', 'tests/fixtures/fleet/detect-new.json')],
  ['the fixture fleet (an account)', () => planned('tests/fixtures/fleet/fleet.yaml', 'tests/fixtures/fleet/detect-new.json')],
  [
    'a workdir, and a GPU type whose gres names no type',
    () =>
      planned(
        editedFleet('workdir', (fleet) => {
          fleet['schedulers']['slurm'] = { workdir: '/shared/servebench/checkout', log_dir: '/shared/servebench/logs', account: 'benchmarks' };
          for (const type of fleet['gpu_types']) if (type.slurm?.gres) type.slurm.gres = null;
        }),
      ),
  ],
];

/** The long option names in a list of sbatch words (`--name=value` or `--name`). */
function optionNames(words: readonly string[]): string[] {
  return words.filter((w) => w.startsWith('-')).map((w) => w.replace(/^-+/, '').replace(/=.*$/, ''));
}

/** The #SBATCH words of a script, as the plan wrote them (one option per line). */
function headerWords(script: string): string[] {
  return script.split('\n').filter((l) => l.startsWith('#SBATCH ')).map((l) => l.slice('#SBATCH '.length));
}

/** The sbatch calls of submit-all.sh, as words (the path last). */
function sbatchCalls(submitAll: string): string[][] {
  return submitAll.split('\n').filter((l) => l.startsWith('sbatch ')).map((l) => l.split(' ').slice(1));
}

describe('the fake SLURM implements every option the plan writes', () => {
  it.each(PLANS)('%s: each #SBATCH option and sbatch flag is implemented, and read to what the plan meant', (_, make) => {
    const { jobs, scripts, submitAll } = make();
    expect(scripts.length).toBeGreaterThan(0);
    const written = new Set([...scripts.flatMap((s) => optionNames(headerWords(s.script))), ...sbatchCalls(submitAll).flatMap(optionNames)]);
    expect([...written].filter((name) => !IMPLEMENTED_OPTIONS.includes(name)), 'options the plan writes that the fake does not implement').toEqual([]);

    scripts.forEach((s, i) => {
      const job = jobs[i]!;
      const header = Object.fromEntries(headerWords(s.script).map((w) => [w.slice(2, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
      const read = readBatchScript(s.script);
      const gpus = job.gpu.vendor === 'cpu' ? undefined : job.model.tp;
      // The time limit: the plan's minutes, whatever form (hours or days) it wrote them in.
      expect(read).toEqual({
        name: job.name,
        partition: header['partition'],
        ...(header['account'] === undefined ? {} : { account: header['account'] }),
        ...(header['chdir'] === undefined ? {} : { chdir: header['chdir'] }),
        ntasks: 1,
        ...(gpus === undefined ? {} : { gpus }),
        timeLimitS: job.time_limit_min * 60,
        output: header['output'],
      } satisfies SbatchOptions);
      expect(read.output).toMatch(/\/%x-%j\.out$/);
    });
    for (const call of sbatchCalls(submitAll)) {
      const options: SbatchOptions = {};
      expect(call.slice(parseSbatchArgs(call, options, 'command line'))).toHaveLength(1);
      expect(options).toEqual({ parsable: true });
    }
  });

  it('the plans above exercise every option the fake keeps (an option no plan writes any more is cut from the fake)', () => {
    const written = new Set(PLANS.flatMap(([, make]) => {
      const { scripts, submitAll } = make();
      return [...scripts.flatMap((s) => optionNames(headerWords(s.script))), ...sbatchCalls(submitAll).flatMap(optionNames)];
    }));
    expect([...written].sort()).toEqual([...IMPLEMENTED_OPTIONS].sort());
  });

  it("a day or more is written days-hours:minutes:seconds, and the fake reads it so (sbatch(1)'s --time)", () => {
    const script = (time: string) => `#!/bin/bash\n# a comment first\n\n#SBATCH --time=${time}\n#SBATCH --job-name=late # a comment after it\ntrue\n#SBATCH --job-name=ignored\n`;
    expect(readBatchScript(script('1-02:03:04'))).toEqual({ timeLimitS: ((24 + 2) * 60 + 3) * 60 + 4, name: 'late' });
    expect(readBatchScript(script('00:00:00'))).toEqual({ timeLimitS: null, name: 'late' });
  });
});

/** The fake's commands as processes, with their state in the temp folder. */
function fake(script: string, cwd = dir): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, PATH: `${FAKE_SLURM}:${join(REPO, 'node_modules', '.bin')}:${process.env['PATH'] ?? ''}`, FAKE_SLURM_STATE: join(dir, 'state'), FAKE_SLURM_PARTITIONS: 'cpu' };
  return new Promise((done) => {
    execFile('bash', ['-c', script], { cwd, env, timeout: 30_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('the fake SLURM runs the queue commands servebench writes, and refuses the rest in one way', () => {
  it("docs/fleet.md's wait and submit-all.sh's note run against a submitted job, and end once it is done", async () => {
    const readme = readFileSync(join(REPO, 'docs', 'fleet.md'), 'utf8');
    const { submitAll } = planned('tests/fixtures/fleet/fleet.yaml');
    const calls = [...readme.matchAll(/\$\((squeue [^)]*)\)/g), ...submitAll.matchAll(/`(squeue [^`]*)`/g)].map((m) => m[1]!);
    expect(calls).toEqual(['squeue -h -j "$ids" -o %i', 'squeue -h -j "$(paste -sd, job-ids)"']);

    // The job runs until the test lets it go (a file), so the queue is read while it is certainly there.
    writeFileSync(join(dir, 'probe.sbatch'), '#!/bin/bash\n#SBATCH --job-name=probe\n#SBATCH --output=%x-%j.out\nuntil [ -e release ]; do sleep 0.1; done\necho released\n');
    const submitted = await fake('sbatch --parsable probe.sbatch > job-ids');
    expect(submitted).toMatchObject({ code: 0, stderr: '' });
    const id = readFileSync(join(dir, 'job-ids'), 'utf8').trim();
    expect(id).toMatch(/^\d+$/);
    for (const call of calls) {
      const queued = await fake(`ids=$(paste -sd, job-ids); ${call}`);
      // One line, no header, the job's id first (-o %i: alone; the default format: its row).
      expect({ code: queued.code, stderr: queued.stderr, lines: queued.stdout.trimEnd().split('\n').map((l) => l.trim().split(/\s+/)[0]) }, call).toEqual({ code: 0, stderr: '', lines: [id] });
    }
    const waited = await fake(`touch release; ids=$(paste -sd, job-ids)\nwhile [ -n "$(${calls[0]})" ]; do sleep 0.2; done\nsqueue -h -t all -j "$ids" -o "%T %j"; cat probe-"$ids".out`);
    expect(waited).toEqual({ code: 0, stdout: 'COMPLETED probe\nreleased\n', stderr: '' });
  });

  it.each([
    ['an sbatch option the plan does not write', '#SBATCH --array=1-3', 'sbatch option --array'],
    ['a short option', '#SBATCH -J probe', 'sbatch option -J'],
    ['another --time form', '#SBATCH --time=90', 'sbatch --time=90'],
    ['another filename symbol', '#SBATCH --output=%N.out', '%N in an --output pattern'],
    ['quoting in a directive', '#SBATCH --job-name="a b"', 'quotes or backslashes in an #SBATCH line'],
  ])('sbatch refuses %s: "not implemented", exit 1, no job', async (_, directive, what) => {
    writeFileSync(join(dir, 'refused.sbatch'), `#!/bin/bash\n${directive}\ntrue\n`);
    const refused = await fake('sbatch refused.sbatch');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(new RegExp(`^sbatch: error: not implemented: ${what.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it.each([
    ['squeue -o %Q', 'squeue: error: not implemented: squeue format field %Q'],
    ['squeue --me', 'squeue: error: not implemented: squeue argument --me'],
    ['squeue -t PD', 'squeue: error: not implemented: squeue -t with states other than all'],
    ['SQUEUE_FORMAT=%i squeue', "squeue: error: not implemented: squeue's input environment variable SQUEUE_FORMAT"],
    ['scancel 1000', 'scancel: error: not implemented: scancel argument 1000'],
  ])('%s is refused the same way', async (command, message) => {
    const refused = await fake(command);
    expect(refused.code).toBe(1);
    expect(refused.stderr.startsWith(message)).toBe(true);
  });
});
