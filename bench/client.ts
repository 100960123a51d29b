/**
 * bench:client: the load generator's own ceiling, so nobody mistakes the client's limit for the
 * server's. Not a test: it measures and writes JSON under bench/results/.
 *
 *  1. decode: SSE decoding + chunk reading in-process (ns per event), one event per read and
 *     sixteen per read, to show whether the parser is the bottleneck.
 *  2. ceiling: the sim with zero cost (tokens as fast as it can write them, several events per
 *     write) on CPU 1, the client on CPU 0: content events/s, client CPU per event, event-loop delay;
 *     and an open loop with 20,000 requests due at once under a cap of 2,000 in flight.
 *     Each ceiling point is also driven by a minimal Node client (bench/lib/minimal-client.ts):
 *     vs_minimal_client is its client CPU per content event over servebench's (> 1: servebench
 *     spends less per event; issue 27's goal: ≥ 2×).
 *  3. paced: 2,000 concurrent streams with the sim stepping every 400…20 ms (one event per
 *     stream per step: 5k…100k events/s offered, each event its own TCP write, as an engine at
 *     that batch size sends them): achieved rate, event-loop delay, saturation flag.
 *
 * Usage: npm run bench:client [-- --quick]
 */
import { readFileSync } from 'node:fs';
import { cpus, release } from 'node:os';
import { writeNewFileAtomic } from '../harness/lib/io/atomic-write.ts';
import { benchOutputPath } from './lib/output.ts';
import { harnessGit } from '../harness/measure/run/host.ts';
import { MINIMAL_TRANSPORTS, runMinimalClient, type MinimalClientReport, type MinimalTransport } from './lib/minimal-client.ts';
import { normalizeLoadOptions } from '../harness/measure/load/load-options.ts';
import { readChunk } from '../harness/measure/load/openai-chunk.ts';
import { runLoad } from '../harness/measure/load/run-load.ts';
import { createSseDecoder } from '../harness/measure/load/sse-decoder.ts';
import { pinProcess } from '../harness/lib/process/cpu-affinity.ts';
import { spawnSim } from '../harness/lib/process/spawn-cli.ts';
import type { Point } from '../harness/contract/result.ts';

const quick = process.argv.includes('--quick');
const CLIENT_CPU = 0;
const SIM_CPU = 1;

function processCpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function benchDecode(eventsPerRead: number, totalEvents: number): { ns_per_event: number; events_per_s: number } {
  const event = `data: ${JSON.stringify({
    id: 'cmpl-0123456789abcdef',
    object: 'text_completion',
    created: 1,
    model: 'sim-model',
    choices: [{ index: 0, text: ' token', logprobs: null, finish_reason: null }],
  })}\n\n`;
  const read = new TextEncoder().encode(event.repeat(eventsPerRead));
  let texts = 0;
  const decoder = createSseDecoder({
    onData: (data) => {
      const reading = readChunk(data);
      if (reading.kind === 'chunk' && reading.text !== '') texts += 1;
    },
    onError: () => {},
  });
  const reads = Math.ceil(totalEvents / eventsPerRead);
  for (let i = 0; i < 1000; i++) decoder.push(read); // JIT warmup
  const start = performance.now();
  for (let i = 0; i < reads; i++) decoder.push(read);
  const elapsedMs = performance.now() - start;
  if (texts < reads * eventsPerRead) throw new Error('decode bench lost events');
  const events = reads * eventsPerRead;
  return { ns_per_event: (elapsedMs * 1e6) / events, events_per_s: (events / elapsedMs) * 1000 };
}

interface PointReport {
  readonly concurrency: number;
  readonly output_len: number;
  readonly content_events_per_s: number;
  readonly client_cpu_percent: number;
  readonly client_cpu_us_per_event: number;
  readonly event_loop_delay_p99_ms: number;
  readonly event_loop_delay_max_ms: number;
  readonly saturated: boolean;
  readonly sim_cpu_percent: number;
  readonly failed: number;
}

async function measure(simArgs: string[], concurrency: number, outputLen: number, prompts: number, openLoopCap = false): Promise<PointReport> {
  const sim = await spawnSim(simArgs, { cpu: SIM_CPU });
  try {
    const config = normalizeLoadOptions(
      {
        endpoint: sim.url,
        model: 'sim-model',
        'input-len': '16',
        'output-len': String(outputLen),
        'num-prompts': String(prompts),
        ...(openLoopCap ? { rate: 'inf', 'max-concurrency': String(concurrency) } : { concurrency: String(concurrency) }),
        warmup: String(concurrency),
        'no-progress': true,
      },
      {},
    );
    const ticks0 = processCpuTicks(sim.pid);
    const wall0 = performance.now();
    const run = await runLoad(config, { signal: new AbortController().signal });
    const simCpu = ((processCpuTicks(sim.pid) - ticks0) * 10) / (performance.now() - wall0);
    const point: Point = run.result.points[0]!;
    const { client } = point;
    return {
      concurrency,
      output_len: outputLen,
      content_events_per_s: Math.round(client.content_events_per_s),
      client_cpu_percent: round(client.cpu_percent, 1),
      client_cpu_us_per_event: round(((client.cpu_percent / 100) * 1e6) / client.content_events_per_s, 2),
      event_loop_delay_p99_ms: round(client.event_loop_delay_p99_ms, 2),
      event_loop_delay_max_ms: round(client.event_loop_delay_max_ms, 2),
      saturated: client.saturated,
      sim_cpu_percent: round(simCpu * 100, 1),
      failed: point.metrics.failed,
    };
  } finally {
    await sim.stop();
  }
}

