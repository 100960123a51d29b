/**
 * `servebench plan`: the SYNTHETIC fleet fixture (tests/fixtures/fleet/) expanded into jobs, and
 * each rendering checked the way its consumer reads it: the matrix's commands run through bash and
 * parse with the real `servebench run` option table (and its --dry-run), the Kubernetes YAML
 * parsed back, the SLURM scripts through `bash -n` and executed against a fake npx.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, parseAllDocuments, stringify as toYaml } from 'yaml';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseCommandArgs } from '../../harness/lib/cli/options.ts';
import { ServebenchError } from '../../harness/lib/errors.ts';
import { runCommand } from '../../harness/measure/run/command.ts';
import { RunResultSchema, type RunResult } from '../../harness/contract/result.ts';
import { argvFor, shellCommand } from '../../harness/pipeline/plan/job-command.ts';
import { missingJobs } from '../../harness/pipeline/plan/missing-jobs.ts';
import { HARNESS_ARGV, type NewRelease, type Plan, type PlannedJob } from '../../harness/pipeline/plan/plan-file.ts';
import { planCommand } from '../../harness/pipeline/plan/command.ts';
import { loadFleet, loadNewReleases, planLoadedFleet } from '../../harness/pipeline/plan/inputs.ts';
import { HARNESS_IMAGE_ENV, HARNESS_UID, generateNameFor, harnessImageFor, renderKubernetes } from '../../harness/pipeline/plan/kubernetes.ts';
import { parseImageReference } from '../../harness/contract/fleet.ts';
import { renderMatrix } from '../../harness/pipeline/plan/matrix.ts';
import { renderSlurm, submitAllScript } from '../../harness/pipeline/plan/slurm.ts';
import { syntheticResult } from '../../bench/lib/synthetic-results.ts';
import { runCli } from '../cli/run-cli.ts';

const FLEET = 'tests/fixtures/fleet/fleet.yaml';
const DETECT = 'tests/fixtures/fleet/detect-new.json';
const RFC1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** SYNTHETIC: a made-up digest, for plans that must name the harness image by one (no such image exists). */
const DIGEST = `sha256:${'5e'.repeat(32)}`;
const PINNED = `example.invalid/servebench@${DIGEST}`;
const PINNED_ENV = { [HARNESS_IMAGE_ENV]: PINNED };

interface PlanOptions {
  readonly file?: string;
  readonly nightly?: boolean;
  readonly releases?: readonly NewRelease[];
  readonly engines?: readonly string[];
  readonly gpuTypes?: readonly string[];
}

function plan(options: PlanOptions = {}) {
  const file = options.file ?? FLEET;
  const loaded = loadFleet(file);
  const result = planLoadedFleet(file, loaded, {
    nightly: options.nightly ?? true,
    releases: options.releases ?? [],
    engineFilter: options.engines ?? [],
    gpuTypeFilter: options.gpuTypes ?? [],
  });
  return { plan: result, fleet: loaded.fleet };
}

function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The fixture with edits applied, as a new file. */
function editedFleet(edit: (fleet: Record<string, any>) => void): string {
  const fleet = parseYaml(readFileSync(FLEET, 'utf8')) as Record<string, any>;
  edit(fleet);
  const file = join(tempDir('sb-fleet-'), 'fleet.yaml');
  writeFileSync(file, toYaml(fleet));
  return file;
}

function fleetError(file: string): string {
  try {
    loadFleet(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ServebenchError);
    return (error as Error).message;
  }
  throw new Error('the fleet file was accepted');
}

/** A directory with a fake `npx` that records its arguments (NUL-separated) in $ARGV_OUT. */
function fakeNpx(): { dir: string; out: string } {
  const dir = tempDir('sb-fake-npx-');
  writeFileSync(join(dir, 'npx'), '#!/bin/bash\nprintf \'%s\\0\' "$@" > "$ARGV_OUT"\n');
  chmodSync(join(dir, 'npx'), 0o755);
  return { dir, out: join(dir, 'argv') };
}

function recordedArgv(out: string): string[] {
  return readFileSync(out, 'utf8').split('\0').slice(0, -1);
}

