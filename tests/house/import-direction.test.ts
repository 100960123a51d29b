/**
 * The house's rules, on the real tree: every import goes from a stage to one before it (or beside,
 * for servebench's own engines), the site takes only the contract's types, nothing under harness/ or site/
 * imports scripts, tests or benchmarks, and no two folders import each other. The checker is shown
 * to catch a planted upward import and a planted cycle, so it is not a test that cannot fail.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BROWSER_SAFE, directionProblems, folderCycles, importsOf, sourceFiles } from './import-graph.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tree = sourceFiles(ROOT, ['harness', 'site']);

describe('the import direction of the house', () => {
  it('reads the whole tree', () => {
    expect(tree.size).toBeGreaterThan(150);
    expect([...tree.keys()].some((path) => path.startsWith('site/pages/'))).toBe(true);
  });

  it('no import goes upstream, and the site imports only the contract', () => {
    expect(directionProblems(tree)).toEqual([]);
  });

  it('the metric catalog, the sufficiency rule, the validity statuses, the significance rule and the Reproduce block, which the browser code takes as values, import only plain math that imports nothing', () => {
    for (const [module, allowed] of Object.entries(BROWSER_SAFE)) {
      expect(tree.has(module), module).toBe(true);
      expect(importsOf(module, tree.get(module)!).map((i) => i.to), module).toEqual(allowed);
      // No package either: a bare import would bundle it into the pages.
      expect(tree.get(module), module).not.toMatch(/\bfrom\s+['"][^.]/);
    }
  });

  it('no folder-level cycle', () => {
    expect(folderCycles(tree)).toEqual([]);
  });

  it('catches a planted upward import, a value import of the contract by the site, and a cycle', () => {
    const planted = new Map(tree);
    planted.set('harness/contract/planted.ts', "import { compile } from '../store/compile.ts';\n");
    planted.set('site/lib/planted.ts', "import { RunResultSchema } from '../../harness/contract/result.ts';\nimport type { Delta } from '../../harness/store/derive.ts';\n");
    planted.set('harness/measure/load/planted.ts', "import { x } from '../workloads/planted.ts';\n");
    planted.set('harness/measure/workloads/planted.ts', "import '../load/planted.ts';\n");
    planted.set('harness/util/planted.ts', '');
    planted.set('site/components/Planted.tsx', "import { SITE_FILES } from '../../harness/contract/site-data.ts';\n");
    expect(directionProblems(planted)).toEqual([
      'harness/contract/planted.ts:1 imports harness/store/compile.ts: contract may not import store (allowed: lib)',
      'site/lib/planted.ts:1 imports harness/contract/result.ts: the site takes only types from the contract (import type), or values from harness/contract/site-data.ts, harness/contract/metric-catalog.ts, harness/contract/sufficiency.ts, harness/contract/validity.ts, harness/contract/significance.ts, harness/contract/reproduce-block.ts',
      'site/lib/planted.ts:2 imports harness/store/derive.ts: site may not import store (allowed: contract)',
      'harness/util/planted.ts: not in a stage folder (harness/lib, contract, measure, engines, store, pipeline)',
      'site/components/Planted.tsx:1 imports harness/contract/site-data.ts: site-data.ts values (zod schemas) only in build-time code (site/pages/, site/lib/data.ts)',
    ]);
    // The planted upward import closes a cycle too (the store imports the contract); the planted
    // workloads → load import closes one through metrics as well (load → metrics → workloads).
    expect(folderCycles(planted).sort()).toEqual([['harness/contract', 'harness/store'], ['harness/measure/load', 'harness/measure/metrics', 'harness/measure/workloads']]);
  });
});
