/**
 * `servebench summarize` on a temp git repository of SYNTHETIC results: the base commit holds
 * official releases, the "pull request" adds community runs (and, in the hostile case, files
 * crafted to break out of the Markdown). The comparison numbers are checked against what
 * `servebench compile` publishes for the same folder.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { summarizeCommand, runSummarize } from '../../harness/pipeline/submission/command.ts';
import { escapeHtml, escapeMarkdown, summaryMarkdown } from '../../harness/pipeline/submission/markdown.ts';
import type { SubmissionSummary } from '../../harness/pipeline/submission/pr-summary.ts';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import type { RunResult } from '../../harness/contract/result.ts';
import { compile } from '../../harness/store/compile.ts';
import { HEADLINE_METRICS } from '../../harness/contract/metric-catalog.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { syntheticResult, writeResult, type SyntheticRun } from '../../bench/lib/synthetic-results.ts';
import { fixtureRuns, writeFixturePrices } from '../store/fixture-results.ts';

const root = mkdtempSync(join(tmpdir(), 'servebench-summarize-'));
const prices = writeFixturePrices(root);

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
}

/**
 * A repository whose base commit has the fixture's official releases except vllm 1.1.0
 * (vllm 1.0.0 × 3, sglang 2.0.0 and 2.1.0): what the leaderboard shows before the pull request.
 */
function baseRepo(name: string): { repo: string; dir: string; runs: SyntheticRun[] } {
  const repo = join(root, name);
  const dir = join(repo, 'results');
  const runs = fixtureRuns();
  for (const run of runs.filter((r) => !(r.engine === 'vllm' && r.version === '1.1.0'))) writeResult(dir, syntheticResult({ ...run, source: 'official' }));
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'base');
  return { repo, dir, runs };
}

async function summarize(repo: string, extra: readonly string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runSummarize(['--base', 'main', '--results', join(repo, 'results'), '--out', join(repo, 'out'), '--prices', prices, ...extra], {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
  });
  return { code, stdout, stderr };
}

