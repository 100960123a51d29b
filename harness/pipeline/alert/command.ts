/**
 * `servebench alert`: files the regressions that `servebench regress --json` found as one GitHub
 * issue per engine release and configuration (every metric and load point that regressed there
 * in one table), and keeps it up to date, never twice: every issue carries its key and its state
 * in hidden markers, and all issues labelled `regression` (open and closed) are read first. A
 * later night updates the issue (a comment says what newly regressed, recovered or moved), and
 * closes it when the configuration no longer regresses or a newer release fixed it. Posts one
 * webhook message about what is new. `--dry-run` only reads (GET), `--offline` not even that.
 */
import { booleanOption, listOption, numberOption, parseCommandArgs, stringOption, type CommandSpec, type Command, processIo, type CommandIo } from '../../lib/cli/options.ts';
import { checkEngineFile, listEngineFiles } from '../../measure/engines/spec-file.ts';
import { EXIT, usageError } from '../../lib/errors.ts';
import { isNew, planAlerts, type AlertAction, type ExistingIssue } from './alert.ts';
import { NOTABLE_CHANGE_POINTS } from './groups.ts';
import { readRegressionReport } from '../regressions/report.ts';
import { readConfirmations, confirmationsByKey } from '../confirm/confirmations.ts';
import { applyConfirmations, notConfirmedJson, notConfirmedLine } from './confirmed.ts';
import { describeLoad, legacyComment, type DisplayName } from './markdown.ts';
import { DEFAULT_GITHUB_API, GITHUB_API_ENV, githubClient } from '../http/github-http.ts';
import { createGitHubIssuesClient, type GitHubIssuesClient, type LabelSpec } from './github-issues.ts';
import { defaultPolicy, type HttpPolicy } from '../http/http-conditional.ts';
import { postWebhook, webhookPayload, type NewIssue } from './webhook.ts';

const spec: CommandSpec = {
  name: 'alert',
  summary: 'open, update and close one GitHub issue per engine release and configuration from `servebench regress --json` (never a duplicate), and post new ones to a webhook',
  usage: 'servebench alert --regressions FILE|- [--confirmations FILE]… [--repo OWNER/NAME] [--github-api URL] [--webhook URL] [--dry-run [--offline]] [--reopen] [--max-wait S] [--json]',
  options: [
    { name: 'regressions', value: 'FILE', help: 'The JSON printed by `servebench regress --json`; - reads standard input.' },
    { name: 'confirmations', value: 'FILE', multiple: true, help: 'What `servebench confirm` wrote for this report (repeat it for one file per runner class): only confirmed regressions are filed; the others are listed as not confirmed and leave every issue as it is. Without it every regression is filed, unconfirmed (a warning says so).' },
    { name: 'repo', value: 'OWNER/NAME', help: 'Repository to file issues in (default: $GITHUB_REPOSITORY).' },
    { name: 'github-api', value: 'URL', help: `GitHub REST API base URL (default: $${GITHUB_API_ENV}, else ${DEFAULT_GITHUB_API}; GitHub Enterprise: https://HOST/api/v3).` },
    { name: 'webhook', value: 'URL', help: 'Slack-compatible incoming webhook for one message about the new regressions (default: $SERVEBENCH_WEBHOOK_URL; none when unset).' },
    { name: 'dry-run', help: 'Print the actions and the issue bodies without writing anything: only GET requests (and no webhook post).' },
    { name: 'offline', help: 'With --dry-run: no request at all; every configuration is shown as a new issue.' },
    { name: 'reopen', help: 'Reopen an issue a maintainer closed when its configuration still regresses (default: leave it closed, report it as skipped).' },
    { name: 'max-wait', value: 'S', help: 'Longest rate-limit wait to sit out (GitHub or the webhook); a longer one fails, naming the reset time.', default: '60' },
    { name: 'json', help: 'Print a machine-readable summary of the actions instead of text.' },
  ],
  epilog: [
    'One issue per engine release and configuration (model × precision × hardware × workload × methodology, all its load points): one row per metric and load point that regressed, with its change, 95% interval, p-value, test and runs. Each issue carries hidden markers with its key and its state, and the labels regression, servebench and engine:<name>. Before filing, every issue labelled regression (open and closed) is listed; the marker matches it: unchanged → no write; new numbers → the servebench section of the body is replaced (text outside it is kept), with a comment when a row newly regresses, recovers or moves by 1 percentage point or more; closed by a maintainer → left closed unless --reopen; closed by servebench and regressing again → reopened. An open issue whose configuration the report shows measured again without the regression (its "comparisons" list), or whose newer release is back within the threshold, is closed with a comment giving the numbers; a report without comparisons closes nothing. An open issue filed per regression by an earlier alert is closed, pointing at the new one. Removing the regression label hides an issue from this lookup.',
    'With --confirmations (docs/running.md#confirm-before-alerting), only the regressions `servebench confirm` confirmed by a paired A/B on one host are filed, each issue saying the paired verdict with its 95% interval and, where a bisection ran, the releases it changed between; the others are listed as not confirmed, with the verdict that failed to confirm them, and never create, update, reopen or close an issue.',
    'The token comes from GITHUB_TOKEN (issues: write); a dry run works without one on a public repository.',
    'Exit status: 0 ok, 1 GitHub or the webhook failed (what was filed before stays filed), 2 bad usage or input.',
  ].join('\n'),
};

