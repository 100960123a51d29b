/**
 * `servebench plan`, the pure part: fleet file × trigger (the nightly set, new releases) →
 * every run declared up front, one job per run (engine × version × model × GPU type × workload),
 * each with a stable id (a hash of its configuration, so re-planning gives the same ids), the
 * exact `servebench run` argv and the result it is expected to leave (missing-jobs.ts names the
 * planned jobs that left none; job-command.ts is what each runs under its scheduler).
 *
 * GPU isolation, per scheduler (one run owns one GPU set of `tp` GPUs):
 * - GitHub Actions: a self-hosted runner does not isolate GPUs, so each runner is registered for
 *   one GPU set, with a label naming the set size (gpus-<tp>) and that set's indices in its .env
 *   (SERVEBENCH_GPUS=2,3); the job passes them on as --gpu.
 * - SLURM: the scheduler allocates the GPUs (--gres). The Docker daemon runs outside the job's
 *   cgroup and would see every GPU, so a docker launch is handed the allocation as
 *   --gpu "$SLURM_JOB_GPUS" (global ids); a process launch passes nothing and inherits SLURM's
 *   CUDA_VISIBLE_DEVICES (cgroup-relative ids, which --gpu would get wrong).
 * - Kubernetes: the device plugin puts exactly `tp` GPUs into the pod, and a pod cannot start
 *   containers of its own, so the run uses the process launcher inside the engine's image (the
 *   harness is copied in by an init container) and passes no --gpu.
 */
import { createHash } from 'node:crypto';
import { renderServeCommand } from '../../measure/engines/render.ts';
import { ServebenchError, usageError } from '../../lib/errors.ts';
import { slug } from '../../contract/result-path.ts';
import { officialImage, officialImageProblem, renderImageTag, type Engine, type ServeParameter, type ServeParameters } from '../../contract/engine.ts';
import type { FleetEngine, FleetModel, FleetWorkload, GpuType, MatrixEntry } from '../../contract/fleet.ts';
import { NOTHING_HELD, type HeldEqual } from '../../contract/held-equal.ts';
import { describeHeldEqualProblem, entryHeldEqual, heldArgv, heldEqualProblem, holdsAnything } from './held-equal.ts';
import type { Workload } from '../../contract/workload.ts';
import { LATEST, type Launcher, type NewRelease, PLAN_FORMAT, type Plan, type PlanInputs, type PlannedJob, type PlannedModel, type PlannedRelease, type SkippedConfiguration, type Trigger } from './plan-file.ts';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** JSON with object keys sorted, so a hash does not depend on the order fields were written in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Whether the engine has a way to set a common parameter (what renderServeCommand would accept). */
export function engineTakes(engine: Engine, name: ServeParameter): boolean {
  if (engine.serve.unsupported[name] !== undefined) return false;
  return (
    engine.serve.flags[name] !== undefined ||
    engine.serve.joined?.items[name] !== undefined ||
    engine.config_file?.items[name] !== undefined ||
    engine.serve.held_always[name] !== undefined ||
    engine.serve.command.some((piece) => piece.includes(`{${name}}`))
  );
}

const HF_ID = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;

/** A fleet model as planned; the batch cap and KV dtype come from what the entry holds equal, where it holds them. */
export function plannedModel(model: FleetModel, held: HeldEqual = NOTHING_HELD): PlannedModel {
  return {
    id: model.id,
    tp: model.tp,
    dtype: model.dtype ?? null,
    quantization: model.quantization ?? null,
    kv_cache_dtype: held.kv_cache_dtype ?? model.kv_cache_dtype ?? null,
    max_model_len: model.max_model_len ?? null,
    max_num_seqs: typeof held.max_num_seqs === 'number' ? held.max_num_seqs : (model.max_num_seqs ?? null),
    // A Hugging Face id names its tokenizer too: prompts then have exact token lengths.
    tokenizer: model.tokenizer === undefined ? (HF_ID.test(model.id) ? model.id : null) : model.tokenizer,
  };
}

