/**
 * The fleet file (fleet/fleet.yaml): the GPU types the official fleet owns, how each scheduler
 * reaches them (GitHub Actions runner labels, Kubernetes resources and node selectors, SLURM
 * partitions and gres), and the benchmark matrix `servebench plan` expands into one job per run.
 * Cross-references inside the file (matrix → GPU types, tp → GPUs per host) are checked here;
 * references to other files (engines/, workloads/, fleet/prices.yaml) when the file is loaded.
 */
import { z } from 'zod';
import { HeldEqualSchema, resolveHeldEqual } from './held-equal.ts';

/** Lower-case letters, digits and dashes: safe in job names, labels and paths. */
const slugId = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes, e.g. h100-sxm-80gb');

/** Release names end up in image tags, labels and job names: no spaces or shell characters. */
export const VersionSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/, 'a release name of letters, digits and . _ + - (at most 64), e.g. 0.11.0');

/** Values that go into `#SBATCH` lines and label values unquoted: sbatch does not parse shell quoting. */
const plainWord = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits and . _ - only (it is written unquoted into #SBATCH lines)');

const sbatchPath = z.string().regex(/^[A-Za-z0-9._/-]+$/, 'a path of letters, digits and . _ / - (written unquoted into an #SBATCH line)');

const k8sLabelValue = z
  .string()
  .max(63)
  .regex(/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/, 'a Kubernetes label value: at most 63 letters, digits, - _ . starting and ending alphanumeric');
const k8sLabelKey = z
  .string()
  .regex(/^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/, 'a Kubernetes label key, e.g. nvidia.com/gpu.product');
const rfc1123Label = z
  .string()
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'an RFC 1123 label: lower-case letters, digits and dashes, at most 63');

/**
 * An OCI image reference as registries and kubelets read it (distribution/reference's grammar):
 * [registry[:port]/]repository[:tag][@sha256:<64 hex>]. Only sha256 digests: what registries hand out.
 */
const REGISTRY_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const IMAGE_REFERENCE = new RegExp(
  `^((?:${REGISTRY_COMPONENT}(?:\\.${REGISTRY_COMPONENT})*(?::[0-9]+)?/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::([A-Za-z0-9_][A-Za-z0-9._-]{0,127}))?(?:@(sha256:[a-f0-9]{64}))?$`,
);
export const IMAGE_DIGEST = /^sha256:[a-f0-9]{64}$/;

export interface ImageReference {
  /** registry/repository, without tag or digest. */
  readonly repository: string;
  readonly tag: string | null;
  /** "sha256:…": the reference is pinned (a tag next to it is ignored by the runtime). */
  readonly digest: string | null;
}

/** The parts of an image reference, or null when it is not one. */
export function parseImageReference(reference: string): ImageReference | null {
  const m = IMAGE_REFERENCE.exec(reference);
  return m ? { repository: m[1]!, tag: m[2] ?? null, digest: m[3] ?? null } : null;
}

export const GPU_VENDORS = ['nvidia', 'amd', 'cpu'] as const;

