/**
 * The comparison kinds in results/comparisons/ (harness/store/comparison-check.ts): filing a real
 * `bisect --out` output (the SYNTHETIC sim bisection of tests/fixtures/comparisons/sim-planted/,
 * a planted ×1.5 slowdown at 1.3.0), validating it, and every way a hand-edited file must fail:
 * each rule named by its tag. Arm runs are the sim's real runs, so they pass every run rule.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { blockPairing, type AbResult, type Bisection } from '../../harness/contract/comparison.ts';
import { unpairedBlocks } from '../../harness/store/comparison-tables.ts';
import { checkComparisonFiles } from '../../harness/store/comparisons.ts';
import { listResultFiles } from '../../harness/store/result-files.ts';
import { runCli } from '../cli/run-cli.ts';
import { ruleSites } from './rule-sites.ts';

const FIXTURE = new URL('../fixtures/comparisons/sim-planted/', import.meta.url).pathname;

interface Filed {
  readonly path: string;
  readonly sha256: string;
  readonly already: boolean;
}

let filedDir = '';
let filed: Filed[] = [];

/** A fresh copy of the filed results folder. */
function copyOfFiled(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-comparisons-'));
  cpSync(filedDir, dir, { recursive: true });
  return dir;
}

const bisectionPath = () => filed.find((f) => f.path.includes('/bisect-'))!.path;
const abPaths = () => filed.filter((f) => f.path.includes('/ab-')).map((f) => f.path);

function edit<T>(dir: string, path: string, change: (data: T) => void): void {
  const data = JSON.parse(readFileSync(join(dir, path), 'utf8')) as T;
  change(data);
  writeFileSync(join(dir, path), `${JSON.stringify(data, null, 2)}\n`);
}

/**
 * Block 1 of the main pass with its B arm sending other prompts than A (as a --duration stop after
 * fewer requests would: a run whose counts were cut too fails the run rules before pairing is asked).
 */
function unpairBlock(ab: AbResult): void {
  const point = ab.passes[0]!.blocks[1]!.b.points[0]! as { stop: string; prompt_set_sha256: string };
  point.stop = 'duration';
  point.prompt_set_sha256 = '0'.repeat(64);
}

async function problemsOf(dir: string): Promise<string[]> {
  return (await checkComparisonFiles(dir)).problems.map((p) => `${p.file} ${p.path}: ${p.message}`);
}

beforeAll(async () => {
  filedDir = mkdtempSync(join(tmpdir(), 'sb-filed-'));
  const outcome = await runCli(['file-comparison', join(FIXTURE, 'bisection.json'), '--results', filedDir, '--json']);
  expect(outcome.code, outcome.stderr).toBe(0);
  filed = (JSON.parse(outcome.stdout) as { filed: Filed[] }).filed;
}, 60_000);