/**
 * The serve parameters `servebench run` will derive from the planned flags; rendering them here
 * finds a parameter the engine cannot take when planning, not at 3 a.m. on the GPU.
 * Returns the reason the engine cannot run this model, or null.
 */
export function modelProblem(engine: Engine, model: PlannedModel): string | null {
  if (model.tp > 1 && !engineTakes(engine, 'tensor_parallel')) {
    return `engine ${engine.name} cannot run tp ${model.tp}: ${engine.serve.unsupported.tensor_parallel ?? 'it has no tensor-parallel flag'}`;
  }
  const params: ServeParameters = { model: model.id };
  if (engineTakes(engine, 'tensor_parallel')) params.tensor_parallel = model.tp;
  if (model.dtype !== null) params.dtype = model.dtype;
  if (model.quantization !== null) params.quantization = model.quantization;
  if (model.kv_cache_dtype !== null) params.kv_cache_dtype = model.kv_cache_dtype;
  if (model.max_model_len !== null) params.max_model_len = model.max_model_len;
  if (model.max_num_seqs !== null) params.max_num_seqs = model.max_num_seqs;
  try {
    renderServeCommand(engine, params);
    return null;
  } catch (error) {
    if (error instanceof ServebenchError) return error.message;
    throw error;
  }
}

/**
 * Which image a run uses, and so which launcher. Override (by GPU type id, then vendor) → the
 * release's image from detect → the official template. The official images are CUDA builds, so
 * an AMD type needs an override; a CPU type, or an engine without any image, launches a process.
 */
export function resolveImage(
  engine: Engine,
  settings: FleetEngine | undefined,
  type: GpuType,
  version: string,
  releaseImage: string | null = null,
): { image: string | null; launcher: Launcher } | { problem: string } {
  if (type.vendor === 'cpu') return { image: null, launcher: 'process' };
  const override = settings?.images[type.id] ?? settings?.images[type.vendor];
  if (override) {
    // Rendered as detect renders the image it checks (the two must name the same image).
    if (version !== LATEST) return { image: renderImageTag(override.template, version), launcher: 'docker' };
    if (override.latest === null) return { problem: `${engine.name} has no pinned version and its ${type.id} image (${override.template}) names no latest: pin engines.${engine.name}.version or give images.*.latest` };
    return { image: override.latest, launcher: 'docker' };
  }
  if (engine.image === null) return { image: null, launcher: 'process' };
  if (type.vendor === 'amd') {
    return { problem: `${engine.name}'s official image (${engine.image.repository}) is a CUDA build: give engines.${engine.name}.images.${type.id} (or .amd) with its ROCm image` };
  }
  if (version === LATEST) return { image: `${engine.image.repository}:${settings?.latest_tag ?? 'latest'}`, launcher: 'docker' };
  // A release of another numbering (llama.cpp's node-llama-cpp versions) names no image: refused, never rendered into a tag.
  const problem = officialImageProblem(engine, version);
  if (problem !== null) return { problem };
  return { image: releaseImage ?? officialImage(engine, version), launcher: 'docker' };
}


/** The load the run will record: the workload's own, or the fleet's override applied as `servebench run` applies it. */
export function effectiveLoad(workload: Workload, ref: FleetWorkload): Workload['load'] {
  if (typeof ref === 'string') return workload.load;
  if (ref.concurrency) return { concurrency: [...ref.concurrency] };
  if (ref.rates) return 'rates' in workload.load ? { ...workload.load, rates: [...ref.rates] } : { rates: [...ref.rates], arrival: 'poisson', burstiness: 1 };
  return workload.load;
}

function workloadName(ref: FleetWorkload): string {
  return typeof ref === 'string' ? ref : ref.name;
}

/** The effective loads of an entry's workloads (those loaded; a missing one is loadFleet's to report). */
export function entryLoads(entry: MatrixEntry, workloads: ReadonlyMap<string, Workload>): Array<Workload['load']> {
  return entry.workloads.flatMap((ref) => {
    const workload = workloads.get(workloadName(ref));
    return workload ? [effectiveLoad(workload, ref)] : [];
  });
}

