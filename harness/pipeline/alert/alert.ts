/**
 * Planning `servebench alert`, without any I/O: given one `regress` report and every issue already
 * filed (open and closed, found by the key marker in their body), decide for each engine release
 * and configuration whether to create its issue, update it (with a comment when something changed
 * that people want to hear about), close it as fixed, reopen it, or leave it alone. The issue body
 * holds the state (groups.ts), so running it twice on the same report plans no writes the second
 * time, and each night continues from what the issues say.
 */
import { DEFAULT_REGRESSION_THRESHOLD_PCT } from '../../contract/metric-catalog.ts';
import { groupRegressions, mergeState, scenarioIdentity, type Change, type GroupState, type ScenarioRef } from './groups.ts';
import type { Confirmation } from '../confirm/confirmations.ts';
import { withPairedNotes } from './confirmed.ts';
import type { RegressionReport } from '../regressions/report.ts';
import {
  closeComment,
  generatedSection,
  groupBody,
  groupKeyOfBody,
  groupLabels,
  groupTitle,
  legacyKeyOfBody,
  reopenComment,
  replaceSection,
  stateOfBody,
  TITLE_PREFIX,
  updateComment,
  type DisplayName,
} from './markdown.ts';

/** An issue as the list endpoint returns it (pull requests already left out). */
export interface ExistingIssue {
  readonly number: number;
  readonly title: string;
  readonly body: string;
  readonly state: 'open' | 'closed';
  readonly html_url: string;
}

export type AlertAction =
  | { readonly kind: 'create'; readonly state: GroupState; readonly title: string; readonly body: string; readonly labels: readonly string[] }
  /** comment: null when only run counts and small digits moved (the body is updated silently). */
  | { readonly kind: 'update'; readonly state: GroupState; readonly issue: ExistingIssue; readonly title: string; readonly body: string; readonly comment: string | null }
  | { readonly kind: 'reopen'; readonly state: GroupState; readonly issue: ExistingIssue; readonly title: string; readonly body: string; readonly comment: string }
  /** A fixed regression: the body records why, the comment says it with the numbers. */
  | { readonly kind: 'close'; readonly state: GroupState; readonly issue: ExistingIssue; readonly title: string; readonly body: string; readonly comment: string }
  | { readonly kind: 'unchanged'; readonly state: GroupState; readonly issue: ExistingIssue }
  | { readonly kind: 'skip-closed'; readonly state: GroupState; readonly issue: ExistingIssue }
  /** An open issue an earlier alert filed for one regression of this group: closed, pointing at the group's issue. */
  | { readonly kind: 'retire'; readonly state: GroupState; readonly issue: ExistingIssue };

export interface PlanOptions {
  /** Reopen an issue a maintainer closed when its regression is reported again. */
  readonly reopen: boolean;
  readonly displayName: DisplayName;
  /** The paired confirmations by regression key (--confirmations; the report holds only confirmed regressions then), for the issue's notes. */
  readonly confirmations?: ReadonlyMap<string, Confirmation> | null;
}

/** Issues by a key read from their body; the open one wins, then the oldest. */
function issuesBy(issues: readonly ExistingIssue[], keyOf: (body: string) => string | null): Map<string, ExistingIssue> {
  const byKey = new Map<string, ExistingIssue>();
  for (const issue of [...issues].sort((a, b) => a.number - b.number)) {
    const key = keyOf(issue.body);
    if (key === null) continue;
    const current = byKey.get(key);
    if (current === undefined || (current.state === 'closed' && issue.state === 'open')) byKey.set(key, issue);
  }
  return byKey;
}

/** Grouped issues by their key. */
export function issuesByKey(issues: readonly ExistingIssue[]): Map<string, ExistingIssue> {
  return issuesBy(issues, groupKeyOfBody);
}

function refOf(state: GroupState): { key: string; engine: string; version: string; previous_version: string; scenario: ScenarioRef } {
  return { key: state.key, engine: state.engine, version: state.version, previous_version: state.previous_version, scenario: state.scenario };
}

