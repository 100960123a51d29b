/**
 * `servebench alert` against the local fake GitHub API and a fake Slack webhook, on the SYNTHETIC
 * regress report in tests/fixtures/alert/regressions.json (vLLM 0.11.1: 3 metrics × 2 load points
 * on one configuration; SGLang 0.5.3: 1 row on another): one issue per engine release and
 * configuration and never a duplicate, a later night's update with a comment, the close of a fixed
 * regression, reopening, idempotence, pagination, labels, dry runs, rate limits and untrusted names.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ServebenchError } from '../../harness/lib/errors.ts';
import { runAlert } from '../../harness/pipeline/alert/command.ts';
import { planAlerts, type ExistingIssue } from '../../harness/pipeline/alert/alert.ts';
import { groupKey, groupRegressions, nightOf } from '../../harness/pipeline/alert/groups.ts';
import { parseRegressionReport } from '../../harness/pipeline/regressions/report.ts';
import { groupBody, groupKeyOfBody, groupTitle, MAX_BODY_LENGTH, stateOfBody } from '../../harness/pipeline/alert/markdown.ts';
import { nextLink, rateLimitWait } from '../../harness/pipeline/alert/github-issues.ts';
import { HEADLINE_METRICS } from '../../harness/contract/metric-catalog.ts';
import { createFakeGitHub, secondaryRateLimit, type FakeGitHub, type FakeIssue } from '../kit/fakes/fake-github-issues.ts';
import { startFakeServer, type FakeServer, type RecordedRequest } from '../kit/fakes/fake-server.ts';
import { createFakeWebhook, WEBHOOK_PATH, type FakeWebhook } from '../kit/fakes/fake-webhook.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/alert/regressions.json', import.meta.url));
type Row = Record<string, unknown>;
const fixture = () => JSON.parse(readFileSync(FIXTURE, 'utf8')) as { threshold_pct: number; regressions: Row[]; comparisons?: Row[] };
const REPO = 'octo-org/servebench';
/** The fixture's rows: 0-5 vLLM 0.11.1 on llama-8b/chat (c=16 then c=64: output_throughput, ttft_ms_p99, tpot_ms_p50), 6 SGLang. */
const VLLM = [0, 1, 2, 3, 4, 5];
const SGLANG = 6;

let dir: string;
let github: FakeGitHub;
let webhook: FakeWebhook;
let server: FakeServer;
let waits: number[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'servebench-alert-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeEach(async () => {
  github = createFakeGitHub({ owner: 'octo-org', repo: 'servebench' });
  webhook = createFakeWebhook();
  server = await startFakeServer([github.handler, webhook.handler]);
  waits = [];
});
afterEach(() => server.close());

let files = 0;
function report(edit: (regressions: Row[], data: ReturnType<typeof fixture>) => void = () => {}): string {
  const data = fixture();
  edit(data.regressions, data);
  const path = join(dir, `regressions-${files++}.json`);
  writeFileSync(path, JSON.stringify(data));
  return path;
}

/** A row as a comparison (what regress compared, regression or not): no key. */
function comparison(row: Row, edit: Row = {}): Row {
  const { key: _, ...rest } = row;
  return { ...rest, significant: false, verdict: 'unclear', ...edit };
}

/** The same rows one night later (one more run of the new release). */
const NIGHT_2 = '20260211T030000Z-5a6b7c8d';
const NIGHT_2_URL = 'https://github.com/octo-org/servebench/blob/main/results/2026-02-11/vllm/synthetic-llama-8b/1x-synthetic-h100/chat-5a6b7c8d9e0f.json';
function nextNight(row: Row, edit: Row = {}): Row {
  return Object.assign(row, { runs: 4, run_id: NIGHT_2, url: NIGHT_2_URL, file: NIGHT_2_URL.split('/results/')[1] }, edit);
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly requests: RecordedRequest[];
}

async function alert(args: readonly string[], env: NodeJS.ProcessEnv = {}, sleep?: (ms: number) => Promise<void>): Promise<Run> {
  const before = server.requests.length;
  let stdout = '';
  let stderr = '';
  let code: number;
  try {
    code = await runAlert(args, {
      env: { GITHUB_TOKEN: github.token, GITHUB_REPOSITORY: REPO, SERVEBENCH_GITHUB_API_URL: server.url, ...env },
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      policy: { sleep: sleep ?? (async (ms) => void waits.push(ms)), backoffMs: 0 },
      writeSpacingMs: 0,
    });
  } catch (error) {
    if (!(error instanceof ServebenchError)) throw error;
    code = error.exitCode;
    stderr += `${error.message}\n`;
  }
  return { code, stdout, stderr, requests: server.requests.slice(before) };
}