const HOSTILE = `evil'" $(touch pwned1) \`touch pwned2\`; touch pwned3 \\ name\n#SBATCH --partition=hacked`;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('servebench plan: expansion and the GitHub Actions matrix', () => {
  it('one job per run: engines × models × workloads × GPU types, runs-on per GPU type and GPU-set size', () => {
    const { plan: p, fleet } = plan();
    // 2 engines × 2 models × 2 workloads on H100, vLLM on MI300X, the embedded dry run.
    expect(p.jobs).toHaveLength(10);
    expect(new Set(p.jobs.map((j) => j.id)).size).toBe(10);
    expect(new Set(p.jobs.map((j) => j.name)).size).toBe(10);
    const matrix = renderMatrix(p, fleet);
    expect(matrix.include).toHaveLength(10);
    const byKey = (engine: string, gpu: string, tp: number, workload: string) =>
      matrix.include.find((j) => j.engine === engine && j.gpu_type === gpu && j.tp === tp && j.workload === workload)!;

    // tp 2 on an 8-GPU host: one of its four GPU sets, on a runner registered as gpus-2.
    const tp2 = byKey('vllm', 'h100-sxm-80gb', 2, 'chat');
    expect(tp2.runs_on).toEqual(['self-hosted', 'linux', 'x64', 'gpu-h100', 'gpus-2']);
    expect(tp2.command).toContain(" --tp 2 ");
    expect(tp2.command).toMatch(/ --gpu "\$\{SERVEBENCH_GPUS:\?[^}]*\}"$/);
    expect(tp2.version).toBe('0.11.0');
    expect(tp2.command).toContain('--launcher docker --engine-version 0.11.0 --model meta-llama/Llama-3.3-70B-Instruct');
    expect(tp2.command).not.toContain('--image');
    expect(tp2.result_key).toBe('vllm/meta-llama-llama-3.3-70b-instruct/2x-nvidia-h100-80gb-hbm3/chat');
    expect(tp2.timeout_minutes).toBe(120);
    expect(byKey('vllm', 'h100-sxm-80gb', 1, 'chat').runs_on.at(-1)).toBe('gpus-1');

    // MI300X: the ROCm image from the fleet file, named whole.
    const amd = byKey('vllm', 'mi300x-192gb', 1, 'chat');
    expect(amd.image).toBe('vllm/vllm-openai-rocm:v0.11.0');
    expect(amd.command).toContain('--image vllm/vllm-openai-rocm:v0.11.0');
    expect(amd.runs_on).toContain('gpu-mi300x');

    // SGLang is not pinned: the nightly runs its newest official image.
    const sglang = byKey('sglang', 'h100-sxm-80gb', 1, 'summarize');
    expect(sglang.version).toBe('latest');
    expect(sglang.command).toContain('--image lmsysorg/sglang:latest');
    expect(sglang.command).not.toContain('--engine-version');

    // The CPU dry run: a hosted runner, the embedded engine as a process, no GPU selection.
    const cpu = byKey('embedded', 'cpu', 1, 'smoke');
    expect(cpu.runs_on).toEqual(['ubuntu-latest']);
    expect(cpu.launcher).toBe('process');
    expect(cpu.command).toBe('npx tsx harness/cli.ts run --engine embedded --launcher process --model tiny --max-num-seqs 4 --workload smoke --concurrency 1,2,4 --source official --results-dir results');
    expect(cpu.timeout_minutes).toBe(15);
  });

  it('every job argv parses with the real `servebench run` option table, and the command bash runs is exactly that argv', () => {
    const { plan: p } = plan();
    const npx = fakeNpx();
    for (const job of p.jobs) {
      expect(job.argv[0]).toBe('run');
      const raw = parseCommandArgs(runCommand.spec, job.argv.slice(1));
      expect(raw['engine']).toBe(job.engine);
      expect(raw['model']).toBe(job.model.id);
      expect(raw['source']).toBe('official');
      expect(raw['results-dir']).toBe('results');
      execFileSync('bash', ['-c', shellCommand(job, 'github')], { env: { ...process.env, PATH: `${npx.dir}:${process.env['PATH']}`, ARGV_OUT: npx.out, SERVEBENCH_GPUS: '4,5' } });
      const gpu = job.gpu.vendor === 'cpu' ? [] : ['--gpu', '4,5'];
      expect(recordedArgv(npx.out)).toEqual([...HARNESS_ARGV.slice(1), ...job.argv, ...gpu]);
    }
  });

  it('a GPU job on a runner without SERVEBENCH_GPUS fails before running anything', () => {
    const { plan: p } = plan({ engines: ['vllm'] });
    const npx = fakeNpx();
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${npx.dir}:${process.env['PATH']}`, ARGV_OUT: npx.out };
    delete env['SERVEBENCH_GPUS'];
    expect(() => execFileSync('bash', ['-c', shellCommand(p.jobs[0]!, 'github')], { env, stdio: 'pipe' })).toThrow(/SERVEBENCH_GPUS/);
    expect(existsSync(npx.out)).toBe(false);
  });

  it('`servebench run --dry-run` accepts the planned argv (embedded CPU job and a docker GPU job)', { timeout: 90_000 }, async () => {
    const { plan: p } = plan();
    const embedded = p.jobs.find((j) => j.engine === 'embedded')!;
    const dry = await runCli([...embedded.argv, '--dry-run']);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('servebench embedded (llama.cpp on CPU) (embedded), launcher process');
    expect(dry.stdout).toMatch(/workload: smoke .*concurrency 1.*2.*4/s);

    const vllm = p.jobs.find((j) => j.engine === 'vllm' && j.gpu_type === 'h100-sxm-80gb' && j.model.tp === 2)!;
    const docker = await runCli([...vllm.argv, '--gpu', '2,3', '--dry-run']);
    expect(docker.code).toBe(0);
    expect(docker.stdout).toContain('vllm/vllm-openai:v0.11.0');
    expect(docker.stdout).toContain('--tensor-parallel-size 2');
    expect(docker.stdout).toContain('device=2,3');
  });

  it('filters: --engine and --gpu-type; unknown values are refused with the known ones', () => {
    expect(plan({ engines: ['vllm'] }).plan.jobs.map((j) => j.engine)).toEqual(Array(5).fill('vllm'));
    const amd = plan({ gpuTypes: ['mi300x-192gb'] }).plan;
    expect(amd.jobs.map((j) => `${j.engine}@${j.gpu_type}`)).toEqual(['vllm@mi300x-192gb']);
    expect(amd.inputs.gpu_types).toEqual(['mi300x-192gb']);
    expect(plan({ engines: ['sglang'], gpuTypes: ['cpu'] }).plan.jobs).toEqual([]);
  });

  it('stable ids and order: planning again, or from a reordered fleet file, gives the same plan', () => {
    const first = plan().plan;
    expect(JSON.stringify(plan().plan)).toBe(JSON.stringify(first));
    const reordered = editedFleet((fleet) => {
      fleet['matrix'].reverse();
      fleet['gpu_types'].reverse();
      for (const entry of fleet['matrix']) entry.engines.reverse();
    });
    const again = plan({ file: reordered }).plan;
    expect(again.jobs.map((j) => j.id)).toEqual(first.jobs.map((j) => j.id));
    expect(again.plan_id).toBe(first.plan_id);
    expect(again.jobs.map((j) => j.argv)).toEqual(first.jobs.map((j) => j.argv));
    // A changed configuration is a new id for exactly the jobs it changes.
    const changed = plan({ file: editedFleet((fleet) => (fleet['matrix'][1].workloads = [{ name: 'chat', concurrency: [1, 8] }])) }).plan;
    const before = new Set(first.jobs.map((j) => j.id));
    expect(changed.jobs.filter((j) => !before.has(j.id)).map((j) => `${j.engine}@${j.gpu_type}`)).toEqual(['vllm@mi300x-192gb']);
  });

  it('refuses more jobs than a GitHub matrix takes, and more than --max-jobs', async () => {
    const { plan: p, fleet } = plan();
    const big: Plan = { ...p, jobs: Array.from({ length: 257 }, (_, i) => ({ ...p.jobs[0]!, id: String(i) })) };
    expect(() => renderMatrix(big, fleet)).toThrow(/257 jobs.*at most 256/);
    await expect(planCommand.run(['--fleet', FLEET, '--nightly', '--max-jobs', '9'])).rejects.toThrow(/10 jobs, more than --max-jobs 9/);
  });

  it('the command: --out writes plan.json and matrix.json, stdout is the one-line matrix; planning again writes the same bytes', async () => {
    const out = tempDir('sb-plan-out-');
    const written: string[] = [];
    const io = { stdout: (text: string) => void written.push(text), stderr: () => undefined, env: {} };
    expect(await planCommand.run(['--fleet', FLEET, '--nightly', '--out', out], io)).toBe(0);
    expect(written.join('').trim().split('\n')).toHaveLength(1);
    const matrix = JSON.parse(written.join('')) as { include: unknown[] };
    expect(matrix.include).toHaveLength(10);
    expect(readFileSync(join(out, 'matrix.json'), 'utf8')).toBe(written.join(''));
    const planJson = readFileSync(join(out, 'plan.json'), 'utf8');
    expect((JSON.parse(planJson) as Plan).jobs).toHaveLength(10);
    expect(await planCommand.run(['--fleet', FLEET, '--nightly', '--out', out])).toBe(0);
    expect(readFileSync(join(out, 'plan.json'), 'utf8')).toBe(planJson);
    await expect(planCommand.run(['--fleet', FLEET])).rejects.toThrow(/give --nightly and\/or --new/);
    await expect(planCommand.run(['--fleet', FLEET, '--nightly', '--engine', 'tgi'])).rejects.toThrow(/--engine: "tgi" not in the fleet file; known: embedded, sglang, vllm/);
    await expect(planCommand.run(['--fleet', FLEET, '--nightly', '--format', 'slurm'])).rejects.toThrow(/give --out DIR/);
  });
});

describe('servebench plan: new releases', () => {
  it('plans each new release on the entries with new_versions, with the release image; names what it cannot plan', () => {
    const releases = loadNewReleases(DETECT);
    const { plan: p, fleet } = plan({ nightly: false, releases });
    expect(p.jobs.every((j) => j.triggers.join() === 'new')).toBe(true);
    expect(p.jobs.filter((j) => j.engine === 'vllm').map((j) => j.version)).toEqual(Array(5).fill('0.12.0'));
    expect(p.jobs.filter((j) => j.engine === 'sglang')).toHaveLength(4);
    expect(p.jobs.some((j) => j.engine === 'embedded')).toBe(false);
    const h100 = p.jobs.find((j) => j.engine === 'vllm' && j.gpu_type === 'h100-sxm-80gb')!;
    // detect's image is the official one: --engine-version says it all.
    expect(h100.argv).toEqual(expect.arrayContaining(['--engine-version', '0.12.0']));
    expect(h100.argv).not.toContain('--image');
    expect(p.jobs.find((j) => j.engine === 'vllm' && j.gpu_type === 'mi300x-192gb')!.image).toBe('vllm/vllm-openai-rocm:v0.12.0');
    const sglang = p.jobs.find((j) => j.engine === 'sglang')!;
    expect(sglang.image).toBe('lmsysorg/sglang:v0.5.4-cu129');
    expect(renderMatrix(p, fleet).include.find((j) => j.job_id === sglang.id)!.command).toContain('--engine-version 0.5.4');
    expect(p.notes).toEqual([
      'lmdeploy 0.10.0 (new): no matrix entry with new_versions: true runs lmdeploy; nothing planned',
      'no-such-engine 1.0.0 (new): no engine of that name in engines/; nothing planned',
    ]);
    expect(p.inputs.new.map((r) => `${r.engine}@${r.version}`)).toEqual(['vllm@0.12.0', 'sglang@0.5.4', 'lmdeploy@0.10.0', 'no-such-engine@1.0.0']);
  });

  it('a release that is also the pinned nightly version is one job with both triggers', () => {
    const { plan: p } = plan({ releases: [{ engine: 'vllm', version: '0.11.0' }] });
    const vllm = p.jobs.filter((j) => j.engine === 'vllm');
    expect(vllm).toHaveLength(5);
    expect(vllm.every((j) => j.triggers.join() === 'new,nightly')).toBe(true);
    expect(p.jobs).toHaveLength(10);
  });

  it("a GPU type whose image detect found unpublished (a ROCm build not out yet) is skipped with a note; the others are planned; images_only plans just the types of the listed images", () => {
    const rocm = 'vllm/vllm-openai-rocm:v0.12.0';
    const release = { engine: 'vllm', version: '0.12.0', image: 'vllm/vllm-openai:v0.12.0' };
    const all = plan({ nightly: false, releases: [{ ...release, images: [] }] }).plan;
    expect(all.jobs.filter((j) => j.gpu_type === 'mi300x-192gb')).toHaveLength(1);

    const { plan: p } = plan({ nightly: false, releases: [{ ...release, images: [{ image: rocm, published: false }] }] });
    expect(p.jobs.map((j) => j.gpu_type)).toEqual(all.jobs.filter((j) => j.gpu_type !== 'mi300x-192gb').map((j) => j.gpu_type));
    expect(p.jobs.every((j) => j.gpu_type === 'h100-sxm-80gb' && j.image === 'vllm/vllm-openai:v0.12.0')).toBe(true);
    const reason = `its image ${rocm} is not published yet; detect keeps the release pending for it and reports it again once it is out`;
    expect(p.notes).toEqual([`vllm 0.12.0 (new): mi300x-192gb skipped: ${reason}`]);
    expect(p.skipped).toEqual([{ engine: 'vllm', version: '0.12.0', gpu_type: 'mi300x-192gb', image: rocm, reason }]);
    // Published: planned as before.
    expect(plan({ nightly: false, releases: [{ ...release, images: [{ image: rocm, published: true }] }] }).plan.jobs).toEqual(all.jobs);

    // Every GPU type of the release skipped: no "no matrix entry" note, only the skip.
    const amdOnly = plan({ nightly: false, gpuTypes: ['mi300x-192gb'], releases: [{ ...release, images: [{ image: rocm, published: false }] }] }).plan;
    expect([amdOnly.jobs, amdOnly.notes]).toEqual([[], [`vllm 0.12.0 (new): mi300x-192gb skipped: ${reason}`]]);

    // The retry once the ROCm image is out: the MI300X jobs alone (the H100 ones ran when the release was first reported).
    const retry = plan({ nightly: false, releases: [{ ...release, images: [{ image: rocm, published: true }], images_only: true }] }).plan;
    expect(retry.jobs.map((j) => j.id)).toEqual(all.jobs.filter((j) => j.gpu_type === 'mi300x-192gb').map((j) => j.id));
    expect(retry.skipped).toEqual([]);
    expect(retry.notes).toEqual(['vllm 0.12.0 (new): its fleet images are out now: planned only on the GPU types that run them (the others were planned when it was first reported)']);
    // The nightly set is not affected by a release's images.
    expect(plan({ releases: [{ engine: 'vllm', version: '0.11.0', images: [{ image: 'vllm/vllm-openai-rocm:v0.11.0', published: false }] }] }).plan.jobs.filter((j) => j.gpu_type === 'mi300x-192gb').map((j) => j.triggers)).toEqual([['nightly']]);
  });

  it('the command reads the images from the detect file: the skipped GPU types on stderr and under "skipped" in plan.json', async () => {
    const detected = join(tempDir('sb-detect-'), 'detected.json');
    writeFileSync(detected, JSON.stringify({
      new: [{ engine: 'vllm', version: '0.12.0', tag: 'v0.12.0', image: 'vllm/vllm-openai:v0.12.0', images: [{ key: 'amd', gpu_types: ['mi300x-192gb'], image: 'vllm/vllm-openai-rocm:v0.12.0', published: false }] }],
      pending: [], awaiting_images: [], errors: [], notes: [],
    }));
    expect(loadNewReleases(detected)[0]!.images).toEqual([{ key: 'amd', gpu_types: ['mi300x-192gb'], image: 'vllm/vllm-openai-rocm:v0.12.0', published: false }]);
    let stderr = '';
    const io = { stdout: () => undefined, stderr: (text: string) => void (stderr += text), env: {} };
    const out = tempDir('sb-plan-skip-');
    expect(await planCommand.run(['--fleet', FLEET, '--new', detected, '--format', 'json', '--out', out], io)).toBe(0);
    const written = JSON.parse(readFileSync(join(out, 'plan.json'), 'utf8')) as Plan;
    expect(written.jobs.some((j) => j.gpu_type === 'mi300x-192gb')).toBe(false);
    expect(written.jobs.length).toBeGreaterThan(0);
    expect(written.skipped.map((s) => `${s.engine} ${s.version} ${s.gpu_type} ${s.image}`)).toEqual(['vllm 0.12.0 mi300x-192gb vllm/vllm-openai-rocm:v0.12.0']);
    expect(stderr).toContain('servebench plan: vllm 0.12.0 (new): mi300x-192gb skipped: its image vllm/vllm-openai-rocm:v0.12.0 is not published yet');
    expect(stderr).toMatch(/jobs \(plan [0-9a-f]{12}\); 1 GPU type of new releases skipped \(image not published yet\)/);

    writeFileSync(detected, JSON.stringify({ new: [{ engine: 'vllm', version: '0.12.0', images: [{ image: 'x', published: 'no' }] }] }));
    expect(() => loadNewReleases(detected)).toThrow(/new\.0\.images\.0\.published/);
  });

  it('a detect file that is not the expected shape is refused, naming the field', () => {
    const file = join(tempDir('sb-detect-'), 'detect.json');
    writeFileSync(file, JSON.stringify({ new: [{ engine: 'vllm', version: '1.0; rm -rf /' }] }));
    expect(() => loadNewReleases(file)).toThrow(/new\.0\.version: a release name/);
    writeFileSync(file, '{"releases": []}');
    expect(() => loadNewReleases(file)).toThrow(/new: /);
  });
});

describe('servebench plan: Kubernetes Jobs', () => {
  it('one batch/v1 Job per run: valid names and labels, GPU limits, node selector, results volume, no --gpu', () => {
    const { plan: p, fleet } = plan();
    const docs = parseAllDocuments(renderKubernetes(p, fleet, PINNED_ENV)).map((d) => {
      expect(d.errors).toEqual([]);
      return d.toJS() as Record<string, any>;
    });
    expect(docs).toHaveLength(p.jobs.length);
    docs.forEach((doc, i) => {
      const job = p.jobs[i]!;
      expect(doc['apiVersion']).toBe('batch/v1');
      expect(doc['kind']).toBe('Job');
      // A new Job every night (`kubectl create -f -`): the API server appends 5 random characters to generateName.
      expect(doc['metadata'].name).toBeUndefined();
      expect(doc['metadata'].generateName).toBe(`${job.name}-`);
      const made = `${doc['metadata'].generateName}x7k2q`;
      expect(made.length).toBeLessThanOrEqual(63);
      expect(made).toMatch(RFC1123);
      expect(doc['metadata'].labels['servebench.dev/job-id']).toBe(job.id);
      expect(doc['spec'].template.metadata.labels['servebench.dev/job-id']).toBe(job.id);
      expect(doc['metadata'].namespace).toBe('sb-test');
      for (const value of Object.values(doc['metadata'].labels as Record<string, string>)) expect(value).toMatch(/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/);
      expect(doc['metadata'].labels['servebench.dev/engine']).toBe(job.engine);
      expect(doc['metadata'].labels['servebench.dev/version']).toBe(job.version);
      expect(doc['spec'].backoffLimit).toBe(0);
      expect(doc['spec'].activeDeadlineSeconds).toBe(job.time_limit_min * 60);
      const pod = doc['spec'].template.spec;
      expect(pod.restartPolicy).toBe('Never');
      const [container] = pod.containers;
      expect(container.command.slice(0, 4)).toEqual(['/servebench/.node', '--import', 'tsx', 'harness/cli.ts']);
      expect(container.command.slice(4)).toEqual(argvFor(job, 'kubernetes'));
      expect(parseCommandArgs(runCommand.spec, container.command.slice(5))['engine']).toBe(job.engine);
      expect(container.command).not.toContain('--gpu');
      expect(container.command[container.command.indexOf('--launcher') + 1]).toBe('process');
      expect(container.command).not.toContain('--image');
      expect(container.volumeMounts).toContainEqual({ name: 'results', mountPath: '/servebench/results' });
      expect(pod.volumes).toContainEqual({ name: 'results', persistentVolumeClaim: { claimName: 'sb-results' } });
      if (job.gpu_type === 'h100-sxm-80gb') {
        expect(container.resources.limits).toEqual({ 'nvidia.com/gpu': job.model.tp });
        expect(pod.nodeSelector).toEqual({ 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' });
        expect(container.image).toBe(job.image);
      } else if (job.gpu_type === 'mi300x-192gb') {
        expect(container.resources.limits).toEqual({ 'amd.com/gpu': 1 });
        expect(container.image).toBe('vllm/vllm-openai-rocm:v0.11.0');
      } else {
        expect(container.resources).toBeUndefined();
        expect(container.image).toBe(PINNED);
      }
      // The harness image by digest in every container that uses it; as its non-root user.
      const nonRoot = { runAsNonRoot: true, runAsUser: HARNESS_UID, runAsGroup: HARNESS_UID, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } };
      for (const init of pod.initContainers) {
        expect(init.image).toBe(PINNED);
        expect(init.securityContext).toEqual(nonRoot);
      }
      if (job.image === null) {
        expect(container.securityContext).toEqual(nonRoot);
        expect(pod.securityContext).toEqual({ fsGroup: HARNESS_UID, fsGroupChangePolicy: 'OnRootMismatch' });
      } else {
        // An engine's image runs as that image says (root in the official vLLM and SGLang images).
        expect(container.securityContext).toBeUndefined();
        expect(pod.securityContext).toBeUndefined();
      }
    });
  });

  it('takes the harness image by digest only: a tag is refused naming the file, the field and the fix; $SERVEBENCH_HARNESS_IMAGE pins one plan', () => {
    const { plan: p, fleet } = plan();
    expect(fleet.schedulers.kubernetes!.harness_image).toBe('example.invalid/servebench:test');
    const refused = (env: NodeJS.ProcessEnv, f = fleet) => {
      try {
        renderKubernetes(p, f, env);
      } catch (error) {
        expect(error).toBeInstanceOf(ServebenchError);
        expect((error as ServebenchError).exitCode).toBe(2);
        return (error as Error).message;
      }
      throw new Error('the plan was rendered');
    };
    const message = refused({});
    expect(message).toContain(`${FLEET}: schedulers.kubernetes.harness_image: "example.invalid/servebench:test" is a tag`);
    expect(message).toContain('Set harness_image to example.invalid/servebench@sha256:<digest>, or SERVEBENCH_HARNESS_IMAGE=sha256:<digest>');
    expect(message).toContain('.github/workflows/image.yml');
    // A bare digest takes the fleet file's repository; a whole reference replaces it.
    expect(harnessImageFor(fleet, FLEET, { [HARNESS_IMAGE_ENV]: DIGEST })).toBe(PINNED);
    expect(harnessImageFor(fleet, FLEET, { [HARNESS_IMAGE_ENV]: ` ghcr.io/acme/servebench@${DIGEST}\n` })).toBe(`ghcr.io/acme/servebench@${DIGEST}`);
    expect(harnessImageFor(fleet, FLEET, { [HARNESS_IMAGE_ENV]: `ghcr.io/acme/servebench:main@${DIGEST}` })).toBe(`ghcr.io/acme/servebench:main@${DIGEST}`);
    expect(refused({ [HARNESS_IMAGE_ENV]: 'ghcr.io/acme/servebench:main' })).toMatch(/^\$SERVEBENCH_HARNESS_IMAGE: "ghcr.io\/acme\/servebench:main" is a tag, which moves.*Give ghcr.io\/acme\/servebench@sha256:<digest>/);
    expect(refused({ [HARNESS_IMAGE_ENV]: 'sha256:abc' })).toMatch(/"sha256:abc" is not a digest: sha256: and 64 lower-case hex digits/);
    expect(refused({ [HARNESS_IMAGE_ENV]: `ghcr.io/acme/servebench@sha256:${'A'.repeat(64)}` })).toMatch(/is not an image reference/);
    // An empty variable is no override.
    expect(refused({ [HARNESS_IMAGE_ENV]: '' })).toContain('is a tag');
    // A fleet file that names a digest needs nothing else; the variable still wins over it.
    const pinnedFleet = { ...fleet, schedulers: { ...fleet.schedulers, kubernetes: { ...fleet.schedulers.kubernetes!, harness_image: PINNED } } };
    expect(parseAllDocuments(renderKubernetes(p, pinnedFleet, {}))[0]!.toJS().spec.template.spec.initContainers[0].image).toBe(PINNED);
    expect(harnessImageFor(pinnedFleet, FLEET, { [HARNESS_IMAGE_ENV]: `sha256:${'0'.repeat(64)}` })).toBe(`example.invalid/servebench@sha256:${'0'.repeat(64)}`);
  });

  it('the fleet schema takes the harness image as a tag or a digest, and nothing that is not an image reference', () => {
    expect(parseImageReference('ghcr.io/servebench/servebench:main')).toEqual({ repository: 'ghcr.io/servebench/servebench', tag: 'main', digest: null });
    expect(parseImageReference(`ghcr.io:443/a/b@${DIGEST}`)).toEqual({ repository: 'ghcr.io:443/a/b', tag: null, digest: DIGEST });
    expect(parseImageReference(`localhost:5000/b:v1@${DIGEST}`)).toEqual({ repository: 'localhost:5000/b', tag: 'v1', digest: DIGEST });
    expect(parseImageReference('servebench')).toEqual({ repository: 'servebench', tag: null, digest: null });
    for (const bad of ['ghcr.io/Servebench/x:main', 'a b', 'x:', 'x@sha256:abc', 'x:main;rm', '']) expect(parseImageReference(bad), bad).toBeNull();
    const digestFleet = editedFleet((f) => (f['schedulers'].kubernetes.harness_image = PINNED));
    expect(plan({ file: digestFleet }).fleet.schedulers.kubernetes!.harness_image).toBe(PINNED);
    const garbage = editedFleet((f) => (f['schedulers'].kubernetes.harness_image = 'ghcr.io/servebench/servebench:main; curl x | sh'));
    expect(fleetError(garbage)).toContain(`${garbage}: schedulers.kubernetes.harness_image: an image reference: REPOSITORY@sha256:<64 hex digits> (pinned), or REPOSITORY:TAG`);
  });

  it('a long job name is shortened in generateName, keeping its id, so the generated name stays an RFC 1123 label', () => {
    const { plan: p } = plan();
    const id = p.jobs[0]!.id;
    const longest = `sb-${'a-very-long-engine-name'.repeat(3)}`.slice(0, 63 - id.length - 1).replace(/-+$/, '') + `-${id}`;
    expect(longest.length).toBeGreaterThan(57);
    const prefix = generateNameFor({ name: longest, id });
    expect(prefix.endsWith(`-${id}-`)).toBe(true);
    expect(prefix.length).toBe(58);
    expect(`${prefix}zzzzz`).toMatch(RFC1123);
    for (const job of p.jobs) expect(`${generateNameFor(job)}abcde`.length).toBeLessThanOrEqual(63);
  });

  it('a GPU type without a kubernetes block, or a fleet without the scheduler, is a clear error', () => {
    const { plan: p, fleet } = plan();
    expect(() => renderKubernetes(p, { ...fleet, schedulers: { ...fleet.schedulers, kubernetes: undefined } }, PINNED_ENV)).toThrow(/no schedulers\.kubernetes block/);
    const noBlock = { ...fleet, gpu_types: fleet.gpu_types.map((t) => (t.id === 'cpu' ? { ...t, kubernetes: undefined } : t)) };
    expect(() => renderKubernetes(p, noBlock, PINNED_ENV)).toThrow(/gpu type cpu has no kubernetes block/);
  });
});

describe('servebench plan: SLURM scripts', () => {
  it('one sbatch script per run: partition, gres per GPU set, time, output; valid bash that runs the planned command', () => {
    const { plan: p, fleet } = plan();
    const dir = tempDir('sb-slurm-');
    const scripts = renderSlurm(p, fleet);
    expect(scripts).toHaveLength(p.jobs.length);
    const npx = fakeNpx();
    scripts.forEach((s, i) => {
      const job = p.jobs[i]!;
      const file = join(dir, s.file);
      writeFileSync(file, s.script);
      execFileSync('bash', ['-n', file]);
      expect(s.script).toContain(`#SBATCH --job-name=${job.name}\n`);
      expect(s.script).toContain('#SBATCH --account=benchmarks\n');
      expect(s.script).toContain('#SBATCH --output=logs/slurm/%x-%j.out\n');
      if (job.gpu_type === 'h100-sxm-80gb') {
        expect(s.script).toContain('#SBATCH --partition=h100\n');
        expect(s.script).toContain(`#SBATCH --gres=gpu:h100:${job.model.tp}\n`);
        expect(s.script).toContain('#SBATCH --time=02:00:00\n');
      }
      if (job.gpu_type === 'cpu') {
        expect(s.script).not.toContain('--gres');
        expect(s.script).toContain('#SBATCH --time=00:15:00\n');
      }
      execFileSync('bash', [file], { cwd: dir, env: { ...process.env, PATH: `${npx.dir}:${process.env['PATH']}`, ARGV_OUT: npx.out, SLURM_JOB_GPUS: '6,7' } });
      // A docker run is handed SLURM's allocation; a process run inherits CUDA_VISIBLE_DEVICES.
      const gpu = job.launcher === 'docker' ? ['--gpu', '6,7'] : [];
      expect(recordedArgv(npx.out)).toEqual([...HARNESS_ARGV.slice(1), ...job.argv, ...gpu]);
    });
    const submit = submitAllScript(scripts, fleet);
    writeFileSync(join(dir, 'submit-all.sh'), submit);
    execFileSync('bash', ['-n', join(dir, 'submit-all.sh')]);
    expect(submit.match(/^sbatch /gm)).toHaveLength(p.jobs.length);
  });

  it('a hostile model name stays one quoted argument: in the SLURM script, the matrix command and the Kubernetes command', () => {
    const file = editedFleet((fleet) => {
      fleet['matrix'] = [{ engines: ['vllm'], models: [{ id: HOSTILE, tp: 2 }], workloads: ['chat'], gpu_types: ['h100-sxm-80gb'], nightly: true }];
    });
    const { plan: p, fleet } = plan({ file });
    expect(p.jobs).toHaveLength(1);
    const job = p.jobs[0]!;
    expect(job.name).toMatch(RFC1123);
    const dir = tempDir('sb-hostile-');
    const npx = fakeNpx();
    const env = { ...process.env, PATH: `${npx.dir}:${process.env['PATH']}`, ARGV_OUT: npx.out, SLURM_JOB_GPUS: '0,1', SERVEBENCH_GPUS: '0,1' };

    const [script] = renderSlurm(p, fleet);
    const path = join(dir, script!.file);
    writeFileSync(path, script!.script);
    execFileSync('bash', ['-n', path]);
    const header = script!.script.slice(0, script!.script.indexOf('set -euo pipefail'));
    expect(header.match(/^#SBATCH --partition=/gm)).toEqual(['#SBATCH --partition=']);
    expect(header.split('\n').filter((line) => !line.startsWith('# ')).join('\n')).not.toContain('hacked');
    execFileSync('bash', [path], { cwd: dir, env });
    const argv = recordedArgv(npx.out);
    expect(argv[argv.indexOf('--model') + 1]).toBe(HOSTILE);

    const command = renderMatrix(p, fleet).include[0]!.command;
    execFileSync('bash', ['-c', command], { cwd: dir, env });
    expect(recordedArgv(npx.out)).toEqual([...HARNESS_ARGV.slice(1), ...job.argv, '--gpu', '0,1']);
    expect(readdirSync(dir).filter((f) => f.startsWith('pwned'))).toEqual([]);
    expect(parseCommandArgs(runCommand.spec, job.argv.slice(1))['model']).toBe(HOSTILE);

    const [doc] = parseAllDocuments(renderKubernetes(p, fleet, PINNED_ENV)).map((d) => d.toJS() as Record<string, any>);
    const container = doc!['spec'].template.spec.containers[0];
    expect(container.command[container.command.indexOf('--model') + 1]).toBe(HOSTILE);
  });
});

