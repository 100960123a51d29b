/**
 * The plan as Kubernetes Jobs (batch/v1), one per run, as multi-document YAML for
 * `kubectl create -f -`. Each Job is named by metadata.generateName (the job's name and a dash;
 * the API server appends 5 random characters), so every night's create makes new Jobs: a fixed
 * name would meet the last night's finished Job (kept ttlSecondsAfterFinished) and `kubectl
 * apply` would find it "unchanged" and run nothing. The stable job id is the label
 * servebench.dev/job-id (`kubectl get jobs -l servebench.dev/job-id=<id>`).
 * The device plugin isolates the GPUs (limits: <vendor>/gpu: tp) and a pod cannot start
 * containers of its own, so the run's container is the engine's image and `servebench run`
 * launches the engine in it as a process (no --gpu: the pod sees only its GPUs). The harness
 * (checkout and node) is copied in from the harness image by an init container. backoffLimit 0:
 * a failed attempt is recorded as a failed result, never silently retried.
 *
 * The harness image is pinned by digest (REPOSITORY@sha256:…), from the fleet file or from
 * $SERVEBENCH_HARNESS_IMAGE: a Job created from a tag (:main) pulls whatever the tag names when its
 * pod starts, hours or nights after the plan, so a night's results could not say which harness made
 * them. A tag is refused, not warned about: the plan is piped into `kubectl create` by a scheduler
 * nobody watches. The harness image runs as its non-root user (the Dockerfile's USER, uid 1000):
 * the copy, the llama.cpp build and the runs that use the harness image itself (CPU jobs); an
 * engine's own image runs as its image says (root in the official vLLM and SGLang images).
 */
import { isAbsolute, posix } from 'node:path';
import { stringify } from 'yaml';
import { usageError } from '../../lib/errors.ts';
import { IMAGE_DIGEST, parseImageReference, type Fleet } from '../../contract/fleet.ts';
import { argvFor, buildCommand, shellCommand } from './job-command.ts';
import type { Plan, PlannedJob } from './plan-file.ts';

const HARNESS_DIR = '/servebench';
/** The API server appends this many random characters to metadata.generateName. */
const GENERATED_SUFFIX = 5;
/** An RFC 1123 label, which a Job's name must be (its pods' label job-name takes it too). */
const MAX_NAME = 63;

/**
 * The Job's metadata.generateName: "<job name>-", shortened (its engine/GPU-type part, never the
 * id) so that the name the API server makes, with its random suffix, is a valid RFC 1123 label.
 */
export function generateNameFor(job: Pick<PlannedJob, 'name' | 'id'>): string {
  const room = MAX_NAME - GENERATED_SUFFIX - 1;
  if (job.name.length <= room) return `${job.name}-`;
  const base = job.name.endsWith(`-${job.id}`) ? job.name.slice(0, -job.id.length - 1) : job.name;
  const kept = job.name.endsWith(`-${job.id}`) ? job.id : '';
  const trimmed = base.slice(0, room - (kept ? kept.length + 1 : 0)).replace(/-+$/, '');
  return `${kept ? `${trimmed}-${kept}` : trimmed}-`;
}
const HF_CACHE_DIR = '/hf-cache';
/** $SERVEBENCH_CACHE of a job that builds its engine: the build init container writes it, the run reads it. */
const BUILD_CACHE_DIR = '/servebench-cache';
/**
 * The harness image's own $SERVEBENCH_CACHE (the Dockerfile's), where an image built with
 * LLAMACPP=1 keeps the llama.cpp it built: the build init container starts from it, so a run of
 * that release (the unpinned nightly's) finds its build instead of compiling again.
 */
export const IMAGE_CACHE_DIR = '/opt/servebench-cache';
/** The harness image's user (the official node image's "node"): numeric, so runAsNonRoot can be checked. */
export const HARNESS_UID = 1000;
/** Overrides schedulers.kubernetes.harness_image for one plan: REPOSITORY@sha256:… or just sha256:…. */
export const HARNESS_IMAGE_ENV = 'SERVEBENCH_HARNESS_IMAGE';

