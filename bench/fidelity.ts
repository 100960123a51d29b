/**
 * bench:fidelity: how far the client's numbers are from what the server did, per request, on a
 * clock both processes share (CLOCK_MONOTONIC). The sim runs in its own process on CPU 1, the
 * client on CPU 0. For each concurrency: the median and p99 of (measured − true) TTFT and TPOT,
 * where true TTFT = the sim's write of the first token − the client's send, and true TPOT comes
 * from the sim's token writes alone. tests/load/fidelity.timing.test.ts asserts the medians; this
 * prints and records them (bench/results/fidelity-*.json), and doubles as a calibration recipe.
 *
 * Usage: npm run bench:fidelity
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeNewFileAtomic } from '../harness/lib/io/atomic-write.ts';
import { normalizeLoadOptions } from '../harness/measure/load/load-options.ts';
import { runLoad } from '../harness/measure/load/run-load.ts';
import { requestTimings } from '../harness/measure/metrics/summarize.ts';
import { percentileSorted } from '../harness/measure/metrics/stats.ts';
import { pinProcess } from '../harness/lib/process/cpu-affinity.ts';
import { spawnSim } from '../harness/lib/process/spawn-cli.ts';
import { monotonicOriginMs, type GroundTruthDocument } from '../harness/engines/sim/ground-truth.ts';

const SIM_ARGS = ['--decode-base-ms', '10', '--decode-per-seq-ms', '0.05', '--prefill-tokens-per-s', '50000'];
const POINTS = [
  { concurrency: 1, prompts: 30 },
  { concurrency: 64, prompts: 512 },
  { concurrency: 256, prompts: 1536 },
];

function summary(errors: number[]): { median_ms: number; p99_ms: number; max_ms: number } {
  const sorted = Float64Array.from(errors).sort();
  const round = (x: number): number => Number(x.toFixed(3));
  return { median_ms: round(percentileSorted(sorted, 50)), p99_ms: round(percentileSorted(sorted, 99)), max_ms: round(sorted[sorted.length - 1]!) };
}

pinProcess(process.pid, '0');
const sim = await spawnSim(SIM_ARGS, { cpu: 1 });
const clientOrigin = monotonicOriginMs();
const points = [];
try {
  for (const { concurrency, prompts } of POINTS) {
    await fetch(`${sim.url}/ground-truth`, { method: 'DELETE' });
    const config = normalizeLoadOptions(
      { endpoint: sim.url, model: 'sim-model', 'input-len': '64', 'output-len': '24', 'num-prompts': String(prompts), concurrency: String(concurrency), warmup: String(Math.min(concurrency, 64)), 'no-progress': true },
      {},
    );
    const run = await runLoad(config, { signal: new AbortController().signal, keepRecords: true });
    const truth = (await (await fetch(`${sim.url}/ground-truth`)).json()) as GroundTruthDocument;
    const byId = new Map(truth.requests.map((t) => [t.request_id, t]));
    const shift = clientOrigin - truth.monotonic_origin_ms;
    const ttft: number[] = [];
    const tpot: number[] = [];
    for (const record of run.records[0]!) {
      const t = byId.get(record.requestId)!;
      const measured = requestTimings(record);
      ttft.push(measured.ttftMs - (t.first_token_ms! - (record.sendMs + shift)));
      tpot.push(measured.tpotMs! - (t.token_write_ms.at(-1)! - t.token_write_ms[0]!) / (t.completion_tokens - 1));
    }
    const point = { concurrency, requests: prompts, ttft_error: summary(ttft), tpot_error: summary(tpot), client: run.result.points[0]!.client };
    process.stderr.write(`${JSON.stringify(point)}\n`);
    points.push(point);
  }
} finally {
  await sim.stop();
}
const createdAt = new Date().toISOString();
const file = join(fileURLToPath(new URL('./results', import.meta.url)), `fidelity-${createdAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}.json`);
await writeNewFileAtomic(file, `${JSON.stringify({ benchmark: 'fidelity', created_at: createdAt, node: process.version, sim_args: SIM_ARGS, points }, null, 2)}\n`);
process.stdout.write(`wrote ${file}\n`);
