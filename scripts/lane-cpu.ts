/**
 * The CPU lane, run here: upstream llama-server of several llama.cpp releases (each built from the
 * source a node-llama-cpp release bundles) × dummy-weight models of real architectures × the CPU
 * workloads × repeats, each one `servebench run` in its own process, writing its result into
 * results/. Builds and models are made first (cached); runs go repeat by repeat, so slow drifts of
 * a shared machine spread over every configuration instead of landing on one.
 *
 *   npm run lane:cpu                         # the whole lane (see --dry-run for its runs and estimate)
 *   npm run lane:cpu -- --versions 3.21.1 --models dummy:qwen3-0.6b:Q4_K_M --workloads cpu-chat --repeats 1
 *
 * Exit status: 0 every run completed; 1 a run failed (its result is still written) or a build
 * failed; 2 bad input.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(REPO, 'harness', 'cli.ts');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** The lane as measured into results/ (the nightly lane in fleet/fleet.yaml runs new releases of it). */
const LANE = {
  versions: ['3.8.1', '3.16.0', '3.21.1'],
  models: ['dummy:qwen3-0.6b:Q4_K_M', 'dummy:llama-3.2-1b:Q4_K_M', 'dummy:qwen3-0.6b:Q8_0', 'dummy:llama-3.2-1b:Q8_0'],
  workloads: ['cpu-chat', 'cpu-rag'],
  repeats: 3,
  serve: ['--max-num-seqs', '4', '--max-model-len', '2048'],
};

const USAGE = `Usage: npm run lane:cpu -- [--versions A,B] [--models M,N] [--workloads W,V] [--repeats N] [--results-dir DIR] [--source official|community] [--dry-run]
Defaults: versions ${LANE.versions.join(',')} (node-llama-cpp releases), models ${LANE.models.join(',')}, workloads ${LANE.workloads.join(',')}, repeats ${LANE.repeats}.`;

function list(value: string | undefined, fallback: readonly string[]): string[] {
  return value === undefined ? [...fallback] : value.split(',').map((v) => v.trim()).filter(Boolean);
}

function runChild(args: readonly string[], quiet: boolean): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [TSX, CLI, ...args], { cwd: REPO, stdio: ['ignore', quiet ? 'ignore' : 'inherit', 'inherit'] });
    child.once('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/** An upper estimate of one run: each point's send window plus its last requests, plus launch. */
function estimateSeconds(workload: string): number {
  const spec = parseYaml(readFileSync(join(REPO, 'workloads', `${workload}.yaml`), 'utf8')) as { requests?: { duration_s?: number }; load?: { concurrency?: number[] } };
  const points = spec.load?.concurrency?.length ?? 1;
  return 20 + points * ((spec.requests?.duration_s ?? 60) + 10);
}

const minutes = (s: number): string => (s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min` : `${Math.round(s / 60)} min`);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      versions: { type: 'string' },
      models: { type: 'string' },
      workloads: { type: 'string' },
      repeats: { type: 'string' },
      'results-dir': { type: 'string', default: 'results' },
      source: { type: 'string', default: 'official' },
      'dry-run': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const versions = list(values.versions, LANE.versions);
  const models = list(values.models, LANE.models);
  const workloads = list(values.workloads, LANE.workloads);
  const repeats = values.repeats === undefined ? LANE.repeats : Number(values.repeats);
  if (!Number.isInteger(repeats) || repeats < 1) {
    process.stderr.write(`lane:cpu: --repeats "${values.repeats}" is not a positive whole number\n${USAGE}\n`);
    return 2;
  }
  const runs: Array<{ version: string; model: string; workload: string; repeat: number }> = [];
  for (let repeat = 1; repeat <= repeats; repeat++)
    for (const model of models) for (const version of versions) for (const workload of workloads) runs.push({ version, model, workload, repeat });
  const estimate = runs.reduce((sum, r) => sum + estimateSeconds(r.workload), 0);
  process.stderr.write(`lane:cpu: ${runs.length} runs (${versions.length} llama.cpp releases × ${models.length} models × ${workloads.length} workloads × ${repeats} repeats), at most about ${minutes(estimate)} on this machine\n`);
  if (values['dry-run']) {
    for (const r of runs) process.stdout.write(`servebench run --engine llamacpp --engine-version ${r.version} --model ${r.model} --workload ${r.workload} ${LANE.serve.join(' ')} --source ${values.source}   # repeat ${r.repeat}\n`);
    return 0;
  }
  // Builds (cached by commit) and models (cached by digest) first, so the runs time only serving.
  if ((await runChild(['llamacpp', 'build', '--no-progress', ...versions.flatMap((v) => ['--node-llama-cpp', v])], false)) !== 0) return 1;
  if ((await runChild(['llamacpp', 'build', '--no-progress'], false)) !== 0) return 1;
  const started = performance.now();
  let failed = 0;
  for (const [index, r] of runs.entries()) {
    const elapsed = (performance.now() - started) / 1000;
    const left = runs.slice(index).reduce((sum, x) => sum + estimateSeconds(x.workload), 0);
    const eta = index === 0 ? left : (elapsed / index) * (runs.length - index);
    process.stderr.write(`\nlane:cpu [${index + 1}/${runs.length}] llama.cpp of node-llama-cpp ${r.version} · ${r.model} · ${r.workload} · repeat ${r.repeat}/${repeats} — ${minutes(elapsed)} elapsed, about ${minutes(eta)} left\n`);
    const code = await runChild(
      ['run', '--engine', 'llamacpp', '--launcher', 'process', '--engine-version', r.version, '--model', r.model, '--workload', r.workload, ...LANE.serve, '--source', values.source!, '--results-dir', values['results-dir']!, '--no-progress'],
      false,
    );
    if (code >= 128) return code;
    if (code !== 0) failed++;
  }
  process.stderr.write(`\nlane:cpu: ${runs.length - failed} of ${runs.length} runs completed in ${minutes((performance.now() - started) / 1000)}\n`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
