/**
 * Writes SYNTHETIC result files (bench/lib/synthetic-results.ts) for benchmarks and demos:
 * they pass `servebench validate` but measured nothing. Never into results/.
 *
 *   npx tsx tests/kit/write-synthetic-results.ts --out DIR --count N [--seed S]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fleetHistory, syntheticResult, writeResult } from '../../bench/lib/synthetic-results.ts';

const { values } = parseArgs({ options: { out: { type: 'string' }, count: { type: 'string' }, seed: { type: 'string' } } });
if (!values.out || !values.count) {
  process.stderr.write('usage: tsx tests/kit/write-synthetic-results.ts --out DIR --count N [--seed S]\n');
  process.exit(2);
}
const out = resolve(values.out);
let n = 0;
for (const run of fleetHistory(Number(values.count), Number(values.seed ?? 1))) {
  writeResult(out, syntheticResult(run));
  n += 1;
}
process.stdout.write(`${n} SYNTHETIC results written under ${out}\n`);
