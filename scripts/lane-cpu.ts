/**
 * The CPU lane, run here: upstream llama-server of several llama.cpp releases (each built from the
 * source a node-llama-cpp release bundles) and servebench's embedded engine (node-llama-cpp as
 * installed) × dummy-weight models of real architectures × the CPU
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
import { readFleetFile } from '../harness/pipeline/plan/inputs.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(REPO, 'harness', 'cli.ts');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/**
 * The lane's configurations are fleet/fleet.yaml's CPU lane entry (the one the nightly plans):
 * its models with their serve settings, workloads and repeats. Here it also runs the embedded
 * engine and several past llama.cpp releases (the nightly runs the installed one and new ones).
 */
function fleetLane(): { models: string[]; workloads: string[]; repeats: number; serve: Map<string, string[]> } {
  const { fleet } = readFleetFile(join(REPO, 'fleet', 'fleet.yaml'));
  const entry = fleet.matrix.find((m) => m.engines.includes('llamacpp') && m.gpu_types.includes('cpu'));
  if (!entry) throw new Error('fleet/fleet.yaml has no CPU lane entry (engines [llamacpp], gpu_types [cpu])');
  const serve = new Map(
    entry.models.map((m) => [m.id, [...(m.max_num_seqs ? ['--max-num-seqs', String(m.max_num_seqs)] : []), ...(m.max_model_len ? ['--max-model-len', String(m.max_model_len)] : [])]]),
  );
  // Q4_K_M first: the smaller files, and the part of the lane to have if it is cut short.
  const models = entry.models.map((m) => m.id).sort((a, b) => Number(b.endsWith('Q4_K_M')) - Number(a.endsWith('Q4_K_M')));
  return { models, workloads: entry.workloads.map((w) => (typeof w === 'string' ? w : w.name)), repeats: entry.repeats, serve };
}

const FLEET = fleetLane();
const LANE = {
  engines: ['llamacpp', 'embedded'],
  versions: ['3.8.1', '3.16.0', '3.21.1'],
  models: FLEET.models,
  workloads: FLEET.workloads,
  repeats: FLEET.repeats,
};

const USAGE = `Usage: npm run lane:cpu -- [--engines llamacpp,embedded] [--versions A,B] [--models M,N] [--workloads W,V] [--repeats N] [--results-dir DIR] [--source official|community] [--dry-run]
Defaults: engines ${LANE.engines.join(',')} (upstream llama-server per release; servebench's embedded engine, node-llama-cpp as installed), versions ${LANE.versions.join(',')} (node-llama-cpp releases whose llama.cpp is built), models ${LANE.models.join(',')}, workloads ${LANE.workloads.join(',')}, repeats ${LANE.repeats}.`;

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
      engines: { type: 'string' },
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
  const engines = list(values.engines, LANE.engines);
  const unknown = engines.filter((e) => e !== 'llamacpp' && e !== 'embedded');
  if (unknown.length > 0) {
    process.stderr.write(`lane:cpu: --engines: ${unknown.join(', ')} is not on the lane (llamacpp, embedded)\n${USAGE}\n`);
    return 2;
  }
  const versions = engines.includes('llamacpp') ? list(values.versions, LANE.versions) : [];
  const models = list(values.models, LANE.models);
  const offLane = models.filter((m) => !FLEET.serve.has(m));
  if (offLane.length > 0) {
    process.stderr.write(`lane:cpu: --models: ${offLane.join(', ')} is not on the lane (fleet/fleet.yaml: ${LANE.models.join(', ')})\n`);
    return 2;
  }
  const workloads = list(values.workloads, LANE.workloads);
  const repeats = values.repeats === undefined ? LANE.repeats : Number(values.repeats);
  if (!Number.isInteger(repeats) || repeats < 1) {
    process.stderr.write(`lane:cpu: --repeats "${values.repeats}" is not a positive whole number\n${USAGE}\n`);
    return 2;
  }
  // Each engine release to run: llama-server per release, the embedded engine as installed.
  const targets = [...versions.map((version) => ({ engine: 'llamacpp', version })), ...(engines.includes('embedded') ? [{ engine: 'embedded', version: null }] : [])];
  const runs: Array<{ engine: string; version: string | null; model: string; workload: string; repeat: number }> = [];
  for (let repeat = 1; repeat <= repeats; repeat++)
    for (const model of models) for (const target of targets) for (const workload of workloads) runs.push({ ...target, model, workload, repeat });
  const argsOf = (r: (typeof runs)[number]): string[] => [
    'run', '--engine', r.engine, '--launcher', 'process', ...(r.version !== null ? ['--engine-version', r.version] : []),
    '--model', r.model, '--workload', r.workload, ...(FLEET.serve.get(r.model) ?? []), '--source', values.source!, '--results-dir', values['results-dir']!, '--no-progress',
  ];
  const estimate = runs.reduce((sum, r) => sum + estimateSeconds(r.workload), 0);
  process.stderr.write(`lane:cpu: ${runs.length} runs (${targets.length} engine releases × ${models.length} models × ${workloads.length} workloads × ${repeats} repeats), at most about ${minutes(estimate)} on this machine\n`);
  if (values['dry-run']) {
    for (const r of runs) process.stdout.write(`servebench ${argsOf(r).join(' ')}   # repeat ${r.repeat}\n`);
    return 0;
  }
  // Builds (cached by commit) and models (cached by digest) first, so the runs time only serving.
  if (versions.length > 0 && (await runChild(['llamacpp', 'build', '--no-progress', ...versions.flatMap((v) => ['--node-llama-cpp', v])], false)) !== 0) return 1;
  // The installed release's build quantizes every model (one quantizer: the same file for every engine).
  if ((await runChild(['llamacpp', 'build', '--no-progress'], false)) !== 0) return 1;
  const started = performance.now();
  let failed = 0;
  for (const [index, r] of runs.entries()) {
    const elapsed = (performance.now() - started) / 1000;
    const left = runs.slice(index).reduce((sum, x) => sum + estimateSeconds(x.workload), 0);
    const eta = index === 0 ? left : (elapsed / index) * (runs.length - index);
    const engine = r.version === null ? r.engine : `llama.cpp of node-llama-cpp ${r.version}`;
    process.stderr.write(`\nlane:cpu [${index + 1}/${runs.length}] ${engine} · ${r.model} · ${r.workload} · repeat ${r.repeat}/${repeats} — ${minutes(elapsed)} elapsed, about ${minutes(eta)} left\n`);
    const code = await runChild(argsOf(r), false);
    if (code >= 128) return code;
    if (code !== 0) failed++;
  }
  process.stderr.write(`\nlane:cpu: ${runs.length - failed} of ${runs.length} runs completed in ${minutes((performance.now() - started) / 1000)}\n`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
