/**
 * `servebench plan`: expand the fleet file for the nightly set and/or the releases `servebench
 * detect` found into one job per run, declared before any run, as a GitHub Actions matrix,
 * Kubernetes Jobs, SLURM scripts or the plan itself (JSON).
 */
import { join } from 'node:path';
import { booleanOption, listOption, numberOption, parseCommandArgs, stringOption, processIo, type CommandSpec, type Command } from '../../lib/cli/options.ts';
import { EXIT, usageError } from '../../lib/errors.ts';
import { writeFileAtomic } from '../../lib/io/atomic-write.ts';
import { GITHUB_MATRIX_LIMIT, type NewRelease, type Plan } from './plan-file.ts';
import { loadFleet, loadNewReleases, planLoadedFleet } from './inputs.ts';
import { renderKubernetes } from './kubernetes.ts';
import { renderMatrix } from './matrix.ts';
import { renderLanes } from './lanes.ts';
import { renderSlurm, submitAllScript } from './slurm.ts';

const FORMATS = ['matrix', 'kubernetes', 'slurm', 'json'] as const;
type Format = (typeof FORMATS)[number];

const spec: CommandSpec = {
  name: 'plan',
  summary: 'expand the fleet file into one job per run: a GitHub Actions matrix, Kubernetes Jobs or SLURM scripts',
  usage: 'servebench plan [--nightly] [--new FILE] [--fleet FILE] [--format matrix|kubernetes|slurm|json] [--out DIR] [--engine NAME] [--gpu-type ID] [--skip-builds]',
  options: [
    { name: 'fleet', value: 'FILE', help: 'The fleet file: GPU types, schedulers and the benchmark matrix.', default: 'fleet/fleet.yaml' },
    { name: 'nightly', help: "Plan the nightly set: each nightly entry at its engine's pinned version (fleet engines.<name>.version), else its newest image (\"latest\")." },
    { name: 'new', value: 'FILE', help: 'Plan the new releases in this `servebench detect` JSON (its "new" array) on the entries with new_versions: true.' },
    { name: 'format', value: 'FORMAT', help: `What to print: ${FORMATS.join(', ')} (json: the whole plan).`, default: 'matrix' },
    { name: 'out', value: 'DIR', help: 'Also write plan.json (always) and the format\'s files: matrix.json and lanes.json, kubernetes/jobs.yaml, slurm/<job>.sbatch + slurm/submit-all.sh.' },
    { name: 'engine', value: 'NAME', help: 'Only these engines (repeatable, or comma-separated).', multiple: true },
    { name: 'gpu-type', value: 'ID', help: 'Only these GPU types (repeatable, or comma-separated).', multiple: true },
    { name: 'skip-builds', help: "Leave out the runs that build their engine first (the CPU lane: llama.cpp from a node-llama-cpp release, hours on a hosted runner); the workflow's dry run does." },
    { name: 'max-jobs', value: 'N', help: `Refuse a plan of more jobs (a GitHub matrix takes at most ${GITHUB_MATRIX_LIMIT}).`, default: String(GITHUB_MATRIX_LIMIT) },
  ],
  epilog: [
    'A new release whose image for a GPU type detect listed as not published (its "images", e.g. a ROCm build not out yet) is not planned on that type: noted, and listed under "skipped" in plan.json; detect reports the release again with "images_only" once the image is out, and then only those GPU types are planned.',
    'An entry with repeats: N plans each configuration N times (run 1 keeps the id a single run has; runs 2..N hash their number in), and collect expects a result from each.',
    'Runs whose engine servebench builds itself (local_build, launched as a process: llama.cpp) first build it (`servebench llamacpp build --node-llama-cpp VERSION`, or the installed node-llama-cpp\'s for an unpinned nightly): in the SLURM script before the run, in a Kubernetes init container, and for GitHub Actions in lanes: with --format matrix they are not in the matrix but in lanes.json (--out), one runner per engine × version × GPU type (cut into parts that fit 6 hours) that builds once and runs them in order of run number.',
    'Every job has a stable id (a hash of its configuration): planning again gives the same ids, files and order.',
    'GPU isolation: a GitHub self-hosted runner owns one GPU set (label gpus-<tp>, SERVEBENCH_GPUS=<indices> in its .env) and',
    'the job passes it as --gpu; SLURM allocates the set (--gres) and a docker run is handed $SLURM_JOB_GPUS; on Kubernetes',
    'the device plugin allocates it and the engine runs as a process in its own image. See fleet/fleet.yaml.',
    'Kubernetes: submit with `servebench plan --nightly --format kubernetes | kubectl create -f -` (not `kubectl apply`): each Job has a',
    'metadata.generateName, so every night creates new Jobs; the stable job id is the label servebench.dev/job-id.',
    'Exit status: 0 planned (also when nothing was to run), 2 bad input (the fleet file\'s problems, one per line).',
  ].join('\n'),
};