describe('file-comparison and validate on a real bisection output', () => {
  it('files the 5 A/Bs byte for byte and the bisection naming each by path and sha256, at the paths their content dictates', () => {
    expect(filed.map((f) => f.path.replace(/-[0-9a-f]{12}\.json$/, ''))).toEqual([
      ...Array(5).fill('comparisons/2026-12-04/sim/sim-model/cpu-2x-amd-epyc/ab-smoke-c-2'),
      'comparisons/2026-12-04/sim/sim-model/cpu-2x-amd-epyc/bisect-smoke-output-throughput',
    ]);
    const original = JSON.parse(readFileSync(join(FIXTURE, 'bisection.json'), 'utf8')) as Bisection;
    const bisection = JSON.parse(readFileSync(join(filedDir, bisectionPath()), 'utf8')) as Bisection;
    // Only where the evidence is changed: everything else is the file bisect wrote.
    expect({ ...bisection, steps: bisection.steps.map(({ ab_file: _f, ab_sha256: _s, ...step }) => step) }).toEqual({ ...original, steps: original.steps.map(({ ab_file: _f, ...step }) => step) });
    original.steps.forEach((step, index) => {
      const ab = filed[index]!;
      expect(readFileSync(join(filedDir, ab.path), 'utf8')).toBe(readFileSync(join(FIXTURE, step.ab_file), 'utf8'));
      expect(bisection.steps[index]).toMatchObject({ ab_file: ab.path, ab_sha256: ab.sha256 });
    });
    expect(bisection).toMatchObject({ outcome: 'culprit', culprit: { good: '1.2.0', bad: '1.3.0' } });
  });

  it('validate accepts the folder; filing again leaves every file alone; a run listing never sees a comparison', async () => {
    const valid = await runCli(['validate', '--results', filedDir, '--json']);
    expect(valid.code, valid.stderr).toBe(0);
    expect(JSON.parse(valid.stdout)).toMatchObject({ files: 0, comparisons: 6, problems: [] });
    const again = await runCli(['file-comparison', join(FIXTURE, 'bisection.json'), '--results', filedDir, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { filed: Filed[] }).filed.every((f) => f.already)).toBe(true);
    expect(listResultFiles(filedDir)).toEqual({ files: [], problems: [] });
  });

  it('a tampered A/B is refused by file-comparison, which writes nothing', async () => {
    const source = mkdtempSync(join(tmpdir(), 'sb-tampered-'));
    cpSync(FIXTURE, source, { recursive: true });
    const first = JSON.parse(readFileSync(join(source, 'bisection.json'), 'utf8')) as Bisection;
    edit<AbResult>(source, first.steps[0]!.ab_file, (ab) => void ((ab as { verdict: string }).verdict = 'faster'));
    const results = mkdtempSync(join(tmpdir(), 'sb-refused-'));
    const outcome = await runCli(['file-comparison', join(source, 'bisection.json'), '--results', results]);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(/verdict: \[ab-recomputed\] says "faster"; its passes give slower/);
    expect(outcome.stderr).toMatch(/nothing filed/);
    expect(existsSync(join(results, 'comparisons'))).toBe(false);
  });
});

describe('blocks whose arms answered different requests', () => {
  it('an A/B of schema 1 (filed before the rule) is accepted as filed, and its unpaired block counted', async () => {
    const dir = copyOfFiled();
    edit<AbResult>(dir, abPaths()[0]!, (ab) => {
      expect(ab.schema_version).toBe(1);
      expect(unpairedBlocks(ab)).toBe(0);
      unpairBlock(ab);
      expect(unpairedBlocks(ab)).toBe(1);
    });
    // The edit changed the file's sha256, so its path and the bisection's evidence no longer match it; nothing else.
    expect((await problemsOf(dir)).filter((p) => !/\[(path-matches-content|bisect-evidence)\]/.test(p))).toEqual([]);
  });

  it('the committed Llama-3.2-1B bisection has two: an arm --duration stopped after 4 and after 2 of 6 requests, its two outliers', () => {
    const folder = new URL('../../results/comparisons/2026-12-04/llamacpp/dummy-llama-3.2-1b-instruct/cpu-2x-amd-epyc/', import.meta.url).pathname;
    const bisection = JSON.parse(readFileSync(join(folder, readdirSync(folder).find((f) => f.startsWith('bisect-') && (JSON.parse(readFileSync(join(folder, f), 'utf8')) as Bisection).outcome === 'not reproducible')!), 'utf8')) as Bisection;
    const ab = JSON.parse(readFileSync(join(new URL('../../results/', import.meta.url).pathname, bisection.steps[0]!.ab_file), 'utf8')) as AbResult;
    expect(ab).toMatchObject({ schema_version: 1, status: 'completed' });
    expect(unpairedBlocks(ab)).toBe(2);
    const [pilot, main] = [ab.aa.blocks[0]!, ab.passes[0]!.blocks[2]!];
    expect(blockPairing(pilot.a, pilot.b)).toBe('its arms answered different requests: A sent 4 requests (stopped on --duration), B sent 6 requests (stopped on its count)');
    expect(blockPairing(main.a, main.b)).toBe('its arms answered different requests: A sent 6 requests (stopped on its count), B sent 2 requests (stopped on --duration)');
    // Each is its pass's outlier: the short arm's TTFT p50 over the requests it reached is 3× and 13× its partner's.
    expect(pilot.a_value / pilot.b_value).toBeGreaterThan(3);
    expect(main.b_value / main.a_value).toBeGreaterThan(13);
    expect([...ab.aa.blocks.slice(1), ...ab.passes.flatMap((p) => p.blocks)].filter((b) => b !== main).every((b) => Math.abs(b.log_ratio) < Math.log(2.5))).toBe(true);
  });
});

