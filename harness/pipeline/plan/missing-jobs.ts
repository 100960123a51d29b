/**
 * The other half of "every attempt produces a result": the planned jobs that left none, matched
 * to results by configuration and hardware (a failed run accounts for its job too).
 */
import { RunResultSchema, type RunResult } from '../../contract/result.ts';
import { isDummyModelRef, parseDummyModelRef } from '../../measure/models/real-shape-model.ts';
import { canonicalJson } from './plan.ts';
import { LATEST, type Plan, type PlannedJob, type PlannedModel } from './plan-file.ts';

export interface MissingOptions {
  /** Only results created at or after this instant count (ISO 8601), e.g. when the plan's run started. */
  readonly since?: string;
  /** Only results the fleet wrote (source: official); default true. */
  readonly officialOnly?: boolean;
}

/**
 * The hardware a result reports: named GPUs, or unknown: the runner records hardware: null both
 * for a CPU run and for a GPU run whose GPUs could not be read.
 */
type ResultGpu = { readonly kind: 'gpu'; readonly name: string; readonly count: number } | { readonly kind: 'unknown' };

function flagValue(argv: readonly string[], flag: string): string | null {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === flag) return argv[i + 1] ?? null;
    if (argv[i]!.startsWith(`${flag}=`)) return argv[i]!.slice(flag.length + 1);
  }
  return null;
}

/** The held values the model fields do not carry, as a run records them (run.parameters); null: not held. */
interface HeldFacts {
  readonly prefix_caching: boolean | null;
  readonly kv_budget_tokens: number | null;
  readonly sampling: string | null;
}

function plannedHeld(job: PlannedJob): HeldFacts {
  const held = job.held_equal;
  return {
    prefix_caching: held?.prefix_caching == null ? null : held.prefix_caching === 'on',
    kv_budget_tokens: held?.kv_budget_tokens ?? null,
    sampling: held?.sampling ?? null,
  };
}

function configKey(engine: string, model: PlannedModel | Omit<PlannedModel, 'tokenizer'>, held: HeldFacts, workload: string | null, load: unknown): string {
  return canonicalJson({
    engine,
    held,
    model: model.id,
    tp: model.tp,
    dtype: model.dtype,
    quantization: model.quantization,
    kv_cache_dtype: model.kv_cache_dtype,
    max_model_len: model.max_model_len,
    max_num_seqs: model.max_num_seqs,
    workload,
    load,
  });
}

interface ResultFacts {
  readonly key: string;
  /** The pinned version the run was planned for (its recorded --engine-version), or null: a "latest" job's run. */
  readonly pinned: string | null;
  readonly gpu: ResultGpu;
}

function resultFacts(result: RunResult): ResultFacts | null {
  const run = result.run;
  if (!run) return null;
  const p = run.parameters;
  const num = (value: unknown): number | null => (typeof value === 'number' ? value : typeof value === 'string' && value !== '' && Number.isFinite(Number(value)) ? Number(value) : null);
  const str = (value: unknown): string | null => (value === undefined || value === null ? null : String(value));
  const model = {
    id: run.model.id,
    tp: num(p['tensor_parallel']) ?? 1,
    dtype: run.model.dtype,
    quantization: run.model.quantization,
    kv_cache_dtype: str(p['kv_cache_dtype']),
    max_model_len: num(p['max_model_len']),
    max_num_seqs: num(p['max_num_seqs']),
  };
  const gpus = run.hardware?.gpus ?? [];
  const gpu: ResultGpu = gpus.length > 0 ? { kind: 'gpu', name: gpus[0]!.name, count: gpus.length } : { kind: 'unknown' };
  const held: HeldFacts = {
    prefix_caching: typeof p['prefix_caching'] === 'boolean' ? p['prefix_caching'] : null,
    kv_budget_tokens: num(p['kv_budget_tokens']),
    sampling: str(p['sampling']),
  };
  return {
    key: configKey(run.engine.name, model, held, result.workload.name, result.workload.spec.load),
    // The planned job's --engine-version is in the recorded command (a "latest" job passes none),
    // also when the server never answered /version; the version the server reports is not the
    // job's (a "latest" image reports its release, which a pinned job of that release also has).
    pinned: flagValue(result.harness.command, '--engine-version'),
    gpu,
  };
}