interface JobConfig {
  readonly engine: Engine;
  readonly version: string;
  readonly image: string | null;
  readonly launcher: Launcher;
  readonly model: PlannedModel;
  readonly type: GpuType;
  readonly workload: string;
  readonly ref: FleetWorkload;
  readonly load: Workload['load'];
  readonly resultsDir: string;
  /** What the entry holds equal (the batch cap already a number). */
  readonly held: HeldEqual;
}

function runArgv(c: JobConfig): string[] {
  const m = c.model;
  const argv = ['run', '--engine', c.engine.name, '--launcher', c.launcher];
  if (c.version !== LATEST) argv.push('--engine-version', c.version);
  // --engine-version alone names the official image; any other image is given whole.
  if (c.launcher === 'docker' && c.image !== null && (c.version === LATEST || c.image !== officialImage(c.engine, c.version))) argv.push('--image', c.image);
  argv.push('--model', m.id);
  if (engineTakes(c.engine, 'tensor_parallel')) argv.push('--tp', String(m.tp));
  if (m.dtype !== null) argv.push('--dtype', m.dtype);
  if (m.quantization !== null) argv.push('--quantization', m.quantization);
  if (m.kv_cache_dtype !== null) argv.push('--kv-cache-dtype', m.kv_cache_dtype);
  if (m.max_model_len !== null) argv.push('--max-model-len', String(m.max_model_len));
  if (m.max_num_seqs !== null) argv.push('--max-num-seqs', String(m.max_num_seqs));
  argv.push(...heldArgv(c.held));
  argv.push('--workload', c.workload);
  if (m.tokenizer !== null) argv.push('--tokenizer', m.tokenizer);
  if (typeof c.ref !== 'string' && c.ref.concurrency) argv.push('--concurrency', c.ref.concurrency.join(','));
  if (typeof c.ref !== 'string' && c.ref.rates) argv.push('--rate', c.ref.rates.join(','));
  argv.push('--source', 'official', '--results-dir', c.resultsDir);
  return argv;
}

function resultKey(c: JobConfig): string {
  const hardware = c.type.vendor === 'cpu' ? 'cpu-*' : slug(`${c.model.tp}x-${c.type.name}`);
  return [slug(c.engine.name), slug(c.model.id.split('/').slice(-2).join('-')), hardware, slug(c.workload)].join('/');
}

function jobName(engine: string, gpuType: string, id: string): string {
  const base = `sb-${engine}-${gpuType}`.replace(/[^a-z0-9-]+/g, '-').slice(0, 63 - id.length - 1).replace(/-+$/, '');
  return `${base}-${id}`;
}

/**
 * The build a job needs first, or null: an engine servebench builds itself (local_build), launched
 * as a process, is built from the release named by the job's version (node-llama-cpp's, for
 * llama.cpp), or from the installed node-llama-cpp for an unpinned nightly ("latest"), which is what
 * `servebench run` without --engine-version runs.
 */
export function buildFor(engine: Engine, version: string, launcher: Launcher): { argv: string[]; key: string } | null {
  if (engine.local_build !== 'llamacpp' || launcher !== 'process') return null;
  if (version === LATEST) return { argv: ['llamacpp', 'build'], key: 'llamacpp-installed' };
  return { argv: ['llamacpp', 'build', '--node-llama-cpp', version], key: `llamacpp-node-llama-cpp-${version}` };
}

