/**
 * One chat message per `servebench alert` run that filed something new, one entry per engine
 * release and configuration (as the issues are filed), as a Slack incoming
 * webhook takes it (`{text, blocks}`). `text` is the notification fallback and what chat tools
 * with a Slack-compatible webhook but no Block Kit show; the blocks carry mrkdwn sections.
 * Nothing is posted when nothing is new: an updated issue is not news.
 *
 * mrkdwn treats `&`, `<` and `>` as control characters (`<!channel>`, `<url|label>`), so
 * untrusted names are entity-escaped, and `@` gets a zero-width space so no name pings anyone.
 * Slack answers 200 with the body `ok`; any other status is an error whose body names the cause
 * (e.g. 400 invalid_payload, 404 no_service, 410 channel_is_archived).
 */
import { ServebenchError } from '../../lib/errors.ts';
import { BoundedReadError, requestBounded } from '../../lib/io/bounded-body.ts';
import type { GroupState } from './groups.ts';
import { describeLoad, formatChange, type DisplayName } from './markdown.ts';
import { HEADLINE_METRICS } from '../../contract/metric-catalog.ts';
import { REMOTE_FAILED } from './github-issues.ts';
import type { HttpPolicy } from '../http/http-conditional.ts';

/** Slack: at most 50 blocks per message, 3000 characters per section text, 150 per header. */
const MAX_LISTED = 20;
const MAX_SECTION = 3000;
/** What is read of the webhook's answer: enough to quote its error code. */
const WEBHOOK_REPLY_BYTES = 4096;

/** An issue this run opened (or reopened): one engine release on one configuration. */
export interface NewIssue {
  readonly state: GroupState;
  readonly issueUrl: string | null;
  readonly issueNumber: number | null;
  readonly reopened: boolean;
}

interface TextObject {
  readonly type: 'mrkdwn' | 'plain_text';
  readonly text: string;
}

export interface SlackPayload {
  readonly text: string;
  readonly blocks: ReadonlyArray<
    | { readonly type: 'header'; readonly text: TextObject }
    | { readonly type: 'section'; readonly text: TextObject }
    | { readonly type: 'context'; readonly elements: readonly TextObject[] }
  >;
}

export function escapeMrkdwn(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@/g, '@\u200b')
    .slice(0, 300);
}

/** A link target inside `<url|label>`: only http(s), and without the characters that end it. */
function linkTarget(url: string): string | null {
  return /^https?:\/\//i.test(url) ? url.replace(/[|<>\s]/g, (c) => encodeURIComponent(c)) : null;
}

const LABELS = new Map(HEADLINE_METRICS.map((m) => [m.column, m.label]));

function line(n: NewIssue, displayName: DisplayName): string {
  const s = n.state;
  const what = `*${escapeMrkdwn(displayName(s.engine))} ${escapeMrkdwn(s.version)}* vs ${escapeMrkdwn(s.previous_version)}`;
  const where = [s.scenario.model, s.scenario.precision, s.scenario.hardware, s.scenario.workload].map(escapeMrkdwn).join(' · ');
  const metrics = new Set(s.cells.map((c) => c.metric)).size;
  const loads = new Set(s.cells.map((c) => c.load)).size;
  const top = [...s.cells].sort((a, b) => Math.abs(b.change_pct) - Math.abs(a.change_pct))[0];
  const extent = `${metrics} metric${metrics === 1 ? '' : 's'} at ${loads} load point${loads === 1 ? '' : 's'}`;
  const worst = top === undefined ? '' : `, worst ${escapeMrkdwn(LABELS.get(top.metric) ?? top.metric)} *${formatChange(top.change_pct)}* at ${escapeMrkdwn(describeLoad(top.load))}`;
  const target = n.issueUrl ? linkTarget(n.issueUrl) : null;
  const issue = target ? ` <${target}|#${n.issueNumber ?? 'issue'}>${n.reopened ? ' (reopened)' : ''}` : n.reopened ? ' (reopened)' : '';
  return `• ${what} on ${where}: ${extent}${worst}${issue}`;
}

export function webhookPayload(items: readonly NewIssue[], repo: string, displayName: DisplayName): SlackPayload {
  const count = items.length;
  const engines = [...new Set(items.map((n) => displayName(n.state.engine)))];
  const summary = `servebench: ${count} new performance regression issue${count === 1 ? '' : 's'} (${engines.join(', ')})`;
  const lines = items.slice(0, MAX_LISTED).map((n) => line(n, displayName));
  if (count > MAX_LISTED) lines.push(`…and ${count - MAX_LISTED} more in the issues labelled \`regression\`.`);
  // Sections hold at most 3000 characters: pack the lines into as few as fit.
  const sections: string[] = [];
  for (const l of lines) {
    const last = sections[sections.length - 1];
    if (last !== undefined && last.length + 1 + l.length <= MAX_SECTION) sections[sections.length - 1] = `${last}\n${l}`;
    else sections.push(l.slice(0, MAX_SECTION));
  }
  return {
    text: escapeMrkdwn(summary),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: summary.replace(/@/g, '@\u200b').slice(0, 150) } },
      ...sections.map((text) => ({ type: 'section' as const, text: { type: 'mrkdwn' as const, text } })),
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Filed by \`servebench alert\` in ${escapeMrkdwn(repo)}, one issue per engine release and configuration; noise-aware, from \`servebench regress\`.` }] },
    ],
  };
}

/** Posts once; a 429 whose `retry-after` fits in --max-wait is retried once. The URL is a secret: errors show its origin only. */
export async function postWebhook(url: string, payload: SlackPayload, policy: Pick<HttpPolicy, 'sleep' | 'maxWaitS' | 'timeoutMs'>): Promise<void> {
  const where = new URL(url).origin;
  for (let attempt = 0; ; attempt++) {
    let response;
    try {
      // Slack answers "ok" or an error code: the first kilobytes say all there is to quote.
      response = await requestBounded(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload), label: `the webhook at ${where}`, overflow: 'truncate' },
        { maxBytes: WEBHOOK_REPLY_BYTES, timeoutMs: policy.timeoutMs },
      );
    } catch (error) {
      if (error instanceof BoundedReadError) throw new ServebenchError(`webhook: ${error.message}`, REMOTE_FAILED);
      const cause = (error as Error & { cause?: Error }).cause;
      throw new ServebenchError(`webhook: cannot reach ${where}: ${cause?.message ?? (error as Error).message}`, REMOTE_FAILED);
    }
    const text = response.text().slice(0, 200);
    if (response.status >= 200 && response.status < 300) return;
    const retryAfter = Number(response.headers['retry-after'] ?? NaN);
    if (response.status === 429 && attempt === 0 && Number.isFinite(retryAfter) && retryAfter <= policy.maxWaitS) {
      await policy.sleep(retryAfter * 1000);
      continue;
    }
    throw new ServebenchError(`webhook: ${where} answered ${response.status}${text ? ` (${text})` : ''}`, REMOTE_FAILED);
  }
}
