/**
 * stryker.config.mjs names the modules mutation testing covers by path: a module renamed or added
 * would drop out of it silently (Stryker mutates what the globs find, and finds nothing is no
 * error). So every named module exists, and the validator's list holds every module of
 * harness/store that checkResultText calls.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config, { STATISTICS, VALIDATOR } from '../../stryker.config.mjs';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

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

  it('runs the unit project with per-test coverage, incrementally, and fails below 90%', async () => {
    expect(config).toMatchObject({ testRunner: 'vitest', coverageAnalysis: 'perTest', incremental: true, thresholds: { break: 90 } });
    const { configFile } = config.vitest as { configFile: string };
    const vitest = (await import(`../../${configFile}`)) as { default: { test: { projects: Array<{ test: { name: string } }> } } };
    expect(vitest.default.test.projects.map((p) => p.test.name)).toEqual(['unit']);
  });
});
