/**
 * Known releases (fleet/releases.json): a version listed for its engine is ranked; any other is
 * accepted as "unverified" and compile says so (runs.engine_version_known), by the one function
 * validate uses. SYNTHETIC results (claim-fixtures.ts); the tests' extra list
 * (tests/fixtures/synthetic-releases.json, SERVEBENCH_EXTRA_RELEASES) makes the fixtures' made-up
 * versions known, and is left out where a test is about the committed list alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendReleases, DEFAULT_RELEASES_FILE, readReleasesFile, releasesFilePaths, type Release } from '../../harness/contract/releases.ts';
import { compile } from '../../harness/store/compile.ts';
import { engineNames } from '../../harness/store/engine-names.ts';
import { engineVersionKnown } from '../../harness/store/known-releases.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { referenceDigest } from '../../harness/store/reference-digest.ts';
import { writeResult } from '../../bench/lib/synthetic-results.ts';
import { query } from './duckdb-query.ts';
import { committedResults, ofShipped, problemsOf, synthetic } from './claim-fixtures.ts';
import { writeFixturePrices } from './fixture-results.ts';

const COMMITTED_ONLY = [DEFAULT_RELEASES_FILE];
const root = mkdtempSync(join(tmpdir(), 'servebench-known-releases-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the committed release list', () => {
  it('parses, names only engines servebench has, and lists no release of the simulated engine', () => {
    const list = readReleasesFile(DEFAULT_RELEASES_FILE, { flag: 'test' });
    for (const engine of Object.keys(list.engines)) expect(engineNames().has(engine), engine).toBe(true);
    expect(list.engines.sim!.releases).toEqual([]);
    for (const [engine, { releases }] of Object.entries(list.engines)) for (const r of releases) expect(r.source.length, `${engine} ${r.version}`).toBeGreaterThan(10);
  });

  it('holds every version of the committed results: llama.cpp b5415, b8095, v0.4.0 with the node-llama-cpp release bundling each, and the embedded engine', () => {
    for (const { path, result } of committedResults()) expect(engineVersionKnown(result.run!.engine.name, result.run!.engine.version, COMMITTED_ONLY), path).toBe(true);
    const llamacpp = readReleasesFile(DEFAULT_RELEASES_FILE, { flag: 'test' }).engines.llamacpp!.releases;
    expect(llamacpp.filter((r) => ['b5415', 'b8095', 'v0.4.0'].includes(r.version)).map((r) => [r.version, r.npm?.version])).toEqual([['b5415', '3.8.1'], ['b8095', '3.16.0'], ['v0.4.0', '3.21.1']]);
  });

  it('does not know a made-up version, nor the synthetic fixtures\' (only the tests\' extra list does)', () => {
    expect(engineVersionKnown('llamacpp', 'v0.5.0', COMMITTED_ONLY)).toBe(false);
    expect(engineVersionKnown('vllm', '1.1.0', COMMITTED_ONLY)).toBe(false);
    expect(engineVersionKnown('vllm', '0.11.0', COMMITTED_ONLY)).toBe(true);
    // A version of another engine is not this engine's.
    expect(engineVersionKnown('sglang', '0.11.0', COMMITTED_ONLY)).toBe(false);
    expect(releasesFilePaths({ SERVEBENCH_EXTRA_RELEASES: '/a.json:/b.json' })).toEqual([DEFAULT_RELEASES_FILE, '/a.json', '/b.json']);
    expect(engineVersionKnown('vllm', '1.1.0', releasesFilePaths())).toBe(true);
    expect(engineVersionKnown('vllm', null)).toBeNull();
    // A result without the field (not even null) recorded no version either.
    expect(engineVersionKnown('vllm', undefined)).toBeNull();
  });

  it('knows no version of an engine a list does not name at all', () => {
    const file = join(root, 'vllm-only.json');
    writeFileSync(file, JSON.stringify({ schema_version: 1, description: 'SYNTHETIC', engines: { vllm: { sources: ['test'], releases: [{ version: '1.0.0', tag: 'v1.0.0', published_at: null, release_url: null, source: 'test' }] } } }));
    expect(engineVersionKnown('vllm', '1.0.0', [file])).toBe(true);
    expect(engineVersionKnown('llamacpp', '1.0.0', [file])).toBe(false);
  });

  it('a list it cannot read stops validate, naming it as the release list', () => {
    expect(() => engineVersionKnown('vllm', '1.0.0', [join(root, 'absent.json')])).toThrow(/^the release list: no release list at .*absent\.json;/);
  });
});

describe('an unlisted version', () => {
  it('validates (refusing it would block the night a release lands before the list has it), and compile marks it unverified; validate and compile agree', async () => {
    const known = synthetic({ engine: 'vllm', version: '1.0.0', source: 'official', seed: 902 });
    const madeUp = synthetic({ engine: 'llamacpp', version: 'v0.5.0', source: 'official', seed: 901 });
    expect(problemsOf(known)).toEqual([]);
    expect(problemsOf(madeUp)).toEqual([]);
    const resultsDir = join(root, 'results');
    const paths = [writeResult(resultsDir, known), writeResult(resultsDir, madeUp), writeResult(resultsDir, ofShipped('chat'))];
    const outDir = join(root, 'out');
    const report = await compile({ resultsDir, outDir, prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-03-01T00:00:00Z') });
    expect(report.problems.map((p) => `${p.file} ${p.path} ${p.message}`)).toEqual([]);
    const rows = await query(`SELECT file, engine, engine_version, engine_version_known, workload, workload_spec_shipped FROM read_parquet('${outDir}/parquet/latest/runs/*.parquet') ORDER BY file`);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.engine_version_known, String(row.file)).toBe(engineVersionKnown(String(row.engine), String(row.engine_version)));
    const byFile = Object.fromEntries(rows.map((r) => [r.file, r]));
    expect(byFile[paths[0]!]).toMatchObject({ engine_version_known: true, workload_spec_shipped: false });
    expect(byFile[paths[1]!]).toMatchObject({ engine: 'llamacpp', engine_version: 'v0.5.0', engine_version_known: false });
    expect(byFile[paths[2]!]).toMatchObject({ workload: 'chat', workload_spec_shipped: true });
  });
});

describe('the list file', () => {
  const release = (version: string): Release => ({ version, tag: `v${version}`, published_at: null, release_url: null, source: 'test' });

  it('refuses a version listed twice, and a missing list (validate needs the checkout\'s)', () => {
    const file = join(root, 'twice.json');
    writeFileSync(file, JSON.stringify({ schema_version: 1, description: 'SYNTHETIC', engines: { vllm: { sources: ['test'], releases: [release('1.0.0'), release('1.0.0')] } } }));
    expect(() => readReleasesFile(file, { flag: '--releases' })).toThrow(/vllm 1\.0\.0 is listed twice/);
    expect(() => readReleasesFile(join(root, 'none.json'), { flag: 'the release list' })).toThrow(/no release list at/);
    expect(readReleasesFile(join(root, 'none.json'), { flag: '--releases', missingIsEmpty: true }).engines).toEqual({});
  });

  it('appends only releases it does not hold, under their engine, in the order given', () => {
    const start = { schema_version: 1 as const, description: 'SYNTHETIC', engines: { vllm: { sources: ['test'], releases: [release('1.0.0')] } } };
    const { file, added } = appendReleases(start, [{ engine: 'vllm', release: release('1.0.0') }, { engine: 'vllm', release: release('1.1.0') }, { engine: 'sglang', release: release('2.0.0') }], (engine) => `detect: ${engine}`);
    expect(added.map((a) => `${a.engine} ${a.release.version}`)).toEqual(['vllm 1.1.0', 'sglang 2.0.0']);
    expect(file.engines.vllm!.releases.map((r) => r.version)).toEqual(['1.0.0', '1.1.0']);
    expect(file.engines.sglang).toEqual({ sources: ['detect: sglang'], releases: [release('2.0.0')] });
    expect(start.engines.vllm.releases).toHaveLength(1);
  });
});

describe('the reference digest (for the compile cache and snapshot names)', () => {
  it('changes with the known-release lists, so a release appended by detect re-reads the results', () => {
    const committedOnly = referenceDigest({});
    expect(committedOnly).toMatch(/^[0-9a-f]{12}$/);
    expect(referenceDigest({})).toBe(committedOnly);
    expect(referenceDigest({ SERVEBENCH_EXTRA_RELEASES: releasesFilePaths()[1]! })).not.toBe(committedOnly);
  });
});
