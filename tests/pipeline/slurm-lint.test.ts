/**
 * The SLURM scripts `servebench plan --format slurm` writes, checked by shellcheck (Debian package
 * `shellcheck`; .ci/run installs it) with every optional check on, at style severity: the
 * official fleet's nightly set and new releases (the CPU lane builds its engine first), the
 * SYNTHETIC fixture fleet (an account), a fleet with a workdir and absolute folders, and a
 * hostile model name. slurm-run.pipeline.test.ts then runs them under a fake sbatch.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { loadFleet, loadNewReleases, planLoadedFleet } from '../../harness/pipeline/plan/inputs.ts';
import { renderSlurm, submitAllScript } from '../../harness/pipeline/plan/slurm.ts';

const SHELLCHECK = process.env['SHELLCHECK'] ?? 'shellcheck';
/** Every optional check, and style-level findings too. */
const SHELLCHECK_ARGS = ['--enable=all', '--severity=style', '--format=gcc'];
const HOSTILE = `evil'" $(touch pwned1) \`touch pwned2\`; touch pwned3 \\ name\n#SBATCH --partition=hacked`;

const dir = mkdtempSync(join(tmpdir(), 'servebench-slurm-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The installed shellcheck's version, or a failure that says how to install it. */
function shellcheckVersion(): string {
  const probe = spawnSync(SHELLCHECK, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `shellcheck is not installed (${probe.error?.message ?? `exit ${probe.status}`}): the SLURM scripts are checked with it. ` +
        'Install it with `apt-get install -y shellcheck` (Debian/Ubuntu; .ci/run does this), `brew install shellcheck`, or a release from ' +
        'https://github.com/koalaman/shellcheck/releases, or point SHELLCHECK at the binary.',
    );
  }
  return /version: (\S+)/.exec(probe.stdout)?.[1] ?? 'unknown';
}

/** The fleet file with an edit, written under the temp folder. */
function editedFleet(source: string, name: string, edit: (fleet: Record<string, any>) => void): string {
  const fleet = parseYaml(readFileSync(source, 'utf8')) as Record<string, any>;
  edit(fleet);
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, toYaml(fleet));
  return file;
}

/** `plan --format slurm --out` for this fleet, into its own folder: the scripts and submit-all.sh. */
function planScripts(name: string, fleetFile: string, releasesFile?: string): { files: string[]; jobs: number } {
  const loaded = loadFleet(fleetFile);
  const plan = planLoadedFleet(fleetFile, loaded, { nightly: true, releases: releasesFile ? loadNewReleases(releasesFile) : [], engineFilter: [], gpuTypeFilter: [] });
  const scripts = renderSlurm(plan, loaded.fleet);
  const out = join(dir, name);
  mkdirSync(out, { recursive: true });
  const files = scripts.map((s) => {
    writeFileSync(join(out, s.file), s.script);
    return join(out, s.file);
  });
  writeFileSync(join(out, 'submit-all.sh'), submitAllScript(scripts, loaded.fleet));
  return { files: [...files, join(out, 'submit-all.sh')], jobs: plan.jobs.length };
}

function shellcheck(files: readonly string[]): { status: number | null; output: string } {
  const run = spawnSync(SHELLCHECK, [...SHELLCHECK_ARGS, ...files], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the SLURM scripts pass shellcheck', () => {
  it('shellcheck is installed, and finds what it should (a check that cannot fail checks nothing)', () => {
    expect(shellcheckVersion()).toMatch(/^\d+\.\d+/);
    const bad = join(dir, 'bad.sh');
    writeFileSync(bad, '#!/bin/bash\ncd $1\nrm -rf $HOME/$2\n');
    const found = shellcheck([bad]);
    expect(found.status).toBe(1);
    expect(found.output).toContain('SC2086');
  });

  const cases: Array<[string, () => { files: string[]; jobs: number }]> = [
    ['the official fleet: nightly set and new releases (the CPU lane builds first)', () => planScripts('official', 'fleet/fleet.yaml', 'tests/fixtures/fleet/detect-new.json')],
    ['the fixture fleet (an account, no workdir: submit-all.sh checks where it runs)', () => planScripts('fixture', 'tests/fixtures/fleet/fleet.yaml', 'tests/fixtures/fleet/detect-new.json')],
    [
      'a workdir, absolute results and log folders',
      () =>
        planScripts(
          'workdir',
          editedFleet('tests/fixtures/fleet/fleet.yaml', 'workdir', (fleet) => {
            fleet['results_dir'] = '/shared/servebench/results';
            fleet['schedulers']['slurm'] = { workdir: '/shared/servebench/checkout', log_dir: '/shared/servebench/logs', account: 'benchmarks' };
          }),
        ),
    ],
    [
      'a hostile model name',
      () =>
        planScripts(
          'hostile',
          editedFleet('tests/fixtures/fleet/fleet.yaml', 'hostile', (fleet) => {
            fleet['matrix'] = [{ engines: ['vllm'], models: [{ id: HOSTILE, tp: 2 }], workloads: ['chat'], gpu_types: ['h100-sxm-80gb'], nightly: true }];
          }),
        ),
    ],
  ];

  it.each(cases)('%s', (_, make) => {
    shellcheckVersion();
    const { files, jobs } = make();
    expect(jobs).toBeGreaterThan(0);
    expect(files).toHaveLength(jobs + 1);
    const { status, output } = shellcheck(files);
    expect(output, `shellcheck ${SHELLCHECK_ARGS.join(' ')} found:\n${output}`).toBe('');
    expect(status).toBe(0);
    // And bash reads each the same way.
    for (const file of files) execFileSync('bash', ['-n', file]);
  });
});