describe('servebench plan: the fleet file', () => {
  it('the shipped fleet/fleet.yaml is valid and plans the nightly set and new releases', () => {
    const { plan: nightly, fleet } = plan({ file: 'fleet/fleet.yaml' });
    expect(nightly.jobs.length).toBeGreaterThan(10);
    expect(nightly.jobs.length).toBeLessThanOrEqual(256);
    expect(new Set(nightly.jobs.map((j) => j.gpu_type))).toEqual(new Set(['h100-sxm-80gb', 'h200-sxm-141gb', 'l40s-48gb', 'mi300x-192gb', 'cpu']));
    // The CPU lane's llama.cpp runs are on cpu too (lane-plan.test.ts); the dry-run entry is the embedded engine's.
    const dryRun = nightly.jobs.filter((j) => j.gpu_type === 'cpu' && j.engine === 'embedded');
    expect(dryRun.map((j) => j.argv.join(' '))).toEqual(['run --engine embedded --launcher process --model tiny --max-num-seqs 4 --workload smoke --concurrency 1,2,4 --source official --results-dir results']);
    expect(renderMatrix(nightly, fleet).include.find((j) => j.gpu_type === 'cpu')!.runs_on).toEqual(['ubuntu-latest']);
    // No harness image has been published yet: the shipped fleet names it by tag, and Kubernetes plans need a digest given.
    expect(() => renderKubernetes(nightly, fleet, {})).toThrow(/fleet\/fleet\.yaml: schedulers\.kubernetes\.harness_image: "ghcr\.io\/servebench\/servebench:main" is a tag/);
    renderKubernetes(nightly, fleet, { [HARNESS_IMAGE_ENV]: DIGEST });
    renderSlurm(nightly, fleet);
    const released = plan({ file: 'fleet/fleet.yaml', nightly: false, releases: [{ engine: 'sglang', version: '0.5.4' }] }).plan;
    expect(released.jobs.find((j) => j.gpu_type === 'mi300x-192gb')!.image).toBe('lmsysorg/sglang:v0.5.4-rocm10-mi30x');
  });

  it('bad fleet files: each problem names the file, the field and the fix', () => {
    const tp3 = editedFleet((fleet) => (fleet['matrix'][0].models[1].tp = 3));
    expect(fleetError(tp3)).toContain(`${tp3}: matrix.0.models.1.tp: tp 3 does not split a 8-GPU h100-sxm-80gb host into whole GPU sets`);

    const typo = editedFleet((fleet) => {
      fleet['gpu_types'][0].gpu_per_host = 8;
      fleet['matrix'][1].gpu_types = ['mi300x'];
    });
    const typoMessage = fleetError(typo);
    expect(typoMessage).toContain(`${typo}: gpu_types.0: unknown field gpu_per_host; remove or fix the spelling`);

    const unknownType = editedFleet((fleet) => (fleet['matrix'][1].gpu_types = ['mi300x']));
    expect(fleetError(unknownType)).toContain(`${unknownType}: matrix.1.gpu_types.0: unknown gpu type "mi300x"; declared: h100-sxm-80gb, mi300x-192gb, cpu`);

    const specs = editedFleet((fleet) => {
      fleet['matrix'][0].engines.push('tgi');
      fleet['matrix'][0].workloads.push('nonexistent');
      fleet['matrix'][2].models[0].tp = 2;
      fleet['matrix'][2].gpu_types = ['h100-sxm-80gb'];
      fleet['matrix'][0].gpu_types.push('mi300x-192gb');
    });
    const message = fleetError(specs);
    expect(message).toContain(`${specs}: matrix.0.engines.2: no engine "tgi" in engines/`);
    expect(message).toContain(`${specs}: matrix.0.workloads.2: no workload "nonexistent" in workloads/`);
    expect(message).toContain(`${specs}: matrix.2.models.0: engine embedded cannot run tp 2: one CPU process`);
    expect(message).toContain(`${specs}: matrix.0.gpu_types: mi300x-192gb: sglang's official image (lmsysorg/sglang) is a CUDA build: give engines.sglang.images.mi300x-192gb (or .amd) with its ROCm image`);
    const price = editedFleet((fleet) => (fleet['gpu_types'][0].price = 'B300'));
    expect(fleetError(price)).toContain(`${price}: gpu_types.0.price: compile prices a run by a substring of its GPU name`);
    const unpriced = editedFleet((fleet) => {
      fleet['gpu_types'][0].name = 'NVIDIA GB300';
      fleet['gpu_types'][0].price = 'GB300';
    });
    expect(fleetError(unpriced)).toContain(`${unpriced}: gpu_types.0.price: "GB300" is no gpu in`);

    const unsupported = editedFleet((fleet) => (fleet['matrix'][2].models[0].dtype = 'bfloat16'));
    expect(fleetError(unsupported)).toContain("matrix.2.models.0: engine embedded has no way to set dtype: the GGUF file fixes the weights' type (engine embedded)");

    const never = editedFleet((fleet) => (fleet['matrix'][2].nightly = false));
    expect(fleetError(never)).toContain('matrix.2.nightly: this entry never runs');

    const notYaml = join(tempDir('sb-fleet-'), 'fleet.yaml');
    writeFileSync(notYaml, 'gpu_types: [\n');
    expect(fleetError(notYaml)).toMatch(/fleet\.yaml: \(file\): not readable YAML/);
    expect(() => loadFleet(join(tmpdir(), 'no-such-fleet.yaml'))).toThrow(/--fleet: no file/);
  });
});

