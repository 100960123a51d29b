/**
 * The community filter of the site: its URL state and badges (pure functions), and the browser's
 * SQL (the SLA filter, compare) run by DuckDB over the releases.arrow that compile publishes for
 * the SYNTHETIC fixture of tests/store plus SYNTHETIC community runs: a ranking never sees a
 * community row, and compare names a release by where its runs come from.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { syntheticResult, writeResult } from '../../bench/lib/synthetic-results.ts';
import { badgesOf, parseCommunity, releaseChoice, withCommunity } from '../../site/lib/community-state.ts';
import { compareParameters, compareSql } from '../../site/lib/compare-query.ts';
import { releasesSql, slaParameters, slaSql } from '../../site/lib/sla-query.ts';
import { fixtureRuns, writeFixture, writeFixturePrices } from '../store/fixture-results.ts';

describe('the community filter state', () => {
  it('is on only for ?community=1, and setting it keeps every other parameter', () => {
    expect(parseCommunity('?community=1')).toBe(true);
    for (const off of ['', '?community=0', '?community=true', '?community', '?load=c%3D8']) expect(parseCommunity(off), off).toBe(false);
    expect(withCommunity('?load=c%3D8&sla.ttft_ms_p99=500', true)).toBe('?load=c%3D8&sla.ttft_ms_p99=500&community=1');
    expect(withCommunity('?community=1&load=c%3D8', false)).toBe('?load=c%3D8');
    expect(withCommunity('?community=1', false)).toBe('');
  });

  it('badges say community and unverified version; official values keep the permalinks made before', () => {
    expect(badgesOf({ source: 'official', engine_version_known: true })).toEqual([]);
    expect(badgesOf({ source: 'official', engine_version_known: null })).toEqual([]);
    expect(badgesOf({ source: 'community', engine_version_known: true })).toEqual(['community']);
    expect(badgesOf({ source: 'official', engine_version_known: false })).toEqual(['unverified version']);
    expect(badgesOf({ source: 'community', engine_version_known: false })).toEqual(['community', 'unverified version']);
    expect(releaseChoice('vllm', '0.11.0', { source: 'official', engine_version_known: true })).toBe('vllm@0.11.0');
    expect(releaseChoice('vllm', '0.11.0', { source: 'community', engine_version_known: true })).toBe('community:vllm@0.11.0');
    expect(releaseChoice('vllm', 'v0.5.0', { source: 'community', engine_version_known: false })).toBe('community+unverified:vllm@v0.5.0');
  });
});

describe('the browser SQL over the published releases', () => {
  const root = mkdtempSync(join(tmpdir(), 'servebench-site-community-'));
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  let scenarioId = '';
  const rows = async (sql: string, parameters: Array<string | number | boolean>) => {
    const statement = await connection.prepare(sql);
    parameters.forEach((value, i) => (typeof value === 'string' ? statement.bindVarchar(i + 1, value) : typeof value === 'boolean' ? statement.bindBoolean(i + 1, value) : statement.bindDouble(i + 1, value)));
    return (await statement.runAndReadAll()).getRowObjectsJS();
  };

  beforeAll(async () => {
    const results = join(root, 'results');
    writeFixture(results);
    const vllm = fixtureRuns().find((r) => r.engine === 'vllm' && r.version === '1.1.0')!;
    // SYNTHETIC community runs: half-speed repeats of the official vllm 1.1.0, and an lmdeploy run 100× faster than the fleet.
    for (let i = 0; i < 3; i++) writeResult(results, syntheticResult({ ...vllm, source: 'community', tpotMs: vllm.tpotMs * 2, ttftMs: vllm.ttftMs * 2, seed: 800 + i, date: new Date(Date.UTC(2026, 1, 20, 3, i)) }));
    writeResult(results, syntheticResult({ ...vllm, source: 'community', engine: 'lmdeploy', version: '1.0.0', tpotMs: vllm.tpotMs / 100, ttftMs: vllm.ttftMs / 100, seed: 810, date: new Date(Date.UTC(2026, 1, 21, 3)) }));
    await compile({ resultsDir: results, outDir: join(root, 'out'), prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-03-01T00:00:00Z') });
    // The Arrow file as the browser receives it, into DuckDB as the page's `releases` table.
    const table = tableFromIPC(readFileSync(join(root, 'out', 'site', 'releases.arrow')));
    writeFileSync(join(root, 'releases.ndjson'), table.toArray().map((row) => JSON.stringify(row.toJSON())).join('\n'));
    instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
    await connection.run(`CREATE TABLE releases AS SELECT * FROM read_json('${join(root, 'releases.ndjson')}', format = 'newline_delimited')`);
    scenarioId = String((await connection.runAndReadAll('SELECT any_value(scenario_id) FROM releases')).getRowsJS()[0]![0]);
  }, 120_000);

  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
  });

  it('carries both kinds of release, told apart', async () => {
    const kinds = (await connection.runAndReadAll('SELECT engine, engine_version, source, official, count(*)::INTEGER AS n FROM releases GROUP BY ALL ORDER BY ALL')).getRowObjectsJS();
    expect(kinds).toEqual([
      { engine: 'lmdeploy', engine_version: '1.0.0', source: 'community', official: false, n: 2 },
      { engine: 'sglang', engine_version: '2.0.0', source: 'official', official: true, n: 2 },
      { engine: 'sglang', engine_version: '2.1.0', source: 'official', official: true, n: 2 },
      { engine: 'vllm', engine_version: '1.0.0', source: 'official', official: true, n: 2 },
      { engine: 'vllm', engine_version: '1.1.0', source: 'community', official: false, n: 2 },
      { engine: 'vllm', engine_version: '1.1.0', source: 'official', official: true, n: 2 },
    ]);
  });

  it('the SLA filter ranks official releases only: the 100× community run is nowhere', async () => {
    await connection.run(releasesSql());
    const ranked = await rows(slaSql(), slaParameters(scenarioId, {}));
    expect(ranked.map((r) => `${String(r.engine)} ${String(r.engine_version)}`)).toEqual(['sglang 2.1.0', 'vllm 1.1.0']);
    // The official vllm 1.1.0's throughput, not the half-speed repeats' nor a blend of both.
    const official = (await connection.runAndReadAll(`SELECT max(output_throughput) FROM releases WHERE scenario_id = '${scenarioId}' AND engine = 'vllm' AND engine_version = '1.1.0' AND official`)).getRowsJS()[0]![0];
    expect(ranked.find((r) => r.engine === 'vllm')!.throughput).toBe(official);
  });

  it('compare names a release by engine, version and where its runs come from', async () => {
    const officialSide = { engine: 'vllm', version: '1.1.0', source: 'official', known: true };
    const communitySide = { engine: 'vllm', version: '1.1.0', source: 'community', known: true };
    const side = await rows(compareSql(), compareParameters(officialSide, communitySide));
    expect(side.map((r) => r.load)).toEqual(['c=1', 'c=8']);
    // Half the speed: the community rows, on their own.
    for (const r of side) expect(Number(r.b_output_throughput) / Number(r.a_output_throughput)).toBeCloseTo(0.5, 1);
    expect(await rows(compareSql(), compareParameters(officialSide, { ...communitySide, known: false }))).toEqual([]);
  });
});
