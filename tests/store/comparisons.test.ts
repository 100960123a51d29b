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
import type { AbResult, Bisection } from '../../harness/contract/comparison.ts';
import { checkComparisonFiles } from '../../harness/store/comparisons.ts';
import { listResultFiles } from '../../harness/store/result-files.ts';
import { runCli } from '../cli/run-cli.ts';

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
      ...Array(5).fill('comparisons/2026-12-04/sim/sim-model/cpu-2x-amd-epyc/ab-smoke-c2'),
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

describe('every hand edit of a filed comparison fails its rule', () => {
  const cases: Array<[string, (dir: string) => void, RegExp]> = [
    ['an A/B block value', (dir) => edit<AbResult>(dir, abPaths()[0]!, (ab) => void ((ab.passes[0]!.blocks[1] as { b_value: number }).b_value *= 0.5)), /b_value: \[ab-recomputed\] is [\d.]+; its run's point gives/],
    ['an A/B pass comparison', (dir) => edit<AbResult>(dir, abPaths()[0]!, (ab) => void ((ab.passes[0]!.comparison as { verdict: string }).verdict = 'no change')), /passes\[0\]\.comparison: \[ab-recomputed\] says no change/],
    ['an arm run of another release', (dir) => edit<AbResult>(dir, abPaths()[0]!, (ab) => void ((ab.passes[0]!.blocks[0]!.b.run!.parameters as { engine_version: string }).engine_version = '1.1.0')), /\[ab-arm\] ran release "1\.1\.0", not its arm's 1\.4\.0/],
    ['ABBA order', (dir) => edit<AbResult>(dir, abPaths()[0]!, (ab) => void ((ab.passes[0]!.blocks[1] as { order: string }).order = 'AB')), /\[ab-design\] block 1 is 1 "AB"; the design runs it as 1 BA/],
    ['the pilot\'s σ', (dir) => edit<AbResult>(dir, abPaths()[0]!, (ab) => void ((ab.aa as { sd_log_ratio: number }).sd_log_ratio = 0.5)), /aa\.sd_log_ratio: \[ab-recomputed\]/],
    ['a step verdict', (dir) => edit<Bisection>(dir, bisectionPath(), (b) => void ((b.steps[3] as { verdict: string }).verdict = 'no change')), /outcome: \[bisect-replay\] says culprit; the search over its recorded verdicts ends inconclusive/],
    ['a step left out', (dir) => edit<Bisection>(dir, bisectionPath(), (b) => void (b.steps as unknown[]).splice(4, 1)), /\[bisect-replay\]/],
    ['the culprit', (dir) => edit<Bisection>(dir, bisectionPath(), (b) => void ((b as { range: { good: string } }).range.good = '1.1.0')), /range: \[bisect-/],
    ['a link', (dir) => edit<Bisection>(dir, bisectionPath(), (b) => void ((b.releases[2]!.links as { upstream: string }).upstream = 'https://github.com/elsewhere/x')), /releases\[2\]\.links: \[bisect-links\]/],
    ['an A/B swapped for another', (dir) => edit<Bisection>(dir, bisectionPath(), (b) => void ((b.steps[0] as { ab_file: string }).ab_file = abPaths()[1]!)), /steps\[0\]\.ab_sha256: \[bisect-evidence\]/],
    ['an A/B removed', (dir) => rmSync(join(dir, abPaths()[2]!)), /steps\[2\]\.ab_file: \[bisect-evidence\] its A\/B .* is not in results\//],
    ['an A/B renamed', (dir) => renameSync(join(dir, abPaths()[2]!), join(dir, abPaths()[2]!.replace(/[0-9a-f]{12}\.json$/, '000000000000.json'))), /\[path-matches-content\]/],
    ['a run filed as a comparison', (dir) => writeFileSync(join(dir, 'comparisons', 'run.json'), JSON.stringify({ kind: 'run', schema_version: 1 })), /\[comparison-kind\] kind "run" is not a comparison's/],
    ['a command of another tool', (dir) => edit<Bisection>(dir, bisectionPath(), (b) => void ((b as { command: string[] }).command = ['curl', 'https://example.com/x.sh'])), /command: \[recorded-command\]/],
  ];
  it.each(cases)('%s', async (_name, tamper, rule) => {
    const dir = copyOfFiled();
    expect(await problemsOf(dir)).toEqual([]);
    tamper(dir);
    expect((await problemsOf(dir)).join('\n')).toMatch(rule);
  });

  it('a file over the size bound is refused before it is parsed', async () => {
    const dir = copyOfFiled();
    writeFileSync(join(dir, abPaths()[0]!), `{"kind":"ab","pad":"${'x'.repeat(33 * 1024 * 1024)}"}`);
    expect((await problemsOf(dir)).join('\n')).toMatch(/\[limit:file-size\] the file is \d+ bytes, over the 33554432 a comparison may have/);
  });

  it('the folder holds only what was filed', () => {
    expect(readdirSync(join(filedDir, 'comparisons'))).toEqual(['2026-12-04']);
  });
});
