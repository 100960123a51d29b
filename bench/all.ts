/**
 * npm run bench: every self-benchmark at a CI-sized scale, each repeated so the gate has a noise
 * estimate, into one session folder (bench/sessions/<stamp>/), then the gate on that session.
 * bench:machine runs first and last: the machine's speed over the session, which the gate scales
 * times and rates by when the baseline session ran on a faster or slower instance.
 * Exit: the gate's (1 when a figure regressed), or 2 when a bench failed.
 *
 * Usage: npm run bench [-- --only compile,site,client] [--repeats 3] [--compile-sizes 2000]
 *        [--site-files 2000] [--sessions DIR] [--plant slow-ingest] [--no-gate]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_REGRESSION_THRESHOLD_PCT } from '../harness/contract/metric-catalog.ts';
import { DEFAULT_SESSIONS_DIR } from './gate.ts';
import { gateText } from './gate/report.ts';
import { gate, SESSION_FILE, type SessionInfo } from './gate/sessions.ts';
import { BENCH_OUT_ENV } from './lib/output.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const REPO = fileURLToPath(new URL('..', import.meta.url));
const HELP = `Usage: npm run bench [-- options]
Runs the self-benchmarks at a CI-sized scale into one session folder, then the gate (npm run bench:gate).
  --only LIST          compile,site,client (default: all three)
  --repeats N          times each bench runs (default 3: the gate needs a spread)
  --compile-sizes LIST result files for bench:compile (default 2000)
  --site-files N       result files for bench:site (default 2000)
  --sessions DIR       where session folders go (default bench/sessions)
  --plant NAME         a planted regression (slow-ingest), for the gate's own test
  --no-gate            measure only
  --help               this text`;

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'compile,site,client' },
    repeats: { type: 'string', default: '3' },
    'compile-sizes': { type: 'string', default: '2000' },
    'site-files': { type: 'string', default: '2000' },
    sessions: { type: 'string', default: DEFAULT_SESSIONS_DIR },
    plant: { type: 'string' },
    'no-gate': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
const benches = values.only!.split(',').map((b) => b.trim());
const unknown = benches.filter((b) => !['compile', 'site', 'client'].includes(b));
const repeats = Number(values.repeats);
if (unknown.length > 0 || !Number.isInteger(repeats) || repeats < 1) {
  process.stderr.write(`bench: ${unknown.length > 0 ? `--only: unknown bench ${unknown.join(', ')} (compile, site, client)` : `--repeats ${values.repeats}: a whole number ≥ 1`}\n`);
  process.exit(2);
}

const argsOf: Record<string, string[]> = {
  compile: ['--sizes', values['compile-sizes']!, ...(values.plant ? ['--plant', values.plant] : [])],
  site: ['--files', values['site-files']!, '--runs', '3'],
  client: ['--quick'],
};

const at = new Date();
const name = at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
const folder = join(values.sessions!, name);
mkdirSync(folder, { recursive: true });
let commit: string | null = null;
try {
  commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
} catch {
  // Not a checkout (a tarball): the session says so.
}
const info: SessionInfo = { at: at.toISOString(), git_commit: commit, repeats, benches, scale: { compile_sizes: values['compile-sizes'], site_files: Number(values['site-files']), client: 'quick' }, plant: values.plant ?? null };
writeFileSync(join(folder, SESSION_FILE), `${JSON.stringify(info, null, 2)}\n`);

function runBench(bench: string, args: readonly string[], label: string): void {
  process.stderr.write(`bench: ${bench} ${label} → ${folder}\n`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(HERE, `${bench}.ts`), ...args], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, [BENCH_OUT_ENV]: folder } });
  if (run.status !== 0) {
    // An incomplete session would be the next run's baseline with fewer samples: it goes.
    rmSync(folder, { recursive: true, force: true });
    process.stderr.write(`bench: ${bench} failed (exit ${run.status ?? run.signal}); the session is discarded\n`);
    process.exit(2);
  }
}

runBench('machine', [], '(reference, before)');
for (const bench of benches) {
  for (let i = 1; i <= repeats; i++) runBench(bench, argsOf[bench]!, `${i}/${repeats}`);
}
runBench('machine', [], '(reference, after)');

if (values['no-gate']) process.exit(0);
const report = gate(values.sessions!, DEFAULT_REGRESSION_THRESHOLD_PCT, name);
process.stdout.write(gateText(report));
process.exit(report.regressions > 0 ? 1 : 0);
