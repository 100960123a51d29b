/**
 * `servebench validate FOLDER…`: a folder stands for every result file under it, recursively, with
 * the same report and exit status as naming those files; a folder without one is bad usage. And the
 * package's bin (`npx servebench`), from any folder. SYNTHETIC results.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFixture } from '../store/fixture-results.ts';
import { resultFilesIn, runCli, type CliOutcome } from './run-cli.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.servebench as string);
const root = mkdtempSync(join(tmpdir(), 'servebench-validate-folders-'));
const results = join(root, 'results');
let paths: string[] = [];

/** The package's bin as npx runs it: the file itself (its shebang's node), from a folder outside the checkout. */
function runBin(args: readonly string[], cwd = root): Promise<CliOutcome> {
  return new Promise((resolve) => {
    execFile(BIN, args, { cwd, timeout: 60_000, env: { ...process.env, PATH: `${join(REPO, 'node_modules/.bin')}:${process.env.PATH}` } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(() => {
  paths = writeFixture(results);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('servebench validate FOLDER', () => {
  it('checks every result file under a folder, recursively: a day, the whole results folder', async () => {
    const day = paths[0]!.split('/')[0]!;
    const ofDay = paths.filter((p) => p.startsWith(`${day}/`));
    const one = await runCli(['validate', '--results', results, join(results, day)]);
    expect([one.code, one.stderr.trim()]).toEqual([0, `${ofDay.length} result file${ofDay.length === 1 ? '' : 's'} valid`]);
    const all = await runCli(['validate', '--results', results, `${results}/`]);
    expect([all.code, all.stderr.trim()]).toEqual([0, `${paths.length} result files valid`]);
    // A folder and a file in it, or a folder twice: each file is checked once (no false duplicate).
    const twice = await runCli(['validate', '--results', results, results, join(results, day), join(results, paths[0]!), '--json']);
    expect(twice.code).toBe(0);
    expect(JSON.parse(twice.stdout)).toEqual({ files: paths.length, comparisons: 0, problems: [] });
  }, 120_000);

  it('reports a bad folder as the same files named one by one: same lines, exit 1', async () => {
    const dir = join(root, 'bad', 'results');
    cpSync(results, dir, { recursive: true });
    const victim = join(dir, paths[1]!);
    const json = JSON.parse(readFileSync(victim, 'utf8'));
    json.points[0].metrics.ttft_ms.p99 = -1;
    writeFileSync(victim, JSON.stringify(json));
    cpSync(join(dir, paths[2]!), join(dir, paths[2]!.replace(/[^/]+$/, 'copy.json')));
    const byFolder = await runCli(['validate', '--results', dir, dir]);
    const byFiles = await runCli(['validate', '--results', dir, ...resultFilesIn(dir)]);
    const byDefault = await runCli(['validate', '--results', dir]);
    expect(byFolder.code).toBe(1);
    expect(byFolder.stderr).toContain(`${paths[1]}: points[0].metrics.ttft_ms.p99:`);
    expect(byFolder.stderr).toMatch(/copy\.json: .*the path does not match/);
    expect([byFiles.code, byFiles.stderr]).toEqual([1, byFolder.stderr]);
    expect([byDefault.code, byDefault.stderr]).toEqual([1, byFolder.stderr]);
    // As JSON and as GitHub annotations, too.
    const asJson = JSON.parse((await runCli(['validate', '--results', dir, '--json', dir])).stdout) as { files: number; problems: unknown[] };
    expect(asJson.files).toBe(paths.length + 1);
    const annotated = await runCli(['validate', '--results', dir, dir], 60_000, { GITHUB_ACTIONS: 'true' });
    expect(annotated.stdout).toMatch(/^::error file=.*results\/.*,title=servebench%3A points\[0\]\.metrics\.ttft_ms\.p99::/m);
  }, 120_000);

  it('reports what else a folder holds; a folder without a result file is bad usage (exit 2)', async () => {
    const dir = join(root, 'odd', 'results');
    cpSync(results, dir, { recursive: true });
    const day = paths[0]!.split('/')[0]!;
    writeFileSync(join(dir, day, 'notes.txt'), 'hi');
    writeFileSync(join(dir, day, 'README.md'), 'hi');
    writeFileSync(join(dir, 'README.md'), 'the results folder may have one at its root');
    const odd = await runCli(['validate', '--results', dir, join(dir, day)]);
    expect(odd.code).toBe(1);
    expect(odd.stderr).toContain(`${day}/notes.txt: [not-a-result] not a result file`);
    expect(odd.stderr).toContain(`${day}/README.md: [not-a-result] not a result file`);
    expect((await runCli(['validate', '--results', dir])).stderr).toContain(`${day}/README.md: [not-a-result] not a result file`);
    expect((await runCli(['validate', '--results', dir, dir])).stderr).not.toMatch(/^README\.md/m);

    const empty = join(root, 'empty');
    mkdirSync(join(empty, 'deeper'), { recursive: true });
    const none = await runCli(['validate', '--results', dir, empty]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no result files \(\*\.json\) under the folder ".*empty"/);
    writeFileSync(join(empty, 'deeper', 'x.txt'), 'hi');
    const other = await runCli(['validate', '--results', dir, empty]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('deeper/x.txt');
    const missing = await runCli(['validate', '--results', dir, join(root, 'nowhere')]);
    expect([missing.code, missing.stderr]).toEqual([2, `servebench: validate: no file or folder "${join(root, 'nowhere')}"\n`]);
  }, 120_000);
});

describe('npx servebench (package.json bin)', () => {
  it('runs the CLI from any folder: --help, validate FOLDER with its exit status', async () => {
    const help = await runBin(['--help'], tmpdir());
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: servebench <command> [options]');
    const ok = await runBin(['validate', '--results', 'results', 'results/']);
    expect([ok.code, ok.stderr.trim()]).toEqual([0, `${paths.length} result files valid`]);
    const usage = await runBin(['validate', 'no-such-folder']);
    expect(usage.code).toBe(2);
    expect((await runBin(['no-such-command'])).code).toBe(2);
  }, 120_000);
});