const writes = (run: Run) => run.requests.filter((r) => r.method !== 'GET');
const paths = (run: Run) => run.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`);
const hook = () => ['--webhook', `${server.url}${WEBHOOK_PATH}`];
const ISSUES = '/repos/octo-org/servebench/issues';

/** The rows of the table of regressions (the first table of the body). */
function activeRows(body: string): string[] {
  const lines = body.split('\n');
  const start = lines.findIndex((l) => l.startsWith('| load | metric | previous | new |'));
  if (start < 0) return [];
  const rows: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line);
  }
  return rows;
}
const issueOf = (engine: string): FakeIssue => github.issues.find((i) => stateOfBody(i.body ?? '')?.engine === engine)!;
const commentsOn = (issue: FakeIssue) => github.comments.filter((c) => c.issue_number === issue.number).map((c) => c.body);

describe('servebench alert: one issue per engine release and configuration', () => {
  it('files 3 metrics × 2 load points of one release on one configuration as one issue with 6 rows, another configuration as a second issue, then one webhook message', async () => {
    const run = await alert(['--regressions', report(), ...hook()]);
    // Without --confirmations, what it files is unconfirmed, and it says so (the nightly passes them: tests below).
    expect(run.stderr).toBe('servebench alert: warning: no --confirmations: these regressions are filed unconfirmed (a Welch test between runs made at different times); `servebench confirm` checks each by a paired A/B first\n');
    expect(run.code).toBe(0);
    expect(github.issues).toHaveLength(2);
    const [vllm, sglang] = github.issues as [FakeIssue, FakeIssue];
    expect(vllm.title).toBe('[regression] vLLM 0.11.1 vs 0.11.0 on synthetic/llama-8b / bf16 / 1x-Synthetic H100 / chat: 3 metrics at 2 load points, worst TTFT p99 +23.7% @ concurrency 16');
    expect(sglang.title).toBe('[regression] SGLang 0.5.3 vs 0.5.2 on synthetic/qwen-7b / default / 1x-Synthetic H100 / summarize: TPOT p50 +16.4% @ rate 4 req/s (max 64)');
    expect(github.issues.map((i) => i.labels)).toEqual([
      ['regression', 'servebench', 'engine:vllm'],
      ['regression', 'servebench', 'engine:sglang'],
    ]);
    const body = vllm.body!;
    const rows = activeRows(body);
    expect(rows).toHaveLength(6);
    // Every metric at every load point, each with its change, interval, p-value, test and runs.
    expect(rows.map((r) => r.split(' | ').slice(0, 2).join(' | '))).toEqual([
      '| concurrency 16 | Output throughput (tok/s, higher is better)',
      '| concurrency 16 | TTFT p99 (ms, lower is better)',
      '| concurrency 16 | TPOT p50 (ms, lower is better)',
      '| concurrency 64 | Output throughput (tok/s, higher is better)',
      '| concurrency 64 | TTFT p99 (ms, lower is better)',
      '| concurrency 64 | TPOT p50 (ms, lower is better)',
    ]);
    expect(rows[3]).toBe(
      '| concurrency 64 | Output throughput (tok/s, higher is better) | 4211 | 3613 | **\u221214.2%** | \u221216.0% … \u221212.3% | 0.0012 | Welch t-test, n=3/3 | 2026-02-10 | [previous](https://github.com/octo-org/servebench/blob/main/results/2026-01-10/vllm/synthetic-llama-8b/1x-synthetic-h100/chat-0a1b2c3d4e5f.json) · [new](https://github.com/octo-org/servebench/blob/main/results/2026-02-10/vllm/synthetic-llama-8b/1x-synthetic-h100/chat-4e5f6a7b8c9d.json) |',
    );
    expect(rows[4]).toContain('| <0.0001 |');
    expect(body).toContain('**6 regressions: 3 metrics at 2 load points**, as of the night of 2026-02-10.');
    expect(activeRows(sglang.body!)).toHaveLength(1);
    expect(activeRows(sglang.body!)[0]).toContain('| n/a | 0.0213 | noise band, n=1/1 |');
    // The stable key: the engine, the release and the configuration, not the metric or the load.
    const state = stateOfBody(body)!;
    expect(groupKeyOfBody(body)).toBe(state.key);
    expect(state.key).toBe(groupKey('vllm', '0.11.1', state.scenario));
    expect(body.startsWith(`<!-- servebench-alert-group: ${state.key} -->\n`)).toBe(true);
    expect(paths(run)).toEqual([`GET ${ISSUES}`, ...Array(4).fill('POST /repos/octo-org/servebench/labels'), `POST ${ISSUES}`, `POST ${ISSUES}`, `POST ${WEBHOOK_PATH}`]);
    const list = new URL(run.requests[0]!.url, server.url).searchParams;
    expect([list.get('state'), list.get('labels'), list.get('per_page')]).toEqual(['all', 'regression', '100']);
    for (const request of run.requests.filter((r) => !r.url.startsWith('/services/'))) {
      expect(request.headers.authorization).toBe(`Bearer ${github.token}`);
      expect(request.headers.accept).toBe('application/vnd.github+json');
      expect(request.headers['x-github-api-version']).toBe('2022-11-28');
      expect(request.headers['user-agent']).toMatch(/^servebench\//);
    }
    expect(run.stdout).toContain('7 regressions in 2 configurations');
    expect(run.stdout).toMatch(/^created +#1 vllm 0\.11\.1 vs 0\.11\.0 on synthetic\/llama-8b \/ bf16 \/ 1x-Synthetic H100 \/ chat: 6 regressions/m);
    expect(run.stdout).toContain('webhook: posted 2 new regressed configurations');
    // The webhook groups the same way: one entry per release × configuration.
    const message = webhook.posts[0] as { text: string; blocks: Array<{ type: string; text?: { text: string } }> };
    expect(message.text).toBe('servebench: 2 new performance regression issues (vLLM, SGLang)');
    const entries = message.blocks.filter((b) => b.type === 'section').flatMap((b) => b.text!.text.split('\n'));
    expect(entries).toEqual([
      '• *vLLM 0.11.1* vs 0.11.0 on synthetic/llama-8b · bf16 · 1x-Synthetic H100 · chat: 3 metrics at 2 load points, worst TTFT p99 *+23.7%* at concurrency 16 <https://github.com/octo-org/servebench/issues/1|#1>',
      '• *SGLang 0.5.3* vs 0.5.2 on synthetic/qwen-7b · default · 1x-Synthetic H100 · summarize: 1 metric at 1 load point, worst TPOT p50 *+16.4%* at rate 4 req/s (max 64) <https://github.com/octo-org/servebench/issues/2|#2>',
    ]);
  });

  it('is idempotent: the same report again makes no write, no webhook post', async () => {
    const path = report();
    expect((await alert(['--regressions', path, ...hook()])).code).toBe(0);
    const again = await alert(['--regressions', path, ...hook(), '--json']);
    expect(again.code).toBe(0);
    expect(again.requests.map((r) => r.method)).toEqual(['GET']);
    expect(github.issues).toHaveLength(2);
    expect(github.comments).toHaveLength(0);
    expect(webhook.posts).toHaveLength(1);
    const summary = JSON.parse(again.stdout) as { configurations: number; actions: Array<{ action: string; issue: number; rows: unknown[] }>; webhook: { posted: boolean; new: number } };
    expect(summary.actions.map((a) => [a.action, a.issue, a.rows.length])).toEqual([['unchanged', 1, 6], ['unchanged', 2, 1]]);
    expect(summary.configurations).toBe(2);
    expect(summary.webhook).toMatchObject({ posted: false, new: 0 });
  });

  it('a second night edits the same issue and comments what changed (newly regressed, recovered, moved), keeping notes outside the markers; no new issue', async () => {
    await alert(['--regressions', report(), ...hook()]);
    const vllm = issueOf('vllm');
    vllm.body = `${vllm.body}\nMaintainer note: bisecting between 0.11.0 and 0.11.1.\n`;
    expect(writes(await alert(['--regressions', report()]))).toEqual([]); // a note alone is not a change
    const night2 = report((rs) => {
      for (const i of VLLM) nextNight(rs[i]!);
      // TTFT p99 at c=16 got worse; TPOT p50 at c=64 recovered; request throughput at c=64 newly regressed.
      Object.assign(rs[1]!, { value: 526.6, change_pct: 31.0, ci_low_pct: 25.2, ci_high_pct: 36.9 });
      const request = { ...rs[3]!, key: 'd4e5f6071829304a', metric: 'request_throughput', better: 'higher', previous_value: 12.4, value: 10.9, change_pct: -12.1, ci_low_pct: -14.8, ci_high_pct: -9.3, p_value: 0.0031 };
      rs.splice(5, 1, request);
    });
    const run = await alert(['--regressions', night2, ...hook()]);
    expect(run.code).toBe(0);
    expect(paths(run)).toEqual([`GET ${ISSUES}`, `PATCH ${ISSUES}/1`, `POST ${ISSUES}/1/comments`]);
    expect(github.issues).toHaveLength(2);
    const body = vllm.body!;
    expect(body).toContain('Maintainer note: bisecting');
    expect(body.match(/servebench-alert-group/g)).toHaveLength(1);
    const rows = activeRows(body);
    expect(rows).toHaveLength(6);
    expect(rows.find((r) => r.includes('Request throughput'))).toMatch(/\| \*\*\u221212\.1%\*\* \|.*\| 2026-02-11 \|/);
    expect(rows.find((r) => r.startsWith('| concurrency 16 | TTFT p99'))).toMatch(/\| \*\*\+31\.0%\*\* \|.*n=3\/4 \| 2026-02-10 \|/);
    expect(rows.some((r) => r.startsWith('| concurrency 64 | TPOT p50'))).toBe(false);
    expect(body).toContain('**Recovered**');
    expect(body).toMatch(/\| concurrency 64 \| TPOT p50 \(ms, lower is better\) \| \+15\.6% \| 2026-02-11 \| not in the report \|/);
    expect(body).toContain('as of the night of 2026-02-11');
    expect(vllm.title).toContain('worst TTFT p99 +31.0% @ concurrency 16');
    const [comment] = commentsOn(vllm);
    expect(comment).toBe(
      [
        'Night of 2026-02-11, from `servebench regress`:',
        '- TTFT p99 at concurrency 16: +23.7% → +31.0% (95% CI +25.2% … +36.9%, p 0.0003, Welch t-test, n=3/4)',
        '- newly regressed: Request throughput at concurrency 64: \u221212.1% (95% CI \u221214.8% … \u22129.3%, p 0.0031, Welch t-test, n=3/4)',
        '- recovered: TPOT p50 at concurrency 64: no longer reported by `servebench regress` (was +15.6%)',
      ].join('\n'),
    );
    expect(webhook.posts).toHaveLength(1); // an update is not news
    expect(run.stdout).toMatch(/^updated +#1 /m);
    // And stable afterwards.
    expect(writes(await alert(['--regressions', night2]))).toEqual([]);
  });

  it('updates the body without a comment when only run counts and small digits move', async () => {
    await alert(['--regressions', report()]);
    const nightly = report((rs) => {
      for (const i of VLLM) nextNight(rs[i]!, { change_pct: (rs[i]!['change_pct'] as number) + 0.3 });
    });
    const run = await alert(['--regressions', nightly]);
    expect(run.code).toBe(0);
    expect(paths(run)).toEqual([`GET ${ISSUES}`, `PATCH ${ISSUES}/1`]);
    expect(activeRows(issueOf('vllm').body!)[0]).toContain('n=3/4');
    expect(github.comments).toHaveLength(0);
  });

  it('leaves the issue of a configuration that was not measured tonight alone (regress --base reports only what the night touched)', async () => {
    await alert(['--regressions', report()]);
    // Night 2 measured SGLang only: no vLLM row, and no comparisons list that would say vLLM was measured.
    const run = await alert(['--regressions', report((rs) => rs.splice(0, SGLANG))]);
    expect(run.code).toBe(0);
    expect(writes(run)).toEqual([]);
    expect(issueOf('vllm').state).toBe('open');
    // With a comparisons list that does not name vLLM on that configuration, likewise.
    const scoped = await alert(['--regressions', report((rs, data) => {
      data.comparisons = [comparison(rs[SGLANG]!, { significant: true, verdict: 'worse' })];
      rs.splice(0, SGLANG);
    })]);
    expect(writes(scoped)).toEqual([]);
    expect(issueOf('vllm').state).toBe('open');
  });
});

describe('servebench alert: fixed regressions are closed', () => {
  it('closes the issue with a comment when regress compared the release on the configuration again and none of its rows regresses', async () => {
    await alert(['--regressions', report(), ...hook()]);
    const fixed = report((rs, data) => {
      // 0.11.1 measured again (more runs): nothing significant any more. SGLang unchanged.
      data.comparisons = [...VLLM.map((i) => comparison(nextNight({ ...rs[i]! }), { change_pct: i === 4 ? 4.2 : -1.5, ci_low_pct: -3.0, ci_high_pct: 6.1, p_value: 0.38, runs: 6 })), comparison(rs[SGLANG]!, { significant: true, verdict: 'worse' })];
      rs.splice(0, SGLANG);
    });
    const run = await alert(['--regressions', fixed, ...hook()]);
    expect(run.code).toBe(0);
    expect(paths(run)).toEqual([`GET ${ISSUES}`, `PATCH ${ISSUES}/1`, `POST ${ISSUES}/1/comments`]);
    expect(JSON.parse(run.requests[1]!.body)).toMatchObject({ state: 'closed', state_reason: 'completed' });
    const vllm = issueOf('vllm');
    expect([vllm.state, vllm.state_reason]).toEqual(['closed', 'completed']);
    expect(issueOf('sglang').state).toBe('open');
    const [comment] = commentsOn(vllm);
    expect(comment).toContain('No longer a regression (night of 2026-02-11): `servebench regress` compared 0.11.1 with 0.11.0 on this configuration again and reports none of the rows of this issue');
    expect(comment).toContain('| concurrency 64 | TTFT p99 | +23.7% | +4.2% | \u22123.0% … +6.1% | 0.3800 | Welch t-test, n=3/6 |');
    expect(comment!.split('\n').filter((l) => l.startsWith('| concurrency'))).toHaveLength(6);
    expect(vllm.body).toContain('**No longer a regression** (night of 2026-02-11)');
    expect(stateOfBody(vllm.body!)!.closed).toEqual({ night: '2026-02-11', reason: 'recovered', version: '0.11.1' });
    expect(run.stdout).toMatch(/^closed +#1 vllm 0\.11\.1 .* \(no longer regresses, night of 2026-02-11\)/m);
    expect(webhook.posts).toHaveLength(1);
    // Idempotent: the same report again writes nothing (the issue is closed, and stays closed).
    expect(writes(await alert(['--regressions', fixed, ...hook()]))).toEqual([]);
  });

  it('closes the issue when a newer release is back within the threshold of the release before the regression, naming it with the numbers', async () => {
    await alert(['--regressions', report()]);
    /** 0.11.2 vs 0.11.1, its value `pct` percent off 0.11.0 (the baseline), in the worse direction. */
    const newer = (row: Row, pct: number): Row => {
      const better = row['better'] as string;
      const value = (row['previous_value'] as number) * (1 + (better === 'higher' ? -pct : pct) / 100);
      return comparison(row, {
        previous_version: '0.11.1',
        version: '0.11.2',
        previous_value: row['value'],
        value,
        change_pct: (value / (row['value'] as number) - 1) * 100,
        ci_low_pct: -20,
        ci_high_pct: -8,
        p_value: 0.0004,
        significant: true,
        verdict: 'better',
        previous_run_id: row['run_id'],
        previous_url: row['url'],
        run_id: '20260301T030000Z-99aa88bb',
        url: 'https://github.com/octo-org/servebench/blob/main/results/2026-03-01/vllm/synthetic-llama-8b/1x-synthetic-h100/chat-99aa88bb7766.json',
      });
    };
    // First a newer release that fixes 5 rows of 6: the issue stays open, a comment says what is still worse.
    const partly = report((rs, data) => {
      data.comparisons = VLLM.map((i) => newer(rs[i]!, i === 4 ? 18 : 2));
      rs.splice(0);
    });
    const first = await alert(['--regressions', partly]);
    expect(first.code).toBe(0);
    expect(paths(first)).toEqual([`GET ${ISSUES}`, `PATCH ${ISSUES}/1`, `POST ${ISSUES}/1/comments`]);
    const vllm = issueOf('vllm');
    expect(vllm.state).toBe('open');
    expect(commentsOn(vllm)[0]).toBe(
      'Night of 2026-03-01, from `servebench regress`:\n- 0.11.2 was measured on this configuration (night of 2026-03-01): still worse than 0.11.0 by 10% or more on TTFT p99 at concurrency 64 (+18.0%); back within 10% on Output throughput at concurrency 16 (\u22122.0%), TTFT p99 at concurrency 16 (+2.0%), TPOT p50 at concurrency 16 (+2.0%), Output throughput at concurrency 64 (\u22122.0%), TPOT p50 at concurrency 64 (+2.0%)',
    );
    expect(vllm.body).toContain('**Newer release 0.11.2** (night of 2026-03-01): 5 of 6 back within 10% of 0.11.0.');
    expect(writes(await alert(['--regressions', partly]))).toEqual([]);

    // Then one that fixes all 6: closed, with the numbers.
    const fixed = report((rs, data) => {
      data.comparisons = VLLM.map((i) => newer(rs[i]!, i === 4 ? 3 : 2));
      rs.splice(0);
    });
    const run = await alert(['--regressions', fixed]);
    expect(run.code).toBe(0);
    expect(paths(run)).toEqual([`GET ${ISSUES}`, `PATCH ${ISSUES}/1`, `POST ${ISSUES}/1/comments`]);
    expect(vllm.state).toBe('closed');
    const comment = commentsOn(vllm)[1]!;
    expect(comment).toContain('Fixed in 0.11.2 (night of 2026-03-01): on this configuration every row that regressed in 0.11.1 is back within 10% of 0.11.0.');
    expect(comment).toContain('| concurrency 64 | TTFT p99 | 812 | 1005 | 836 | +3.0% |');
    expect(comment.split('\n').filter((l) => l.startsWith('| concurrency'))).toHaveLength(6);
    expect(stateOfBody(vllm.body!)!.closed).toEqual({ night: '2026-03-01', reason: 'fixed-in-newer', version: '0.11.2' });
    expect(vllm.body).toContain('**Fixed in 0.11.2** (night of 2026-03-01)');
    expect(run.stdout).toMatch(/^closed +#1 .*\(fixed in 0\.11\.2, night of 2026-03-01\)/m);
    expect(writes(await alert(['--regressions', fixed]))).toEqual([]);
  });

  it('reopens an issue it closed when the release regresses there again; a maintainer\'s close is respected unless --reopen, and a maintainer\'s reopen is not undone', async () => {
    const path = report();
    await alert(['--regressions', path, ...hook()]);
    const fixed = report((rs, data) => {
      data.comparisons = VLLM.map((i) => comparison(nextNight({ ...rs[i]! }), { change_pct: 1.0, p_value: 0.5 }));
      rs.splice(0);
    });
    await alert(['--regressions', fixed]);
    const vllm = issueOf('vllm');
    expect(vllm.state).toBe('closed');

    // It regresses again (the same rows reported): reopened by alert itself, with a comment; the webhook hears of it.
    const again = await alert(['--regressions', path, ...hook()]);
    expect(paths(again)).toEqual([`GET ${ISSUES}`, `PATCH ${ISSUES}/1`, `POST ${ISSUES}/1/comments`, `POST ${WEBHOOK_PATH}`]);
    expect(JSON.parse(again.requests[1]!.body)).toMatchObject({ state: 'open' });
    expect(vllm.state).toBe('open');
    expect(commentsOn(vllm).at(-1)).toMatch(/^Reopened by `servebench alert`: 0\.11\.1 regresses again on this configuration \(night of 2026-02-10\)\.\n\n- regressed again: Output throughput at concurrency 16/);
    expect(JSON.stringify(webhook.posts[1])).toContain('(reopened)');
    expect(stateOfBody(vllm.body!)!.closed).toBeNull();

    // A maintainer closes the SGLang issue: skipped, until --reopen.
    github.close(2);
    const skipped = await alert(['--regressions', path, '--json']);
    expect(writes(skipped)).toEqual([]);
    expect((JSON.parse(skipped.stdout) as { actions: Array<{ action: string; issue: number }> }).actions[1]).toMatchObject({ action: 'skip-closed', issue: 2 });
    expect((await alert(['--regressions', path])).stdout).toMatch(/^skipped +#2 .*--reopen reopens it/m);
    const reopened = await alert(['--regressions', path, '--reopen']);
    expect(paths(reopened)).toEqual([`GET ${ISSUES}`, `PATCH ${ISSUES}/2`, `POST ${ISSUES}/2/comments`]);
    expect(JSON.parse(reopened.requests[1]!.body)).toEqual({ state: 'open' });
    expect(github.comments.at(-1)!.body).toContain('Reopened by `servebench alert --reopen`');

    // Closed as fixed, then reopened by a maintainer: the same "fixed" report does not close it again.
    await alert(['--regressions', fixed]);
    expect(vllm.state).toBe('closed');
    github.reopen(1);
    expect(writes(await alert(['--regressions', fixed]))).toEqual([]);
    expect(vllm.state).toBe('open');
  });

  it('closes an open issue filed per regression by an earlier alert, pointing at the grouped issue', async () => {
    const legacy = github.addIssue({ title: '[regression] vLLM 0.11.1 vs 0.11.0: output throughput \u221214.2% on synthetic/llama-8b / 1x-Synthetic H100 / chat @ concurrency 64', body: '<!-- servebench-regression-key: a1b2c3d4e5f60718 -->\nold body', labels: ['regression', 'servebench', 'engine:vllm'] });
    const unrelated = github.addIssue({ title: 'an old one of another regression', body: '<!-- servebench-regression-key: 0000000000000000 -->', labels: ['regression'] });
    const run = await alert(['--regressions', report()]);
    expect(run.code).toBe(0);
    expect(paths(run).filter((p) => !p.endsWith('/labels'))).toEqual([`GET ${ISSUES}`, `POST ${ISSUES}`, `PATCH ${ISSUES}/1`, `POST ${ISSUES}/1/comments`, `POST ${ISSUES}`]);
    expect(legacy.state).toBe('closed');
    expect(unrelated.state).toBe('open');
    expect(commentsOn(legacy)[0]).toMatch(/^`servebench alert` now files one issue per engine release and configuration, .* tracked in #3 \(vllm 0\.11\.1 on synthetic\/llama-8b · bf16 · 1x-Synthetic H100 · chat\)\. Closing this one\.$/);
    expect(writes(await alert(['--regressions', report()]))).toEqual([]);
  });
});

describe('servebench alert: listing and labels', () => {
  it('follows Link pagination (GitHub\'s /repositories/<id> next links) and finds the marker on page 2', async () => {
    for (let i = 0; i < 120; i++) github.addIssue({ title: `unrelated regression ${i}`, body: 'Something else got slower.', labels: ['regression'] });
    github.addIssue({ title: 'a pull request', body: null, labels: ['regression'], pull_request: true });
    const path = report();
    const first = await alert(['--regressions', path]);
    expect(first.code).toBe(0);
    expect(first.requests.filter((r) => r.method === 'GET').map((r) => r.url.split('?')[0])).toEqual([ISSUES, '/repositories/1300192/issues']);
    expect(github.issues.slice(121).map((i) => i.number)).toEqual([122, 123]);
    const again = await alert(['--regressions', path]);
    expect(again.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
    expect(new URL(again.requests[1]!.url, server.url).searchParams.get('page')).toBe('2');
    expect(again.stdout).toMatch(/^unchanged +#122 /m);
    expect(again.stdout).toContain('122 issues labelled regression'); // the pull request is not one
  });

  it('creates each label once and takes 422 already_exists as fine', async () => {
    github.labels.push({ id: 99, name: 'Regression', color: 'ffffff', description: 'the repository already had it' });
    const first = await alert(['--regressions', report((rs) => rs.splice(1))]);
    expect(first.code).toBe(0);
    const labelPosts = first.requests.filter((r) => r.url.endsWith('/labels'));
    expect(labelPosts.map((r) => (JSON.parse(r.body) as { name: string }).name)).toEqual(['regression', 'servebench', 'engine:vllm']);
    expect(github.labels.filter((l) => l.name.toLowerCase() === 'regression')).toHaveLength(1);
    // The full report later: vLLM's issue grows (an update), SGLang's is new: the shared labels answer 422, engine:sglang is created.
    const second = await alert(['--regressions', report()]);
    expect(second.code).toBe(0);
    expect(github.labels.map((l) => l.name).sort()).toEqual(['Regression', 'engine:sglang', 'engine:vllm', 'servebench']);
    expect(github.issues).toHaveLength(2);
    expect(second.stdout).toMatch(/^updated +#1 /m);
    expect(second.stdout).toMatch(/^created +#2 /m);
    expect(activeRows(github.issues[0]!.body!)).toHaveLength(6);
  });
});

describe('servebench alert: dry runs', () => {
  it('reads only (GET), prints the bodies and what it would post, and writes nothing', async () => {
    const run = await alert(['--regressions', report(), '--dry-run', ...hook()]);
    expect(run.code).toBe(0);
    expect(run.requests.map((r) => r.method)).toEqual(['GET']);
    expect(github.issues).toHaveLength(0);
    expect(github.labels).toHaveLength(0);
    expect(webhook.posts).toHaveLength(0);
    expect(run.stdout).toContain('dry run: nothing is written');
    expect(run.stdout).toMatch(/^would create +vllm 0\.11\.1/m);
    expect(run.stdout).toContain('  labels: regression, servebench, engine:vllm');
    expect(run.stdout).toMatch(/<!-- servebench-alert-group: [0-9a-f]{16} -->/);
    expect(run.stdout.match(/^would create/gm)).toHaveLength(2);
    expect(run.stdout).toContain('would post to the webhook:');

    await alert(['--regressions', report()]);
    const changed = await alert(['--regressions', report((rs) => Object.assign(rs[SGLANG]!, { value: 26.1, change_pct: 22.0 })), '--dry-run', '--json']);
    expect(writes(changed)).toEqual([]);
    const summary = JSON.parse(changed.stdout) as { dry_run: boolean; actions: Array<{ action: string; comment?: string; body?: string }> };
    expect(summary.dry_run).toBe(true);
    expect(summary.actions.map((a) => a.action)).toEqual(['unchanged', 'update']);
    expect(summary.actions[1]!.comment).toContain('TPOT p50 at rate 4 req/s (max 64): +16.4% \u2192 +22.0%');
    expect(summary.actions[1]!.body).toContain('26.1');

    // A close is planned, not done.
    const fixed = await alert(['--regressions', report((rs, data) => {
      data.comparisons = VLLM.map((i) => comparison(rs[i]!, { change_pct: 0.5 }));
      rs.splice(0);
    }), '--dry-run']);
    expect(writes(fixed)).toEqual([]);
    expect(fixed.stdout).toMatch(/^would close +#1 /m);
    expect(fixed.stdout).toContain('  comment: No longer a regression');
    expect(github.issues[0]!.state).toBe('open');
  });

  it('needs no token on a public repository, and --offline sends nothing', async () => {
    const anonymous = await alert(['--regressions', report(), '--dry-run'], { GITHUB_TOKEN: '' });
    expect(anonymous.code).toBe(0);
    expect(anonymous.requests.map((r) => [r.method, r.headers.authorization])).toEqual([['GET', undefined]]);
    const offline = await alert(['--regressions', report(), '--dry-run', '--offline', ...hook()], { GITHUB_TOKEN: '', GITHUB_REPOSITORY: '' });
    expect(offline.code).toBe(0);
    expect(offline.requests).toEqual([]);
    expect(offline.stdout.match(/^would create/gm)).toHaveLength(2);
  });
});

describe('servebench alert: the webhook', () => {
  it('posts one Slack-compatible message about the new issues only, one entry per release and configuration, never when nothing is new', async () => {
    await alert(['--regressions', report((rs) => rs.splice(SGLANG)), ...hook()]);
    expect(webhook.posts).toHaveLength(1);
    const first = webhook.posts[0] as { text: string; blocks: Array<{ type: string; text?: { type: string; text: string } }> };
    expect(first.text).toBe('servebench: 1 new performance regression issue (vLLM)');
    expect(first.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'servebench: 1 new performance regression issue (vLLM)' } });
    const section = first.blocks.find((b) => b.type === 'section')!;
    expect(section.text!.type).toBe('mrkdwn');
    expect(section.text!.text.split('\n')).toHaveLength(1);
    expect(section.text!.text).toContain('<https://github.com/octo-org/servebench/issues/1|#1>');
    expect(section.text!.text).toContain('3 metrics at 2 load points, worst TTFT p99 *+23.7%*');
    // SGLang's configuration is new on the next run (vLLM's issue only updated): a message about it alone.
    await alert(['--regressions', report(), ...hook()]);
    expect(webhook.posts).toHaveLength(2);
    expect((webhook.posts[1] as { text: string }).text).toBe('servebench: 1 new performance regression issue (SGLang)');
    await alert(['--regressions', report(), ...hook()]);
    expect(webhook.posts).toHaveLength(2);
  });

  it('retries a 429 with retry-after once, and fails with exit 1 (issues kept) when the webhook refuses', async () => {
    webhook.failNext.push({ status: 429, body: 'rate_limited', headers: { 'retry-after': '3' } });
    const retried = await alert(['--regressions', report((rs) => rs.splice(1)), ...hook()]);
    expect(retried.code).toBe(0);
    expect(waits).toEqual([3000]);
    expect(webhook.posts).toHaveLength(1);

    webhook.failNext.push({ status: 410, body: 'channel_is_archived' });
    const refused = await alert(['--regressions', report(), ...hook()]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('answered 410 (channel_is_archived)');
    expect(refused.stderr).not.toContain('XXXXXXXX');
    expect(github.issues).toHaveLength(2);
  });
});

describe('servebench alert: rate limits and errors', () => {
  it('honours retry-after on a secondary limit and files the issue exactly once', async () => {
    github.interruptions.push({ ...secondaryRateLimit(7), when: (r) => r.method === 'POST' && r.url.endsWith('/issues') });
    const run = await alert(['--regressions', report((rs) => rs.splice(1))]);
    expect(run.code).toBe(0);
    // A second past what GitHub asked, as the shared helper does (its reset times are whole seconds).
    expect(waits).toEqual([8000]);
    expect(run.stderr).toContain('secondary rate limit on POST /repos/octo-org/servebench/issues (retry-after: 7): waiting 8 s');
    expect(run.requests.filter((r) => r.method === 'POST' && r.url.endsWith('/issues'))).toHaveLength(2);
    expect(github.issues).toHaveLength(1);
  });

  it('waits a minute on a secondary limit without retry-after, and until x-ratelimit-reset on the primary limit', async () => {
    github.interruptions.push(secondaryRateLimit());
    github.rateLimit.remaining = 1;
    github.rateLimit.reset = Math.floor(Date.now() / 1000) + 30;
    const run = await alert(['--regressions', report((rs) => rs.splice(1))], {}, async (ms) => {
      waits.push(ms);
      if (github.rateLimit.remaining === 0) github.rateLimit.remaining = 5000;
    });
    expect(run.code).toBe(0);
    expect(waits[0]).toBe(60_000);
    expect(waits[1]).toBeGreaterThan(25_000);
    expect(waits[1]).toBeLessThanOrEqual(32_000);
    expect(github.issues).toHaveLength(1);
  });

  it('gives up with a clear error (exit 1) when GitHub asks for more than --max-wait', async () => {
    github.interruptions.push({ ...secondaryRateLimit(3600), when: (r) => r.method === 'POST' });
    const write = await alert(['--regressions', report(), '--max-wait', '60']);
    expect(write.code).toBe(1);
    expect(write.stderr).toContain('(retry-after: 3600): it asks for 3601 s, more than --max-wait 60 s; run again later');
    github.interruptions.push(secondaryRateLimit(3600));
    const read = await alert(['--regressions', report()]);
    expect(read.code).toBe(1);
    expect(read.stderr).toContain('longer than --max-wait 60 s');
    expect(waits).toEqual([]);
  });

  it('exits 1 on a bad token and 2 on bad usage or input', async () => {
    const denied = await alert(['--regressions', report()], { GITHUB_TOKEN: 'ghp_wrong' });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('401 (Bad credentials); check GITHUB_TOKEN');

    const noToken = await alert(['--regressions', report()], { GITHUB_TOKEN: '' });
    expect([noToken.code, noToken.requests]).toEqual([2, []]);
    expect(noToken.stderr).toContain('GITHUB_TOKEN is not set');
    expect((await alert([])).code).toBe(2);
    expect((await alert(['--regressions', report(), '--offline'])).code).toBe(2);
    expect((await alert(['--regressions', report()], { GITHUB_REPOSITORY: '' })).code).toBe(2);
    expect((await alert(['--regressions', report(), '--repo', 'not a repo'])).code).toBe(2);
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, 'regressions: none');
    expect((await alert(['--regressions', notJson])).code).toBe(2);
    const badKey = await alert(['--regressions', report((rs) => void (rs[0]!['key'] = 'x --> <b>'))]);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('regressions.0.key');
    expect((await alert(['--regressions', join(dir, 'missing.json')])).code).toBe(2);
  });

  it('does nothing, and asks nothing, when regress found no regressions', async () => {
    const path = join(dir, 'none.json');
    writeFileSync(path, JSON.stringify({ threshold_pct: 10, compared: 12, regressions: [] }));
    const run = await alert(['--regressions', path, ...hook()]);
    expect([run.code, run.requests, run.stdout]).toEqual([0, [], 'No regressions: nothing to file.\n']);
  });
});

describe('servebench alert: untrusted names', () => {
  it('neutralises @-mentions, HTML and issue references from result files in the title, body and webhook', async () => {
    const path = report((rs) => {
      rs.splice(1);
      Object.assign(rs[0]!, { model: '@octocat <script>alert(1)</script> see #12', version: '0.11.1@evil', hardware: '1x-H100 | [x](javascript:alert(1))' });
    });
    const run = await alert(['--regressions', path, ...hook()]);
    expect(run.code).toBe(0);
    const issue = github.issues[0]!;
    expect(issue.title).not.toMatch(/@octocat|@evil/);
    expect(issue.title).toContain('@\u200boctocat');
    expect(issue.title.length).toBeLessThanOrEqual(256);
    const body = issue.body!;
    expect(body).not.toMatch(/@octocat|@evil|<script|#12|(?<!\\)\]\(javascript/);
    expect(body).toContain('@&#8203;octocat');
    expect(body).toContain('&lt;script&gt;');
    expect(body).toContain('#&#8203;12');
    const message = JSON.stringify(webhook.posts[0]);
    expect(message).not.toMatch(/@octocat|<script/);
    expect(message).toContain('&lt;script&gt;');
  });

  it('keeps names that would end an HTML comment out of the state marker, and reads the state back as it was', async () => {
    const hostile = 'org/model --> <!-- servebench-alert-group: 0000000000000000 --> & more';
    const run = await alert(['--regressions', report((rs) => { rs.splice(1); rs[0]!['model'] = hostile; })]);
    expect(run.code).toBe(0);
    const body = github.issues[0]!.body!;
    const marker = /<!-- servebench-alert-state: (.*) -->/.exec(body)![1]!;
    expect(marker).not.toMatch(/-->|<|>|--/);
    expect(stateOfBody(body)!.scenario.model).toBe(hostile);
    expect(body.match(/<!-- servebench-alert-group: /g)).toHaveLength(1);
    expect(writes(await alert(['--regressions', report((rs) => { rs.splice(1); rs[0]!['model'] = hostile; })]))).toEqual([]);
  });

  it('keeps a title within 256 characters however long the model name', async () => {
    const run = await alert(['--regressions', report((rs) => { for (const r of rs) r['model'] = `org/${'very-long-model-name-'.repeat(30)}`; })]);
    expect(run.code).toBe(0);
    const title = github.issues[0]!.title;
    expect(title.length).toBeLessThanOrEqual(256);
    expect(title).toMatch(/… \/ bf16 \/ 1x-Synthetic H100 \/ chat: 3 metrics at 2 load points, worst TTFT p99 \+23\.7% @ concurrency 16$/);
  });
});

describe('the fake GitHub API answers as GitHub documents it', () => {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${github.token}`, accept: 'application/vnd.github+json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> & Array<Record<string, unknown>> };
  };

  it('update: state_reason goes with a change of state only; closing defaults to completed, reopening to reopened; bad values are 422', async () => {
    const created = await call('POST', ISSUES, { title: 't', body: 'b', labels: ['regression'] });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ number: 1, state: 'open', state_reason: null, closed_at: null, comments: 0, body: 'b' });
    expect((await call('PATCH', `${ISSUES}/1`, { state_reason: 'not_planned' })).json).toMatchObject({ state: 'open', state_reason: null });
    const closed = await call('PATCH', `${ISSUES}/1`, { state: 'closed', state_reason: 'not_planned', body: 'edited' });
    expect(closed.json).toMatchObject({ state: 'closed', state_reason: 'not_planned', body: 'edited' });
    expect(closed.json['closed_at']).toEqual(expect.any(String));
    expect((await call('PATCH', `${ISSUES}/1`, { state: 'open' })).json).toMatchObject({ state: 'open', state_reason: 'reopened', closed_at: null });
    expect((await call('PATCH', `${ISSUES}/1`, { state: 'closed' })).json).toMatchObject({ state: 'closed', state_reason: 'completed' });
    const bad = await call('PATCH', `${ISSUES}/1`, { state: 'shut' });
    expect([bad.status, bad.json['message']]).toEqual([422, 'Validation Failed']);
    expect((await call('PATCH', `${ISSUES}/1`, { state: 'open', state_reason: 'because' })).status).toBe(422);
    expect((await call('PATCH', `${ISSUES}/99`, { state: 'open' })).status).toBe(404);
  });

  it('comments: created (201) and listed oldest first, counted on the issue; list filters by labels and state, sorts and pages', async () => {
    await call('POST', ISSUES, { title: 'a', labels: ['regression', 'engine:vllm'] });
    await call('POST', ISSUES, { title: 'b', labels: ['regression'] });
    const comment = await call('POST', `${ISSUES}/1/comments`, { body: 'first' });
    expect(comment.status).toBe(201);
    expect(comment.json).toMatchObject({ body: 'first', html_url: 'https://github.com/octo-org/servebench/issues/1#issuecomment-1' });
    await call('POST', `${ISSUES}/1/comments`, { body: 'second' });
    expect((await call('POST', `${ISSUES}/1/comments`, {})).status).toBe(422);
    expect((await call('GET', `${ISSUES}/1/comments`)).json.map((c) => c['body'])).toEqual(['first', 'second']);
    await call('PATCH', `${ISSUES}/2`, { state: 'closed' });
    const titles = async (query: string) => (await call('GET', `${ISSUES}?${query}`)).json.map((i) => i['title']);
    expect(await titles('labels=regression')).toEqual(['a']); // state defaults to open
    expect(await titles('labels=regression&state=all')).toEqual(['b', 'a']); // newest first by default
    expect(await titles('labels=REGRESSION,engine:vllm&state=all&direction=asc')).toEqual(['a']);
    expect(await titles('state=all&sort=comments&direction=desc')).toEqual(['a', 'b']);
    expect(await titles('state=all&sort=updated&direction=desc')).toEqual(['b', 'a']);
    expect(await titles('state=all&per_page=1&page=2&direction=asc')).toEqual(['b']);
    expect((await call('GET', `${ISSUES}?state=everything`)).status).toBe(422);
  });
});

