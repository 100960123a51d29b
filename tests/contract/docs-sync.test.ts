import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI_REFERENCE_PATH, cliReference } from '../../scripts/cli-reference.ts';

const README = new URL('../../README.md', import.meta.url);

describe('docs/cli.md', () => {
  it('matches the option tables (run `npm run docs:cli`)', async () => {
    expect(readFileSync(CLI_REFERENCE_PATH, 'utf8')).toBe(await cliReference());
  });

  it('is linked from the README, which no longer carries a copy of it', () => {
    const readme = readFileSync(README, 'utf8');
    expect(readme).toContain('(docs/cli.md)');
    expect(readme).not.toContain('### `servebench run`');
  });
});

describe('README', () => {
  it('names the quick-start and test commands that CI and users run', () => {
    const readme = readFileSync(README, 'utf8');
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm test');
    expect(readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8')).toContain('npm test');
  });
});
