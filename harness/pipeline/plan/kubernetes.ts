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
 */
import { isAbsolute, posix } from 'node:path';
import { stringify } from 'yaml';
import { usageError } from '../../lib/errors.ts';
import type { Fleet } from '../../contract/fleet.ts';
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

/** A Kubernetes label value: ≤ 63 of [A-Za-z0-9-_.], alphanumeric at both ends. */
export function labelValue(text: string): string {
  return text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
}

function jobManifest(job: PlannedJob, fleet: Fleet): Record<string, unknown> {
  const k8s = fleet.schedulers.kubernetes!;
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
          initContainers: [
            {
              name: 'harness',
              image: k8s.harness_image,
              command: ['sh', '-c', `cp -a /opt/servebench/. ${HARNESS_DIR}/ && cp "$(command -v node)" ${HARNESS_DIR}/.node`],
              volumeMounts: [{ name: 'harness', mountPath: HARNESS_DIR }],
            },
            // A locally built engine (llama.cpp from a node-llama-cpp release) is built in the harness
            // image (git, cmake and a C++ compiler needed there) into a cache the run container reads.
            ...(job.build
              ? [
                  {
                    name: 'build',
                    image: k8s.harness_image,
                    workingDir: HARNESS_DIR,
                    command: [`${HARNESS_DIR}/.node`, '--import', 'tsx', 'harness/cli.ts', ...job.build.argv],
                    env: [{ name: 'SERVEBENCH_CACHE', value: BUILD_CACHE_DIR }],
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
              image: job.image ?? k8s.harness_image,
              workingDir: HARNESS_DIR,
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

export function renderKubernetes(plan: Plan, fleet: Fleet): string {
  if (!fleet.schedulers.kubernetes) throw usageError('the fleet file has no schedulers.kubernetes block (namespace, harness_image, results_claim); add one to plan Kubernetes Jobs');
  return plan.jobs.map((job) => stringify(jobManifest(job, fleet), { lineWidth: 0, aliasDuplicateObjects: false })).join('---\n');
}
