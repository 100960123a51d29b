/** Shared by load-generator tests: run `load` programmatically against a sim and fetch its ground truth. */
import type { RawOptions } from '../../harness/lib/cli/options.ts';
import { normalizeLoadOptions } from '../../harness/measure/load/load-options.ts';
import { runLoad, type LoadRun } from '../../harness/measure/load/run-load.ts';
import type { GroundTruthRecord } from '../../harness/engines/sim/ground-truth.ts';

export async function loadAgainst(url: string, flags: RawOptions): Promise<LoadRun> {
  const config = normalizeLoadOptions({ endpoint: url, model: 'sim-model', 'no-progress': true, ...flags }, {});
  return runLoad(config, { signal: new AbortController().signal, keepRecords: true });
}

export async function groundTruth(url: string): Promise<GroundTruthRecord[]> {
  const response = await fetch(`${url}/ground-truth`);
  return ((await response.json()) as { requests: GroundTruthRecord[] }).requests;
}

export async function resetGroundTruth(url: string): Promise<void> {
  await fetch(`${url}/ground-truth`, { method: 'DELETE' });
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = (sorted.length - 1) / 2;
  return (sorted[Math.floor(mid)]! + sorted[Math.ceil(mid)]!) / 2;
}