export interface AlertIo extends CommandIo {
  /** Waits, backoff and clock for the HTTP calls (tests make them instant). */
  readonly policy?: Partial<HttpPolicy>;
  /** Pause between writes; GitHub asks for a second (tests use 0). */
  readonly writeSpacingMs?: number;
}

function engineDisplayNames(): DisplayName {
  const names = new Map<string, string>();
  try {
    for (const file of listEngineFiles()) {
      const { engine } = checkEngineFile(file);
      if (engine) names.set(engine.name, engine.display_name);
    }
  } catch {
    // Without engines/ (an installed copy), the names as results spell them are fine.
  }
  return (engine) => names.get(engine) ?? engine;
}

function httpUrl(flag: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`--${flag}: "${text}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw usageError(`--${flag}: "${text}" must be an http(s) URL`);
  return text;
}

function labelSpecs(labels: readonly string[]): LabelSpec[] {
  return labels.map((name) =>
    name === 'regression'
      ? { name, color: 'b60205', description: 'A performance regression found by servebench regress' }
      : name === 'servebench'
        ? { name, color: 'c5def5', description: 'Filed by servebench alert' }
        : { name, color: '1d76db', description: `servebench: the ${name.slice('engine:'.length)} engine`.slice(0, 100) },
  );
}

interface Outcome {
  readonly action: AlertAction;
  readonly issueNumber: number | null;
  readonly issueUrl: string | null;
}

function describe(action: AlertAction): string {
  const s = action.state;
  const what = action.kind === 'retire' ? `per-regression issue, now in the issue of ${s.engine} ${s.version}` : `${s.engine} ${s.version} vs ${s.previous_version}`;
  const rows = s.cells.map((c) => `${c.metric} ${c.change_pct > 0 ? '+' : ''}${c.change_pct.toFixed(1)}%${new Set(s.cells.map((x) => x.load)).size > 1 ? ` @ ${describeLoad(c.load)}` : ''}`);
  const status = action.kind === 'retire' ? '' : s.cells.length === 0 ? ': recovered' : `: ${s.cells.length} regression${s.cells.length === 1 ? '' : 's'} (${rows.slice(0, 4).join(', ')}${rows.length > 4 ? ', …' : ''})`;
  const line = `${what} on ${s.scenario.model} / ${s.scenario.precision} / ${s.scenario.hardware} / ${s.scenario.workload}${status}`;
  // Names from result files reach a terminal or a CI log here: no escape sequences.
  return line.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
}

async function execute(action: AlertAction, client: GitHubIssuesClient, groupIssues: ReadonlyMap<string, number>): Promise<Outcome> {
  switch (action.kind) {
    case 'create': {
      const issue = await client.createIssue({ title: action.title, body: action.body, labels: action.labels });
      return { action, issueNumber: issue.number, issueUrl: issue.html_url };
    }
    case 'update':
    case 'reopen':
    case 'close': {
      const patch = {
        ...(action.title !== action.issue.title ? { title: action.title } : {}),
        ...(action.body !== action.issue.body ? { body: action.body } : {}),
        ...(action.kind === 'reopen' ? { state: 'open' as const } : action.kind === 'close' ? { state: 'closed' as const, state_reason: 'completed' as const } : {}),
      };
      if (Object.keys(patch).length > 0) await client.updateIssue(action.issue.number, patch);
      if (action.comment !== null) await client.addComment(action.issue.number, action.comment);
      return { action, issueNumber: action.issue.number, issueUrl: action.issue.html_url };
    }
    case 'retire': {
      await client.updateIssue(action.issue.number, { state: 'closed', state_reason: 'not_planned' });
      await client.addComment(action.issue.number, legacyComment(action.state, groupIssues.get(action.state.key) ?? null));
      return { action, issueNumber: action.issue.number, issueUrl: action.issue.html_url };
    }
    case 'unchanged':
    case 'skip-closed':
      return { action, issueNumber: action.issue.number, issueUrl: action.issue.html_url };
  }
}

const VERB: Record<AlertAction['kind'], [done: string, planned: string]> = {
  create: ['created', 'would create'],
  update: ['updated', 'would update'],
  reopen: ['reopened', 'would reopen'],
  close: ['closed', 'would close'],
  unchanged: ['unchanged', 'unchanged'],
  'skip-closed': ['skipped', 'would skip'],
  retire: ['retired', 'would retire'],
};

function textLine(outcome: Outcome, dryRun: boolean): string {
  const { action } = outcome;
  const verb = `${VERB[action.kind][dryRun ? 1 : 0].padEnd(12)} `;
  const number = outcome.issueNumber === null ? '' : `#${outcome.issueNumber} `;
  const why = action.kind === 'skip-closed' ? ' (closed by a maintainer; --reopen reopens it)' : action.kind === 'close' ? ` (${action.state.closed!.reason === 'fixed-in-newer' ? `fixed in ${action.state.closed!.version}` : 'no longer regresses'}, night of ${action.state.closed!.night})` : '';
  const link = outcome.issueUrl && !dryRun && action.kind !== 'skip-closed' && action.kind !== 'unchanged' ? ` ${outcome.issueUrl}` : '';
  return `${verb}${number}${describe(action)}${why.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')}${link}\n`;
}

