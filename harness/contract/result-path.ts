/**
 * Where a run's result lands in results/: a path derived from its content, so the same file
 * always goes to the same place and two runs never collide:
 * results/<yyyy-mm-dd>/<engine>/<model>/<hardware>/<workload>-<sha256 of the JSON, 12 hex>.json
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { RunResult } from './result.ts';

/** Lower-case letters, digits, dots and dashes only: safe in every filesystem and URL. */
export function slug(text: string): string {
  const cleaned = text
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return cleaned.slice(0, 80) || 'unknown';
}

/** The hardware part of the path: "<count>x-<gpu name>" with GPUs, else "cpu-<cpus>x-<cpu model>". */
export function hardwareLabel(result: RunResult): string {
  const run = result.run;
  if (!run) return 'endpoint';
  const gpus = run.hardware?.gpus ?? [];
  return gpus.length > 0 ? `${gpus.length}x-${gpus[0]!.name}` : `cpu-${run.host.cpus}x-${run.host.cpu_model}`;
}

/** `digest`: the file's sha256 in hex, when the caller already has it. */
export function resultRelativePath(result: RunResult, json: string, digest: string = createHash('sha256').update(json).digest('hex')): string {
  const hardware = hardwareLabel(result);
  const day = result.created_at.slice(0, 10);
  const engine = slug(result.run?.engine.name ?? 'endpoint');
  const model = slug(result.run?.model.id.split('/').slice(-2).join('-') ?? result.target.model);
  const workload = slug(result.workload.name ?? 'command-line');
  return join(day, engine, model, slug(hardware), `${workload}-${digest.slice(0, 12)}.json`);
}
