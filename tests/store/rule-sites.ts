/**
 * Where harness/store reports each rule: the rule tags in its modules' sources, each with how many
 * places report it. A problem message begins with `[tag]` as a string literal, as
 * `rule('tag', …)`, as a constant `const NAME = '[tag]'` used as `${NAME}`, or as
 * `LIMIT_RULES.key` (store-limits.ts). The rules tests hold their cases against it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIMIT_RULES } from '../../harness/store/store-limits.ts';

export const STORE = fileURLToPath(new URL('../../harness/store/', import.meta.url));

/**
 * A store module's source. Inside Stryker's sandbox (mutation testing) the modules under test are
 * instrumented, their literals wrapped in mutant switches: there the committed text is read.
 */
function sourceOf(file: string): string {
  const text = readFileSync(join(STORE, file), 'utf8');
  if (!text.includes('stryMutAct_')) return text;
  return execFileSync('git', ['show', `HEAD:harness/store/${file}`], { cwd: STORE, encoding: 'utf8' });
}

/** The rule tags of these modules of harness/store, each with the number of places that report it. */
export function ruleSites(files: readonly string[]): Map<string, number> {
  const sites = new Map<string, number>();
  const count = (tag: string, n = 1) => sites.set(tag, (sites.get(tag) ?? 0) + n);
  for (const file of files) {
    const source = sourceOf(file);
    for (const m of source.matchAll(/\brule\('([^']+)'/g)) count(m[1]!);
    for (const m of source.matchAll(/const (\w+) = '\[([^\]\s]+)\]';/g)) count(m[2]!, source.split(`\${${m[1]!}}`).length - 1);
    for (const m of source.matchAll(/['`]\[([^\]\s'`$]+)\] /g)) count(m[1]!);
    for (const m of source.matchAll(/\bLIMIT_RULES\.(\w+)/g)) count(LIMIT_RULES[m[1]! as keyof typeof LIMIT_RULES]);
  }
  return sites;
}