describe('alert planning and helpers', () => {
  const parsed = parseRegressionReport(readFileSync(FIXTURE, 'utf8'), 'fixture');
  const displayName = (e: string) => e;
  const [vllm] = groupRegressions(parsed.regressions);
  const filed = (number: number, state: 'open' | 'closed'): ExistingIssue => {
    const fresh = planAlerts({ ...parsed, regressions: [...vllm!.rows] }, [], { reopen: false, displayName })[0]!;
    return { number, title: groupTitle(fresh.state, displayName), body: groupBody(fresh.state, displayName), state, html_url: `https://github.com/o/r/issues/${number}` };
  };

  it('groups by engine release and configuration: not by metric, not by load point', () => {
    const groups = groupRegressions(parsed.regressions);
    expect(groups.map((g) => [g.engine, g.version, g.rows.length, g.night])).toEqual([['vllm', '0.11.1', 6, '2026-02-10'], ['sglang', '0.5.3', 1, '2026-02-15']]);
    // Another release of the engine on the same configuration is another issue; so is another precision.
    const other = parsed.regressions.map((r) => ({ ...r, version: '0.11.2' }));
    expect(groupRegressions([...parsed.regressions, ...other])).toHaveLength(4);
    const precision = parsed.regressions.map((r) => ({ ...r, scenario_id: '', precision: 'fp8' }));
    expect(new Set(groupRegressions([...parsed.regressions.map((r) => ({ ...r, scenario_id: '' })), ...precision]).map((g) => g.key)).size).toBe(4);
    expect(nightOf('20260210T030000Z-4e5f6a7b')).toBe('2026-02-10');
  });

  it('prefers the open issue when a key has several, and ignores issues without a marker', () => {
    const plan = planAlerts({ ...parsed, regressions: [...vllm!.rows] }, [filed(3, 'closed'), filed(9, 'open'), { number: 1, title: 'x', body: 'no marker', state: 'open', html_url: '' }], { reopen: false, displayName });
    expect(plan.map((a) => [a.kind, 'issue' in a ? a.issue.number : null])).toEqual([['unchanged', 9]]);
  });

  it('rewrites a body whose state cannot be read, with a comment saying so', () => {
    const issue = filed(4, 'open');
    const broken = { ...issue, body: issue.body.replace(/<!-- servebench-alert-state: .* -->/, '<!-- servebench-alert-state: {"v":1} -->') };
    const [action] = planAlerts({ ...parsed, regressions: [...vllm!.rows] }, [broken], { reopen: false, displayName });
    expect(action!.kind).toBe('update');
    expect(action!.kind === 'update' && action.comment).toContain('the earlier state could not be read');
    expect(action!.kind === 'update' && action.body).toBe(issue.body);
  });

  it('keeps a body within GitHub\'s 65536 characters for a configuration with very many rows: one list of runs instead of links per row', () => {
    // Every compared metric at 12 load points, with long links: past the limit with a link pair per row.
    const metrics = HEADLINE_METRICS.filter((m) => m.compared);
    const long = `https://github.example.com/${'a'.repeat(200)}`;
    const many = metrics.flatMap((m, j) => Array.from({ length: 12 }, (_, i) => ({ ...vllm!.rows[0]!, metric: m.column, better: m.better, load: `c=${2 ** i}`, key: `k${j}x${i}`, url: `${long}/new.json`, previous_url: `${long}/old.json` })));
    const [action] = planAlerts({ ...parsed, regressions: many }, [], { reopen: false, displayName });
    const body = action!.kind === 'create' ? action.body : '';
    expect(body).not.toContain('[previous](');
    expect(body.length).toBeLessThanOrEqual(MAX_BODY_LENGTH);
    expect(body).toContain(`Runs: [20260110T030000Z-0a1b2c3d](${long}/old.json) · [20260210T030000Z-4e5f6a7b](${long}/new.json)`);
    expect(activeRows(body)).toHaveLength(metrics.length * 12);
    expect(stateOfBody(body)!.cells).toHaveLength(metrics.length * 12);
  });

  it('treats the same key twice in a report as one row', () => {
    const doubled = JSON.stringify({ regressions: [...fixture().regressions, fixture().regressions[0]] });
    expect(parseRegressionReport(doubled, 'x').regressions).toHaveLength(7);
  });

  it('finds rel="next" in a Link header and reads rate-limit headers as GitHub documents them', () => {
    const link = '<https://api.github.com/repositories/1300192/issues?page=2>; rel="prev", <https://api.github.com/repositories/1300192/issues?page=4>; rel="next", <https://api.github.com/repositories/1300192/issues?page=515>; rel="last", <https://api.github.com/repositories/1300192/issues?page=1>; rel="first"';
    expect(nextLink(link)).toBe('https://api.github.com/repositories/1300192/issues?page=4');
    expect(nextLink('<https://api.github.com/x?labels=a,b&page=2>; rel="next"')).toBe('https://api.github.com/x?labels=a,b&page=2');
    expect(nextLink('<https://api.github.com/x?page=1>; rel="prev"')).toBeNull();
    expect(nextLink(null)).toBeNull();
    const now = 1_700_000_000_000;
    const answer = (status: number, headers: Record<string, string>, message: string) => ({ url: 'https://api.github.com/x', status, headers, body: JSON.stringify({ message }) });
    expect(rateLimitWait(answer(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 10) }, 'API rate limit exceeded'), now, 0)).toMatchObject({ waitMs: 11_000, kind: 'primary' });
    expect(rateLimitWait(answer(429, { 'retry-after': '5' }, ''), now, 0)).toMatchObject({ waitMs: 6000 });
    expect(rateLimitWait(answer(403, {}, 'You have exceeded a secondary rate limit.'), now, 1)).toMatchObject({ waitMs: 120_000, kind: 'secondary' });
    expect(rateLimitWait(answer(403, { 'x-ratelimit-remaining': '4000' }, 'Resource not accessible by integration'), now, 0)).toBeNull();
  });
});