function makeJob(c: JobConfig, trigger: Trigger, timeLimit: number, repeat: number, repeats: number): PlannedJob {
  const identity = {
    engine: c.engine.name,
    version: c.version,
    image: c.image,
    launcher: c.launcher,
    model: c.model,
    gpu_type: c.type.id,
    workload: c.workload,
    load: c.load,
    // Absent when nothing is held: a fleet without held_equal keeps the ids it always had.
    ...(holdsAnything(c.held) ? { held_equal: c.held } : {}),
  };
  // The first run keeps the id a single run always had; each further one hashes its number in.
  const id = sha256(canonicalJson(repeat > 1 ? { ...identity, repeat } : identity)).slice(0, 12);
  const build = buildFor(c.engine, c.version, c.launcher);
  return {
    id,
    name: jobName(c.engine.name, c.type.id, id),
    title: `${c.engine.name} ${c.version} · ${c.model.id} tp${c.model.tp} · ${c.type.id} · ${c.workload}${repeats > 1 ? ` · run ${repeat} of ${repeats}` : ''}`,
    triggers: [trigger],
    ...identity,
    gpu: { vendor: c.type.vendor, name: c.type.name, aliases: [...c.type.aliases], count: c.type.vendor === 'cpu' ? 0 : c.model.tp },
    time_limit_min: timeLimit,
    argv: runArgv(c),
    result_key: resultKey(c),
    ...(repeat > 1 ? { repeat } : {}),
    ...(build ? { build } : {}),
  };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function jobOrder(a: PlannedJob, b: PlannedJob): number {
  return (
    compareText(a.engine, b.engine) ||
    compareText(a.version, b.version) ||
    compareText(a.gpu_type, b.gpu_type) ||
    compareText(a.model.id, b.model.id) ||
    a.model.tp - b.model.tp ||
    compareText(a.workload, b.workload) ||
    (a.repeat ?? 1) - (b.repeat ?? 1) ||
    compareText(a.id, b.id)
  );
}

/** Expands the fleet for the triggers asked for. The fleet must have passed loadFleet's checks. */
export function expandPlan(inputs: PlanInputs): Plan {
  const { fleet, engines, workloads } = inputs;
  const engineFilter = new Set(inputs.engineFilter ?? []);
  const typeFilter = new Set(inputs.gpuTypeFilter ?? []);
  const types = new Map(fleet.gpu_types.map((t) => [t.id, t]));
  const jobs = new Map<string, PlannedJob>();
  const notes: string[] = [];
  const skipped: SkippedConfiguration[] = [];

  /** Jobs added, and GPU types left out for the release's images (not a reason for "no matrix entry"). */
  const add = (engineName: string, version: string, trigger: Trigger, release: NewRelease | null): { added: number; left: number } => {
    let added = 0;
    let left = 0;
    const releaseImage = release?.image ?? null;
    fleet.matrix.forEach((entry, i) => {
      if (!entry.engines.includes(engineName) || !(trigger === 'nightly' ? entry.nightly : entry.new_versions)) return;
      if (engineFilter.size > 0 && !engineFilter.has(engineName)) return;
      const engine = engines.get(engineName);
      if (!engine) throw usageError(`${inputs.fleetFile}: matrix.${i}.engines: engine "${engineName}" was not loaded`);
      const resolvedHeld = entryHeldEqual(fleet, entry, entryLoads(entry, workloads));
      if ('problem' in resolvedHeld) throw usageError(`${inputs.fleetFile}: matrix.${i}: ${resolvedHeld.problem}`);
      const { held } = resolvedHeld;
      const heldProblem = heldEqualProblem(engine, held);
      if (heldProblem !== null) throw usageError(`${inputs.fleetFile}: matrix.${i}: ${describeHeldEqualProblem(entry, engineName, heldProblem)}`);
      for (const typeId of entry.gpu_types) {
        if (typeFilter.size > 0 && !typeFilter.has(typeId)) continue;
        const type = types.get(typeId)!;
        const resolved = resolveImage(engine, fleet.engines[engineName], type, version, releaseImage);
        if ('problem' in resolved) throw usageError(`${inputs.fleetFile}: matrix.${i}: ${resolved.problem}`);
        if (inputs.skipBuilds && buildFor(engine, version, resolved.launcher) !== null) continue;
        if (release !== null) {
          const listed = resolved.image === null ? undefined : release.images?.find((image) => image.image === resolved.image);
          // A retry: the other GPU types were planned when the release was first reported.
          if (release.images_only && listed?.published !== true) {
            left += 1;
            continue;
          }
          // `docker pull` would fail and leave a failed official result in place of a measurement.
          if (listed?.published === false) {
            left += 1;
            if (!skipped.some((s) => s.engine === engineName && s.version === version && s.gpu_type === typeId)) {
              const reason = `its image ${listed.image} is not published yet; detect keeps the release pending for it and reports it again once it is out`;
              skipped.push({ engine: engineName, version, gpu_type: typeId, image: listed.image, reason });
              notes.push(`${engineName} ${version} (new): ${typeId} skipped: ${reason}`);
            }
            continue;
          }
        }
        for (const fleetModel of entry.models) {
          const model = plannedModel(fleetModel, held);
          for (const ref of entry.workloads) {
            const name = workloadName(ref);
            const workload = workloads.get(name);
            if (!workload) throw usageError(`${inputs.fleetFile}: matrix.${i}.workloads: workload "${name}" was not loaded`);
            for (let repeat = 1; repeat <= entry.repeats; repeat++) {
              const job = makeJob(
                { engine, version, ...resolved, model, type, workload: name, ref, load: effectiveLoad(workload, ref), resultsDir: fleet.results_dir, held },
                trigger,
                entry.time_limit_min,
                repeat,
                entry.repeats,
              );
              const existing = jobs.get(job.id);
              // The same configuration (and run number) from two entries or both triggers is one run.
              if (existing) {
                if (!existing.triggers.includes(trigger)) jobs.set(job.id, { ...existing, triggers: [...existing.triggers, trigger].sort() });
                if (existing.time_limit_min < job.time_limit_min) jobs.set(job.id, { ...jobs.get(job.id)!, time_limit_min: job.time_limit_min });
              } else {
                jobs.set(job.id, job);
              }
              added += 1;
            }
          }
        }
      }
    });
    return { added, left };
  };

  if (inputs.nightly) {
    const nightlyEngines = [...new Set(fleet.matrix.filter((m) => m.nightly).flatMap((m) => m.engines))].sort(compareText);
    for (const name of nightlyEngines) add(name, fleet.engines[name]?.version ?? LATEST, 'nightly', null);
  }
  const seen = new Map<string, PlannedRelease>();
  for (const release of inputs.releases) {
    const key = `${release.engine}@${release.version}`;
    if (seen.has(key)) continue;
    seen.set(key, {
      engine: release.engine,
      version: release.version,
      ...(release.tag ? { tag: release.tag } : {}),
      ...(release.release_url ? { release_url: release.release_url } : {}),
      ...(release.published_at !== undefined ? { published_at: release.published_at } : {}),
    });
    if (!engines.has(release.engine) && !(inputs.knownEngines ?? []).includes(release.engine)) {
      notes.push(`${release.engine} ${release.version} (new): no engine of that name in engines/; nothing planned`);
      continue;
    }
    if (engineFilter.size > 0 && !engineFilter.has(release.engine)) continue;
    if (release.images_only) {
      notes.push(`${release.engine} ${release.version} (new): its fleet images are out now: planned only on the GPU types that run them (the others were planned when it was first reported)`);
    }
    const { added, left } = add(release.engine, release.version, 'new', release);
    if (added === 0 && left === 0) {
      notes.push(`${release.engine} ${release.version} (new): no matrix entry with new_versions: true runs ${release.engine}${typeFilter.size > 0 ? ' on the selected GPU types' : ''}; nothing planned`);
    }
  }

  const sorted = [...jobs.values()].sort(jobOrder);
  return {
    format: PLAN_FORMAT,
    plan_id: sha256(sorted.map((j) => j.id).join('\n')).slice(0, 12),
    fleet: { file: inputs.fleetFile, sha256: inputs.fleetSha256 },
    inputs: {
      nightly: inputs.nightly,
      new: [...seen.values()],
      engines: [...engineFilter].sort(compareText),
      gpu_types: [...typeFilter].sort(compareText),
    },
    jobs: sorted,
    notes,
    skipped,
  };
}
