/**
 * One job in a worker thread: the module that does the job is loaded in the worker, finds its job
 * under its own key in workerData, and posts its outcome once. Compile's CPU-bound steps (checking
 * result files, writing the llm-d download) spread over the cores this way.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export interface WorkerLimits {
  /**
   * A bounded heap makes the worker collect garbage early instead of growing toward the default
   * limit: a compile's peak memory is its workers plus DuckDB.
   */
  readonly maxOldGenerationSizeMb: number;
  readonly maxYoungGenerationSizeMb: number;
}

/** Runs `module`'s job `key` in a new worker; rejects when the worker throws or exits without an outcome. */
export function runWorkerJob<Job, Outcome>(module: URL, key: string, job: Job, limits: WorkerLimits): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(module, { workerData: { [key]: job }, resourceLimits: { ...limits } });
    worker.once('message', (outcome: Outcome) => resolve(outcome));
    worker.once('error', reject);
    worker.once('exit', (code) => (code !== 0 ? reject(new Error(`${key} worker exited with ${code}`)) : undefined));
  });
}

/**
 * In a worker started by runWorkerJob for `key`: runs `work` on the job and posts its outcome.
 * Anywhere else (the main thread, a worker for another key) it does nothing.
 */
export function serveWorkerJob<Job, Outcome>(key: string, work: (job: Job) => Outcome | Promise<Outcome>): void {
  const job = isMainThread ? undefined : (workerData as Record<string, Job> | null)?.[key];
  if (job === undefined) return;
  void Promise.resolve(work(job)).then((outcome) => parentPort!.postMessage(outcome));
}
