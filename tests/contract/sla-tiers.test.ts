/**
 * The SLA tier file (fleet/sla-tiers.yaml): the real file reads, every limit names its source
 * with a URL, and a broken file is refused with one line per problem naming the file, the field
 * and the fix.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { checkSlaTiers, DEFAULT_SLA_TIERS, loadSlaTiers } from '../../harness/contract/sla-tiers.ts';
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

describe('each problem of a tier file names its field and the fix for that field', () => {
  const TIER = ['  - id: standard', '    label: Standard', '    description: one', '    limits: { ttft_ms_p95: 2000, tpot_ms_p95: 200 }', '    sources: { ttft_ms_p95: "https://example.invalid/x", tpot_ms_p95: "https://example.invalid/x" }'];
  /** The problems of a file whose text is `lines`: zod's own words between the field and the fix are matched loosely. */
  const problemsOf = (lines: readonly string[]) => checkSlaTiers('t.yaml', [...lines, ''].join('\n')).problems;
  const line = (field: string, fix: string, detail = '') => new RegExp(`^t\\.yaml: ${field.replaceAll('.', '\\.').replace('(', '\\(').replace(')', '\\)')}: [^;\\n]+${detail}; fix: ${fix.replaceAll('(', '\\(').replaceAll(')', '\\)').replaceAll('.', '\\.')}$`);
  const ONLY = 'the file has version and tiers only (see the top of fleet/sla-tiers.yaml)';
  const EACH = 'each tier has id, label, description, limits and sources (see the top of fleet/sla-tiers.yaml)';
  const cases: Array<[string, string[], RegExp[]]> = [
    ['a version of 0', ['version: 0', 'tiers:', ...TIER], [line('version', 'version is a positive integer; bump it when a limit changes')]],
    ['no tier', ['version: 1', 'tiers: []'], [line('tiers', 'list at least one tier, each with its own id')]],
    ['an id with capitals', ['version: 1', 'tiers:', ...TIER.map((l) => l.replace('id: standard', 'id: Standard'))], [line('tiers.0.id', 'ids are unique, lowercase letters, digits and dashes (e.g. interactive)')]],
    ['an empty label', ['version: 1', 'tiers:', ...TIER.map((l) => l.replace('label: Standard', 'label: ""'))], [line('tiers.0.label', EACH)]],
    ['a limit of 0', ['version: 1', 'tiers:', ...TIER.map((l) => l.replace('ttft_ms_p95: 2000', 'ttft_ms_p95: 0'))], [line('tiers.0.limits.ttft_ms_p95', 'limits are ttft_ms_p95 and tpot_ms_p95, each a positive number of milliseconds')]],
    ['a source of a third metric', ['version: 1', 'tiers:', ...TIER.map((l) => l.replace('sources: {', 'sources: { itl_ms_p99: "https://example.invalid/x",'))], [line('tiers.0.sources', 'give each of ttft_ms_p95, tpot_ms_p95 a source: where the limit comes from, with its URL', ': unknown field itl_ms_p99')]],
    ['a field a tier does not have', ['version: 1', 'tiers:', ...TIER, '    colour: red'], [line('tiers.0', EACH, ': unknown field colour')]],
    ['two fields the file does not have', ['version: 1', 'tiers:', ...TIER, 'extra: 1', 'more: 2'], [line('(top level)', ONLY, ': unknown fields extra, more')]],
    ['a list, not a map', ['- 1'], [line('(top level)', ONLY)]],
  ];
  it.each(cases)('%s', (_what, lines, expected) => {
    const problems = problemsOf(lines);
    expect(problems).toHaveLength(expected.length);
    problems.forEach((problem, i) => expect(problem).toMatch(expected[i]!));
  });

  it('reads the shipped file with no problem, and gives the first line of a YAML error only', () => {
    expect(checkSlaTiers(DEFAULT_SLA_TIERS, readFileSync(DEFAULT_SLA_TIERS, 'utf8'))).toEqual({ tiers: loadSlaTiers(), problems: [] });
    const [problem, ...more] = problemsOf(['version: [1']);
    expect(more).toEqual([]);
    // The parser's first line says where (its next lines quote the text).
    expect(problem).toMatch(/^t\.yaml: \(file\): not readable YAML: [^\n]+ at line 2, column 1:; fix the syntax$/);
  });

  it('says why a file cannot be read, and lists every problem of an invalid one under one heading', () => {
    const absent = join(dir, 'absent-too.yaml');
    expect(errorOf(absent).message).toBe(`SLA tiers: cannot read ${absent} (ENOENT); fix: restore fleet/sla-tiers.yaml`);
    const message = errorOf(file('two-problems.yaml', 'version: 0\ntiers: []\n')).message.split('\n');
    expect(message[0]).toBe('invalid SLA tiers file');
    expect(message.slice(1).map((l) => l.slice(l.indexOf('fix: ')))).toEqual(['fix: version is a positive integer; bump it when a limit changes', 'fix: list at least one tier, each with its own id']);
  });
});
