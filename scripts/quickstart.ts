/**
 * The main job on a machine with no GPU and no Docker: start the simulated engine in its own
 * process, sweep a load over it, write the result JSON under out/quickstart/ and print the table.
 * Usage: npm run quickstart [-- extra `servebench load` flags]
 */
import { main } from '../harness/cli.ts';
import { spawnSim } from '../harness/lib/process/spawn-cli.ts';

const sim = await spawnSim();
process.stderr.write(`quickstart: simulated engine at ${sim.url} (vLLM-like stream, default cost model)\n`);
let code = 1;
try {
  code = await main([
    'load',
    '--endpoint', sim.url,
    '--model', 'sim-model',
    '--input-len', '256',
    '--output-len', '32',
    '--num-prompts', '32',
    '--concurrency', '1,8,32',
    '--slo', 'ttft_ms=200,tpot_ms=20',
    '--out', 'out/quickstart/',
    ...process.argv.slice(2),
  ]);
} finally {
  await sim.stop();
}
process.exitCode = code;
