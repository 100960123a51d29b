/**
 * The CPU lane of the shipped fleet/fleet.yaml (GitHub issue 15): upstream llama.cpp built from a
 * node-llama-cpp release, on GitHub-hosted CPU runners, with dummy-weight models of real shapes,
 * each configuration three times. Planned with the real engine and workload specs; the results in
 * the missing-jobs test are SYNTHETIC (bench/lib/synthetic-results.ts), shaped as
 * `servebench run` writes them for each job.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, parse as parseYaml, stringify as toYaml } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCommandArgs } from '../../harness/lib/cli/options.ts';
import { ServebenchError } from '../../harness/lib/errors.ts';
import { runCommand } from '../../harness/measure/run/command.ts';
import { llamacppCommand } from '../../harness/measure/builds/command.ts';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { loadFleet, planLoadedFleet } from '../../harness/pipeline/plan/inputs.ts';
import { renderKubernetes } from '../../harness/pipeline/plan/kubernetes.ts';
import { MAX_LANE_MINUTES, renderLanes } from '../../harness/pipeline/plan/lanes.ts';
import { renderMatrix } from '../../harness/pipeline/plan/matrix.ts';
import { missingJobs } from '../../harness/pipeline/plan/missing-jobs.ts';
import type { NewRelease, PlannedJob } from '../../harness/pipeline/plan/plan-file.ts';
import { renderSlurm } from '../../harness/pipeline/plan/slurm.ts';
import { syntheticResult } from '../../bench/lib/synthetic-results.ts';

const FLEET = 'fleet/fleet.yaml';
const NEW: NewRelease[] = [{ engine: 'llamacpp', version: '3.8.1', tag: 'b5415' }];
const MODELS = ['dummy:llama-3.2-1b:Q4_K_M', 'dummy:qwen3-0.6b:Q4_K_M'];
const dir = mkdtempSync(join(tmpdir(), 'servebench-lane-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plan(options: { file?: string; nightly?: boolean; releases?: NewRelease[]; skipBuilds?: boolean } = {}) {
  const file = options.file ?? FLEET;
  const loaded = loadFleet(file);
  const result = planLoadedFleet(file, loaded, {
    nightly: options.nightly ?? true,
    releases: options.releases ?? NEW,
    engineFilter: ['llamacpp'],
    skipBuilds: options.skipBuilds ?? false,
  });
  return { plan: result, fleet: loaded.fleet };
}

const laneJobs = (jobs: readonly PlannedJob[], version: string) => jobs.filter((j) => j.engine === 'llamacpp' && j.version === version);

describe('the CPU lane in fleet/fleet.yaml', () => {
  const { plan: p, fleet } = plan();

  it('plans 2 models × 1 workload × 3 runs on cpu, for the nightly (installed node-llama-cpp) and each new release', () => {
    for (const version of ['latest', '3.8.1']) {
      const jobs = laneJobs(p.jobs, version);
      expect(jobs).toHaveLength(6);
      expect(new Set(jobs.map((j) => j.id)).size).toBe(6);
      expect(new Set(jobs.map((j) => j.gpu_type))).toEqual(new Set(['cpu']));
      expect([...new Set(jobs.map((j) => j.model.id))].sort()).toEqual(MODELS);
      expect([...new Set(jobs.map((j) => j.workload))].sort()).toEqual(['cpu-chat-short']);
      expect(jobs.map((j) => j.repeat ?? 1).sort()).toEqual([...Array(2).fill(1), ...Array(2).fill(2), ...Array(2).fill(3)]);
      for (const job of jobs) {
        expect(job.launcher).toBe('process');
        expect(job.image).toBeNull();
        expect(job.model).toMatchObject({ tp: 1, max_num_seqs: 4, max_model_len: 2048, tokenizer: null });
        expect(job.title).toMatch(/ · run [123] of 3$/);
      }
    }
  });

  it('each job builds llama.cpp from its release first, then runs it with --engine-version and --source official', async () => {
    for (const job of laneJobs(p.jobs, '3.8.1')) {
      expect(job.build).toEqual({ argv: ['llamacpp', 'build', '--node-llama-cpp', '3.8.1'], key: 'llamacpp-node-llama-cpp-3.8.1' });
      expect(job.argv.slice(0, 7)).toEqual(['run', '--engine', 'llamacpp', '--launcher', 'process', '--engine-version', '3.8.1']);
      expect(job.argv.join(' ')).toContain('--source official');
      expect(() => parseCommandArgs(runCommand.spec, job.argv.slice(1))).not.toThrow();
      expect(() => parseCommandArgs(llamacppCommand.spec, job.build!.argv.slice(2))).not.toThrow();
    }
    // The unpinned nightly: the installed node-llama-cpp's build, and `run` without --engine-version picks that one.
    for (const job of laneJobs(p.jobs, 'latest')) {
      expect(job.build).toEqual({ argv: ['llamacpp', 'build'], key: 'llamacpp-installed' });
      expect(job.argv).not.toContain('--engine-version');
    }
  });

  it('the first run keeps the id a single run has: repeats add runs 2 and 3 to a plan without them', () => {
    const text = parseYaml(readFileSync(FLEET, 'utf8')) as { matrix: Array<{ name?: string; repeats?: number }> };
    for (const entry of text.matrix) if (entry.name?.startsWith('CPU lane')) delete entry.repeats;
    const once = join(dir, 'once.yaml');
    writeFileSync(once, toYaml(text));
    const single = laneJobs(plan({ file: once }).plan.jobs, '3.8.1');
    expect(single).toHaveLength(2);
    const firstRuns = laneJobs(p.jobs, '3.8.1').filter((j) => j.repeat === undefined);
    expect(firstRuns.map((j) => j.id).sort()).toEqual(single.map((j) => j.id).sort());
  });

  it('GitHub: not in the bench matrix but in lanes: one build per release, runs in order of run number, within 6 hours', () => {
    expect(renderMatrix(p, fleet).include.filter((j) => j.engine === 'llamacpp')).toEqual([]);
    const lanes = renderLanes(p, fleet).include;
    expect(lanes.flatMap((l) => l.jobs.map((j) => j.job_id)).sort()).toEqual(p.jobs.filter((j) => j.build).map((j) => j.id).sort());
    expect(new Set(lanes.map((l) => l.lane_id)).size).toBe(lanes.length);
    for (const lane of lanes) {
      expect(lane.runs_on).toEqual(['ubuntu-latest']);
      expect(lane.timeout_minutes).toBeLessThanOrEqual(MAX_LANE_MINUTES);
      expect(lane.build).toBe(lane.version === 'latest' ? 'npx tsx harness/cli.ts llamacpp build' : `npx tsx harness/cli.ts llamacpp build --node-llama-cpp ${lane.version}`);
      expect(lane.node_llama_cpp).toBe(lane.version === 'latest' ? '' : lane.version);
      for (const job of lane.jobs) expect(job.command.startsWith(`npx tsx harness/cli.ts run --engine llamacpp --launcher process${lane.version === 'latest' ? '' : ` --engine-version ${lane.version}`} `)).toBe(true);
    }
    for (const version of ['latest', '3.8.1']) {
      const ordered = lanes.filter((l) => l.version === version).flatMap((l) => l.jobs.map((j) => p.jobs.find((x) => x.id === j.job_id)!.repeat ?? 1));
      expect(ordered).toEqual([...ordered].sort((a, b) => a - b));
    }
  });

  it('Kubernetes builds in an init container into a cache the run reads; SLURM builds before the run', () => {
    // SYNTHETIC digest: Kubernetes plans take the harness image by digest (none is published yet).
    const docs = parseAllDocuments(renderKubernetes(p, fleet, { SERVEBENCH_HARNESS_IMAGE: `sha256:${'5e'.repeat(32)}` })).map((d) => d.toJS() as { metadata: { labels: Record<string, string> }; spec: { template: { spec: any } } });
    const job = laneJobs(p.jobs, '3.8.1')[0]!;
    const pod = docs.find((d) => d.metadata.labels['servebench.dev/job-id'] === job.id)!.spec.template.spec;
    expect(pod.initContainers.map((c: { name: string }) => c.name)).toEqual(['harness', 'build']);
    expect(pod.initContainers[1].command.slice(-4)).toEqual(['llamacpp', 'build', '--node-llama-cpp', '3.8.1']);
    expect(pod.initContainers[1].env).toEqual([{ name: 'SERVEBENCH_CACHE', value: '/servebench-cache' }]);
    expect(pod.containers[0].env).toContainEqual({ name: 'SERVEBENCH_CACHE', value: '/servebench-cache' });
    expect(pod.volumes).toContainEqual({ name: 'servebench-cache', emptyDir: {} });
    const script = renderSlurm(p, fleet).find((s) => s.file === `${job.name}.sbatch`)!.script;
    const lines = script.trimEnd().split('\n');
    expect(lines.slice(-2)).toEqual(['npx tsx harness/cli.ts llamacpp build --node-llama-cpp 3.8.1', `exec npx tsx harness/cli.ts ${job.argv.join(' ')}`]);
    expect(spawnSync('bash', ['-n'], { input: script }).status).toBe(0);
  });

  it('--skip-builds (the workflow dry run) leaves the lane out', () => {
    expect(plan({ skipBuilds: true }).plan.jobs).toEqual([]);
  });

  it('collect expects a result from every run: two results of a configuration leave its third run missing', () => {
    const jobs = laneJobs(p.jobs, '3.8.1');
    const resultFor = (job: PlannedJob) => {
      // A dummy model is recorded by its real model's name and the file's quantization (dummy/Qwen3-0.6B, Q8_0).
      const [, shape, quantization] = job.model.id.split(':') as [string, string, string];
      const recordedId = { 'qwen3-0.6b': 'dummy/Qwen3-0.6B', 'llama-3.2-1b': 'dummy/Llama-3.2-1B-Instruct' }[shape]!;
      const result = syntheticResult({ engine: 'llamacpp', version: 'b5415', model: recordedId, gpu: null, gpuCount: 1, workload: job.workload, date: new Date(Date.UTC(2026, 9, 2)), concurrencies: [1, 2, 4], tpotMs: 40, ttftMs: 300, noise: 0, seed: 1, source: 'official' });
      // What run records of the lane's held-equal flags (fleet.yaml: f16 KV, neutral sampling) and its model flags.
      result.run!.parameters = { model: job.model.id, max_model_len: 2048, max_num_seqs: 4, kv_cache_dtype: 'fp16', sampling: 'neutral' };
      result.run!.model.dtype = null;
      result.run!.model.quantization = quantization;
      result.workload.spec = { ...result.workload.spec, load: job.load };
      result.harness.command = ['servebench', 'run', ...job.argv.slice(1)];
      return RunResultSchema.parse(result);
    };
    expect(missingJobs({ jobs }, jobs.map(resultFor))).toEqual([]);
    const config = jobs.filter((j) => j.model.id === MODELS[0] && j.workload === 'cpu-chat-short');
    expect(config).toHaveLength(3);
    const others = jobs.filter((j) => !config.includes(j));
    const missing = missingJobs({ jobs }, [...others, config[0]!, config[0]!].map(resultFor));
    expect(missing).toHaveLength(1);
    expect(config).toContainEqual(missing[0]);
  });

  it('new llama.cpp releases (npm versions) only on a cpu GPU type', () => {
    const text = parseYaml(readFileSync(FLEET, 'utf8')) as { matrix: Array<{ name?: string; gpu_types: string[] }> };
    for (const entry of text.matrix) if (entry.name?.startsWith('CPU lane')) entry.gpu_types = ['cpu', 'h100-sxm-80gb'];
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, toYaml(text));
    const error = (() => {
      try {
        loadFleet(bad);
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ServebenchError);
    expect((error as Error).message).toContain('h100-sxm-80gb: new releases of llamacpp come from npm (node-llama-cpp) and run as servebench\'s own CPU build');
  });
});