/**
 * The model as the run records it. A dummy model (--model dummy:qwen3-0.6b:Q4_K_M, the CPU lane)
 * is recorded by its real model's name and the file's quantization (dummy/Qwen3-0.6B, Q4_K_M),
 * not by the reference the job passed.
 */
function recordedModel(model: PlannedModel): PlannedModel {
  if (!isDummyModelRef(model.id)) return model;
  const ref = parseDummyModelRef(model.id);
  return { ...model, id: ref.arch.modelId, quantization: ref.quantization, dtype: null };
}

function namedGpuMatches(job: PlannedJob, gpu: { readonly name: string; readonly count: number }): boolean {
  const names = [job.gpu.name, ...job.gpu.aliases].map((n) => n.toLowerCase());
  return job.gpu.vendor !== 'cpu' && names.includes(gpu.name.toLowerCase()) && gpu.count === job.gpu.count;
}

/**
 * The planned jobs no result accounts for: the job never started, or died before `servebench
 * run` could write even a failed result. A result matches a job on engine, version, model and
 * its serve parameters (those its entry held equal too), workload and effective load, and GPU type (the reported GPU name and
 * count). The version is the job's, as the run recorded it: a result whose command has
 * --engine-version V matches only the jobs pinned to V, one without it only the "latest" jobs
 * (whatever release their image turned out to be). The runner reads the GPUs before launching,
 * so a failed launch names them too. A result without hardware is a CPU run, or a GPU run whose
 * GPUs could not be read (or an older result): it matches a CPU job first, then, last, any GPU
 * job of its configuration that the results naming their GPUs left over.
 * Each result accounts for one job; repeats of a job are fine.
 */
export function missingJobs(plan: Pick<Plan, 'jobs'>, results: readonly unknown[], options: MissingOptions = {}): PlannedJob[] {
  const since = options.since === undefined ? null : Date.parse(options.since);
  const facts = results
    .map((raw) => RunResultSchema.safeParse(raw))
    .filter((parsed) => parsed.success)
    .map((parsed) => parsed.data)
    .filter((r) => r.kind === 'run' && (options.officialOnly === false || r.source === 'official') && (since === null || Date.parse(r.created_at) >= since))
    .map(resultFacts)
    .filter((f) => f !== null);
  const keys = plan.jobs.map((job) => configKey(job.engine, recordedModel(job.model), plannedHeld(job), job.workload, job.load));
  const found = new Set<number>();
  const used = new Set<number>();
  const account = (f: number, fits: (job: PlannedJob) => boolean): void => {
    const fact = facts[f]!;
    if (used.has(f)) return;
    const open = plan.jobs.findIndex(
      (job, i) => !found.has(i) && keys[i] === fact.key && (fact.pinned === null ? job.version === LATEST : job.version === fact.pinned) && fits(job),
    );
    if (open < 0) return;
    found.add(open);
    used.add(f);
  };
  facts.forEach((fact, f) => {
    const gpu = fact.gpu;
    if (gpu.kind === 'gpu') account(f, (job) => namedGpuMatches(job, gpu));
  });
  facts.forEach((fact, f) => {
    if (fact.gpu.kind === 'unknown') account(f, (job) => job.gpu.vendor === 'cpu');
  });
  facts.forEach((fact, f) => {
    if (fact.gpu.kind === 'unknown') account(f, (job) => job.gpu.vendor !== 'cpu');
  });
  return plan.jobs.filter((_, i) => !found.has(i));
}