export const GpuTypeSchema = z
  .object({
    id: slugId.describe('How the matrix and the --gpu-type filter name this type'),
    name: z
      .string()
      .min(1)
      .describe('The GPU name exactly as nvidia-smi / amd-smi report it: results name their hardware by it (run.hardware.gpus[].name)'),
    aliases: z.array(z.string().min(1)).default([]).describe('Other names the tools report for the same GPU (amd-smi market names vary by vendor image)'),
    vendor: z.enum(GPU_VENDORS).describe('cpu: no GPU at all (the embedded engine on a CPU runner)'),
    gpus_per_host: z.number().int().positive().describe('GPUs in one host; a host runs gpus_per_host / tp isolated GPU sets at once'),
    price: z
      .string()
      .min(1)
      .nullable()
      .describe('The `gpu` of the fleet/prices.yaml entry this type is priced at (the tier is that file\'s `tier`); null: not priced'),
    github: z
      .object({
        labels: z.array(z.string().regex(/^[A-Za-z0-9._-]+$/, 'a runner label: letters, digits and . _ -')).min(1),
        set_label: z
          .string()
          .regex(/^[A-Za-z0-9._-]*\{n\}[A-Za-z0-9._-]*$/, 'a label template containing {n}, e.g. gpus-{n}')
          .nullable()
          .default('gpus-{n}')
          .describe('Label naming the GPU-set size a self-hosted runner owns ({n} = tp); null for hosted runners'),
      })
      .strict(),
    kubernetes: z
      .object({
        resource: z.enum(['nvidia.com/gpu', 'amd.com/gpu']).nullable().describe('The device plugin resource; null on CPU'),
        node_selector: z.record(k8sLabelKey, k8sLabelValue).default({}),
      })
      .strict()
      .optional(),
    slurm: z
      .object({
        partition: plainWord,
        gres: plainWord.nullable().default(null).describe('The gres type (gpu:<gres>:<n>); null: untyped gpu:<n> (or none on CPU)'),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((t) => t.price === null || [t.name, ...t.aliases].some((n) => n.toLowerCase().includes(t.price!.toLowerCase())), {
    message: 'compile prices a run by a substring of its GPU name: price must be part of name (or an alias), e.g. H100 in "NVIDIA H100 80GB HBM3"',
    path: ['price'],
  })
  .refine((t) => t.kubernetes === undefined || t.kubernetes.resource === ({ nvidia: 'nvidia.com/gpu', amd: 'amd.com/gpu', cpu: null } as const)[t.vendor], {
    message: 'the resource must match the vendor: nvidia → nvidia.com/gpu, amd → amd.com/gpu, cpu → null',
    path: ['kubernetes', 'resource'],
  });

const ImageOverrideSchema = z
  .object({
    template: z.string().regex(/^\S+:[^\s:/]*\{version\}[^\s:/]*$/, 'repository:tag with {version} in the tag, e.g. vllm/vllm-openai-rocm:v{version}'),
    latest: z.string().regex(/^\S+:\S+$/, 'repository:tag').nullable().default(null).describe('The image for the nightly set when no version is pinned; null: pin a version'),
  })
  .strict();

export const FleetEngineSchema = z
  .object({
    version: VersionSchema.optional().describe('The version the nightly set runs; absent: the image named by latest_tag'),
    latest_tag: z.string().regex(/^[A-Za-z0-9._-]+$/).default('latest').describe("Tag of the official image's newest release, for an unpinned nightly"),
    images: z
      .record(z.string(), ImageOverrideSchema)
      .default({})
      .describe('Images other than the official (CUDA) one, by GPU type id or vendor (the id wins): e.g. ROCm builds'),
  })
  .strict();

const positiveInt = z.number().int().positive();

export const FleetModelSchema = z
  .object({
    id: z.string().min(1).describe('Hugging Face id or path, as --model takes it'),
    tp: positiveInt.default(1).describe('Tensor-parallel size: the run needs tp GPUs'),
    dtype: z.string().min(1).optional(),
    quantization: z.string().min(1).optional(),
    kv_cache_dtype: z.string().min(1).optional(),
    max_model_len: positiveInt.optional(),
    max_num_seqs: positiveInt.optional(),
    tokenizer: z.string().min(1).nullable().optional().describe('For exact prompt lengths; default: the id when it is a Hugging Face id; null: none'),
  })
  .strict();

export const FleetWorkloadSchema = z.union([
  z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a workload name from workloads/'),
  z
    .object({
      name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a workload name from workloads/'),
      concurrency: z.array(positiveInt).min(1).optional().describe("Closed-loop sweep replacing the workload's own"),
      rates: z.array(z.union([z.number().positive(), z.literal('inf')])).min(1).optional().describe("Open-loop rates replacing the workload's own"),
    })
    .strict()
    .refine((w) => !(w.concurrency && w.rates), { message: 'give concurrency or rates, not both', path: ['rates'] }),
]);

export const MatrixEntrySchema = z
  .object({
    name: z.string().min(1).optional().describe('For people reading the file'),
    engines: z.array(slugId).min(1),
    models: z.array(FleetModelSchema).min(1),
    workloads: z.array(FleetWorkloadSchema).min(1),
    gpu_types: z.array(slugId).min(1),
    held_equal: HeldEqualSchema.partial()
      .optional()
      .describe("Overrides the fleet's held_equal for this entry, field by field; null: not held here (say why in a comment)"),
    nightly: z.boolean().default(false).describe("In the nightly set, at each engine's pinned (or latest) version"),
    new_versions: z.boolean().default(false).describe('Run when `servebench detect` reports a new release of one of its engines'),
    time_limit_min: positiveInt.default(120).describe('Wall-clock limit of one job (SLURM --time, Kubernetes activeDeadlineSeconds, Actions timeout-minutes)'),
    repeats: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(1)
      .describe('Runs of each configuration per night (each its own job and result): repeats give regress its Welch test instead of the pooled noise band'),
  })
  .strict()
  .refine((m) => m.nightly || m.new_versions, { message: 'this entry never runs: set nightly: true and/or new_versions: true', path: ['nightly'] });

export const FleetSchema = z
  .object({
    description: z.string().min(1),
    results_dir: z.string().min(1).default('results').describe('--results-dir of every run, relative to the servebench checkout'),
    schedulers: z
      .object({
        kubernetes: z
          .object({
            namespace: rfc1123Label.default('servebench'),
            harness_image: z
              .string()
              .refine((ref) => parseImageReference(ref) !== null, 'an image reference: REPOSITORY@sha256:<64 hex digits> (pinned), or REPOSITORY:TAG')
              .describe(
                'Image with the servebench checkout (production dependencies and tsx installed) at /opt/servebench and node on PATH (built from the Dockerfile; docs/harness-image.md). '
                  + 'A tag or a digest here; `plan --format kubernetes` takes only a digest (REPOSITORY@sha256:…), from this field or from $SERVEBENCH_HARNESS_IMAGE',
              ),
            results_claim: rfc1123Label.describe('PersistentVolumeClaim the results are written to'),
            hf_cache_claim: rfc1123Label.nullable().default(null).describe('PersistentVolumeClaim for the Hugging Face cache; null: an emptyDir'),
            hf_token_secret: rfc1123Label.nullable().default(null).describe('Secret with key HF_TOKEN, for gated models'),
          })
          .strict()
          .optional(),
        slurm: z
          .object({
            workdir: sbatchPath
              .nullable()
              .default(null)
              .describe('The servebench checkout on the compute nodes (#SBATCH --chdir); null: the directory sbatch was run from'),
            log_dir: sbatchPath.default('logs/slurm').describe('Job logs (#SBATCH --output), relative to the working directory'),
            account: plainWord.nullable().default(null),
          })
          .strict()
          .optional(),
      })
      .strict()
      .default({}),
    gpu_types: z.array(GpuTypeSchema).min(1),
    engines: z.record(slugId, FleetEngineSchema).default({}).describe('Per engine: the pinned nightly version and image overrides'),
    held_equal: HeldEqualSchema.partial()
      .optional()
      .describe('What every engine of every matrix entry runs with, so a comparison measures engines, not their defaults (harness/contract/held-equal.ts)'),
    matrix: z.array(MatrixEntrySchema).min(1),
  })
  .strict()
  .superRefine((fleet, ctx) => {
    const types = new Map<string, z.infer<typeof GpuTypeSchema>>();
    fleet.gpu_types.forEach((type, i) => {
      if (types.has(type.id)) ctx.addIssue({ code: 'custom', message: `gpu type "${type.id}" is declared twice; keep one`, path: ['gpu_types', i, 'id'] });
      types.set(type.id, type);
    });
    fleet.matrix.forEach((entry, i) => {
      const held = resolveHeldEqual(fleet.held_equal, entry.held_equal);
      entry.models.forEach((model, k) => {
        // One source for a held value: a model's own would make one entry's engines differ from the fleet's rule.
        for (const name of ['max_num_seqs', 'kv_cache_dtype'] as const) {
          if (held[name] !== null && model[name] !== undefined) {
            ctx.addIssue({ code: 'custom', message: `${name} is held equal for every engine (held_equal.${name}: ${held[name]}); remove it here, or override held_equal.${name} for this entry`, path: ['matrix', i, 'models', k, name] });
          }
        }
        if (held.kv_budget_tokens !== null && model.max_model_len !== undefined && held.kv_budget_tokens < model.max_model_len) {
          ctx.addIssue({
            code: 'custom',
            message: `held_equal.kv_budget_tokens ${held.kv_budget_tokens} cannot hold one ${model.max_model_len}-token context (max_model_len): every engine would refuse to start; raise the budget or lower max_model_len`,
            path: ['matrix', i, 'models', k, 'max_model_len'],
          });
        }
      });
      entry.gpu_types.forEach((id, j) => {
        const type = types.get(id);
        if (!type) {
          ctx.addIssue({ code: 'custom', message: `unknown gpu type "${id}"; declared: ${[...types.keys()].join(', ')}`, path: ['matrix', i, 'gpu_types', j] });
          return;
        }
        entry.models.forEach((model, k) => {
          if (type.vendor === 'cpu' && model.tp !== 1) {
            ctx.addIssue({ code: 'custom', message: `gpu type ${id} has no GPUs: tp must be 1`, path: ['matrix', i, 'models', k, 'tp'] });
          } else if (model.tp > type.gpus_per_host || type.gpus_per_host % model.tp !== 0) {
            ctx.addIssue({
              code: 'custom',
              message: `tp ${model.tp} does not split a ${type.gpus_per_host}-GPU ${id} host into whole GPU sets; use a divisor of ${type.gpus_per_host}`,
              path: ['matrix', i, 'models', k, 'tp'],
            });
          }
        });
      });
    });
  });

export type Fleet = z.infer<typeof FleetSchema>;
export type GpuType = z.infer<typeof GpuTypeSchema>;
export type FleetEngine = z.infer<typeof FleetEngineSchema>;
export type FleetModel = z.infer<typeof FleetModelSchema>;
export type FleetWorkload = z.infer<typeof FleetWorkloadSchema>;
export type MatrixEntry = z.infer<typeof MatrixEntrySchema>;
