/**
 * The nightly pipeline end to end (scripts/nightly-dry-run.ts), once: two nights of detect →
 * plan → jobs (the embedded CPU engine) → collect → validate → compile → site build → regress →
 * alert against loopback fakes, with the planted regression of the simulated engine, then alert
 * and detect again. About a minute on two cores; everything in a temp folder.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResultText } from '../../harness/store/check-result.ts';
import { listResultFiles } from '../../harness/store/result-files.ts';
import { RunResultSchema } from '../../harness/schema/result.ts';
import { PLANTED_FACTOR, runNightlyDryRun, SIM_RELEASES, SIM_REPEATS, type DryRunReport } from '../../scripts/nightly-dry-run.ts';

let dir: string;
let report: DryRunReport;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'servebench-dry-run-test-'));
  report = await runNightlyDryRun({ keep: join(dir, 'run'), log: () => {} });
}, 8 * 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const night = (n: 1 | 2) => report.nights[String(n)]!;
const stepsNamed = (n: number, name: string) => report.steps.filter((s) => s.night === n && s.step === name);

describe('the nightly dry run', () => {
  it('ran every step, each exiting as the workflow expects it to', () => {
    expect(report.error).toBeNull();
    for (const s of report.steps) expect({ step: `${s.night} ${s.step}`, code: s.code }).toEqual({ step: `${s.night} ${s.step}`, code: s.expected[0] });
    const order = (n: number) => report.steps.filter((s) => s.night === n).map((s) => s.step.replace(/^job .*/, 'job').replace(/^sim .* run \d$/, 'sim run'));
    const pipeline = ['detect', 'plan', 'job', 'job', ...Array<string>(SIM_REPEATS).fill('sim run'), 'collect', 'validate', 'compile', 'site build', 'regress', 'alert'];
    expect(order(1)).toEqual(pipeline);
    expect(order(2)).toEqual([...pipeline, 'alert again', 'detect again']);
    // regress says "regressions found" with exit 1: on night 2 only.
    expect(stepsNamed(1, 'regress')[0]!.code).toBe(0);
    expect(stepsNamed(2, 'regress')[0]!.code).toBe(1);
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(existsSync(join(report.dir, 'DRY-RUN.md'))).toBe(true);
  });

  it('detect reported the new release once, and nothing on the poll after', () => {
    expect(night(1).detect!.new.map((v) => `${v.engine} ${v.version}`).sort()).toEqual(['embedded 3.21.1', 'vllm 0.11.0']);
    expect(night(2).detect!.new.map((v) => `${v.engine} ${v.version}`)).toEqual(['embedded 3.22.0']);
    expect(night(2).detect!.pending.map((v) => `${v.engine} ${v.version}`)).toEqual(['vllm 0.11.1']);
    expect(report.final.detect!.new).toEqual([]);
  });

  it('the plan matrix holds the jobs, and each ran with the exact command it gives', () => {
    for (const [n, release] of [[1, '3.21.1'], [2, '3.22.0']] as const) {
      const matrix = night(n).matrix!.include;
      expect(matrix.map((j) => `${j.engine} ${j.version}`).sort()).toEqual([`embedded ${release}`, 'embedded latest']);
      for (const job of matrix) {
        expect(job.command).toMatch(/^npx tsx harness\/cli\.ts run --engine embedded --launcher process /);
        expect(report.steps.find((s) => s.night === n && s.command[0] === job.command)?.code).toBe(0);
      }
    }
    // vLLM's release is not in the dry-run fleet: noted, not planned.
    expect(night(1).plan!.notes).toEqual([expect.stringContaining('vllm 0.11.0 (new): no matrix entry')]);
  });

  it('collect put every result into results/, and every one validates; each was measured by `servebench run`', () => {
    for (const n of [1, 2] as const) {
      const collect = night(n).collect!;
      expect(collect.collected).toHaveLength(night(n).plan!.jobs.length + SIM_REPEATS);
      expect(collect.missing).toEqual([]);
      expect(collect.invalid).toEqual([]);
      expect(collect.conflicts).toEqual([]);
    }
    const { files, problems } = listResultFiles(join(report.dir, 'results'));
    expect(problems).toEqual([]);
    expect(files).toHaveLength(2 * (2 + SIM_REPEATS));
    expect(night(2).validate).toEqual({ files: files.length, problems: [] });
    for (const file of files) {
      const text = readFileSync(file.absolutePath, 'utf8');
      expect(checkResultText(file.relativePath, text, file.relativePath).problems).toEqual([]);
      const result = RunResultSchema.parse(JSON.parse(text));
      expect(result.source).toBe('official');
      expect(result.status).toBe('completed');
      expect(result.harness.command.slice(0, 2)).toEqual(['servebench', 'run']);
      expect(result.run!.engine.launcher).toBe(result.run!.engine.name === 'embedded' ? 'process' : 'external');
    }
  });

  it('compile produced the snapshot and the site data, and the built site has the leaderboard pages', () => {
    const data = join(report.dir, 'build', 'data');
    const manifest = JSON.parse(readFileSync(join(data, 'MANIFEST.json'), 'utf8')) as { snapshot: string; runs: number };
    expect(manifest.snapshot).toBe(night(2).compile!.snapshot);
    expect(manifest.runs).toBe(2 * (2 + SIM_REPEATS));
    expect(existsSync(join(data, 'parquet', 'snapshots', manifest.snapshot))).toBe(true);
    expect(readdirSync(join(data, 'parquet', 'snapshots'))).toHaveLength(2);
    for (const file of ['leaderboard.json', 'deltas.json', 'scenarios.json']) expect(existsSync(join(data, 'site', file))).toBe(true);

    const site = join(report.dir, 'build', 'site');
    expect(existsSync(join(site, 'index.html'))).toBe(true);
    const leaderboards = night(2).site!.leaderboard_pages;
    // One scenario for the embedded engine, one for the simulated releases.
    expect(leaderboards).toHaveLength(2);
    for (const page of leaderboards) expect(readFileSync(join(site, page), 'utf8')).toMatch(/Leaderboard at c=\d/);
    expect(night(2).site!.regressions_page_names).toContain(SIM_RELEASES[1].version);
  });

  it('regress found the planted regression of the simulated engine, and only that', () => {
    expect(night(1).regress!.regressions).toEqual([]);
    const found = night(2).regress!.regressions;
    expect(found.length).toBeGreaterThan(0);
    for (const r of found) expect(r).toMatchObject({ engine: 'sim', previous_version: SIM_RELEASES[0].version, version: SIM_RELEASES[1].version });
    const tpot = found.find((r) => r.metric === 'tpot_ms_p50')!;
    // The step cost went ×1.5, so the time per output token goes up by about as much (about +48%
    // here); the bounds leave room for a busy machine, the lower one is regress's threshold.
    expect(tpot.change_pct).toBeGreaterThanOrEqual(10);
    expect(tpot.change_pct).toBeLessThan((PLANTED_FACTOR - 1) * 100 * 1.6);
    expect(found.map((r) => r.metric)).toContain('output_throughput');
  });

  it('the fake GitHub got exactly one issue per regression with the right labels; the re-run of alert wrote nothing', () => {
    const found = night(2).regress!.regressions;
    const issues = report.github.issues;
    expect(issues).toHaveLength(found.length);
    expect(new Set(issues.map((i) => i.key))).toEqual(new Set(found.map((r) => r.key)));
    for (const issue of issues) {
      expect([...issue.labels].sort()).toEqual(['engine:sim', 'regression', 'servebench']);
      expect(issue.title).toContain(`sim ${SIM_RELEASES[1].version} vs ${SIM_RELEASES[0].version}`);
    }
    expect(night(2).alert!.actions.map((a) => a.action)).toEqual(found.map(() => 'create'));
    expect(report.github.webhook_posts).toBe(1);
    expect(report.final.alert_rerun_writes).toBe(0);
    expect(report.final.alert_rerun!.actions.map((a) => a.action)).toEqual(found.map(() => 'unchanged'));
  });
});
