/**
 * A run's Reproduce block, as its page shows it: clone servebench, check out the commit that made
 * the run, install, run the run's line (runs.reproduce_line, made at compile by
 * harness/lib/shell/reproduce.ts from the command as servebench's own option table reads it).
 * One definition for the prerendered run pages (compile) and the lookup page (in the browser).
 */
import { shellQuote } from '../lib/shell/quote.ts';

const COMMIT = /^[0-9a-f]{40}$/;

/**
 * `repository` is the site's own configuration (never a result's); without one the block says so
 * instead of naming a repository. A commit that is not 40 hex (none recorded) checks nothing out.
 */
export function reproduceBlock(line: string, gitCommit: string | null, repository: string | null): string {
  const lines =
    repository === null
      ? ['# This site was built without a repository URL (SERVEBENCH_REPO_URL or a git remote "origin"): in a clone of servebench,']
      : [`git clone ${shellQuote([`${repository.replace(/\/$/, '').replace(/\.git$/, '')}.git`])} servebench && cd servebench`];
  if (gitCommit !== null && COMMIT.test(gitCommit)) lines.push(`git checkout ${gitCommit}`);
  lines.push('npm ci');
  lines.push(line);
  return lines.join('\n');
}
