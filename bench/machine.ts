/**
 * bench:machine: how fast this machine is today, by fixed work that no servebench change can
 * touch (the work uses nothing of harness/; only the result file is written through it). Two instances of one machine kind differ: on
 * 2026-12-05 the same commit compiled 100,000 files in 90.5 s on one 2-vCPU EPYC and 116.2 s on
 * another, and DuckDB's own JSON reader slowed with it. The gate (bench/gate/) compares a session's
 * time figures with a baseline session's after scaling by the ratio of their references, so a
 * slower instance is not a regression and a real one still is.
 *
 * Two references, each sampled SAMPLES times: JavaScript (JSON.stringify and JSON.parse of a fixed
 * result-shaped document, then sha256 of the text: what parsing, checking and staging results
 * spends), and DuckDB (a hash aggregate and a sort over generated rows: what compile's queries spend).
 *
 * Usage: npm run bench:machine
 */
import { createHash } from 'node:crypto';
import { DuckDBInstance } from '@duckdb/node-api';
import { writeNewFileAtomic } from '../harness/lib/io/atomic-write.ts';
import { benchMachine, benchOutputPath } from './lib/output.ts';

if (process.argv.includes('--help')) {
  process.stdout.write('Usage: npm run bench:machine\nMeasures fixed reference work (JavaScript and DuckDB) that no servebench change affects; the gate scales time and rate figures by it.\n');
  process.exit(0);
}

/** Samples of each reference: the gate takes their median, which one outlying sample of seven does not move. */
const SAMPLES = 7;

/** A document shaped like a result (nested objects, arrays of numbers and strings), the same every run. */
function referenceDocument(): unknown {
  let state = 42;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: 40 }, (_, run) => ({
    run_id: `run-${run}`,
    engine: { name: 'reference', version: `1.${run}.0`, args: Array.from({ length: 12 }, (_, i) => `--flag-${i}=${Math.round(next() * 1000)}`) },
    points: Array.from({ length: 4 }, (_, point) => ({
      point,
      latencies_ms: Array.from({ length: 64 }, () => Math.round(next() * 1e6) / 1e3),
      summary: { ttft_ms: { p50: next() * 100, p90: next() * 200, p99: next() * 300 }, output_throughput: next() * 5000, status: 'completed' },
    })),
  }));
}

function javascriptReferenceMs(document: unknown): number {
  const started = performance.now();
  for (let i = 0; i < 60; i++) {
    const text = JSON.stringify(document);
    JSON.parse(text);
    createHash('sha256').update(text).digest('hex');
  }
  return performance.now() - started;
}

async function duckdbReferenceMs(run: (sql: string) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run(`SELECT count(DISTINCT k), sum(v) FROM (SELECT hash(i % 200003)::VARCHAR AS k, i * 0.5 AS v FROM range(2000000) t(i))`);
  await run(`SELECT * FROM (SELECT hash(i)::VARCHAR AS k FROM range(600000) t(i)) ORDER BY k LIMIT 1`);
  return performance.now() - started;
}

const document = referenceDocument();
// Untimed rounds first: the first calls compile and warm what later calls reuse (the JavaScript
// rounds measured a third slower for their first three).
for (let i = 0; i < 4; i++) javascriptReferenceMs(document);
const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
const run = (sql: string) => connection.run(sql);
await duckdbReferenceMs(run);
const javascript: number[] = [];
const duckdb: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
  javascript.push(Number(javascriptReferenceMs(document).toFixed(2)));
  duckdb.push(Number((await duckdbReferenceMs(run)).toFixed(2)));
}
connection.closeSync();
instance.closeSync();

const at = new Date();
const path = benchOutputPath('machine', at);
await writeNewFileAtomic(path, `${JSON.stringify({ bench: 'machine', at: at.toISOString(), machine: benchMachine(), reference: { javascript_ms: javascript, duckdb_ms: duckdb } }, null, 2)}\n`);
process.stdout.write(`${path}\n`);