/**
 * SYNTHETIC confirmations of the fixture's rows, as `servebench confirm` writes them (its own tests
 * make real ones on the sim: tests/confirm/): `confirmed` rows slower by a paired A/B, with a
 * bisection that ended at adjacent releases; every other row named with the verdict that did not
 * confirm it.
 */
function confirmations(confirmed: readonly number[], notConfirmed: ReadonlyArray<readonly [number, string]>): string {
  const rows = fixture().regressions;
  const entry = (i: number, reason: string) => {
    const r = rows[i]!;
    const ok = reason === 'slower';
    const paired = reason === 'failed' || reason === 'not examined' ? null : { file: `c.confirm/01/${i}.json`, ab_metric: 'output_throughput', derived: r['metric'] !== 'output_throughput', verdict: reason, effect: ok ? -0.12 : 0.004, interval: ok ? [-0.15, -0.09] : [-0.02, 0.03], passes: [{ name: 'main', verdict: reason, effect: ok ? -0.12 : 0.004, interval: null }, { name: 'confirm', verdict: reason, effect: ok ? -0.11 : 0.002, interval: null }] };
    const range = { good: '0.11.0', bad: '0.11.1', llamacpp_tags: null, links: { good: { upstream: null, package: null }, bad: { upstream: 'https://github.com/vllm-project/vllm/releases/tag/v0.11.1', package: null }, compare: 'https://github.com/vllm-project/vllm/compare/v0.11.0...v0.11.1' } };
    return {
      key: r['key'], group_key: 'x', engine: r['engine'], previous_version: r['previous_version'], version: r['version'], model: r['model'], hardware: r['hardware'], workload: r['workload'], load: r['load'], metric: r['metric'], better: r['better'], change_pct: r['change_pct'],
      status: ok ? 'confirmed' : 'not confirmed', reason, detail: ok ? 'paired A/B: slower' : `paired A/B: ${reason}`, paired,
      bisection: ok ? { file: 'c.confirm/01/bisection.json', metric: 'output_throughput', outcome: 'culprit', direction: 'slower', range, culprit: range, comparisons: 1, wall_s: 600 } : null,
    };
  };
  const file = { kind: 'confirmations', schema_version: 1, status: 'completed', started_at: '2026-02-11T04:00:00Z', finished_at: '2026-02-11T05:00:00Z', command: ['servebench', 'confirm'], regressions_file: 'regressions.json', results_dir: 'results', budget_s: 5400, wall_s: 3600, ab_runs: 2, bisections: 1, confirmations: [...confirmed.map((i) => entry(i, 'slower')), ...notConfirmed.map(([i, reason]) => entry(i, reason))] };
  const path = join(dir, `confirmations-${files++}.json`);
  writeFileSync(path, JSON.stringify(file));
  return path;
}