/** The same point driven by the minimal client (bench/lib/minimal-client.ts), warmed the same way, on a fresh sim. */
async function measureMinimal(transport: MinimalTransport, simArgs: string[], concurrency: number, outputLen: number, prompts: number): Promise<MinimalClientReport> {
  const sim = await spawnSim(simArgs, { cpu: SIM_CPU });
  try {
    const options = { transport, concurrency, outputLen, model: 'sim-model' };
    await runMinimalClient(sim.url, { ...options, prompts: concurrency });
    return await runMinimalClient(sim.url, { ...options, prompts });
  } finally {
    await sim.stop();
  }
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

async function main(): Promise<void> {
  const pinned = pinProcess(process.pid, String(CLIENT_CPU));
  const decode = {
    one_event_per_read: benchDecode(1, quick ? 100_000 : 500_000),
    sixteen_events_per_read: benchDecode(16, quick ? 100_000 : 500_000),
  };
  process.stderr.write(`decode: ${JSON.stringify(decode)}\n`);

  const eventsPerPoint = quick ? 100_000 : 400_000;
  const ceiling: Array<PointReport & { minimal_client: Record<string, MinimalClientReport>; vs_minimal_client: Record<string, number> }> = [];
  for (const concurrency of quick ? [1, 256, 2000] : [1, 16, 64, 256, 1000, 2000]) {
    const prompts = Math.max(concurrency, 4);
    const outputLen = Math.max(50, Math.round(eventsPerPoint / prompts));
    const servebench = await measure(['--zero-cost'], concurrency, outputLen, prompts);
    const minimal: Record<string, MinimalClientReport> = {};
    const ratios: Record<string, number> = {};
    for (const transport of MINIMAL_TRANSPORTS) {
      minimal[transport] = await measureMinimal(transport, ['--zero-cost'], concurrency, outputLen, prompts);
      // CPU per event, not events/s: at the ceiling the zero-cost sim on its one core can be the limit of both.
      ratios[transport] = round(minimal[transport].cpu_us_per_event / servebench.client_cpu_us_per_event, 2);
    }
    const report = { ...servebench, minimal_client: minimal, vs_minimal_client: ratios };
    process.stderr.write(`ceiling: ${JSON.stringify(report)}\n`);
    ceiling.push(report);
  }

  // Open loop with everything due at once and a cap: the slot-waiting path at scale.
  const capped = await measure(['--zero-cost'], 2000, 20, 20_000, true);
  process.stderr.write(`open loop, rate inf, cap 2000: ${JSON.stringify(capped)}\n`);

  const paced: Array<PointReport & { step_ms: number; offered_events_per_s: number }> = [];
  for (const stepMs of quick ? [40] : [400, 200, 100, 40, 20]) {
    const streams = 2000;
    // About four seconds of streaming per point.
    const outputLen = Math.max(10, Math.round(4000 / stepMs));
    const report = await measure(
      ['--decode-base-ms', String(stepMs), '--decode-per-seq-ms', '0', '--prefill-tokens-per-s', '1e9', '--max-num-seqs', '4096', '--max-batched-tokens', '1000000'],
      streams,
      outputLen,
      streams,
    );
    const entry = { ...report, step_ms: stepMs, offered_events_per_s: Math.round((streams * 1000) / stepMs) };
    process.stderr.write(`paced: ${JSON.stringify(entry)}\n`);
    paced.push(entry);
  }

  const result = {
    benchmark: 'client',
    created_at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? 'unknown', kernel: release(), node: process.version, client_pinned_to_cpu: pinned ? CLIENT_CPU : null, sim_cpu: SIM_CPU },
    harness: harnessGit(),
    decode,
    ceiling,
    open_loop_capped: { rate: 'inf', max_concurrency: 2000, requests: 20_000, ...capped },
    paced,
    summary: {
      max_content_events_per_s: Math.max(...ceiling.map((p) => p.content_events_per_s)),
      // The headroom over a minimal client (issue 27: ≥ 2×): the worst concurrency is the figure.
      ratio_to_minimal_client: Object.fromEntries(MINIMAL_TRANSPORTS.map((t) => [t, Math.min(...ceiling.map((p) => p.vs_minimal_client[t]!))])),
      max_concurrent_streams_without_failures: Math.max(...ceiling.filter((p) => p.failed === 0).map((p) => p.concurrency)),
      paced_2000_streams: paced.map((p) => ({ offered: p.offered_events_per_s, achieved: p.content_events_per_s, eld_p99_ms: p.event_loop_delay_p99_ms, saturated: p.saturated })),
    },
  };
  const file = benchOutputPath('client', new Date(result.created_at), quick ? '-quick' : '');
  await writeNewFileAtomic(file, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result.summary, null, 2)}\nwrote ${file}\n`);
}

await main();