describe('every hand edit of a filed comparison fails its rule', () => {
  type Case = readonly [name: string, rule: string, tamper: (dir: string) => void, problem: RegExp];
  const firstAb = (dir: string, change: (ab: AbResult) => void) => edit<AbResult>(dir, abPaths()[0]!, change);
  const theBisection = (dir: string, change: (b: Bisection) => void) => edit<Bisection>(dir, bisectionPath(), change);
  const set = (target: object, key: string, value: unknown) => void ((target as Record<string, unknown>)[key] = value);
  const cases: Case[] = [
    ['an A/B block value', 'ab-recomputed', (dir) => firstAb(dir, (ab) => set(ab.passes[0]!.blocks[1]!, 'b_value', ab.passes[0]!.blocks[1]!.b_value * 0.5)), /b_value: \[ab-recomputed\] is [\d.]+; its run's point gives/],
    ['an A/B pass comparison', 'ab-recomputed', (dir) => firstAb(dir, (ab) => set(ab.passes[0]!.comparison!, 'verdict', 'no change')), /passes\[0\]\.comparison: \[ab-recomputed\] says no change/],
    ['the pilot\'s σ', 'ab-recomputed', (dir) => firstAb(dir, (ab) => set(ab.aa, 'sd_log_ratio', 0.5)), /aa\.sd_log_ratio: \[ab-recomputed\]/],
    ['an arm run of another release', 'ab-arm', (dir) => firstAb(dir, (ab) => { const command = ab.passes[0]!.blocks[0]!.b.harness.command as string[]; command[command.indexOf('--engine-version') + 1] = '1.1.0'; }), /\[ab-arm\] ran release "1\.1\.0", not its arm's 1\.4\.0/],
    ['ABBA order', 'ab-design', (dir) => firstAb(dir, (ab) => set(ab.passes[0]!.blocks[1]!, 'order', 'AB')), /\[ab-design\] block 1 is 1 "AB"; the design runs it as 1 BA/],
    ['a failed A/B with a verdict', 'ab-status', (dir) => firstAb(dir, (ab) => set(ab, 'status', 'failed')), /verdict: \[ab-status\] failed, yet it has a verdict/],
    ['the metric\'s direction', 'ab-metric', (dir) => firstAb(dir, (ab) => set(ab, 'better', 'lower')), /better: \[ab-metric\] says lower is better for output_throughput; the catalog says higher/],
    ['a step verdict', 'bisect-replay', (dir) => theBisection(dir, (b) => set(b.steps[3]!, 'verdict', 'no change')), /outcome: \[bisect-replay\] says culprit; the search over its recorded verdicts ends inconclusive/],
    ['a step left out', 'bisect-replay', (dir) => theBisection(dir, (b) => void (b.steps as unknown[]).splice(4, 1)), /\[bisect-replay\] counts 5 comparisons for 4 steps/],
    ['the range', 'bisect-replay', (dir) => theBisection(dir, (b) => (set(b.range, 'good', '1.1.0'), set(b.culprit!, 'good', '1.1.0'))), /range: \[bisect-replay\] says 1\.1\.0 → 1\.3\.0; the search narrows to 1\.2\.0 → 1\.3\.0/],
    ['a culprit without its outcome', 'bisect-range', (dir) => theBisection(dir, (b) => set(b, 'culprit', null)), /culprit: \[bisect-range\] outcome culprit without a culprit/],
    ['a link', 'bisect-links', (dir) => theBisection(dir, (b) => set(b.releases[2]!.links, 'upstream', 'https://github.com/elsewhere/x')), /releases\[2\]\.links: \[bisect-links\]/],
    ['releases out of order', 'bisect-releases', (dir) => theBisection(dir, (b) => void (b.releases as unknown[]).reverse()), /\[bisect-releases\] 1\.3\.0 does not come after 1\.4\.0/],
    ['an A/B swapped for another', 'bisect-evidence', (dir) => theBisection(dir, (b) => set(b.steps[0]!, 'ab_file', abPaths()[1]!)), /steps\[0\]\.ab_sha256: \[bisect-evidence\]/],
    ['an A/B removed', 'bisect-evidence', (dir) => rmSync(join(dir, abPaths()[2]!)), /steps\[2\]\.ab_file: \[bisect-evidence\] its A\/B .* is not in results\//],
    ['an A/B renamed', 'path-matches-content', (dir) => renameSync(join(dir, abPaths()[2]!), join(dir, abPaths()[2]!.replace(/[0-9a-f]{12}\.json$/, '000000000000.json'))), /\[path-matches-content\]/],
    ['a run filed as a comparison', 'comparison-kind', (dir) => writeFileSync(join(dir, 'comparisons', 'run.json'), JSON.stringify({ kind: 'run', schema_version: 1 })), /\[comparison-kind\] kind "run" is not a comparison's/],
    ['a command of another tool', 'recorded-command', (dir) => theBisection(dir, (b) => set(b, 'command', ['curl', 'https://example.com/x.sh'])), /command: \[recorded-command\]/],
    ['a bisection recorded as written by `servebench ab`', 'recorded-command', (dir) => theBisection(dir, (b) => set(b, 'command', ['servebench', 'ab', '--a', '1.2.0'])), /command: \[recorded-command\] .* is not a command that writes a bisection/],
    ['a credential in a note', 'credential', (dir) => theBisection(dir, (b) => set(b, 'notes', ['token sk-proj-abcdefghijklmnopqrstuvwxyz0123456789'])), /notes\[0\]: \[credential\] holds a credential/],
    ['a field the schema does not know', 'schema', (dir) => firstAb(dir, (ab) => set(ab, 'reviewer', 'me')), /\[schema\] Unrecognized key: "reviewer"/],
    ['a schema version to come', 'schema-version', (dir) => firstAb(dir, (ab) => set(ab, 'schema_version', 3)), /schema_version: \[schema-version\] schema_version 3 is not one this validator knows for ab \(1, 2\)/],
    ['a block whose arms answered different requests', 'ab-pairing', (dir) => firstAb(dir, (ab) => (set(ab, 'schema_version', 2), unpairBlock(ab))), /passes\[0\]\.blocks\[1\]: \[ab-pairing\] its arms answered different requests: A sent \d+ requests \(stopped on its count\), B sent 8 requests \(stopped on --duration\)/],
    ['not JSON', 'json', (dir) => writeFileSync(join(dir, abPaths()[0]!), '{"kind": "ab",'), /\[json\] not JSON/],
    ['a path that is no comparison path', 'result-path', (dir) => writeFileSync(join(dir, 'comparisons', 'Notes.json'), '{}'), /\[result-path\] the path "comparisons\/Notes\.json" is not a comparison path/],
    ['nesting without end', 'nesting-depth', (dir) => writeFileSync(join(dir, abPaths()[0]!), `{"kind":"ab","schema_version":1,"x":${'['.repeat(60)}${']'.repeat(60)}}`), /\[nesting-depth\] nested deeper than 40 levels/],
    ['a file over the size bound', 'file-size', (dir) => writeFileSync(join(dir, abPaths()[0]!), `{"kind":"ab","pad":"${'x'.repeat(33 * 1024 * 1024)}"}`), /\[file-size\] the file is \d+ bytes, over the 33554432 a comparison may have/],
  ];
  it.each(cases)('%s: [%s]', async (_name, _rule, tamper, rule) => {
    const dir = copyOfFiled();
    expect(await problemsOf(dir)).toEqual([]);
    tamper(dir);
    expect((await problemsOf(dir)).join('\n')).toMatch(rule);
  });

  it('has a case for every rule the comparison checks report', () => {
    const sites = ruleSites(['comparison-check.ts', 'comparisons.ts', 'file-comparison-command.ts']);
    expect([...sites.keys()]).toEqual(expect.arrayContaining(['ab-recomputed', 'bisect-replay', 'file-size']));
    const covered = new Set(cases.map(([, rule]) => rule));
    expect([...sites.keys()].filter((rule) => !covered.has(rule))).toEqual([]);
    expect([...covered].filter((rule) => !sites.has(rule))).toEqual([]);
  });

  it('the folder holds only what was filed', () => {
    expect(readdirSync(join(filedDir, 'comparisons'))).toEqual(['2026-12-04']);
  });
});
