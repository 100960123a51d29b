/**
 * Planning `servebench alert`, without any I/O: given the regressions of one `regress` run and
 * every issue already filed (open and closed, found by the key marker in their body), decide
 * for each regression whether to create an issue, update one, leave it alone, or respect a
 * maintainer's close. Running it twice on the same input plans no writes the second time.
 */
import type { AlertRegression } from './input.ts';
import { dataOfBody, describeChanges, generatedSection, issueTexts, keyOfBody, replaceSection, TITLE_PREFIX, type DisplayName } from './markdown.ts';

/** An issue as the list endpoint returns it (pull requests already left out). */
export interface ExistingIssue {
  readonly number: number;
  readonly title: string;
  readonly body: string;
  readonly state: 'open' | 'closed';
  readonly html_url: string;
}

export type AlertAction =
  | { readonly kind: 'create'; readonly regression: AlertRegression; readonly title: string; readonly body: string; readonly labels: readonly string[] }
  /** comment: null when only the run counts or small digits moved (the body is updated silently). */
  | { readonly kind: 'update'; readonly regression: AlertRegression; readonly issue: ExistingIssue; readonly title: string; readonly body: string; readonly comment: string | null }
  | { readonly kind: 'reopen'; readonly regression: AlertRegression; readonly issue: ExistingIssue; readonly title: string; readonly body: string; readonly comment: string }
  | { readonly kind: 'unchanged'; readonly regression: AlertRegression; readonly issue: ExistingIssue }
  | { readonly kind: 'skip-closed'; readonly regression: AlertRegression; readonly issue: ExistingIssue };

export interface PlanOptions {
  /** Reopen an issue a maintainer closed when its regression is reported again. */
  readonly reopen: boolean;
  readonly displayName: DisplayName;
}

/** Issues by the regression key in their marker; the open one wins, then the oldest. */
export function issuesByKey(issues: readonly ExistingIssue[]): Map<string, ExistingIssue> {
  const byKey = new Map<string, ExistingIssue>();
  for (const issue of [...issues].sort((a, b) => a.number - b.number)) {
    const key = keyOfBody(issue.body);
    if (key === null) continue;
    const current = byKey.get(key);
    if (current === undefined || (current.state === 'closed' && issue.state === 'open')) byKey.set(key, issue);
  }
  return byKey;
}

/**
 * A change worth a comment (a notification to everyone watching): the regression's size moved by
 * at least this many percentage points. Each night adds a run to the newest release, so its run
 * count and p-value move every night; those alone update the body without a comment.
 */
export const NOTABLE_CHANGE_POINTS = 1;

function sameSection(existing: string, fresh: string): boolean {
  return generatedSection(existing) === generatedSection(fresh);
}

export function planAlerts(regressions: readonly AlertRegression[], existing: readonly ExistingIssue[], options: PlanOptions): AlertAction[] {
  const byKey = issuesByKey(existing);
  return regressions.map((regression): AlertAction => {
    const texts = issueTexts(regression, options.displayName);
    const issue = byKey.get(regression.key);
    if (issue === undefined) return { kind: 'create', regression, title: texts.title, body: texts.body, labels: texts.labels };
    const changed = !sameSection(issue.body, texts.body);
    const body = changed ? replaceSection(issue.body, texts.body) : issue.body;
    // A maintainer who retitled the issue keeps their title; ours is refreshed with the numbers.
    const title = changed && issue.title.startsWith(TITLE_PREFIX) ? texts.title : issue.title;
    const changes = changed ? describeChanges(dataOfBody(issue.body), regression) : [];
    if (issue.state === 'closed') {
      if (!options.reopen) return { kind: 'skip-closed', regression, issue };
      const comment = ['Reopened by `servebench alert --reopen`: `servebench regress` still reports this regression.', ...(changes.length > 0 ? ['', 'Updated:', ...changes.map((c) => `- ${c}`)] : [])].join('\n');
      return { kind: 'reopen', regression, issue, title, body, comment };
    }
    if (!changed) return { kind: 'unchanged', regression, issue };
    const before = dataOfBody(issue.body);
    const notable = before === null || Math.abs(regression.change_pct - before.change_pct) >= NOTABLE_CHANGE_POINTS;
    const comment = notable ? ['Updated by `servebench alert` with the latest `servebench regress` data:', ...changes.map((c) => `- ${c}`)].join('\n') : null;
    return { kind: 'update', regression, issue, title, body, comment };
  });
}

/** What the webhook announces: regressions that became (again) an open issue in this run. */
export function isNew(action: AlertAction): boolean {
  return action.kind === 'create' || action.kind === 'reopen';
}