describe('missingJobs: planned jobs that left no result', () => {
  /** A SYNTHETIC result as `servebench run` would write it for this job. */
  function resultFor(job: PlannedJob, edit: (r: RunResult) => void = () => {}): unknown {
    const load = job.load as { concurrency: number[] };
    const result = syntheticResult({
      engine: job.engine,
      version: job.version === 'latest' ? '9.9.9' : job.version,
      model: job.model.id,
      gpu: job.gpu.vendor === 'cpu' ? null : job.gpu.name,
      gpuCount: job.model.tp,
      workload: job.workload,
      date: new Date(Date.UTC(2026, 0, 2)),
      concurrencies: 'concurrency' in load ? load.concurrency : [1],
      tpotMs: 10,
      ttftMs: 50,
      noise: 0,
      seed: 1,
      source: 'official',
    });
    const params: Record<string, string | number> = { model: job.model.id };
    if (job.argv.includes('--tp')) params['tensor_parallel'] = job.model.tp;
    if (job.model.max_model_len !== null) params['max_model_len'] = job.model.max_model_len;
    if (job.model.max_num_seqs !== null) params['max_num_seqs'] = job.model.max_num_seqs;
    result.run!.parameters = params;
    result.run!.model.dtype = job.model.dtype;
    result.workload.spec = { ...result.workload.spec, load: job.load };
    result.harness.command = ['servebench', 'run', ...job.argv.slice(1), ...(job.gpu.vendor === 'cpu' ? [] : ['--gpu', '0'])];
    edit(result);
    return RunResultSchema.parse(result);
  }

  it('every job with its result: none missing; one without: that one', () => {
    const { plan: p } = plan();
    const results = p.jobs.map((job) => resultFor(job));
    expect(missingJobs(p, results)).toEqual([]);
    expect(missingJobs(p, results.slice(1))).toEqual([p.jobs[0]]);
    expect(missingJobs(p, [])).toEqual(p.jobs);
  });

  it('a failed launch (no version from the server, no hardware) still accounts for its job', () => {
    const { plan: p } = plan({ engines: ['vllm'], gpuTypes: ['h100-sxm-80gb'] });
    const [first, ...rest] = p.jobs;
    const failed = resultFor(first!, (r) => {
      r.status = 'failed';
      r.points = [];
      r.run!.engine.version = null;
      r.run!.hardware = null;
      r.run!.failure = { phase: 'launch', message: 'docker pull failed', log_tail: [] };
    });
    expect(missingJobs(p, [failed, ...rest.map((j) => resultFor(j))])).toEqual([]);
    // One unnamed failure accounts for one job only.
    expect(missingJobs(p, [failed, failed])).toHaveLength(p.jobs.length - 1);
  });

  it('a result of another configuration does not count: GPU, GPU count, version, source, workload load, time', () => {
    const { plan: p } = plan({ engines: ['vllm'] });
    const job = p.jobs.find((j) => j.gpu_type === 'h100-sxm-80gb' && j.model.tp === 2 && j.workload === 'chat')!;
    const others = p.jobs.filter((j) => j !== job).map((j) => resultFor(j));
    const missing = (result: unknown, options = {}) => missingJobs(p, [...others, result], options).map((j) => j.id);
    expect(missing(resultFor(job))).toEqual([]);
    expect(missing(resultFor(job, (r) => r.run!.hardware!.gpus.forEach((g) => (g.name = 'NVIDIA H200'))))).toEqual([job.id]);
    expect(missing(resultFor(job, (r) => r.run!.hardware!.gpus.pop()))).toEqual([job.id]);
    expect(missing(resultFor(job, (r) => (r.harness.command = ['servebench', 'run', '--engine-version', '0.10.0'])))).toEqual([job.id]);
    expect(missing(resultFor(job, (r) => (r.source = 'community')))).toEqual([job.id]);
    expect(missing(resultFor(job, (r) => (r.source = 'community')), { officialOnly: false })).toEqual([]);
    expect(missing(resultFor(job, (r) => (r.workload.spec = { ...r.workload.spec, load: { concurrency: [1, 4, 8] } })))).toEqual([job.id]);
    expect(missing(resultFor(job), { since: '2026-01-03T00:00:00Z' }).length).toBe(p.jobs.length);
    // MI300X under another amd-smi market name is the same GPU type.
    const amd = p.jobs.find((j) => j.gpu_type === 'mi300x-192gb')!;
    const amdOthers = p.jobs.filter((j) => j !== amd).map((j) => resultFor(j));
    expect(missingJobs(p, [...amdOthers, resultFor(amd, (r) => r.run!.hardware!.gpus.forEach((g) => (g.name = 'MI300X-O')))])).toEqual([]);
  });

  it('a "latest" job takes the version its image had; the CPU job a result without GPUs', () => {
    const { plan: p } = plan({ engines: ['sglang', 'embedded'] });
    expect(p.jobs.some((j) => j.version === 'latest' && j.engine === 'sglang')).toBe(true);
    const results = p.jobs.map((job) => resultFor(job, (r) => (r.run!.engine.version = '0.5.9')));
    expect(missingJobs(p, results)).toEqual([]);
    const cpu = p.jobs.find((j) => j.gpu_type === 'cpu')!;
    expect(missingJobs(p, results.filter((_, i) => p.jobs[i] !== cpu))).toEqual([cpu]);
  });

  it('a "latest" job whose image is the release a pinned job runs: each result matches its own job by the recorded --engine-version', () => {
    // The nightly runs sglang "latest"; the same night plans the new release 0.5.9, and the latest image is 0.5.9 too.
    const { plan: p } = plan({ engines: ['sglang'], releases: [{ engine: 'sglang', version: '0.5.9' }] });
    const latest = p.jobs.filter((j) => j.version === 'latest');
    const pinned = p.jobs.filter((j) => j.version === '0.5.9');
    expect(latest.length).toBeGreaterThan(0);
    expect(pinned).toHaveLength(latest.length);
    // '0.5.9' sorts before 'latest': a match by reported version would give the latest job's result to the pinned job.
    expect(p.jobs.indexOf(pinned[0]!)).toBeLessThan(p.jobs.indexOf(latest[0]!));
    const reporting = (job: PlannedJob) => resultFor(job, (r) => (r.run!.engine.version = '0.5.9'));
    const lostPinned = pinned[0]!;
    expect(missingJobs(p, p.jobs.filter((j) => j !== lostPinned).map(reporting))).toEqual([lostPinned]);
    const lostLatest = latest[0]!;
    expect(missingJobs(p, p.jobs.filter((j) => j !== lostLatest).map(reporting))).toEqual([lostLatest]);
    // A pinned job's result (with --engine-version) never stands in for a "latest" job, and the other way round.
    const pinnedTwin = pinned.find((j) => j.model.id === lostLatest.model.id && j.workload === lostLatest.workload && j.gpu_type === lostLatest.gpu_type)!;
    expect(missingJobs(p, [...p.jobs.filter((j) => j !== lostLatest).map(reporting), reporting(pinnedTwin)])).toEqual([lostLatest]);
  });

  it('a completed GPU run whose GPUs could not be read (hardware: null) accounts for a GPU job of its configuration, after the named results', () => {
    const { plan: p } = plan({ engines: ['vllm'] });
    const h100 = p.jobs.find((j) => j.gpu_type === 'h100-sxm-80gb' && j.model.tp === 1 && j.workload === 'chat')!;
    const amd = p.jobs.find((j) => j.gpu_type === 'mi300x-192gb')!;
    // Same configuration on two GPU types.
    expect(amd.model).toEqual(h100.model);
    expect(amd.load).toEqual(h100.load);
    const unread = (job: PlannedJob) =>
      resultFor(job, (r) => {
        r.run!.hardware = null;
        r.run!.engine.launcher = 'process';
        r.harness.command = ['servebench', 'run', ...argvFor(job, 'kubernetes').slice(1)];
      });
    expect(RunResultSchema.parse(unread(h100)).status).toBe('completed');
    const others = p.jobs.filter((j) => j !== h100 && j !== amd).map((j) => resultFor(j));
    expect(missingJobs(p, [...others, resultFor(amd), unread(h100)])).toEqual([]);
    // Listed first, the unnamed result still leaves the MI300X job to the result that names its GPUs.
    expect(missingJobs(p, [unread(h100), ...others, resultFor(amd)])).toEqual([]);
    // It accounts for one job: with no named result, one of the two GPU jobs is missing.
    expect(missingJobs(p, [...others, unread(h100)])).toHaveLength(1);
    // It is no CPU job's result when its configuration is a GPU job's, and vice versa: another configuration counts for nothing.
    const other = p.jobs.find((j) => j.gpu_type === 'h100-sxm-80gb' && j.model.tp === 2 && j.workload === 'chat')!;
    expect(missingJobs(p, [...p.jobs.filter((j) => j !== other).map((j) => resultFor(j)), unread(h100)])).toEqual([other]);
  });
});

describe('servebench plan --format json', () => {
  it('prints the declared plan: every job before any run, with its argv and expected result', async () => {
    const written: string[] = [];
    const io = { stdout: (text: string) => void written.push(text), stderr: () => undefined, env: {} };
    const out = tempDir('sb-plan-json-');
    expect(await planCommand.run(['--fleet', FLEET, '--new', DETECT, '--format', 'json', '--out', out], io)).toBe(0);
    const printed = JSON.parse(written.join('')) as Plan;
    expect(printed.format).toBe('servebench-plan/1');
    expect(printed.fleet.file).toBe(FLEET);
    expect(printed.inputs.nightly).toBe(false);
    expect(printed.jobs.every((j) => j.argv[0] === 'run' && j.result_key.length > 0)).toBe(true);
    expect(readFileSync(join(out, 'plan.json'), 'utf8')).toBe(written.join(''));
  });
});