/** A container of the harness image: its non-root user, nothing more than it needs (the restricted Pod Security Standard). */
const HARNESS_SECURITY = {
  runAsNonRoot: true,
  runAsUser: HARNESS_UID,
  runAsGroup: HARNESS_UID,
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

/**
 * The harness image the Jobs use, pinned by digest: $SERVEBENCH_HARNESS_IMAGE when set (a whole
 * reference, or a bare sha256:… for the fleet file's repository), else the fleet file's
 * harness_image; a tag is a usage error that names the file, the field and the fix.
 */
export function harnessImageFor(fleet: Fleet, fleetFile: string, env: NodeJS.ProcessEnv = process.env): string {
  const configured = fleet.schedulers.kubernetes!.harness_image;
  const repository = parseImageReference(configured)?.repository ?? configured;
  const where = 'the image workflow prints the digest of each image it pushes: .github/workflows/image.yml, docs/harness-image.md';
  const override = env[HARNESS_IMAGE_ENV]?.trim();
  if (override) {
    if (/^sha256:/i.test(override) && !IMAGE_DIGEST.test(override)) throw usageError(`$${HARNESS_IMAGE_ENV}: "${override}" is not a digest: sha256: and 64 lower-case hex digits`);
    const reference = IMAGE_DIGEST.test(override) ? `${repository}@${override}` : override;
    const parsed = parseImageReference(reference);
    if (parsed === null) throw usageError(`$${HARNESS_IMAGE_ENV}: "${override}" is not an image reference; give REPOSITORY@sha256:<64 hex digits>, or sha256:<64 hex digits> for ${repository}`);
    if (parsed.digest === null) {
      throw usageError(`$${HARNESS_IMAGE_ENV}: "${override}" is a tag, which moves: the Jobs would run whatever it names when their pods start. Give ${parsed.repository}@sha256:<digest>, or just sha256:<digest> (${where})`);
    }
    return reference;
  }
  if (parseImageReference(configured)?.digest) return configured;
  throw usageError(
    `${fleetFile}: schedulers.kubernetes.harness_image: "${configured}" is a tag, which moves: a Job pulls whatever it names when its pod starts (a night later, another harness), so Kubernetes Jobs take the harness image by digest only. ` +
      `Set harness_image to ${repository}@sha256:<digest>, or ${HARNESS_IMAGE_ENV}=sha256:<digest> (or a whole REPOSITORY@sha256:<digest>) for this plan (${where})`,
  );
}

/** A Kubernetes label value: ≤ 63 of [A-Za-z0-9-_.], alphanumeric at both ends. */
export function labelValue(text: string): string {
  return text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
}

function jobManifest(job: PlannedJob, fleet: Fleet, harnessImage: string): Record<string, unknown> {
  const k8s = fleet.schedulers.kubernetes!;
  // CPU jobs (the embedded engine, llama.cpp) run in the harness image itself, as its user.
  const runsInHarness = job.image === null;
  const type = fleet.gpu_types.find((t) => t.id === job.gpu_type);
  if (!type?.kubernetes) throw usageError(`gpu type ${job.gpu_type} has no kubernetes block in the fleet file; add one (resource, node_selector) or leave it out with --gpu-type`);
  const resultsPath = isAbsolute(fleet.results_dir) ? fleet.results_dir : posix.join(HARNESS_DIR, fleet.results_dir);
  const labels = {
    'app.kubernetes.io/name': 'servebench',
    'app.kubernetes.io/component': 'benchmark-run',
    'servebench.dev/job-id': job.id,
    'servebench.dev/engine': labelValue(job.engine),
    'servebench.dev/version': labelValue(job.version),
    'servebench.dev/gpu-type': labelValue(job.gpu_type),
  };
  const gpuLimits = type.kubernetes.resource === null ? {} : { [type.kubernetes.resource]: job.model.tp };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      generateName: generateNameFor(job),
      namespace: k8s.namespace,
      labels,
      annotations: {
        'servebench.dev/title': job.title,
        'servebench.dev/model': job.model.id,
        'servebench.dev/workload': job.workload,
        'servebench.dev/result-key': job.result_key,
        'servebench.dev/command': shellCommand(job, 'kubernetes'),
        ...(job.build ? { 'servebench.dev/build': buildCommand(job)! } : {}),
      },
    },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: job.time_limit_min * 60,
      ttlSecondsAfterFinished: 7 * 24 * 3600,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          ...(Object.keys(type.kubernetes.node_selector).length > 0 ? { nodeSelector: { ...type.kubernetes.node_selector } } : {}),
          // The volumes a harness-image run writes (results, caches) are made writable for its group.
          ...(runsInHarness ? { securityContext: { fsGroup: HARNESS_UID, fsGroupChangePolicy: 'OnRootMismatch' } } : {}),
          initContainers: [
            {
              name: 'harness',
              image: harnessImage,
              // cp -R, not -a: as a non-root user, preserving times or modes on the emptyDir itself
              // (root's) is not allowed, and cp -a fails on it.
              command: ['sh', '-c', `cp -R /opt/servebench/. ${HARNESS_DIR}/ && cp "$(command -v node)" ${HARNESS_DIR}/.node`],
              securityContext: HARNESS_SECURITY,
              volumeMounts: [{ name: 'harness', mountPath: HARNESS_DIR }],
            },
            // A locally built engine (llama.cpp from a node-llama-cpp release) is built in the harness
            // image (git, cmake and a C++ compiler needed there: the image built with LLAMACPP=1) into a
            // cache the run container reads, starting from the builds the image carries.
            ...(job.build
              ? [
                  {
                    name: 'build',
                    image: harnessImage,
                    workingDir: HARNESS_DIR,
                    command: [
                      'sh',
                      '-c',
                      `if [ -d ${IMAGE_CACHE_DIR}/llama.cpp ]; then mkdir -p "$SERVEBENCH_CACHE/llama.cpp" && cp -R ${IMAGE_CACHE_DIR}/llama.cpp/. "$SERVEBENCH_CACHE/llama.cpp/"; fi; exec "$@"`,
                      'build',
                      `${HARNESS_DIR}/.node`,
                      '--import',
                      'tsx',
                      'harness/cli.ts',
                      ...job.build.argv,
                    ],
                    env: [{ name: 'SERVEBENCH_CACHE', value: BUILD_CACHE_DIR }],
                    securityContext: HARNESS_SECURITY,
                    volumeMounts: [
                      { name: 'harness', mountPath: HARNESS_DIR },
                      { name: 'servebench-cache', mountPath: BUILD_CACHE_DIR },
                    ],
                  },
                ]
              : []),
          ],
          containers: [
            {
              name: 'run',
              image: job.image ?? harnessImage,
              workingDir: HARNESS_DIR,
              ...(runsInHarness ? { securityContext: HARNESS_SECURITY } : {}),
              command: [`${HARNESS_DIR}/.node`, '--import', 'tsx', 'harness/cli.ts', ...argvFor(job, 'kubernetes')],
              env: [
                { name: 'HF_HOME', value: HF_CACHE_DIR },
                ...(job.build ? [{ name: 'SERVEBENCH_CACHE', value: BUILD_CACHE_DIR }] : []),
                ...(k8s.hf_token_secret ? [{ name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: k8s.hf_token_secret, key: 'HF_TOKEN', optional: true } } }] : []),
              ],
              ...(Object.keys(gpuLimits).length > 0 ? { resources: { limits: gpuLimits } } : {}),
              volumeMounts: [
                { name: 'harness', mountPath: HARNESS_DIR },
                { name: 'results', mountPath: resultsPath },
                { name: 'hf-cache', mountPath: HF_CACHE_DIR },
                // Tensor parallelism shares tensors through /dev/shm (docker runs use --ipc host).
                { name: 'dshm', mountPath: '/dev/shm' },
                ...(job.build ? [{ name: 'servebench-cache', mountPath: BUILD_CACHE_DIR }] : []),
              ],
            },
          ],
          volumes: [
            { name: 'harness', emptyDir: {} },
            { name: 'results', persistentVolumeClaim: { claimName: k8s.results_claim } },
            k8s.hf_cache_claim ? { name: 'hf-cache', persistentVolumeClaim: { claimName: k8s.hf_cache_claim } } : { name: 'hf-cache', emptyDir: {} },
            { name: 'dshm', emptyDir: { medium: 'Memory' } },
            // The build and the models made from it, for this pod only: each Job builds once (minutes on a few cores).
            ...(job.build ? [{ name: 'servebench-cache', emptyDir: {} }] : []),
          ],
        },
      },
    },
  };
}

/** The Jobs, one YAML document each; env: where $SERVEBENCH_HARNESS_IMAGE is read. */
export function renderKubernetes(plan: Plan, fleet: Fleet, env: NodeJS.ProcessEnv = process.env): string {
  if (!fleet.schedulers.kubernetes) throw usageError('the fleet file has no schedulers.kubernetes block (namespace, harness_image, results_claim); add one to plan Kubernetes Jobs');
  const harnessImage = harnessImageFor(fleet, plan.fleet.file, env);
  return plan.jobs.map((job) => stringify(jobManifest(job, fleet, harnessImage), { lineWidth: 0, aliasDuplicateObjects: false })).join('---\n');
}
