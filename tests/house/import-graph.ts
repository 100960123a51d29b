/**
 * The import graph of harness/ and site/, and the rules of the house: which stage may import
 * which, and no cycle between folders. Relative imports only (packages are not stages).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

export type Stage = 'entry' | 'lib' | 'contract' | 'measure' | 'engines' | 'store' | 'pipeline' | 'site' | 'unknown' | 'outside';

/** What each stage may import (besides itself); data flows one way, downstream never into upstream. */
export const ALLOWED: Record<Exclude<Stage, 'outside' | 'unknown'>, readonly Stage[]> = {
  entry: ['lib', 'contract', 'measure', 'engines', 'store', 'pipeline'],
  lib: [],
  contract: ['lib'],
  measure: ['lib', 'contract'],
  // Beside the measuring tool: the test engines reuse its corpus and tokenizer, and it never imports them.
  engines: ['lib', 'contract', 'measure'],
  store: ['lib', 'contract'],
  // The nightly drives every stage before it (plan renders serve commands; collect validates).
  pipeline: ['lib', 'contract', 'measure', 'store'],
  // The site reads compiled data only; of the harness it knows the contract's types.
  site: ['contract'],
};

/**
 * The contract modules whose values the site may take: the compiled data's schemas and file names
 * (build time only), the metric catalog, the sample-sufficiency rule, the validity statuses and
 * the significance rule and the Reproduce block (plain code, safe in the browser: BROWSER_SAFE says what they may import).
 */
export const SITE_VALUE_MODULES: readonly string[] = ['harness/contract/site-data.ts', 'harness/contract/metric-catalog.ts', 'harness/contract/sufficiency.ts', 'harness/contract/validity.ts', 'harness/contract/significance.ts', 'harness/contract/reproduce-block.ts'];

/** The browser code's contract values and what each may import: nothing, or plain math that imports nothing. */
export const BROWSER_SAFE: Readonly<Record<string, readonly string[]>> = {
  'harness/contract/metric-catalog.ts': [],
  'harness/contract/sufficiency.ts': [],
  'harness/contract/validity.ts': [],
  'harness/contract/significance.ts': ['harness/lib/stats/log-interval.ts'],
  'harness/lib/stats/log-interval.ts': [],
  'harness/contract/reproduce-block.ts': ['harness/lib/shell/quote.ts'],
  'harness/lib/shell/quote.ts': [],
};

/** Site code that runs only at build time (frontmatter and the data loader), never in the browser. */
const BUILD_TIME_SITE = /^site\/(pages\/.*\.astro|lib\/data\.ts)$/;

export function stageOf(path: string): Stage {
  const parts = path.split('/');
  if (parts[0] === 'site') return 'site';
  if (parts[0] !== 'harness') return 'outside';
  // Every file under harness/ belongs to a stage: a new folder (or a file beside cli.ts) must be placed.
  if (parts.length === 2) return parts[1] === 'cli.ts' ? 'entry' : 'unknown';
  return (['lib', 'contract', 'measure', 'engines', 'store', 'pipeline'] as const).find((s) => s === parts[1]) ?? 'unknown';
}

export interface Import {
  readonly from: string;
  readonly line: number;
  readonly to: string;
  readonly typeOnly: boolean;
}

const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?from\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|new URL\(\s*['"](\.{1,2}\/[^'"]+\.tsx?)['"]/g;

export function importsOf(path: string, text: string): Import[] {
  const found: Import[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[3] ?? m[4] ?? m[5]!;
    const target = normalize(join(dirname(path), spec)).split(sep).join('/');
    // The CLI's path, to start it as a child process: not an import of it.
    if (m[5] !== undefined && target === 'harness/cli.ts') continue;
    const line = text.slice(0, m.index + (m[0].startsWith('\n') ? 1 : 0)).split('\n').length;
    found.push({ from: path, line, to: target, typeOnly: m[2] !== undefined });
  }
  return found;
}

export function sourceFiles(root: string, folders: readonly string[]): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|tsx|astro|mjs)$/.test(entry.name)) files.set(path, readFileSync(join(root, path), 'utf8'));
    }
  };
  for (const folder of folders) walk(folder);
  return files;
}

/** Every import that breaks a rule, as "file:line imports target: why". */
export function directionProblems(files: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [path, text] of files) {
    const from = stageOf(path);
    if (from === 'unknown') problems.push(`${path}: not in a stage folder (harness/lib, contract, measure, engines, store, pipeline)`);
    if (from === 'outside' || from === 'unknown') continue;
    for (const imp of importsOf(path, text)) {
      const to = stageOf(imp.to);
      const where = `${imp.from}:${imp.line} imports ${imp.to}`;
      if (to === 'unknown') {
        problems.push(`${where}: the target is not in a stage folder`);
        continue;
      }
      if (to === 'outside') {
        if (/^(scripts|tests|bench)\//.test(imp.to)) problems.push(`${where}: ${from} code may not import ${imp.to.split('/')[0]}/`);
        if (from === 'site' && imp.to.startsWith('harness/')) problems.push(`${where}: the site imports only harness/contract/`);
        continue;
      }
      if (to === from) continue;
      if (!ALLOWED[from].includes(to)) problems.push(`${where}: ${from} may not import ${to} (allowed: ${ALLOWED[from].join(', ') || 'nothing'})`);
      // Type imports are erased; a value import would bundle harness code into the pages.
      if (from === 'site' && to === 'contract' && !imp.typeOnly && !SITE_VALUE_MODULES.includes(imp.to)) problems.push(`${where}: the site takes only types from the contract (import type), or values from ${SITE_VALUE_MODULES.join(', ')}`);
      // The schemas bring zod: their values only at build time (pages and the data loader), never in browser code.
      if (from === 'site' && !imp.typeOnly && imp.to === 'harness/contract/site-data.ts' && !BUILD_TIME_SITE.test(path)) problems.push(`${where}: site-data.ts values (zod schemas) only in build-time code (site/pages/, site/lib/data.ts)`);
    }
  }
  return problems;
}

/** Folder-level cycles (strongly connected components of more than one folder), each as a list of folders. */
export function folderCycles(files: ReadonlyMap<string, string>): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const [path, text] of files) {
    const a = dirname(path);
    for (const imp of importsOf(path, text)) {
      const b = dirname(imp.to);
      if (a === b || !b.startsWith('harness') && !b.startsWith('site')) continue;
      if (!edges.has(a)) edges.set(a, new Set());
      edges.get(a)!.add(b);
    }
  }
  // Tarjan's algorithm.
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!indices.has(v)) visit(v);
  return cycles;
}

export const relativeTo = (root: string, path: string) => relative(root, path).split(sep).join('/');
