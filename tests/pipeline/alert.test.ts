/**
 * `servebench alert` against the local fake GitHub API and a fake Slack webhook, on the SYNTHETIC
 * regress report in tests/fixtures/alert/regressions.json: one issue per regression and never a
 * duplicate, updates with a comment, closed issues respected, pagination, labels, dry runs,
 * rate limits and untrusted names.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ServebenchError } from '../../harness/lib/errors.ts';
import { runAlert } from '../../harness/pipeline/alert/command.ts';
import { planAlerts, type ExistingIssue } from '../../harness/pipeline/alert/alert.ts';
import { parseRegressionReport, type AlertRegression } from '../../harness/pipeline/alert/input.ts';
import { issueTexts, keyOfBody } from '../../harness/pipeline/alert/markdown.ts';
import { nextLink, rateLimitWait } from '../../harness/pipeline/alert/github-issues.ts';
import { createFakeGitHub, secondaryRateLimit, type FakeGitHub } from '../../harness/testbed/fakes/fake-github-issues.ts';
import { startFakeServer, type FakeServer, type RecordedRequest } from '../../harness/testbed/fakes/fake-server.ts';
import { createFakeWebhook, WEBHOOK_PATH, type FakeWebhook } from '../../harness/testbed/fakes/fake-webhook.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/alert/regressions.json', import.meta.url));
const fixture = () => JSON.parse(readFileSync(FIXTURE, 'utf8')) as { regressions: Array<Record<string, unknown>> };
const REPO = 'octo-org/servebench';

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
function report(edit: (regressions: Array<Record<string, unknown>>) => void = () => {}): string {
  const data = fixture();
  edit(data.regressions);
  const path = join(dir, `regressions-${files++}.json`);
  writeFileSync(path, JSON.stringify(data));
  return path;
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

describe('servebench alert: filing', () => {
  it('creates one issue per regression, with the key marker, the labels and GitHub headers, then posts one webhook message', async () => {
    const run = await alert(['--regressions', report(), ...hook()]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(github.issues).toHaveLength(3);
    const keys = fixture().regressions.map((r) => r['key']);
    expect(github.issues.map((i) => keyOfBody(i.body!))).toEqual(keys);
    expect(github.issues[0]!.title).toBe('[regression] vLLM 0.11.1 vs 0.11.0: output throughput \u221214.2% on synthetic/llama-8b / 1x-Synthetic H100 / chat @ concurrency 64');
    expect(github.issues[1]!.title).toContain('TTFT p99 +23.7%');
    expect(github.issues[2]!.title).toBe('[regression] SGLang 0.5.3 vs 0.5.2: TPOT p50 +16.4% on synthetic/qwen-7b / 1x-Synthetic H100 / summarize @ rate 4 req/s (max 64)');
    expect(github.issues.map((i) => i.labels)).toEqual([
      ['regression', 'servebench', 'engine:vllm'],
      ['regression', 'servebench', 'engine:vllm'],
      ['regression', 'servebench', 'engine:sglang'],
    ]);
    const body = github.issues[0]!.body!;
    expect(body).toContain('<!-- servebench-regression-key: a1b2c3d4e5f60718 -->');
    expect(body).toContain('| configuration | metric | previous | new | change | 95% CI | p | runs |');
    expect(body).toContain('[new](https://github.com/octo-org/servebench/blob/main/results/2026-02-10/vllm/synthetic-llama-8b/1x-synthetic-h100/chat-4e5f6a7b8c9d.json)');
    // One label POST per label, created before the issues that use them.
    expect(paths(run)).toEqual([
      'GET /repos/octo-org/servebench/issues',
      ...Array(4).fill('POST /repos/octo-org/servebench/labels'),
      ...Array(3).fill('POST /repos/octo-org/servebench/issues'),
      `POST ${WEBHOOK_PATH}`,
    ]);
    expect(github.labels.find((l) => l.name === 'regression')).toMatchObject({ color: 'b60205' });
    const list = run.requests[0]!;
    expect(new URL(list.url, server.url).searchParams.get('state')).toBe('all');
    expect(new URL(list.url, server.url).searchParams.get('labels')).toBe('regression');
    expect(new URL(list.url, server.url).searchParams.get('per_page')).toBe('100');
    for (const request of run.requests.filter((r) => !r.url.startsWith('/services/'))) {
      expect(request.headers.authorization).toBe(`Bearer ${github.token}`);
      expect(request.headers.accept).toBe('application/vnd.github+json');
      expect(request.headers['x-github-api-version']).toBe('2022-11-28');
      expect(request.headers['user-agent']).toMatch(/^servebench\//);
    }
    expect(run.stdout).toMatch(/^created +#1 vllm 0\.11\.1 vs 0\.11\.0 output_throughput/m);
    expect(run.stdout).toContain('webhook: posted 3 new regressions');
  });

  it('makes no write at all when run again on the same report', async () => {
    const path = report();
    expect((await alert(['--regressions', path, ...hook()])).code).toBe(0);
    const again = await alert(['--regressions', path, ...hook(), '--json']);
    expect(again.code).toBe(0);
    expect(again.requests.map((r) => r.method)).toEqual(['GET']);
    expect(github.issues).toHaveLength(3);
    expect(webhook.posts).toHaveLength(1);
    const summary = JSON.parse(again.stdout) as { actions: Array<{ action: string; issue: number }>; webhook: { posted: boolean; new: number } };
    expect(summary.actions.map((a) => [a.action, a.issue])).toEqual([['unchanged', 1], ['unchanged', 2], ['unchanged', 3]]);
    expect(summary.webhook).toMatchObject({ posted: false, new: 0 });
  });

  it('updates the issue and comments what changed when the numbers move, keeping notes outside the markers; no new issue, no webhook', async () => {
    await alert(['--regressions', report(), ...hook()]);
    github.issues[0]!.body = `${github.issues[0]!.body}\nMaintainer note: bisecting between 0.11.0 and 0.11.1.\n`;
    // A note alone is not a change.
    expect(writes(await alert(['--regressions', report()]))).toEqual([]);
    const moved = report((rs) => Object.assign(rs[0]!, { value: 3450.2, change_pct: -18.1, ci_low_pct: -20.2, ci_high_pct: -16.0, runs: 5 }));
    const run = await alert(['--regressions', moved, ...hook()]);
    expect(run.code).toBe(0);
    expect(paths(run)).toEqual(['GET /repos/octo-org/servebench/issues', 'PATCH /repos/octo-org/servebench/issues/1', 'POST /repos/octo-org/servebench/issues/1/comments']);
    expect(github.issues).toHaveLength(3);
    const issue = github.issues[0]!;
    expect(issue.title).toContain('output throughput \u221218.1%');
    expect(issue.body).toContain('Maintainer note: bisecting');
    expect(issue.body).toContain('3450');
    expect(issue.body!.match(/servebench-regression-key/g)).toHaveLength(1);
    expect(github.comments).toHaveLength(1);
    expect(github.comments[0]!.body).toContain('change \u221214.2% \u2192 \u221218.1%');
    expect(github.comments[0]!.body).toContain('runs 3/3 \u2192 3/5');
    expect(webhook.posts).toHaveLength(1);
    expect(run.stdout).toMatch(/^updated +#1 /m);
    // And it is stable again afterwards.
    expect(writes(await alert(['--regressions', moved]))).toEqual([]);
  });

  it('updates the body without a comment when only the run count and small digits move (a night\'s new run)', async () => {
    await alert(['--regressions', report()]);
    // One more run of the new release: the change moves by 0.3 points, below NOTABLE_CHANGE_POINTS.
    const nightly = report((rs) => Object.assign(rs[0]!, { change_pct: (rs[0]!.change_pct as number) + 0.3, runs: 4 }));
    const run = await alert(['--regressions', nightly]);
    expect(run.code).toBe(0);
    expect(paths(run)).toEqual(['GET /repos/octo-org/servebench/issues', 'PATCH /repos/octo-org/servebench/issues/1']);
    expect(github.issues[0]!.body).toContain('servebench-regression-key');
    expect(github.comments).toHaveLength(0);
  });

  it('leaves an issue a maintainer closed closed, and reopens it with --reopen', async () => {
    const path = report();
    await alert(['--regressions', path, ...hook()]);
    github.close(2);
    const skipped = await alert(['--regressions', path, ...hook(), '--json']);
    expect(skipped.code).toBe(0);
    expect(writes(skipped)).toEqual([]);
    expect(github.issues).toHaveLength(3);
    const summary = JSON.parse(skipped.stdout) as { actions: Array<{ action: string; issue: number }> };
    expect(summary.actions[1]).toMatchObject({ action: 'skip-closed', issue: 2 });
    expect((await alert(['--regressions', path])).stdout).toMatch(/^skipped +#2 .*--reopen reopens it/m);

    const reopened = await alert(['--regressions', path, ...hook(), '--reopen']);
    expect(reopened.code).toBe(0);
    expect(paths(reopened)).toEqual(['GET /repos/octo-org/servebench/issues', 'PATCH /repos/octo-org/servebench/issues/2', 'POST /repos/octo-org/servebench/issues/2/comments', `POST ${WEBHOOK_PATH}`]);
    expect(JSON.parse(reopened.requests[1]!.body)).toEqual({ state: 'open' });
    expect(github.issues[1]!.state).toBe('open');
    expect(github.comments.at(-1)!.body).toContain('Reopened by `servebench alert --reopen`');
    expect(webhook.posts).toHaveLength(2);
    expect(JSON.stringify(webhook.posts[1])).toContain('(reopened)');
  });

  it('follows Link pagination (GitHub\'s /repositories/<id> next links) and finds the marker on page 2', async () => {
    for (let i = 0; i < 120; i++) github.addIssue({ title: `unrelated regression ${i}`, body: 'Something else got slower.', labels: ['regression'] });
    github.addIssue({ title: 'a pull request', body: null, labels: ['regression'], pull_request: true });
    const path = report();
    const first = await alert(['--regressions', path]);
    expect(first.code).toBe(0);
    expect(first.requests.filter((r) => r.method === 'GET').map((r) => r.url.split('?')[0])).toEqual(['/repos/octo-org/servebench/issues', '/repositories/1300192/issues']);
    expect(github.issues.slice(121).map((i) => i.number)).toEqual([122, 123, 124]);
    const again = await alert(['--regressions', path]);
    expect(again.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
    expect(new URL(again.requests[1]!.url, server.url).searchParams.get('page')).toBe('2');
    expect(again.stdout).toMatch(/^unchanged +#122 /m);
    expect(again.stdout).toContain('123 issues labelled regression'); // the pull request is not one
  });

  it('creates each label once and takes 422 already_exists as fine', async () => {
    github.labels.push({ id: 99, name: 'Regression', color: 'ffffff', description: 'the repository already had it' });
    const first = await alert(['--regressions', report((rs) => rs.splice(1))]);
    expect(first.code).toBe(0);
    const labelPosts = first.requests.filter((r) => r.url.endsWith('/labels'));
    expect(labelPosts.map((r) => (JSON.parse(r.body) as { name: string }).name)).toEqual(['regression', 'servebench', 'engine:vllm']);
    expect(github.labels.filter((l) => l.name.toLowerCase() === 'regression')).toHaveLength(1);
    // A new sglang regression later: the shared labels answer 422, engine:sglang is created.
    const second = await alert(['--regressions', report()]);
    expect(second.code).toBe(0);
    expect(github.labels.map((l) => l.name).sort()).toEqual(['Regression', 'engine:sglang', 'engine:vllm', 'servebench']);
    expect(github.issues).toHaveLength(3);
    expect(second.stdout).toMatch(/^created +#2 /m);
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
    expect(run.stdout).toContain('<!-- servebench-regression-key: a1b2c3d4e5f60718 -->');
    expect(run.stdout).toContain('would post to the webhook:');

    await alert(['--regressions', report()]);
    const changed = await alert(['--regressions', report((rs) => Object.assign(rs[2]!, { value: 26.1, change_pct: 22.0 })), '--dry-run', '--json']);
    expect(writes(changed)).toEqual([]);
    const summary = JSON.parse(changed.stdout) as { dry_run: boolean; actions: Array<{ action: string; comment?: string; body?: string }> };
    expect(summary.dry_run).toBe(true);
    expect(summary.actions.map((a) => a.action)).toEqual(['unchanged', 'unchanged', 'update']);
    expect(summary.actions[2]!.comment).toContain('change +16.4% \u2192 +22.0%');
    expect(summary.actions[2]!.body).toContain('26.1');
  });

  it('needs no token on a public repository, and --offline sends nothing', async () => {
    const anonymous = await alert(['--regressions', report(), '--dry-run'], { GITHUB_TOKEN: '' });
    expect(anonymous.code).toBe(0);
    expect(anonymous.requests.map((r) => [r.method, r.headers.authorization])).toEqual([['GET', undefined]]);
    const offline = await alert(['--regressions', report(), '--dry-run', '--offline', ...hook()], { GITHUB_TOKEN: '', GITHUB_REPOSITORY: '' });
    expect(offline.code).toBe(0);
    expect(offline.requests).toEqual([]);
    expect(offline.stdout.match(/^would create/gm)).toHaveLength(3);
  });
});

describe('servebench alert: the webhook', () => {
  it('posts one Slack-compatible message about the new regressions only, never when nothing is new', async () => {
    await alert(['--regressions', report((rs) => rs.splice(2)), ...hook()]);
    expect(webhook.posts).toHaveLength(1);
    const first = webhook.posts[0] as { text: string; blocks: Array<{ type: string; text?: { type: string; text: string } }> };
    expect(first.text).toBe('servebench: 2 new performance regressions (vLLM)');
    expect(first.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'servebench: 2 new performance regressions (vLLM)' } });
    const section = first.blocks.find((b) => b.type === 'section')!;
    expect(section.text!.type).toBe('mrkdwn');
    expect(section.text!.text).toContain('<https://github.com/octo-org/servebench/issues/1|#1>');
    expect(section.text!.text).toContain('*\u221214.2%*');
    // The third regression is new on the next run: a message about it alone.
    await alert(['--regressions', report(), ...hook()]);
    expect(webhook.posts).toHaveLength(2);
    expect((webhook.posts[1] as { text: string }).text).toBe('servebench: 1 new performance regression (SGLang)');
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
    expect(github.issues).toHaveLength(3);
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

  it('keeps a title within 256 characters however long the model name', async () => {
    const run = await alert(['--regressions', report((rs) => void (rs[0]!['model'] = `org/${'very-long-model-name-'.repeat(30)}`))]);
    expect(run.code).toBe(0);
    const title = github.issues[0]!.title;
    expect(title.length).toBeLessThanOrEqual(256);
    expect(title).toMatch(/… \/ 1x-Synthetic H100 \/ chat @ concurrency 64$/);
  });
});

describe('alert planning and helpers', () => {
  const regressions = parseRegressionReport(readFileSync(FIXTURE, 'utf8'), 'fixture').regressions;
  const displayName = (e: string) => e;
  const issue = (number: number, r: AlertRegression, state: 'open' | 'closed', body = issueTexts(r, displayName).body): ExistingIssue => ({ number, title: issueTexts(r, displayName).title, body, state, html_url: `https://github.com/o/r/issues/${number}` });

  it('prefers the open issue when a key has several, and ignores issues without a marker', () => {
    const r = regressions[0]!;
    const plan = planAlerts([r], [issue(3, r, 'closed'), issue(9, r, 'open'), { number: 1, title: 'x', body: 'no marker', state: 'open', html_url: '' }], { reopen: false, displayName });
    expect(plan.map((a) => [a.kind, 'issue' in a ? a.issue.number : null])).toEqual([['unchanged', 9]]);
  });

  it('treats the same key twice in a report as one regression', () => {
    const doubled = JSON.stringify({ regressions: [...fixture().regressions, fixture().regressions[0]] });
    expect(parseRegressionReport(doubled, 'x').regressions).toHaveLength(3);
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
