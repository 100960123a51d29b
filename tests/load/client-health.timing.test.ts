/**
 * The client flags itself when it is the bottleneck: flat out against a zero-cost server it must
 * say `saturated`; idling at concurrency 1 against a 10 ms/token server it must not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCpus, pinProcess } from '../../harness/lib/process/cpu-affinity.ts';
import { spawnSim, type SimChild } from '../../harness/lib/process/spawn-cli.ts';
import { loadAgainst } from './run-sim.ts';

describe('client health', () => {
  let flatOut: SimChild;
  let paced: SimChild;
  beforeAll(async () => {
    pinProcess(process.pid, '0');
    [flatOut, paced] = await Promise.all([spawnSim(['--zero-cost'], { cpu: 1 }), spawnSim(['--decode-base-ms', '10'], { cpu: 1 })]);
  });
  afterAll(async () => {
    await Promise.all([flatOut?.stop(), paced?.stop()]);
    pinProcess(process.pid, allCpus());
  });

  it('saturated when the server is infinitely fast', async () => {
    const run = await loadAgainst(flatOut.url, { 'input-len': '8', 'output-len': '20000', 'num-prompts': '16', concurrency: '16', warmup: '2' });
    const { client } = run.result.points[0]!;
    expect(client.saturated).toBe(true);
    expect(client.cpu_percent).toBeGreaterThan(50);
    expect(client.content_events_per_s).toBeGreaterThan(50_000);
  });

  it('not saturated when it mostly waits for the server', async () => {
    const run = await loadAgainst(paced.url, { 'input-len': '8', 'output-len': '30', 'num-prompts': '4', concurrency: '1', warmup: '1' });
    const { client } = run.result.points[0]!;
    expect(client.saturated).toBe(false);
    expect(client.cpu_percent).toBeLessThan(50);
    expect(client.content_events_per_s).toBeGreaterThan(50);
    expect(client.content_events_per_s).toBeLessThan(150);
  });
});
