/**
 * The noise band of a lane: for every configuration measured more than once (engine, version,
 * model, workload, hardware, load point), the coefficient of variation across its repeats
 * (sample standard deviation over the mean) of each headline metric, then per metric the median
 * and the largest over configurations, with the lane's wall time (first run start to last run
 * end). Reads result files as validate accepts them (the others are named and left out).
 *
 *   npx tsx scripts/lane-noise.ts results/2026-12-02            # one night's lane
 *   npx tsx scripts/lane-noise.ts results --since 2026-12-03T18:00:00Z --json
 *
 * Exit status: 0 a band was computed; 1 no configuration was repeated; 2 bad usage.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Point, RunResult } from '../harness/contract/result.ts';
import { describeLoad } from '../harness/measure/load/describe-load.ts';
import { checkResultText } from '../harness/store/check-result.ts';
import { listResultFiles } from '../harness/store/result-files.ts';

/** The metrics whose noise is reported: the leaderboard's headline ones. */
const METRICS: ReadonlyArray<readonly [string, (point: Point) => number | null]> = [
  ['output_throughput', (p) => p.metrics.output_throughput],
  ['request_throughput', (p) => p.metrics.request_throughput],
  ['ttft_ms_p50', (p) => p.metrics.ttft_ms?.p50 ?? null],
  ['tpot_ms_p50', (p) => p.metrics.tpot_ms?.p50 ?? null],
  ['e2el_ms_p50', (p) => p.metrics.e2el_ms?.p50 ?? null],
];

export interface NoiseBand {
  readonly files: number;
  readonly refused: number;
  readonly configurations: number;
  readonly wall_s: number | null;
  readonly metrics: Record<string, { configurations: number; median_cv: number | null; max_cv: number | null }>;
}

function coefficientOfVariation(values: readonly number[]): number | null {
  if (values.length < 2) return null;
  const mean = values.reduce((a, v) => a + v, 0) / values.length;
  if (mean === 0) return null;
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1);
  return Math.sqrt(variance) / mean;
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function noiseBand(root: string, since: string | null): NoiseBand {
  const runs: RunResult[] = [];
  let refused = 0;
  for (const file of listResultFiles(root).files) {
    const checked = checkResultText(file.relativePath, readFileSync(file.absolutePath, 'utf8'), null);
    if (checked.result === null) {
      refused += 1;
      continue;
    }
    if (since !== null && checked.result.created_at < since) continue;
    runs.push(checked.result);
  }
  const groups = new Map<string, Point[]>();
  let first = Infinity;
  let last = -Infinity;
  for (const result of runs) {
    const run = result.run!;
    for (const point of result.points) {
      const key = [run.engine.name, run.engine.version, run.model.id, result.workload.name, run.hardware?.gpus[0]?.name ?? run.host.cpu_model, describeLoad(point.load)].join('\u0000');
      groups.set(key, [...(groups.get(key) ?? []), point]);
      const start = Date.parse(point.started_at);
      first = Math.min(first, start);
      last = Math.max(last, start + point.metrics.duration_s * 1000);
    }
  }
  const repeated = [...groups.values()].filter((points) => points.length >= 2);
  const metrics: NoiseBand['metrics'] = {};
  for (const [name, value] of METRICS) {
    const cvs = repeated
      .map((points) => coefficientOfVariation(points.map(value).filter((v): v is number => v !== null && v > 0)))
      .filter((cv): cv is number => cv !== null);
    metrics[name] = { configurations: cvs.length, median_cv: median(cvs), max_cv: cvs.length === 0 ? null : Math.max(...cvs) };
  }
  return { files: runs.length, refused, configurations: repeated.length, wall_s: Number.isFinite(first) ? (last - first) / 1000 : null, metrics };
}

const USAGE = 'Usage: npx tsx scripts/lane-noise.ts RESULTS_DIR [--since ISO_TIME] [--json]';

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { since: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } } });
  if (values.help) {
    console.log(`${USAGE}\n\nThe coefficient of variation across repeats of each headline metric, per configuration; its median and largest over the lane.`);
    process.exit(0);
  }
  if (positionals.length !== 1) {
    console.error(USAGE);
    process.exit(2);
  }
  const band = noiseBand(positionals[0]!, values.since ?? null);
  if (values.json) console.log(JSON.stringify(band, null, 2));
  else {
    console.log(`${band.files} results (${band.refused} refused), ${band.configurations} repeated configurations, wall ${band.wall_s === null ? '–' : `${(band.wall_s / 60).toFixed(1)} min`} (first point start to last point end)`);
    const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
    for (const [name, m] of Object.entries(band.metrics)) console.log(`  ${name.padEnd(20)} CV median ${pct(m.median_cv).padStart(6)}  max ${pct(m.max_cv).padStart(6)}  over ${m.configurations}`);
  }
  process.exit(band.configurations === 0 ? 1 : 0);
}
