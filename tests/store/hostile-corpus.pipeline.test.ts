/**
 * The hostile corpus: 1,200 seeded random mutations of three valid results (a real completed run
 * of the sim with per-request records, a real failed run, and the SYNTHETIC fixture of
 * harness/testbed/synthetic-results.ts). Every mutant is either refused by `servebench validate` with
 * problems of one line each, or compiles; compile and validate agree on which; and the site builds
 * (every page prerendered) from what compiled. Mutations: numbers to 0, negative, fractional, huge
 * (2^31, 2^53, 1e300); strings to empty, CR/LF/NUL, quotes and backslashes, markup, bidi controls,
 * look-alike letters, workflow commands, 10,000 characters; keys deleted or added; types swapped;
 * arrays emptied or duplicated.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, type CompileReport } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { createRng } from '../../harness/lib/rng.ts';
import { startSimServer, type SimServer } from '../../harness/testbed/sim/server.ts';
import { syntheticResult } from '../../harness/testbed/synthetic-results.ts';
import { runCli } from '../cli/run-cli.ts';
import { writeFixturePrices } from './fixture-results.ts';

const MUTANTS = 1200;
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'servebench-corpus-'));
const resultsDir = join(root, 'results');
const sims: SimServer[] = [];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const NUMBERS = (x: number) => [0, -1, -x, x + 0.5, x * 1e6, x / 1e6, 2 ** 31, 2 ** 31 + 1, 2 ** 53, 1e300, Number.MIN_VALUE];
const STRINGS = ['', 'a\rb', 'line\nbreak', 'nul\u0000here', '"quoted", \\back', '<script>alert(1)</script>', 'ab\u202Edc', 'vllм', '::stop-commands::x', '##[add-mask]y', '🚀 émoji', 'x'.repeat(10_000), '2026-13-45T99:00:00Z', 'null', 'a\u2028b', "'; DROP TABLE runs; --"];

interface Site {
  readonly parent: Json[] | { [key: string]: Json };
  readonly key: string | number;
  readonly shape: string;
}

/** Every node with its parent, grouped by shape (array indices as [*]) so huge arrays do not crowd out the rest. */
function sites(value: Json): Map<string, Site[]> {
  const byShape = new Map<string, Site[]>();
  const walk = (node: Json, shape: string) => {
    if (node === null || typeof node !== 'object') return;
    const entries: Array<[string | number, Json]> = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (const [key, child] of entries) {
      const childShape = typeof key === 'number' ? `${shape}[*]` : `${shape}.${key}`;
      byShape.set(childShape, [...(byShape.get(childShape) ?? []), { parent: node, key, shape: childShape }]);
      walk(child, childShape);
    }
  };
  walk(value, '');
  return byShape;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function mutateOnce(doc: Json, random: () => number): string {
  const shapes = [...sites(doc).values()];
  const site = pick(random, pick(random, shapes));
  const parent = site.parent as Record<string | number, Json>;
  const current = parent[site.key]!;
  const roll = random();
  if (roll < 0.08 && !Array.isArray(site.parent)) {
    delete parent[site.key];
    return `delete ${site.shape}`;
  }
  if (roll < 0.12 && !Array.isArray(site.parent)) {
    (site.parent as Record<string, Json>)[`unknown_${Math.floor(random() * 100)}`] = 1;
    return `add a key beside ${site.shape}`;
  }
  if (roll < 0.18) {
    parent[site.key] = pick(random, [null, true, 7, 'text', [], {}] as Json[]);
    return `${site.shape} to another type`;
  }
  if (Array.isArray(current)) {
    if (random() < 0.5) parent[site.key] = [];
    else if (current.length > 0) parent[site.key] = [...current, structuredClone(current[0]!)];
    return `${site.shape} emptied or grown`;
  }
  if (typeof current === 'number') {
    parent[site.key] = pick(random, NUMBERS(current));
    return `${site.shape} = ${String(parent[site.key])}`;
  }
  if (typeof current === 'string') {
    parent[site.key] = random() < 0.5 ? pick(random, STRINGS) : `${current}${pick(random, STRINGS)}`;
    return `${site.shape} string`;
  }
  if (typeof current === 'boolean') {
    parent[site.key] = !current;
    return `${site.shape} flipped`;
  }
  parent[site.key] = pick(random, [0, '', false] as Json[]);
  return `${site.shape} from null`;
}

function place(text: string, fallback: string): string {
  let path: string;
  try {
    path = resultRelativePath(JSON.parse(text) as RunResult, text);
    // A mutated date can make a path no filesystem takes; such a file is placed anywhere (and refused for its path).
    if (!/^[\x21-\x7e]+$/.test(path) || path.includes('..')) path = fallback;
  } catch {
    path = fallback;
  }
  mkdirSync(dirname(join(resultsDir, path)), { recursive: true });
  writeFileSync(join(resultsDir, path), text);
  return path;
}

async function realRun(faults: Record<string, number>, extra: readonly string[]): Promise<RunResult> {
  const sim = await startSimServer({ port: 0, decodeBaseMs: 1, decodePerSeqMs: 0, prefillTokensPerS: 1e7, faults });
  sims.push(sim);
  const dir = mkdtempSync(join(root, 'run-'));
  const run = await runCli(['run', '--engine', 'sim', '--launcher', 'external', '--endpoint', sim.url, '--model', 'sim-model', '--workload', 'chat', '--num-prompts', '12', '--concurrency', '1,3', '--warmup', '0', '--tokenizer', 'none', '--results-dir', dir, ...extra], 90_000);
  const written = run.stderr.match(/wrote (\S+\.json)/)?.[1];
  if (!written) throw new Error(`run wrote no result (exit ${run.code}): ${run.stderr}`);
  return JSON.parse(readFileSync(written, 'utf8')) as RunResult;
}

const mutations = new Map<string, string>();
const placed = new Set<string>();
let validateProblems: Array<{ file: string; path: string; message: string; fix: string }> = [];
let report: CompileReport;

beforeAll(async () => {
  const bases: RunResult[] = [
    await realRun({}, ['--save-requests']),
    await realRun({ http500: 1 }, []),
    syntheticResult({ engine: 'vllm', version: '0.11.0', model: 'synthetic/llama-8b', gpu: 'Synthetic H100', gpuCount: 1, workload: 'chat', date: new Date('2026-03-01T12:00:00Z'), concurrencies: [1, 8], tpotMs: 10, ttftMs: 50, noise: 0.02, seed: 7 }),
  ];
  // Seeded (harness/lib/rng.ts), so a failing mutant is found again by its index.
  const stream = createRng(13, 'hostile-corpus');
  const random = () => stream.next();
  for (const base of bases) placed.add(place(`${JSON.stringify(base, null, 2)}\n`, 'unplaceable/base.json'));
  for (let i = 0; i < MUTANTS; i++) {
    const doc = structuredClone(bases[i % bases.length]!) as unknown as Json;
    // Its own run_id, so mutants are not each other's duplicates.
    const result = doc as unknown as RunResult;
    result.run_id = `${result.run_id.slice(0, 17)}${i.toString(16).padStart(8, '0')}`;
    const applied = Array.from({ length: 1 + Math.floor(random() * 3) }, () => mutateOnce(doc, random));
    const path = place(`${JSON.stringify(doc, null, 2)}\n`, `unplaceable/mutant-${i}.json`);
    placed.add(path);
    mutations.set(path, `mutant ${i}: ${applied.join('; ')}`);
  }
  const validated = await runCli(['validate', '--results', resultsDir, '--json'], 300_000);
  validateProblems = (JSON.parse(validated.stdout) as { problems: typeof validateProblems }).problems;
  report = await compile({ resultsDir, outDir: join(root, 'data'), prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-12-01T00:00:00Z') });
}, 600_000);

afterAll(async () => {
  await Promise.all(sims.map((sim) => sim.close()));
});

describe(`a hostile corpus of ${MUTANTS} mutants`, () => {
  it('each mutant is refused with one-line problems, or accepted', () => {
    expect(placed.size).toBeGreaterThan(MUTANTS * 0.95);
    for (const problem of validateProblems) {
      for (const text of [problem.message, problem.fix, problem.path]) expect(text, mutations.get(problem.file)).not.toMatch(/[\r\n]/);
    }
    const refused = new Set(validateProblems.map((p) => p.file));
    // The three bases are valid; the gate and the schema refuse most mutants, and some are harmless.
    expect(refused.size).toBeGreaterThan(MUTANTS * 0.5);
    expect(placed.size - refused.size).toBeGreaterThan(3);
    console.log(`corpus: ${placed.size} files, ${refused.size} refused by validate, ${placed.size - refused.size} accepted`);
  });

  it('compile takes exactly the files validate accepts, and refuses the rest with the same problems', () => {
    const byValidate = new Set(validateProblems.map((p) => p.file));
    const byCompile = new Set(report.problems.map((p) => p.file));
    expect([...byCompile].sort()).toEqual([...byValidate].sort());
    expect(report.ingest.valid).toBe(placed.size - byValidate.size);
  });

  it('the site builds from what compiled (every page prerendered)', async () => {
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, [join(REPO, 'node_modules/astro/bin/astro.mjs'), 'build'], { cwd: REPO, env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', SERVEBENCH_DATA: join(root, 'data'), SERVEBENCH_SITE_OUT: join(root, 'site') }, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) =>
        error ? reject(new Error(`astro build failed: ${stderr.slice(-4000)}`)) : resolve(),
      );
    });
    const home = readFileSync(join(root, 'site', 'index.html'), 'utf8');
    expect(home).not.toMatch(/<script>alert\(1\)<\/script>/);
  }, 400_000);
});
