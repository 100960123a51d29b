/**
 * The plan file (`servebench plan --out`): the jobs of one night, each with its run's argv and the
 * result it is expected to leave. Written by plan, read by the scheduler emitters and by collect.
 */
import type { Engine } from '../../contract/engine.ts';
import type { Fleet, GpuType } from '../../contract/fleet.ts';
import type { HeldEqual } from '../../contract/held-equal.ts';
import type { Workload } from '../../contract/workload.ts';

export const PLAN_FORMAT = 'servebench-plan/1';
/** How a job invokes the harness from the servebench checkout. */
export const HARNESS_ARGV = ['npx', 'tsx', 'harness/cli.ts'] as const;
/** The version an unpinned nightly runs: the engine's newest image (the result records the real version). */
export const LATEST = 'latest';
/** GitHub's hard limit: "A matrix will generate a maximum of 256 jobs per workflow run." */
export const GITHUB_MATRIX_LIMIT = 256;

export type Scheduler = 'github' | 'kubernetes' | 'slurm';
export type Trigger = 'nightly' | 'new';
export type Launcher = 'docker' | 'process';

/** One release from `servebench detect` (its `new` array); only engine and version are required. */
export interface NewRelease {
  readonly engine: string;
  readonly version: string;
  readonly tag?: string | null | undefined;
  readonly image?: string | null | undefined;
  readonly release_url?: string | null | undefined;
  readonly published_at?: string | null | undefined;
  /** The fleet's other images of the release (ROCm builds, …) and whether each is published: a job needing a missing one is skipped. */
  readonly images?: ReadonlyArray<{ readonly image: string; readonly published: boolean }> | undefined;
  /** A retry for the fleet images published since the release was reported: only the GPU types that run one of them are planned. */
  readonly images_only?: boolean | undefined;
}

/** A GPU type of a new release not planned because its image is not published yet. */
export interface SkippedConfiguration {
  readonly engine: string;
  readonly version: string;
  readonly gpu_type: string;
  readonly image: string;
  readonly reason: string;
}

/** A release in a plan's inputs: engine and version, and detect's tag, release page and date when it gave them. */
export interface PlannedRelease {
  readonly engine: string;
  readonly version: string;
  readonly tag?: string;
  readonly release_url?: string;
  readonly published_at?: string | null;
}

export interface PlannedModel {
  readonly id: string;
  readonly tp: number;
  readonly dtype: string | null;
  readonly quantization: string | null;
  readonly kv_cache_dtype: string | null;
  readonly max_model_len: number | null;
  readonly max_num_seqs: number | null;
  readonly tokenizer: string | null;
}

export interface PlannedJob {
  /** 12 hex of the sha256 of the configuration: the same configuration always gets the same id. */
  readonly id: string;
  /** RFC 1123 label (≤ 63, lower case): the Kubernetes Job and SLURM job name. */
  readonly name: string;
  readonly title: string;
  readonly triggers: readonly Trigger[];
  readonly engine: string;
  /** The release, or "latest" for an unpinned nightly (the image's newest). */
  readonly version: string;
  readonly image: string | null;
  readonly launcher: Launcher;
  readonly model: PlannedModel;
  readonly gpu_type: string;
  readonly gpu: { readonly vendor: GpuType['vendor']; readonly name: string; readonly aliases: readonly string[]; readonly count: number };
  readonly workload: string;
  /** The scenario's effective load (its own sweep, or the fleet's override), as results record it in workload.spec.load. */
  readonly load: Workload['load'];
  /** What its matrix entry holds equal for every engine (fleet held_equal; absent when nothing is): part of the job's identity, and passed to run. */
  readonly held_equal?: HeldEqual;
  readonly time_limit_min: number;
  /** `servebench run` arguments on a host (the first is "run"); schedulers add their GPU selection (see commandFor). */
  readonly argv: readonly string[];
  /** Where the result lands under the results folder: <engine>/<model>/<hardware>/<workload> (then -<hash>.json under a day). */
  readonly result_key: string;
  /** Which run of its configuration this is (2, 3, …; absent for the first or only one): an entry's `repeats` plans each configuration that many times. */
  readonly repeat?: number;
  /**
   * The engine is built before it runs (engines with local_build, launched as a process: llama.cpp
   * from a node-llama-cpp release): the `servebench` arguments of the build (the first is
   * "llamacpp"), and the key of what it builds, which jobs of one lane share.
   */
  readonly build?: { readonly argv: readonly string[]; readonly key: string };
}

export interface Plan {
  readonly format: typeof PLAN_FORMAT;
  /** Hash of every job id: two plans with the same jobs have the same id. */
  readonly plan_id: string;
  readonly fleet: { readonly file: string; readonly sha256: string };
  readonly inputs: {
    readonly nightly: boolean;
    /** The releases asked for, with what detect said of each (collect --detect-state puts one back to pending with it). */
    readonly new: ReadonlyArray<PlannedRelease>;
    readonly engines: readonly string[];
    readonly gpu_types: readonly string[];
  };
  readonly jobs: readonly PlannedJob[];
  /** What was asked for but planned no job (e.g. a new release of an engine no matrix entry runs). */
  readonly notes: readonly string[];
  /**
   * The GPU types of new releases left out because detect found their image unpublished (each
   * also a note). detect keeps such a release pending for that image and reports it again, with
   * images_only, once it is out.
   */
  readonly skipped: readonly SkippedConfiguration[];
}

export interface PlanInputs {
  readonly fleet: Fleet;
  readonly fleetFile: string;
  readonly fleetSha256: string;
  readonly engines: ReadonlyMap<string, Engine>;
  /** Every engine in engines/, to tell a release of an engine servebench lacks from one the fleet does not run. */
  readonly knownEngines?: readonly string[];
  readonly workloads: ReadonlyMap<string, Workload>;
  readonly nightly: boolean;
  readonly releases: readonly NewRelease[];
  /** Empty: no filter. */
  readonly engineFilter?: readonly string[];
  readonly gpuTypeFilter?: readonly string[];
  /** Leave out the jobs that build their engine first (the CPU lane; the workflow's dry run). */
  readonly skipBuilds?: boolean;
}