export function planAlerts(report: RegressionReport, existing: readonly ExistingIssue[], options: PlanOptions): AlertAction[] {
  const threshold = report.threshold_pct ?? DEFAULT_REGRESSION_THRESHOLD_PCT;
  const byKey = issuesByKey(existing);
  const legacy = issuesBy(existing.filter((i) => i.state === 'open' && groupKeyOfBody(i.body) === null), legacyKeyOfBody);
  const comparisonsOf = (engine: string, scenario: ScenarioRef) => {
    if (report.comparisons === null) return null;
    const identity = scenarioIdentity(scenario);
    return report.comparisons.filter((c) => c.engine === engine && scenarioIdentity(c) === identity);
  };
  const texts = (state: GroupState) => ({ title: groupTitle(state, options.displayName), body: groupBody(state, options.displayName) });
  /** The issue's body with the new section, and its title when servebench still owns it. */
  const revised = (issue: ExistingIssue, state: GroupState) => {
    const fresh = texts(state);
    const body = replaceSection(issue.body, fresh.body);
    const changed = generatedSection(issue.body) !== generatedSection(body);
    // A maintainer who retitled the issue keeps their title; ours is refreshed with the numbers.
    const title = changed && issue.title.startsWith(TITLE_PREFIX) ? fresh.title : issue.title;
    return { body: changed ? body : issue.body, title, changed };
  };

  const actions: AlertAction[] = [];
  const reported = new Set<string>();
  for (const group of groupRegressions(report.regressions)) {
    reported.add(group.key);
    const issue = byKey.get(group.key);
    const comparisons = comparisonsOf(group.engine, group.scenario);
    if (issue === undefined) {
      const state = withPairedNotes(mergeState(null, group, group.rows, comparisons, threshold).state, group.rows, null, options.confirmations ?? null);
      const fresh = texts(state);
      actions.push({ kind: 'create', state, title: fresh.title, body: fresh.body, labels: groupLabels(state.engine) });
    } else {
      const old = stateOfBody(issue.body);
      const merged = mergeState(old, group, group.rows, comparisons, threshold);
      const changes: Change[] = old === null ? [{ kind: 'unreadable' }] : [...merged.changes];
      const state = withPairedNotes(merged.state, group.rows, old, options.confirmations ?? null);
      const { body, title, changed } = revised(issue, state);
      if (issue.state === 'closed') {
        // servebench closed it as fixed and it regresses again: reopen. A maintainer closed it: only with --reopen.
        const ourClose = old?.closed != null;
        if (ourClose || options.reopen) actions.push({ kind: 'reopen', state, issue, title, body, comment: reopenComment(changes, state, !ourClose) });
        else actions.push({ kind: 'skip-closed', state, issue });
      } else if (!changed) {
        actions.push({ kind: 'unchanged', state, issue });
      } else {
        actions.push({ kind: 'update', state, issue, title, body, comment: changes.length > 0 ? updateComment(changes, state) : null });
      }
    }
    const groupState = actions.at(-1)!.state;
    const retired = new Set<number>();
    for (const row of group.rows) {
      const old = legacy.get(row.key);
      if (old === undefined || retired.has(old.number)) continue;
      retired.add(old.number);
      actions.push({ kind: 'retire', state: groupState, issue: old });
    }
  }

  // Open issues the report has no regression for: closed when the report shows the configuration
  // measured again without it (or a newer release back within the threshold); a report without
  // comparisons cannot show that, and an issue a maintainer reopened after servebench closed it is theirs.
  for (const [key, issue] of byKey) {
    if (reported.has(key) || issue.state !== 'open') continue;
    const old = stateOfBody(issue.body);
    if (old === null || old.closed !== null) continue;
    const comparisons = comparisonsOf(old.engine, old.scenario);
    if (comparisons === null || comparisons.length === 0) continue;
    const merged = mergeState(old, refOf(old), [], comparisons, threshold);
    const state = withPairedNotes(merged.state, [], old, null);
    const { body, title, changed } = revised(issue, state);
    if (merged.fixed) actions.push({ kind: 'close', state, issue, title, body, comment: closeComment(state, merged.changes) });
    else if (changed) actions.push({ kind: 'update', state, issue, title, body, comment: merged.changes.length > 0 ? updateComment(merged.changes, state) : null });
  }
  return actions;
}

/** What the webhook announces: configurations that became (again) an open issue in this run. */
export function isNew(action: AlertAction): boolean {
  return action.kind === 'create' || action.kind === 'reopen';
}
