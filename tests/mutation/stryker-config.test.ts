/**
 * stryker.config.mjs names the modules mutation testing covers by path: a module renamed or added
 * would drop out of it silently (Stryker mutates what the globs find, and finds nothing is no
 * error). So every named module exists; the validator's list holds every module of harness/store
 * and harness/contract that a validator module calls into (or the statistics' list has it), unless
 * it is named below as a declaration the rules read (a schema, a table, a file reader), not a rule;
 * and the statistics' list holds every store or statistics module they call into, bar those named
 * as computing none.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config, { STATISTICS, VALIDATOR } from '../../stryker.config.mjs';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Modules the validator imports values from that hold no rule of their own, each with why. */
const NOT_RULES: Readonly<Record<string, string>> = {
  'harness/contract/result.ts': 'the result schema (zod declarations; tests/contract/result-schema.test.ts) and its constants',
  'harness/contract/engine.ts': 'the engine spec schema engine-names.ts reads engines/*.yaml with',
  'harness/contract/workload.ts': 'the scenario schema workload-claims.ts parses the recorded scenario with',
  'harness/contract/releases.ts': 'reads fleet/releases.json; the rule on it is known-releases.ts',
  'harness/contract/accuracy.ts': 'the accuracy block schema and its constants (the answer filters accuracy-check.ts reads)',
  'harness/contract/command-options.ts': 'the table of options a recorded command may carry (data)',
  'harness/store/columns.ts': "compile's column table; the rule that a value fits its column is column-fit.ts",
};

/** Modules the statistics import values from that compute no statistic, each with why. */
const NOT_STATISTICS: Readonly<Record<string, string>> = {
  'harness/store/columns.ts': "compile's column table (names and types)",
  'harness/store/ids.ts': 'the key columns a configuration and a scenario are identified by',
  'harness/store/tables.ts': 'SQL quoting',
  'harness/store/official.ts': 'one SQL predicate (which runs are official), tested by tests/store/community.test.ts',
};

/** Relative modules a file imports values from (`import type` carries no code a mutant could change). */
function valueImports(file: string): string[] {
  const source = readFileSync(join(REPO, file), 'utf8');
  return [...source.matchAll(/^import (?!type )[^;]*? from '(\.{1,2}\/[^']+\.ts)';$/gms)].map((m) => normalize(join(dirname(file), m[1]!)));
}

describe('stryker.config.mjs', () => {
  it('mutates the validator and the statistics, every module of them an existing file', () => {
    expect(config.mutate).toEqual([...VALIDATOR, ...STATISTICS]);
    for (const file of [...VALIDATOR, ...STATISTICS]) expect(existsSync(join(REPO, file)), file).toBe(true);
  });

  it('lists every store module checkResultText imports a check from', () => {
    const source = readFileSync(join(REPO, 'harness/store/check-result.ts'), 'utf8');
    const imported = [...source.matchAll(/^import \{[^}]*\} from '\.\/([\w-]+\.ts)';$/gm)].map((m) => `harness/store/${m[1]!}`);
    expect(imported.length).toBeGreaterThan(5);
    expect(imported.filter((file) => !VALIDATOR.includes(file))).toEqual([]);
  });

  it('lists every store and contract module a validator module calls into, bar the declarations named', () => {
    const reached = VALIDATOR.flatMap((file) => valueImports(file).map((imported) => ({ file, imported })));
    expect(reached.map((r) => r.imported)).toContain('harness/contract/lengths-evidence.ts');
    const missing = reached.filter((r) => /^harness\/(store|contract)\//.test(r.imported) && ![...VALIDATOR, ...STATISTICS].includes(r.imported) && !(r.imported in NOT_RULES));
    expect(missing.map((r) => `${r.file} imports ${r.imported}`)).toEqual([]);
    for (const file of Object.keys(NOT_RULES)) expect(reached.map((r) => r.imported), `${file} is named as read by the validator`).toContain(file);
  });

  it('lists every store and statistics module the statistics call into, bar those named as computing none', () => {
    const reached = STATISTICS.flatMap((file) => valueImports(file).map((imported) => ({ file, imported })));
    const missing = reached.filter((r) => /^harness\/(store|lib\/stats|measure\/metrics)\//.test(r.imported) && ![...VALIDATOR, ...STATISTICS].includes(r.imported) && !(r.imported in NOT_STATISTICS));
    expect(missing.map((r) => `${r.file} imports ${r.imported}`)).toEqual([]);
    for (const file of Object.keys(NOT_STATISTICS)) expect(reached.map((r) => r.imported), `${file} is named as read by the statistics`).toContain(file);
  });

  it('runs the unit project with per-test coverage, incrementally, and fails below 90%', async () => {
    expect(config).toMatchObject({ testRunner: 'vitest', coverageAnalysis: 'perTest', incremental: true, thresholds: { break: 90 } });
    const { configFile } = config.vitest as { configFile: string };
    const vitest = (await import(`../../${configFile}`)) as { default: { test: { projects: Array<{ test: { name: string } }> } } };
    expect(vitest.default.test.projects.map((p) => p.test.name)).toEqual(['unit']);
  });
});