/** Lines of a Markdown table, split on the pipes that are not escaped. */
function cells(line: string): string[] {
  return line.split(/(?<!\\)\|/).slice(1, -1);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('servebench summarize', () => {
  it('lists the added files only, with their runs, and a clean verdict; compares each point with the releases compile publishes', async () => {
    const { repo, dir, runs } = baseRepo('compare');
    // The pull request (community): a new vllm release, and a repeat of the official vllm 1.0.0.
    const newRelease = writeResult(dir, syntheticResult({ ...runs.find((r) => r.engine === 'vllm' && r.version === '1.1.0')!, source: 'community' }));
    const repeat = writeResult(dir, syntheticResult({ ...runs[0]!, source: 'community', seed: 4242, date: new Date(Date.UTC(2026, 0, 20, 3)) }));

    const { code, stdout, stderr } = await summarize(repo, ['--json', '--expect-source', 'community']);
    expect(stderr).toBe('summarize: 2 result files added against main; no problems\n');
    expect(code).toBe(0);
    const summary = JSON.parse(stdout) as SubmissionSummary;
    expect(summary.problems).toEqual([]);
    expect(summary.added.map((a) => a.file)).toEqual([newRelease, repeat].sort());
    const added = summary.added.find((a) => a.file === newRelease)!;
    expect(added).toMatchObject({ valid: true, engine: 'vllm', version: '1.1.0', model: 'synthetic/llama-8b', precision: 'bfloat16', hardware: '1x-Synthetic H100', workload: 'chat', points: 2, source: 'community', status: 'completed', harness_commit_known: false });

    // What compile publishes for the same folder: every official release of every scenario (its history).
    const out = join(repo, 'compiled');
    await compile({ resultsDir: dir, outDir: out, prices: loadPrices(prices), now: new Date('2026-03-01T00:00:00Z') });
    const history = readdirSync(join(out, 'site', 'scenarios')).flatMap((file) => (JSON.parse(readFileSync(join(out, 'site', 'scenarios', file), 'utf8')) as { history: Array<Record<string, unknown>> }).history);
    const release = (config: string, engine: string, version: string) => history.find((h) => h.official === true && h.config_id === config && h.engine === engine && h.engine_version === version);

    const byFile = new Map(summary.comparisons.map((c) => [c.file, c]));
    const fresh = byFile.get(newRelease)!;
    const file = JSON.parse(readFileSync(join(dir, newRelease), 'utf8')) as RunResult;
    expect(fresh.points.map((p) => p.load)).toEqual(['c=1', 'c=8']);
    let compared = 0;
    for (const [i, point] of fresh.points.entries()) {
      // This run's own numbers are its file's.
      expect(point.values.output_throughput).toBe(file.points[i]!.metrics.output_throughput);
      expect(point.values.ttft_ms_p50).toBe(file.points[i]!.metrics.ttft_ms!.p50);
      expect(point.baselines.map((b) => [b.engine, b.version, b.roles])).toEqual([
        ['vllm', '1.0.0', ['previous-release', 'newest-official']],
        ['sglang', '2.1.0', ['newest-official']],
      ]);
      for (const b of point.baselines) {
        const published = release(point.config_id, b.engine, b.version)!;
        expect(published).toBeDefined();
        expect(b.runs).toBe(published.runs);
        for (const m of HEADLINE_METRICS) {
          expect(b.values[m.column], `${b.engine} ${b.version} ${m.column}`).toBe(published[m.column] ?? null);
          const value = point.values[m.column]!;
          if (value !== null && b.values[m.column] != null) {
            expect(b.change_pct[m.column]).toBeCloseTo((value / b.values[m.column]! - 1) * 100, 9);
            compared += 1;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(30);
    // The planted slowdown shows: vllm 1.1.0 is about 15% below its previous release.
    expect(fresh.points[0]!.baselines[0]!.change_pct.output_throughput).toBeLessThan(-10);

    // The repeat meets its own release as the newest official vllm, which a community run never joins.
    const again = byFile.get(repeat)!;
    const own = again.points[0]!.baselines.find((b) => b.engine === 'vllm')!;
    expect(own).toMatchObject({ version: '1.0.0', roles: ['newest-official'], includes_this_run: false, runs: 3 });
    expect(own.values.output_throughput).toBe(release(again.points[0]!.config_id, 'vllm', '1.0.0')!.output_throughput);

    const markdown = summaryMarkdown(summary);
    expect(markdown).toContain('**Verdict:** ✅ 2 result files added, valid');
    expect(markdown).toContain('vllm 1\\.0\\.0 (previous release, newest official; 3 runs)');
    expect(markdown).toContain('vllm 1\\.0\\.0 (newest official; 3 runs)');
    expect(markdown).not.toContain('this one included');
  }, 120_000);

  it('names every problem: a changed result, a source other than expected, a file that is no result; exit 1', async () => {
    const { repo, dir, runs } = baseRepo('problems');
    const existing = git(repo, 'ls-files', 'results').trim().split('\n')[0]!.replace(/^results\//, '');
    writeFileSync(join(dir, existing), readFileSync(join(dir, existing), 'utf8').replace('"timeout_s": 600', '"timeout_s": 601'));
    const claimed = writeResult(dir, syntheticResult({ ...runs[6]!, seed: 999, source: 'official' }));
    writeFileSync(join(dir, 'notes.txt'), 'not a result');

    const { code, stdout } = await summarize(repo, ['--json', '--expect-source', 'community']);
    expect(code).toBe(1);
    const summary = JSON.parse(stdout) as SubmissionSummary;
    const problems = summary.problems.map((p) => `${p.file}|${p.path}|${p.message}`);
    expect(problems).toContainEqual(expect.stringMatching(new RegExp(`^${existing.replace(/[.]/g, '\\.')}\\|\\|\\[immutable\\] modified`)));
    expect(problems).toContainEqual(`${claimed}|source|source is "official"; this pull request may add community results only`);
    expect(problems).toContainEqual('notes.txt||[not-a-result] not a result file');
    expect(summary.added.map((a) => a.file)).toEqual([claimed]);
    expect(summary.added[0]!.valid).toBe(false);

    // Without --expect-source the official claim alone is fine: only the other two remain.
    const loose = JSON.parse((await summarize(repo, ['--json'])).stdout) as SubmissionSummary;
    expect(loose.problems.map((p) => p.file).sort()).toEqual([existing, 'notes.txt'].sort());
  }, 120_000);

  it('escapes hostile paths, names and messages: no mention, reference, link, image, HTML or broken table gets through', async () => {
    const { repo, dir, runs } = baseRepo('hostile');
    // Valid, yet hostile: result names may hold "@" (a Hugging Face org, say) and parentheses.
    const mention = writeResult(dir, syntheticResult({ ...runs[6]!, seed: 77, model: 'synthetic/@octocat (x)', version: '2.1.0 @admins' }));
    // Invalid: markup in a name, and a path made of markup; both end up quoted in problem messages.
    const marked = syntheticResult({ ...runs[7]!, seed: 78, model: 'synthetic/<img src=x onerror=alert(1)>[click](https://evil.example)' });
    const markedText = `${JSON.stringify(marked, null, 2)}\n`;
    const markedPath = resultRelativePath(marked, markedText);
    mkdirSync(dirname(join(dir, markedPath)), { recursive: true });
    writeFileSync(join(dir, markedPath), markedText);
    const hostilePath = '2026-03-01/x/[click](https:evil)@octocat #7 |a|b| <script>x<\\script> `tick`.json';
    mkdirSync(dirname(join(dir, hostilePath)), { recursive: true });
    writeFileSync(join(dir, hostilePath), '{"schema_version": 1, "model": "@octocat"}');

    const { code, stdout } = await summarize(repo, ['--expect-source', 'community']);
    expect(code).toBe(1);
    const md = stdout;
    expect(md).toContain('synthetic\\/\\@\u200boctocat \\(x\\)');
    // No mention and no issue reference survives; every "@" and "#<digit>" is defused.
    expect(md).not.toMatch(/@(?!\u200b)[A-Za-z0-9_]/);
    expect(md).not.toMatch(/#\d/);
    // The only raw HTML is the summary's own <details>/<summary>.
    expect(md).not.toMatch(/(?<!\\)<(?!\/?(?:details|summary)>)/);
    // No link or image syntax: every bracket and backtick is escaped.
    expect(md).not.toMatch(/(?<!\\)[[\]`]/);
    expect(md).not.toMatch(/https?:\/\//);
    // Every table row has its header's number of cells.
    const lines = md.split('\n');
    for (const [i, line] of lines.entries()) {
      if (!line.startsWith('| ') || lines[i - 1]?.startsWith('|')) continue;
      const width = cells(line).length;
      for (let k = i + 1; lines[k]?.startsWith('|'); k++) expect(cells(lines[k]!), lines[k]).toHaveLength(width);
    }
    // The mention's run is listed and compared; both invalid files are named among the problems.
    expect(md).toContain(escapeMarkdown(mention));
    expect(md).toContain(escapeMarkdown(markedPath, 160));
    expect(md).toContain(escapeMarkdown(hostilePath, 160));
    expect(md).toContain('<summary>sglang 2.1.0 @\u200badmins · synthetic/@\u200boctocat (x) · bfloat16 · 1x-Synthetic H100 · chat</summary>');
    expect(md).toContain('\\#\u200b7');
  }, 120_000);

  it('through the command object: Markdown on stdout and in --markdown FILE; bad usage is refused', async () => {
    const { repo, dir, runs } = baseRepo('command');
    writeResult(dir, syntheticResult(runs.find((r) => r.engine === 'vllm' && r.version === '1.1.0')!));
    const written: string[] = [];
    const io = { stdout: (text: string) => void written.push(text), stderr: () => undefined, env: {} };
    const file = join(repo, 'summary.md');
    const code = await summarizeCommand.run(['--base', 'main', '--results', dir, '--out', join(repo, 'out'), '--prices', prices, '--markdown', file], io);
    expect(code).toBe(0);
    expect(written.join('')).toBe(readFileSync(file, 'utf8'));
    expect(written.join('')).toContain('#### How it compares');
    await expect(summarizeCommand.run(['--results', dir])).rejects.toThrow(/--base GIT_REF is required/);
    await expect(summarizeCommand.run(['--base', 'main', '--expect-source', 'everyone'])).rejects.toThrow(/--expect-source: "everyone" is not one of community, official/);
    await expect(summarizeCommand.run(['--base', 'no-such-ref', '--results', dir, '--out', join(repo, 'out'), '--prices', prices])).rejects.toThrow(/--base: git .* failed/);
  }, 120_000);
});

describe('summary Markdown', () => {
  it('escapes untrusted text for Markdown and for HTML', () => {
    expect(escapeMarkdown('[x](javascript:alert(1)) <b>*hi*</b> @team/org #5 a|b\nc\u202eevil')).toBe(
      '\\[x\\]\\(javascript\\:alert\\(1\\)\\) \\<b\\>\\*hi\\*\\<\\/b\\> \\@\u200bteam\\/org \\#\u200b5 a\\|b c evil',
    );
    expect(escapeHtml('<img src=x> & "q" @user')).toBe('&#60;img src=x&#62; &#38; &#34;q&#34; @\u200buser');
    expect(escapeMarkdown('x'.repeat(500), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('stays under the size limit and names the runs it had to leave out', () => {
    const point = (i: number) => ({
      point: i,
      load: `c=${i}`,
      config_id: `cfg${i}`,
      values: Object.fromEntries(HEADLINE_METRICS.map((m) => [m.column, 100 + i])),
      baselines: [{ engine: 'other', version: '1.0', roles: ['newest-official' as const], official: true, runs: 3, includes_this_run: false, values: Object.fromEntries(HEADLINE_METRICS.map((m) => [m.column, 90])), change_pct: Object.fromEntries(HEADLINE_METRICS.map((m) => [m.column, 11.1])) }],
    });
    const comparisons = Array.from({ length: 40 }, (_, k) => ({
      file: `2026-01-01/e/m/h/w-${k}.json`,
      run_id: `r${k}`,
      engine: 'e',
      version: '1',
      model: 'm',
      precision: 'bf16',
      hardware: 'h',
      workload: 'w',
      note: null,
      points: Array.from({ length: 6 }, (_, i) => point(i)),
    }));
    const summary: SubmissionSummary = { base: 'main', expect_source: null, added: [], problems: [], comparisons, metrics: HEADLINE_METRICS.map(({ column, label, unit, better }) => ({ column, label, unit, better })) };
    const md = summaryMarkdown(summary, 20_000);
    expect(md.length).toBeLessThanOrEqual(20_000);
    expect(md).toMatch(/\n\d+ more runs not shown here/);
    expect(md.split('<details>').length - 1 + Number(md.match(/(\d+) more runs/)![1])).toBe(40);
  });
});
