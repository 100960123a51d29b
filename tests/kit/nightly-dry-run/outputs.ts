/**
 * Reading what the night's steps printed or wrote, where the workflow reads it as text (compile's
 * report on stderr, alert's lines), and the store checked as `servebench validate` checks it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { checkResultText } from '../../../harness/store/check-result.ts';
import { listResultFiles } from '../../../harness/store/result-files.ts';
import { StepFailed } from './steps.ts';
import type { AlertOutput, NightOutputs } from './types.ts';

/** compile's report on stderr (the workflow passes no --json): valid runs, table sizes and the snapshot. */
export function parseCompileReport(text: string): NonNullable<NightOutputs['compile']> {
  const valid = /; (\d+) valid runs/.exec(text);
  const tables = /^tables: (.*)$/m.exec(text);
  const snapshot = /^snapshot (\S+)/m.exec(text);
  if (!valid || !tables || !snapshot) throw new StepFailed(`compile: its report on stderr was not understood: ${text.slice(0, 300)}`);
  const sizes = Object.fromEntries(tables[1]!.split(', ').map((entry) => {
    const at = entry.lastIndexOf(' ');
    return [entry.slice(0, at), Number(entry.slice(at + 1))];
  }));
  return { snapshot: snapshot[1]!, tables: sizes, ingest: { valid: Number(valid[1]) } };
}

const ALERT_VERBS: Readonly<Record<string, string>> = { created: 'create', updated: 'update', reopened: 'reopen', closed: 'close', unchanged: 'unchanged', skipped: 'skip-closed', retired: 'retire' };

/** alert's text output (the workflow passes no --json): one line per action, `<verb> #<issue> …`. */
export function parseAlertText(issueKey: (issue: number) => string | null, text: string): AlertOutput {
  const actions: AlertOutput['actions'] = [];
  for (const line of text.split('\n')) {
    const match = /^(created|updated|reopened|closed|unchanged|skipped|retired)\s+(?:#(\d+) )?/.exec(line);
    if (!match) continue;
    const issue = match[2] === undefined ? null : Number(match[2]);
    actions.push({ action: ALERT_VERBS[match[1]!]!, key: issue === null ? null : issueKey(issue), issue });
  }
  return { actions };
}

/** Every result file in the store, checked as `servebench validate` checks it. */
export function validateStore(resultsDir: string): NonNullable<NightOutputs['validate']> {
  const { files, problems } = listResultFiles(resultsDir);
  const all: unknown[] = [...problems];
  for (const file of files) all.push(...checkResultText(file.relativePath, readFileSync(file.absolutePath, 'utf8'), file.relativePath).problems);
  return { files: files.length, problems: all };
}

export function htmlFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.html')) : [];
}
