import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { README_PATH, withCliReference } from '../../scripts/cli-reference.ts';

describe('README', () => {
  it('CLI reference matches the option tables (run `npm run docs:cli`)', async () => {
    const readme = readFileSync(README_PATH, 'utf8');
    expect(await withCliReference(readme)).toBe(readme);
  });

  it('names the quick-start and test commands that CI and users run', () => {
    const readme = readFileSync(README_PATH, 'utf8');
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm test');
    expect(readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8')).toContain('npm test');
  });
});
