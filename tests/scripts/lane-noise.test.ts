/**
 * scripts/lane-noise.ts: the coefficient of variation across repeats, per configuration and
 * metric, against the values computed by hand from the files. The results are SYNTHETIC
 * (bench/lib/synthetic-results.ts): three repeats of vllm 1.0.0 and three of 1.1.0, two sglang
 * releases measured once (no band), and a file validate refuses (counted, left out).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/contract/result.ts';
import { noiseBand } from '../../scripts/lane-noise.ts';
import { writeFixture } from '../store/fixture-results.ts';

const dir = mkdtempSync(join(tmpdir(), 'servebench-lane-noise-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const paths = writeFixture(dir);
writeFileSync(join(dir, 'broken.json'), '{"schema_version": 1');
const results = paths.map((p) => JSON.parse(readFileSync(join(dir, p), 'utf8')) as RunResult);

/** Sample CV, written out: sqrt(Σ(x−x̄)²/(n−1)) / x̄. */
function cv(values: number[]): number {
  const mean = values.reduce((a, v) => a + v, 0) / values.length;
  return Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1)) / mean;
}

describe('the lane noise band', () => {
  it('takes the CV across the repeats of each configuration and load, and the median and largest over them', () => {
    const band = noiseBand(dir, null);
    expect(band.files).toBe(results.length);
    expect(band.refused).toBe(1);
    const loads = results[0]!.points.length;
    // vllm 1.0.0 and 1.1.0, repeated three times each, at every load; sglang's single runs have no band.
    expect(band.configurations).toBe(2 * loads);
    const perConfig = (version: string, index: number) => cv(results.filter((r) => r.run!.engine.version === version).map((r) => r.points[index]!.metrics.ttft_ms!.p50));
    const cvs = ['1.0.0', '1.1.0'].flatMap((v) => Array.from({ length: loads }, (_, i) => perConfig(v, i))).sort((a, b) => a - b);
    const mid = cvs.length >> 1;
    expect(band.metrics['ttft_ms_p50']!.median_cv).toBeCloseTo(cvs.length % 2 ? cvs[mid]! : (cvs[mid - 1]! + cvs[mid]!) / 2, 12);
    expect(band.metrics['ttft_ms_p50']!.max_cv).toBeCloseTo(cvs.at(-1)!, 12);
    expect(band.metrics['ttft_ms_p50']!.configurations).toBe(2 * loads);
  });

  it('keeps only the results created from --since on, and has no band without repeats', () => {
    const latest = results.map((r) => r.created_at).sort().at(-1)!;
    const band = noiseBand(dir, latest);
    expect(band.files).toBe(1);
    expect(band.configurations).toBe(0);
    expect(band.metrics['output_throughput']!.median_cv).toBeNull();
  });
});