function listFlag(raw: Parameters<typeof listOption>[0], name: string): string[] {
  return listOption(raw, name).flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== '');
}

function checkFilter(flag: string, given: readonly string[], known: readonly string[]): void {
  const unknown = given.filter((value) => !known.includes(value));
  if (unknown.length > 0) throw usageError(`--${flag}: ${unknown.map((u) => `"${u}"`).join(', ')} not in the fleet file; known: ${known.join(', ')}`);
}

export const planCommand: Command = {
  spec,
  async run(argv, io = processIo()) {
    const raw = parseCommandArgs(spec, argv);
    const format = stringOption(spec, raw, 'format')! as Format;
    if (!FORMATS.includes(format)) throw usageError(`--format: "${format}" is not one of ${FORMATS.join(', ')}`);
    const nightly = booleanOption(raw, 'nightly');
    const newFile = stringOption(spec, raw, 'new');
    if (!nightly && newFile === undefined) throw usageError('plan: nothing to plan; give --nightly and/or --new FILE (see `servebench plan --help`)');
    const out = stringOption(spec, raw, 'out');
    if (format === 'slurm' && out === undefined) throw usageError('--format slurm writes one script per job: give --out DIR');
    const maxJobs = numberOption(spec, raw, 'max-jobs', { min: 1 }, true)!;
    const fleetFile = stringOption(spec, raw, 'fleet')!;

    const loaded = loadFleet(fleetFile);
    const engines = listFlag(raw, 'engine');
    const gpuTypes = listFlag(raw, 'gpu-type');
    checkFilter('engine', engines, [...new Set(loaded.fleet.matrix.flatMap((m) => m.engines))].sort());
    checkFilter('gpu-type', gpuTypes, loaded.fleet.gpu_types.map((t) => t.id));
    const releases: NewRelease[] = newFile === undefined ? [] : loadNewReleases(newFile);
    const plan: Plan = planLoadedFleet(fleetFile, loaded, {
      nightly,
      releases,
      engineFilter: engines,
      gpuTypeFilter: gpuTypes,
      skipBuilds: booleanOption(raw, 'skip-builds'),
    });
    if (plan.jobs.length > maxJobs) {
      throw usageError(`the plan has ${plan.jobs.length} jobs, more than --max-jobs ${maxJobs}; narrow it with --engine / --gpu-type, or raise --max-jobs (${GITHUB_MATRIX_LIMIT} at most for --format matrix)`);
    }

    const planJson = `${JSON.stringify(plan, null, 2)}\n`;
    let printed = '';
    const files: Array<[string, string]> = [['plan.json', planJson]];
    if (format === 'json') {
      printed = planJson;
    } else if (format === 'matrix') {
      const matrix = JSON.stringify(renderMatrix(plan, loaded.fleet));
      // One line, for `echo "matrix=$(servebench plan …)" >> "$GITHUB_OUTPUT"`.
      printed = `${matrix}\n`;
      files.push(['matrix.json', `${matrix}\n`]);
      // The runs that build their engine first, by lane (one line too, for $GITHUB_OUTPUT).
      files.push(['lanes.json', `${JSON.stringify(renderLanes(plan, loaded.fleet))}\n`]);
    } else if (format === 'kubernetes') {
      printed = renderKubernetes(plan, loaded.fleet);
      files.push([join('kubernetes', 'jobs.yaml'), printed]);
    } else {
      const scripts = renderSlurm(plan, loaded.fleet);
      for (const s of scripts) files.push([join('slurm', s.file), s.script]);
      files.push([join('slurm', 'submit-all.sh'), submitAllScript(scripts, loaded.fleet)]);
      printed = scripts.map((s) => `${join(out!, 'slurm', s.file)}\n`).join('');
    }
    if (out !== undefined) {
      for (const [name, contents] of files) writeFileAtomic(join(out, name), contents);
    }
    io.stdout(printed);
    for (const note of plan.notes) io.stderr(`servebench plan: ${note}\n`);
    const skipped = plan.skipped.length > 0 ? `; ${plan.skipped.length} GPU type${plan.skipped.length === 1 ? '' : 's'} of new releases skipped (image not published yet)` : '';
    io.stderr(`servebench plan: ${plan.jobs.length} job${plan.jobs.length === 1 ? '' : 's'} (plan ${plan.plan_id})${skipped}${out !== undefined ? `, written to ${out}` : ''}\n`);
    return EXIT.ok;
  },
};
