/**
 * `servebench validate` (CLI, git immutability in a temp repository) and `servebench regress`
 * (planted regressions with and without noise) on SYNTHETIC results.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareReleases } from '../../harness/contract/significance.ts';
import { summarizeLogs } from '../../harness/lib/stats/log-interval.ts';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { syntheticResult, writeResult } from '../../bench/lib/synthetic-results.ts';
import { runCli } from '../cli/run-cli.ts';
import { fixtureRuns, writeFixture, writeFixturePrices } from './fixture-results.ts';

const root = mkdtempSync(join(tmpdir(), 'servebench-validate-'));

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
}

describe('servebench validate', () => {
  it('passes a good folder; names file, JSON path and fix for a bad one; exits 1; --json; GitHub annotations', async () => {
    const dir = join(root, 'a', 'results');
    const paths = writeFixture(dir);
    const ok = await runCli(['validate', '--results', dir]);
    expect([ok.code, ok.stderr.trim()]).toEqual([0, '8 result files valid']);

    const victim = join(dir, paths[1]!);
    const json = JSON.parse(readFileSync(victim, 'utf8'));
    json.points[0].metrics.ttft_ms.p99 = -1;
    writeFileSync(victim, JSON.stringify(json));
    cpSync(join(dir, paths[2]!), join(dir, dirname(paths[2]!), 'copy.json'));
    // The same run submitted twice: different content (so a different, valid path), same run_id.
    const twin = JSON.parse(readFileSync(join(dir, paths[3]!), 'utf8')) as RunResult;
    twin.timeout_s = 601;
    const twinText = `${JSON.stringify(twin, null, 2)}\n`;
    writeFileSync(join(dir, resultRelativePath(twin, twinText)), twinText);
    mkdirSync(join(dir, 'evil'));
    writeFileSync(join(dir, 'evil', 'x.txt'), 'hi');
    const bad = await runCli(['validate', '--results', dir], 60_000, { GITHUB_ACTIONS: 'true' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${paths[1]}: points[0].metrics.ttft_ms.p99:`);
    expect(bad.stderr).toMatch(/copy\.json: : \[path-matches-content\] the path does not match|copy\.json: \[path-matches-content\] the path does not match/);
    expect(bad.stderr).toMatch(/\[duplicate-run\] run_id .* is also in/);
    expect(bad.stderr).toContain('evil/x.txt: [not-a-result] not a result file');
    expect(bad.stdout).toMatch(/^::error file=.*results\/.*,title=servebench%3A points\[0\]\.metrics\.ttft_ms\.p99::/m);

    const asJson = await runCli(['validate', '--results', dir, '--json', join(dir, paths[1]!)]);
    expect(asJson.code).toBe(1);
    const parsed = JSON.parse(asJson.stdout) as { files: number; problems: Array<{ file: string; path: string; fix: string }> };
    expect(parsed.files).toBe(1);
    expect(parsed.problems[0]!.path).toBe('points[0].metrics.ttft_ms.p99');
    expect(parsed.problems[0]!.fix.length).toBeGreaterThan(10);
  }, 120_000);

  it('with --base, refuses modified, deleted and renamed results and checks only the added ones', async () => {
    const repo = join(root, 'repo');
    const dir = join(repo, 'results');
    const paths = writeFixture(dir);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'base');
    const clean = writeResult(dir, syntheticResult({ ...fixtureRuns()[0]!, seed: 4242 }));
    const added = await runCli(['validate', '--results', dir, '--base', 'main']);
    expect([added.code, added.stderr.trim()]).toEqual([0, '1 result file valid']);
    void clean;

    const modified = join(dir, paths[0]!);
    writeFileSync(modified, readFileSync(modified, 'utf8').replace('"timeout_s": 600', '"timeout_s": 601'));
    rmSync(join(dir, paths[1]!));
    renameSync(join(dir, paths[2]!), join(dir, `${paths[2]!}.moved.json`));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'tamper');
    const tampered = await runCli(['validate', '--results', dir, '--base', 'HEAD~1']);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain(`${paths[0]}: [immutable] modified`);
    expect(tampered.stderr).toContain(`${paths[1]}: [immutable] deleted`);
    expect(tampered.stderr).toContain(`${paths[2]}: [immutable] deleted`);
    // The renamed copy is an added file, and its path no longer matches its content.
    expect(tampered.stderr).toMatch(/moved\.json: .*not a result path|moved\.json: \[path-matches-content\] the path does not match/);

    // An added link is reported and never read (it could point anywhere); so is an added non-result file.
    const secret = join(root, 'secret.json');
    writeFileSync(secret, '{"token": "do-not-print"}');
    symlinkSync(secret, join(dir, 'link.json'));
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    const sneaky = await runCli(['validate', '--results', dir, '--base', 'HEAD']);
    expect(sneaky.code).toBe(1);
    expect(sneaky.stderr).toContain('link.json: [not-a-result] a symbolic link');
    expect(sneaky.stderr).toContain('notes.txt: [not-a-result] not a result file');
    expect(sneaky.stderr).not.toContain('do-not-print');
    rmSync(join(dir, 'link.json'));
    rmSync(join(dir, 'notes.txt'));

    const unknown = await runCli(['validate', '--results', dir, '--base', 'no-such-ref']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--base: git .* failed/);
  }, 120_000);
});

describe('servebench regress', () => {
  it('finds the planted 15% regression with its confidence and links, and nothing else', async () => {
    const dir = join(root, 'regress', 'results');
    writeFixture(dir);
    const out = join(root, 'regress', 'out');
    const run = await runCli(['regress', '--results', dir, '--out', out, '--prices', writeFixturePrices(root), '--json', '--repo-url', 'https://github.com/o/r'], 120_000);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { regressions: Array<{ engine: string; metric: string; change_pct: number; method: string; key: string; url: string; previous_url: string; p_value: number }> };
    expect(new Set(report.regressions.map((r) => r.engine))).toEqual(new Set(['vllm']));
    const tput = report.regressions.filter((r) => r.metric === 'output_throughput');
    expect(tput).toHaveLength(2);
    for (const r of tput) {
      expect(r.change_pct).toBeGreaterThan(-20);
      expect(r.change_pct).toBeLessThan(-10);
      expect(r.method).toBe('welch');
      expect(r.p_value).toBeLessThan(0.05);
      expect(r.url).toMatch(/^https:\/\/github\.com\/o\/r\/blob\/main\/results\/2026-02-1\d\/vllm\//);
      expect(r.previous_url).toMatch(/results\/2026-01-1\d\/vllm\//);
    }
    const keys = report.regressions.map((r) => r.key);
    expect(new Set(keys).size).toBe(keys.length);
    // Every comparison in scope rides along (what alert needs to close a fixed regression): sglang's unclear ones too.
    const { comparisons, compared } = JSON.parse(run.stdout) as { compared: number; comparisons: Array<{ engine: string; verdict: string; url: string }> };
    expect(comparisons).toHaveLength(compared);
    expect(new Set(comparisons.map((c) => c.engine))).toEqual(new Set(['vllm', 'sglang']));
    expect(comparisons.filter((c) => c.verdict === 'worse').length).toBeGreaterThanOrEqual(report.regressions.length);
    expect(comparisons.every((c) => c.url.startsWith('https://github.com/o/r/blob/main/results/'))).toBe(true);
    const markdown = await runCli(['regress', '--results', dir, '--out', out, '--prices', writeFixturePrices(root)], 120_000);
    expect(markdown.stdout).toContain('### vllm 1.0.0 → 1.1.0');
    expect(markdown.stdout).toMatch(/\| synthetic\/llama-8b · bfloat16 · 1x-Synthetic H100 · chat · c=8 \| Output throughput \(tok\/s\) \|/);
    // Same inputs, same keys: the alerting job can tell it already filed them.
    expect(markdown.stdout).toContain(`<!-- servebench regression keys: ${keys.join(' ')} -->`);
  }, 240_000);

  it('--base: only comparisons involving runs added since the base commit', async () => {
    const repo = join(root, 'regress-base');
    const dir = join(repo, 'results');
    const runs = fixtureRuns();
    const newest = runs.filter((r) => r.engine === 'vllm' && r.version === '1.1.0');
    for (const run of runs.filter((r) => !newest.includes(r))) writeResult(dir, syntheticResult(run));
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'before the release');
    for (const run of newest) writeResult(dir, syntheticResult(run));
    const args = ['regress', '--results', dir, '--out', join(repo, 'out'), '--prices', writeFixturePrices(root), '--json'];
    const brought = await runCli([...args, '--base', 'main'], 120_000);
    expect(brought.code).toBe(1);
    expect((JSON.parse(brought.stdout) as { regressions: Array<{ version: string }> }).regressions.every((r) => r.version === '1.1.0')).toBe(true);
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'the release');
    const nothingNew = await runCli([...args, '--base', 'HEAD'], 120_000);
    expect([nothingNew.code, (JSON.parse(nothingNew.stdout) as { regressions: unknown[] }).regressions]).toEqual([0, []]);
    // The same regression is still there for --latest, with the same keys as before.
    const latest = await runCli(args, 120_000);
    expect(JSON.parse(latest.stdout).regressions.map((r: { key: string }) => r.key)).toEqual(JSON.parse(brought.stdout).regressions.map((r: { key: string }) => r.key));
  }, 240_000);

  it('stays quiet on pure noise at the measured noise level', async () => {
    const dir = join(root, 'noise', 'results');
    writeFixture(dir, 1);
    const run = await runCli(['regress', '--results', dir, '--out', join(root, 'noise', 'out'), '--prices', writeFixturePrices(root), '--json'], 120_000);
    expect(run.stderr).toBe('');
    expect((JSON.parse(run.stdout) as { regressions: unknown[] }).regressions).toEqual([]);
    expect(run.code).toBe(0);
  }, 120_000);

  it('single runs: flags a 15% drop only beyond the noise band pooled from repeats', () => {
    // Noise σ = 0.02 on the log scale, pooled from many repeats (df large).
    const noise = { variance: 0.02 ** 2, df: 100 };
    const drop = compareReleases(summarizeLogs([100]), summarizeLogs([85]), noise);
    expect([drop.method, drop.significant]).toEqual(['noise-band', true]);
    const wobble = compareReleases(summarizeLogs([100]), summarizeLogs([98]), noise);
    expect(wobble.significant).toBe(false);
    expect(compareReleases(summarizeLogs([100]), summarizeLogs([85]), null)).toMatchObject({ method: 'unknown-noise', significant: false, pValue: null });
  });
});
