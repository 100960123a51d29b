/**
 * Synthetic engines for ab's tests: the real sim (a process on 127.0.0.1, launched per arm run as
 * engines/sim.yaml launches it), playing the release ab asks for, with a planted change of speed
 * from 1.3.0 on: every cost 1.5 times as large, so output throughput falls to 1/1.5 (−33%).
 * Decode steps of 3 ms instead of the sim's 8 keep each arm run near 2 s (most of it the launch
 * and the fidelity probe's 16 × 16 greedy tokens).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AbResult } from '../../harness/measure/ab/ab-result.ts';
import { SIM_COMMAND, writeSimEngineVariant } from '../run/sim-engine-spec.ts';

export const PLANTED_AT = '1.3.0';
export const PLANTED_FACTOR = 1.5;

/** Writes the planted sim's spec into a fresh folder; `runNoise`: the sim's launch-to-launch σ (0: every launch alike). */
export function plantedSim(runNoise = 0): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-ab-engine-'));
  return writeSimEngineVariant(dir, {
    name: 'sim-planted',
    description: `synthetic, the sim with every cost ×${PLANTED_FACTOR} from ${PLANTED_AT} on${runNoise > 0 ? `, launch noise σ ${runNoise}` : ''}`,
    command: [...SIM_COMMAND, '--performance-changes', `${PLANTED_AT}:${PLANTED_FACTOR}`, '--decode-base-ms', '3', '--run-noise', String(runNoise)],
    versioned: true,
  });
}

/** The run flags every ab test gives: one load point of the smoke scenario, exact lengths from the word tokenizer. */
export const ONE_POINT = ['--model', 'sim-model', '--workload', 'smoke', '--concurrency', '2', '--tokenizer', 'tests/fixtures/tokenizer-words'];

export function outFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'sb-ab-out-')), 'ab.json');
}

export function readAb(path: string): AbResult {
  return JSON.parse(readFileSync(path, 'utf8')) as AbResult;
}