function dryRunDetail(action: AlertAction): string {
  if (action.kind === 'unchanged' || action.kind === 'skip-closed') return '';
  if (action.kind === 'retire') return `  comment: ${legacyComment(action.state, null)}\n`;
  const lines = [`  title: ${action.title}`];
  if (action.kind === 'create') lines.push(`  labels: ${action.labels.join(', ')}`);
  else lines.push(action.comment === null ? `  comment: none (no row moved by ${NOTABLE_CHANGE_POINTS} point or more; the body is updated silently)` : `  comment: ${action.comment.replace(/\n/g, '\n           ')}`);
  lines.push('  ----- body -----', action.body.trimEnd(), '  ----------------', '');
  return `${lines.join('\n')}\n`;
}

export async function runAlert(argv: readonly string[], io: AlertIo): Promise<number> {
  const raw = parseCommandArgs(spec, argv);
  const file = stringOption(spec, raw, 'regressions');
  if (file === undefined) throw usageError('alert: --regressions FILE is required (the output of `servebench regress --json`, or - for standard input)');
  const dryRun = booleanOption(raw, 'dry-run');
  const offline = booleanOption(raw, 'offline');
  if (offline && !dryRun) throw usageError('alert: --offline only goes with --dry-run');
  const json = booleanOption(raw, 'json');
  const reopen = booleanOption(raw, 'reopen');
  const policy: HttpPolicy = { ...defaultPolicy, ...io.policy, maxWaitS: numberOption(spec, raw, 'max-wait', { min: 0 })! };
  const repo = stringOption(spec, raw, 'repo') ?? (io.env['GITHUB_REPOSITORY'] || (offline ? 'OWNER/NAME' : undefined));
  if (repo === undefined || repo === '') throw usageError('alert: no repository; give --repo OWNER/NAME or set GITHUB_REPOSITORY');
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo)) throw usageError(`--repo: "${repo}" is not OWNER/NAME`);
  const apiUrl = httpUrl('github-api', stringOption(spec, raw, 'github-api') ?? (io.env[GITHUB_API_ENV] || DEFAULT_GITHUB_API));
  const webhookText = stringOption(spec, raw, 'webhook') ?? (io.env['SERVEBENCH_WEBHOOK_URL'] || undefined);
  const webhook = webhookText === undefined ? null : httpUrl('webhook', webhookText);
  const token = io.env['GITHUB_TOKEN']?.trim() || undefined;
  if (!dryRun && token === undefined) throw usageError('alert: GITHUB_TOKEN is not set; it needs a token with issues: write on the repository (or use --dry-run)');

  const read = readRegressionReport(file);
  const confirmationFiles = listOption(raw, 'confirmations');
  const confirmations = confirmationFiles.length === 0 ? null : confirmationsByKey(confirmationFiles.map(readConfirmations));
  // Unconfirmed regressions never reach an issue: the report goes on with the confirmed ones only.
  const { report, notConfirmed } = confirmations === null ? { report: read, notConfirmed: [] } : applyConfirmations(read, confirmations);
  if (confirmations === null && read.regressions.length > 0) io.stderr('servebench alert: warning: no --confirmations: these regressions are filed unconfirmed (a Welch test between runs made at different times); `servebench confirm` checks each by a paired A/B first\n');
  const displayName = engineDisplayNames();
  const client = createGitHubIssuesClient({
    github: githubClient(policy, io.env, apiUrl),
    repo,
    readOnly: dryRun,
    ...(io.writeSpacingMs !== undefined ? { writeSpacingMs: io.writeSpacingMs } : {}),
    onWait: (message) => io.stderr(`servebench alert: ${message}\n`),
  });

  const comparisons = report.comparisons?.length ?? 0;
  let existing: ExistingIssue[] = [];
  // Open issues can close on a report without regressions, when it lists what it compared.
  if ((report.regressions.length > 0 || comparisons > 0) && !offline) existing = await client.listIssues('regression');
  const actions = planAlerts(report, existing, { reopen, displayName, confirmations });
  const configurations = new Set(actions.filter((a) => a.kind !== 'retire' && a.kind !== 'close').map((a) => a.state.key)).size;
  if (!json) {
    const what =
      confirmations !== null && read.regressions.length > 0
        ? `${report.regressions.length} of ${read.regressions.length} regressions confirmed by a paired A/B${report.regressions.length > 0 ? ` in ${configurations} configuration${configurations === 1 ? '' : 's'}` : ''}`
        : report.regressions.length === 0
        ? `No regressions${comparisons > 0 ? ` in ${comparisons} comparisons` : ''}`
        : `${report.regressions.length} regression${report.regressions.length === 1 ? '' : 's'} in ${configurations} configuration${configurations === 1 ? '' : 's'}`;
    io.stdout(report.regressions.length === 0 && comparisons === 0 && notConfirmed.length === 0
      ? 'No regressions: nothing to file.\n'
      : `${what}; ${offline ? 'offline, existing issues not read' : `${existing.length} issue${existing.length === 1 ? '' : 's'} labelled regression in ${repo}`}${dryRun ? '; dry run: nothing is written' : ''}\n`);
  }

  if (!json && notConfirmed.length > 0) io.stdout(`Not confirmed (never filed): ${notConfirmed.length}\n${notConfirmed.map(notConfirmedLine).join('')}`);

  const labelResults: Array<{ name: string; result: 'created' | 'exists' }> = [];
  const needed = [...new Set(actions.flatMap((a) => (a.kind === 'create' ? a.labels : [])))];
  if (!dryRun && needed.length > 0) {
    for (const label of labelSpecs(needed)) labelResults.push({ name: label.name, result: await client.ensureLabel(label) });
  }

  const outcomes: Outcome[] = [];
  /** Group key → its issue number, for the comment on a retired per-regression issue. */
  const groupIssues = new Map<string, number>();
  for (const action of actions) {
    const outcome = dryRun ? { action, issueNumber: 'issue' in action ? action.issue.number : null, issueUrl: 'issue' in action ? action.issue.html_url : null } : await execute(action, client, groupIssues);
    if (action.kind !== 'retire' && outcome.issueNumber !== null) groupIssues.set(action.state.key, outcome.issueNumber);
    outcomes.push(outcome);
    if (!json) io.stdout(textLine(outcome, dryRun) + (dryRun ? dryRunDetail(action) : ''));
  }

  const fresh: NewIssue[] = outcomes.filter((o) => isNew(o.action)).map((o) => ({ state: o.action.state, issueUrl: o.issueUrl, issueNumber: o.issueNumber, reopened: o.action.kind === 'reopen' }));
  const payload = fresh.length > 0 ? webhookPayload(fresh, repo, displayName) : null;
  let posted = false;
  if (webhook !== null && payload !== null) {
    if (dryRun) {
      if (!json) io.stdout(`would post to the webhook:\n${JSON.stringify(payload, null, 2)}\n`);
    } else {
      await postWebhook(webhook, payload, policy);
      posted = true;
      if (!json) io.stdout(`webhook: posted ${fresh.length} new regressed configuration${fresh.length === 1 ? '' : 's'}\n`);
    }
  }

  if (json) {
    const summary = {
      dry_run: dryRun,
      offline,
      repo,
      regressions: read.regressions.length,
      confirmed: confirmations === null ? null : report.regressions.length,
      not_confirmed: notConfirmed.map(notConfirmedJson),
      comparisons: report.comparisons === null ? null : comparisons,
      configurations,
      existing_issues: offline ? null : existing.length,
      actions: outcomes.map(({ action, issueNumber, issueUrl }) => {
        const s = action.state;
        return {
          action: action.kind,
          key: s.key,
          engine: s.engine,
          version: s.version,
          previous_version: s.previous_version,
          scenario: s.scenario,
          rows: s.cells.map((c) => ({ metric: c.metric, load: c.load, change_pct: c.change_pct })),
          recovered: s.recovered.map((c) => ({ metric: c.metric, load: c.load })),
          ...(s.closed !== null ? { closed: s.closed } : {}),
          issue: issueNumber,
          url: issueUrl,
          ...(action.kind === 'create' || action.kind === 'update' || action.kind === 'reopen' || action.kind === 'close' ? { title: action.title } : {}),
          ...(dryRun && action.kind === 'create' ? { labels: action.labels } : {}),
          ...(dryRun && (action.kind === 'update' || action.kind === 'reopen' || action.kind === 'close') ? { comment: action.comment } : {}),
          ...(dryRun && (action.kind === 'create' || action.kind === 'update' || action.kind === 'reopen' || action.kind === 'close') ? { body: action.body } : {}),
        };
      }),
      labels: labelResults,
      webhook: { configured: webhook !== null, new: fresh.length, posted, ...(dryRun && webhook !== null && payload !== null ? { payload } : {}) },
    };
    io.stdout(`${JSON.stringify(summary, null, 2)}\n`);
  }
  return EXIT.ok;
}

export const alertCommand: Command = {
  spec,
  run: (argv, io = processIo()) => runAlert(argv, io),
};

