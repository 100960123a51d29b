/** An in-process sim for functional (not timing) tests of the load generator, closed after each test. */
import { afterEach } from 'vitest';
import type { SimConfig } from '../../harness/engines/sim/config.ts';
import { startSimServer, type SimServer } from '../../harness/engines/sim/server.ts';

const open: SimServer[] = [];

export async function fastSim(config: Partial<SimConfig> = {}): Promise<SimServer> {
  const server = await startSimServer({ port: 0, decodeBaseMs: 1, decodePerSeqMs: 0, prefillTokensPerS: 1e7, ...config });
  open.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});