describe('servebench alert --confirmations: only regressions confirmed by a paired A/B are filed', () => {
  const VLLM_C16_THROUGHPUT = 0;
  const VLLM_C16_TPOT = 2;

  it('files the confirmed rows with their paired verdict and the bisected range; lists every other row as not confirmed, with its verdict; no warning', async () => {
    const c = confirmations([VLLM_C16_THROUGHPUT, VLLM_C16_TPOT], [[1, 'inconclusive'], [3, 'no change'], [4, 'not examined'], [5, 'faster']]);
    const run = await alert(['--regressions', report(), '--confirmations', c, ...hook()]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(github.issues).toHaveLength(1);
    const [issue] = github.issues as [FakeIssue];
    expect(activeRows(issue.body!).map((r) => r.split(' | ').slice(0, 2).join(' | '))).toEqual(['| concurrency 16 | Output throughput (tok/s, higher is better)', '| concurrency 16 | TPOT p50 (ms, lower is better)']);
    expect(issue.body).toContain('- Output throughput at concurrency 16: **slower**, −12.0% (95% interval −15.0% … −9.0%)\n');
    expect(issue.body).toContain('- TPOT p50 at concurrency 16: **slower**, −12.0% (95% interval −15.0% … −9.0%), on the runs of the Output throughput A/B\n');
    expect(issue.body).toContain('**Changed between 0.11.0 and 0.11.1**: bisected on Output throughput in 1 paired comparisons; [what changed](https://github.com/vllm-project/vllm/compare/v0.11.0...v0.11.1) · [release notes](https://github.com/vllm-project/vllm/releases/tag/v0.11.1).');
    expect(run.stdout).toMatch(/^2 of 7 regressions confirmed by a paired A\/B in 1 configuration;/);
    expect(run.stdout).toContain('Not confirmed (never filed): 5\n');
    expect(run.stdout).toContain('not confirmed vllm 0.11.1 vs 0.11.0 on synthetic/llama-8b / 1x-Synthetic H100 / chat: ttft_ms_p99 @ c=16 (regress +23.7%): inconclusive, paired +0.4% [−2.0%, +3.0%]\n');
    expect(run.stdout).toContain('tpot_ms_p50 @ c=64 (regress +');
    expect(run.stdout).toMatch(/not confirmed sglang 0\.5\.3 .*: not in the confirmations \(confirm did not examine it\)/);
    expect(webhook.posts).toHaveLength(1);

    // Idempotent; and a later night without --confirmations keeps the notes of the cells that stand.
    const again = await alert(['--regressions', report(), '--confirmations', c]);
    expect(writes(again)).toEqual([]);
    const unconfirmed = await alert(['--regressions', report((rows, data) => data.regressions.splice(0, rows.length, rows[VLLM_C16_THROUGHPUT]!, rows[VLLM_C16_TPOT]!))]);
    expect(unconfirmed.stderr).toMatch(/warning: no --confirmations/);
    expect(writes(unconfirmed)).toEqual([]);
  });

  it('a row not confirmed tonight leaves its open issue as it is: no update, no close, no reopen, even with the comparisons that would close it', async () => {
    await alert(['--regressions', report()]);
    const before = github.issues.map((i) => ({ number: i.number, state: i.state, body: i.body }));
    const notTonight = confirmations([], [[0, 'no change'], [1, 'no change'], [2, 'inconclusive'], [3, 'no change'], [4, 'failed'], [5, 'no change'], [SGLANG, 'not examined']]);
    const nextNightReport = report((rows, data) => {
      for (const row of rows) nextNight(row);
      data.comparisons = rows.map((row) => comparison(row, { significant: true, verdict: 'worse' }));
    });
    const run = await alert(['--regressions', nextNightReport, '--confirmations', notTonight, '--json']);
    expect(run.code).toBe(0);
    expect(writes(run)).toEqual([]);
    expect(github.issues.map((i) => ({ number: i.number, state: i.state, body: i.body }))).toEqual(before);
    const summary = JSON.parse(run.stdout) as { confirmed: number; not_confirmed: Array<{ key: string; reason: string }>; actions: unknown[] };
    expect(summary.confirmed).toBe(0);
    expect(summary.not_confirmed.map((n) => n.reason)).toEqual(['no change', 'no change', 'inconclusive', 'no change', 'failed', 'no change', 'not examined']);
    expect(summary.actions).toEqual([]);
  });

  it('refuses confirmations that are not `servebench confirm`\'s (exit 2), naming the field', async () => {
    const bad = join(dir, 'bad-confirmations.json');
    writeFileSync(bad, JSON.stringify({ kind: 'confirmations', schema_version: 1 }));
    const run = await alert(['--regressions', report(), '--confirmations', bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--confirmations: .*bad-confirmations\.json: status: .*give the file `servebench confirm --out` wrote/);
    expect(github.issues).toHaveLength(0);
  });
});
