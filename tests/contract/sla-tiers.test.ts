/**
 * The SLA tier file (fleet/sla-tiers.yaml): the real file reads, every limit names its source
 * with a URL, and a broken file is refused with one line per problem naming the file, the field
 * and the fix.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SLA_TIERS, loadSlaTiers } from '../../harness/contract/sla-tiers.ts';
import { ServebenchError } from '../../harness/lib/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'servebench-sla-tiers-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const errorOf = (path: string): ServebenchError => {
  try {
    loadSlaTiers(path);
  } catch (error) {
    return error as ServebenchError;
  }
  throw new Error(`${path} was accepted`);
};

describe('the SLA tier file', () => {
  it('has the interactive, standard and batch tiers, looser in that order, each limit with a cited source', () => {
    const tiers = loadSlaTiers();
    expect(tiers.version).toBeGreaterThanOrEqual(1);
    expect(tiers.tiers.map((t) => t.id)).toEqual(['interactive', 'standard', 'batch']);
    const [interactive, standard, batch] = tiers.tiers;
    for (const metric of ['ttft_ms_p95', 'tpot_ms_p95'] as const) {
      expect(interactive!.limits[metric]).toBeLessThan(standard!.limits[metric]);
      expect(standard!.limits[metric]).toBeLessThanOrEqual(batch!.limits[metric]);
    }
    expect(batch!.limits.ttft_ms_p95).toBeGreaterThan(standard!.limits.ttft_ms_p95);
    for (const tier of tiers.tiers) {
      for (const source of Object.values(tier.sources)) {
        expect(source).toMatch(/https:\/\/\S+/);
        // MLPerf's limits are on p99: the source says servebench applies them to p95.
        expect(source).toMatch(/p95/);
      }
    }
  });

  it('refuses a broken file naming the file, the field and the fix', () => {
    const path = file(
      'broken.yaml',
      [
        'version: 1',
        'tiers:',
        '  - id: interactive',
        '    label: Interactive',
        '    description: fast',
        '    limits: { ttft_ms_p95: 450, tpot_ms_p95: fast }',
        '    sources: { ttft_ms_p95: "MLPerf, no link", tpot_ms_p95: "https://example.invalid/x" }',
        '  - id: interactive',
        '    label: Again',
        '    description: twice',
        '    limits: { ttft_ms_p95: 450, tpot_ms_p95: 40, itl_ms_p99: 5 }',
        '    sources: { ttft_ms_p95: "https://example.invalid/x", tpot_ms_p95: "https://example.invalid/x" }',
        '',
      ].join('\n'),
    );
    const error = errorOf(path);
    expect(error).toBeInstanceOf(ServebenchError);
    expect(error.exitCode).toBe(2);
    const lines = error.message.split('\n').slice(1);
    expect(lines.every((line) => line.startsWith(`${path}: `) && line.includes('; fix: '))).toBe(true);
    expect(lines.find((l) => l.includes('tiers.0.limits.tpot_ms_p95'))).toMatch(/positive number of milliseconds/);
    expect(lines.find((l) => l.includes('tiers.0.sources.ttft_ms_p95'))).toMatch(/with its URL/);
    expect(lines.find((l) => l.includes('tiers.1.limits'))).toMatch(/unknown field itl_ms_p99/);
  });

  it('refuses two tiers with the same id', () => {
    const tier = (label: string) => [`  - id: standard`, `    label: ${label}`, '    description: twice', '    limits: { ttft_ms_p95: 2000, tpot_ms_p95: 200 }', '    sources: { ttft_ms_p95: "https://example.invalid/x", tpot_ms_p95: "https://example.invalid/x" }'];
    const path = file('twice.yaml', ['version: 2', 'tiers:', ...tier('One'), ...tier('Two'), ''].join('\n'));
    expect(errorOf(path).message).toMatch(/twice\.yaml: tiers: two tiers with the same id; fix: /);
  });

  it('refuses unreadable YAML, a missing file and a missing version', () => {
    expect(errorOf(file('syntax.yaml', 'version: [1\n')).message).toMatch(/syntax\.yaml: \(file\): not readable YAML/);
    expect(errorOf(join(dir, 'absent.yaml')).message).toMatch(/cannot read .*absent\.yaml/);
    expect(errorOf(file('noversion.yaml', 'tiers: []\n')).message).toMatch(/noversion\.yaml: version: .*fix: version is a positive integer/);
    expect(DEFAULT_SLA_TIERS).toMatch(/fleet[/\\]sla-tiers\.yaml$/);
  });
});
