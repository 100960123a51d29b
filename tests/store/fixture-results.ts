/**
 * A SYNTHETIC results folder with known structure, for the compile and regress tests:
 * one scenario (synthetic/llama-8b on 1× "Synthetic H100", workload chat, c=1 and c=8),
 * - vllm 1.0.0: 3 runs in January; vllm 1.1.0: 3 runs in February, planted 15% slower
 *   (TTFT and TPOT × 1/0.85, so throughput × 0.85);
 * - sglang 2.0.0 and 2.1.0: one run each, same speed (noise only).
 * Per-run noise: exp(N(0, 0.02)) on all latencies. Nothing here was measured.
 * Every run says `source: official` (as the fleet's would): only official runs make the ranked
 * releases, so a test of community runs adds its own next to these.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURE_CONFIGURATION as base, syntheticResult, writeResult, type SyntheticRun } from '../../bench/lib/synthetic-results.ts';

export const PLANTED_FACTOR = 1 / 0.85;


export function fixtureRuns(plantedFactor = PLANTED_FACTOR): SyntheticRun[] {
  const runs: SyntheticRun[] = [];
  for (let i = 0; i < 3; i++) runs.push({ ...base, engine: 'vllm', version: '1.0.0', date: new Date(Date.UTC(2026, 0, 10 + i, 3)), seed: 100 + i });
  for (let i = 0; i < 3; i++) runs.push({ ...base, engine: 'vllm', version: '1.1.0', tpotMs: base.tpotMs * plantedFactor, ttftMs: base.ttftMs * plantedFactor, date: new Date(Date.UTC(2026, 1, 10 + i, 3)), seed: 200 + i });
  runs.push({ ...base, engine: 'sglang', version: '2.0.0', tpotMs: 9, date: new Date(Date.UTC(2026, 0, 15, 3)), seed: 300 });
  runs.push({ ...base, engine: 'sglang', version: '2.1.0', tpotMs: 9, date: new Date(Date.UTC(2026, 1, 15, 3)), seed: 301 });
  return runs;
}

/** Writes the fixture; returns the relative paths in the order of fixtureRuns(). */
export function writeFixture(dir: string, plantedFactor = PLANTED_FACTOR): string[] {
  return fixtureRuns(plantedFactor).map((run) => writeResult(dir, syntheticResult(run)));
}

/** Prices of "Synthetic H100": $2 from 2026-01-01, $3 from 2026-02-01 (SYNTHETIC). */
export function writeFixturePrices(dir: string): string {
  const path = join(dir, 'fixture-prices.yaml');
  writeFileSync(
    path,
    [
      'name: fixture-prices',
      'description: SYNTHETIC prices for tests',
      'tier: test',
      'prices:',
      '  - { gpu: synthetic h100, usd_per_gpu_hour: 2, provider: test, source: "https://example.invalid/a", effective_from: 2026-01-01 }',
      '  - { gpu: synthetic h100, usd_per_gpu_hour: 3, provider: test, source: "https://example.invalid/b", effective_from: 2026-02-01 }',
      '  - { gpu: h100, usd_per_gpu_hour: 99, provider: shorter match loses, source: "https://example.invalid/c", effective_from: 2025-01-01 }',
      '',
    ].join('\n'),
  );
  return path;
}
