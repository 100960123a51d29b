/**
 * Invalid releases on the history chart and the compare page (docs/metrics.md#validity), without
 * a browser: the chart's prerendered SVG on hand-made release rows (an invalid release is a grey
 * open dot with its reason, off its engine's line and band), the compare page's change rule, and
 * the compiled data both read, from the SYNTHETIC runs of tests/kit/invalid-releases.ts compiled
 * by the real store (history rows and releases.arrow carry each release's validity and reason; the
 * compare SQL run by DuckDB over releases.arrow as the browser runs it).
 * tests/site/history-validity.browser.test.ts shows the same in Chromium.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { parseHTML } from 'linkedom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADLINE_METRICS } from '../../harness/contract/metric-catalog.ts';
import type { Release, Scenario } from '../../harness/contract/site-data.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { renderHistory } from '../../site/lib/chart-render.ts';
import { changePct, compareParameters, compareSql, invalidSides, rowValidity, type CompareRow } from '../../site/lib/compare-query.ts';
import { engineColours } from '../../site/lib/static-plot.ts';
import { writeFixturePrices } from '../store/fixture-results.ts';
import { INVALID, writeInvalidReleases } from '../kit/invalid-releases.ts';

const THROUGHPUT = HEADLINE_METRICS.find((m) => m.column === 'output_throughput')!;
const WRONG = 'outputs differ from the reference engine version (output-fidelity probe failed)';
const MISSED = 'the server reused 4% of the prompt tokens where a perfect prefix cache reuses 50%';

const release = (over: Record<string, unknown>): Release =>
  ({ engine: 'vllm', engine_version: '1.0.0', engine_version_order: String(over.engine_version ?? '1.0.0'), release_date: null, release_url: null, methodology: 's1.m1.exact', load: 'c=8', runs: 2, first_run_date: '2026-01-10', last_run_date: '2026-01-11', latest_run_id: 'r', hardware: '1x-H100', source: 'official', engine_version_known: true, official: true, validity: 'valid', validity_reason: null, invalid_points: 0, ...over }) as Release;

/** The SVG of a history chart, parsed: its lines' vertices and its points by version. */
function drawn(rows: Release[], noise?: Parameters<typeof renderHistory>[3]) {
  const chart = renderHistory(rows, 'c=8', THROUGHPUT, noise, engineColours(rows.map((r) => r.engine)), '')!;
  const { document } = parseHTML(`<html><body>${chart.markup}</body></html>`);
  const vertices = (d: string) => [...d.matchAll(/[ML]([-\d.]+),([-\d.]+)/g)].map((m) => `${m[1]},${m[2]}`);
  const line = (engine: string) => {
    const path = document.querySelector(`g[data-series][data-engine="${engine}"] path.line`);
    return path ? vertices(path.getAttribute('d')!) : null;
  };
  const point = (version: string) => document.querySelector(`g[data-point][data-version="${version}"]`)!;
  const at = (version: string) => /translate\(([-\d.]+),([-\d.]+)\)/.exec(point(version).getAttribute('transform')!)!.slice(1).join(',');
  return { chart, document, line, point, at };
}

describe('the history chart draws an invalid release apart', () => {
  const rows = [
    release({ engine_version: '1.0.0', first_run_date: '2026-01-10', output_throughput: 100 }),
    release({ engine_version: '1.1.0', first_run_date: '2026-01-20', output_throughput: 250, validity: 'invalid_output', validity_reason: WRONG, invalid_points: 2 }),
    release({ engine_version: '1.2.0', first_run_date: '2026-02-01', output_throughput: 95 }),
    // An engine whose only release here is invalid: a point, and no line at all.
    release({ engine: 'sglang', engine_version: '2.1.0', first_run_date: '2026-01-25', output_throughput: 120, validity: 'cache_mismatch', validity_reason: MISSED, invalid_points: 1 }),
  ];

  it('joins only the valid releases of an engine into its line and band', () => {
    const noise = [{ engine: 'vllm', hardware: '1x-H100', load: 'c=8', metric: 'output_throughput', log_sd: 0.05, releases: 2 }];
    const { line, at, point, document } = drawn(rows, noise);
    expect(line('vllm')).toEqual([at('1.0.0'), at('1.2.0')]);
    expect(line('sglang')).toBeNull();
    // The band follows the line: its upper edge runs at the valid releases' x only.
    const band = document.querySelector('g[data-series][data-engine="vllm"] path.noise-band')!.getAttribute('d')!;
    const xs = [...band.matchAll(/[ML]([-\d.]+),/g)].map((m) => m[1]);
    expect(new Set(xs)).toEqual(new Set([at('1.0.0').split(',')[0], at('1.2.0').split(',')[0]]));
    // And no band is given for the excluded release (its details never offer a comparison with it).
    expect(point('1.1.0').hasAttribute('data-band-lo')).toBe(false);
    expect(point('1.0.0').hasAttribute('data-band-lo')).toBe(true);
  });

  it('shows an invalid release as a grey open dot with its status by its version and its reason in its title', () => {
    const { chart, point } = drawn(rows);
    expect(chart.hasExcluded).toBe(true);
    const wrong = point('1.1.0');
    expect(wrong.getAttribute('class')).toContain('excluded');
    expect([wrong.getAttribute('data-validity'), wrong.getAttribute('data-validity-reason')]).toEqual(['invalid_output', WRONG]);
    expect(wrong.querySelector('.dot')!.getAttribute('fill')).toBe('none');
    expect(wrong.querySelector('.version-label')!.textContent).toBe('1.1.0 (invalid output)');
    expect(wrong.querySelector('title')!.textContent).toContain(`excluded, invalid output (${WRONG}): not joined into the line, never compared`);
    expect(point('2.1.0').querySelector('.version-label')!.textContent).toBe('2.1.0 (cache mismatch)');
    const valid = point('1.0.0');
    expect(valid.getAttribute('class')).not.toContain('excluded');
    expect(valid.getAttribute('data-validity')).toBe('valid');
    expect(valid.querySelector('.dot')!.getAttribute('fill')).not.toBe('none');
    expect(valid.querySelector('.version-label')!.textContent).toBe('1.0.0');
  });

  it('reads rows compiled before validity existed as valid: one line through all', () => {
    const old = rows.slice(0, 3).map(({ validity: _v, validity_reason: _r, invalid_points: _n, ...rest }) => rest as unknown as Release);
    const { chart, line, at } = drawn(old);
    expect(chart.hasExcluded).toBe(false);
    expect(line('vllm')).toEqual([at('1.0.0'), at('1.1.0'), at('1.2.0')]);
  });
});

describe('the compare page computes no change against an invalid release', () => {
  const row = (a: string | null, b: string | null): CompareRow =>
    ({ model: 'm', precision: 'p', hardware: 'h', workload: 'w', load: 'c=8', a_output_throughput: 100, b_output_throughput: 250, a_validity: a, b_validity: b, a_validity_reason: a === 'valid' ? null : 'why a', b_validity_reason: b === 'valid' ? null : 'why b' }) as CompareRow;

  it('a change only between two valid sides; the invalid sides named, A first; the row takes the first status by precedence', () => {
    expect(changePct(row('valid', 'valid'), 'output_throughput')).toBeCloseTo(150, 10);
    expect(changePct(row('valid', 'invalid_output'), 'output_throughput')).toBeNull();
    expect(changePct(row('overloaded', 'valid'), 'output_throughput')).toBeNull();
    expect(invalidSides(row('valid', 'valid'))).toEqual([]);
    expect(invalidSides(row('overloaded', 'invalid_output'))).toEqual([{ side: 'A', validity: 'overloaded', reason: 'why a' }, { side: 'B', validity: 'invalid_output', reason: 'why b' }]);
    expect(rowValidity(row('overloaded', 'invalid_output'))).toBe('invalid_output');
    expect(rowValidity(row('valid', 'cache_mismatch'))).toBe('cache_mismatch');
    // Data compiled before releases.arrow carried validity: both sides read as valid, as before.
    expect(changePct(row(null, null), 'output_throughput')).toBeCloseTo(150, 10);
  });
});

describe('the compiled data behind the history chart and the compare page (SYNTHETIC runs, real compile)', () => {
  const root = mkdtempSync(join(tmpdir(), 'servebench-history-validity-'));
  let history: Release[] = [];
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  const compared = async (a: string, b: string) => {
    const statement = await connection.prepare(compareSql());
    compareParameters({ engine: a.split(' ')[0]!, version: a.split(' ')[1]!, source: 'official', known: true }, { engine: b.split(' ')[0]!, version: b.split(' ')[1]!, source: 'official', known: true }).forEach((value, i) =>
      typeof value === 'string' ? statement.bindVarchar(i + 1, value) : statement.bindBoolean(i + 1, value),
    );
    return (await statement.runAndReadAll()).getRowObjectsJS() as unknown as CompareRow[];
  };

  beforeAll(async () => {
    writeInvalidReleases(join(root, 'results'));
    const report = await compile({ resultsDir: join(root, 'results'), outDir: join(root, 'out'), prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-03-01T00:00:00Z') });
    expect(report.problems).toEqual([]);
    const site = join(root, 'out', 'site');
    const [scenario] = JSON.parse(readFileSync(join(site, 'scenarios.json'), 'utf8')) as Scenario[];
    history = (JSON.parse(readFileSync(join(site, 'scenarios', `${scenario!.scenario_id}.json`), 'utf8')) as { history: Release[] }).history;
    // releases.arrow as the browser receives it, into DuckDB as the compare page's `releases` table.
    const table = tableFromIPC(readFileSync(join(site, 'releases.arrow')));
    writeFileSync(join(root, 'releases.ndjson'), table.toArray().map((r) => JSON.stringify(r.toJSON())).join('\n'));
    instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
    await connection.run(`CREATE TABLE releases AS SELECT * FROM read_json('${join(root, 'releases.ndjson')}', format = 'newline_delimited')`);
  }, 180_000);

  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
  });

  it('every history row carries its validity and reason: the corrupting release at every load, the cache miss at c=8 only', () => {
    const statuses = history.map((h) => `${h.engine} ${h.engine_version} ${h.load} ${h.validity}`).sort();
    expect(statuses).toEqual([
      'sglang 2.0.0 c=1 valid', 'sglang 2.0.0 c=8 valid', 'sglang 2.1.0 c=1 valid', 'sglang 2.1.0 c=8 cache_mismatch', 'sglang 2.2.0 c=1 valid', 'sglang 2.2.0 c=8 valid',
      'vllm 1.0.0 c=1 valid', 'vllm 1.0.0 c=8 valid', 'vllm 1.1.0 c=1 invalid_output', 'vllm 1.1.0 c=8 invalid_output', 'vllm 1.2.0 c=1 valid', 'vllm 1.2.0 c=8 valid',
    ]);
    const of = (engine: string, version: string, load: string) => history.find((h) => h.engine === engine && h.engine_version === version && h.load === load)!;
    expect(of(INVALID.wrongOutput.engine, INVALID.wrongOutput.version, 'c=8')).toMatchObject({ validity_reason: WRONG, invalid_points: 2 });
    expect(of(INVALID.cacheMissed.engine, INVALID.cacheMissed.version, 'c=8')).toMatchObject({ validity_reason: MISSED, invalid_points: 1 });
    expect(of('vllm', '1.0.0', 'c=8')).toMatchObject({ validity_reason: null, invalid_points: 0 });
  });

  it('the chart drawn from them leaves both out of their lines', () => {
    const { line, at } = drawn(history);
    expect(line('vllm')).toEqual([at('1.0.0'), at('1.2.0')]);
    expect(line('sglang')).toEqual([at('2.0.0'), at('2.2.0')]);
  });

  it('releases.arrow carries each side’s validity and reason, and compare yields no change against the invalid release', async () => {
    const wrong = await compared('vllm 1.0.0', 'vllm 1.1.0');
    expect(wrong.map((r) => [r.load, r.a_validity, r.b_validity, r.b_validity_reason])).toEqual([
      ['c=1', 'valid', 'invalid_output', WRONG],
      ['c=8', 'valid', 'invalid_output', WRONG],
    ]);
    // 2.5 times faster in the files, and still no "faster".
    expect(Number(wrong[1]!.b_output_throughput) / Number(wrong[1]!.a_output_throughput)).toBeGreaterThan(2);
    for (const r of wrong) expect(changePct(r, 'output_throughput')).toBeNull();
    const cache = await compared('sglang 2.0.0', 'sglang 2.1.0');
    expect(cache.map((r) => [r.load, r.b_validity, changePct(r, 'output_throughput') === null])).toEqual([['c=1', 'valid', false], ['c=8', 'cache_mismatch', true]]);
    expect(cache[1]!.b_validity_reason).toBe(MISSED);
    // Two valid releases compare as before.
    for (const r of await compared('vllm 1.0.0', 'vllm 1.2.0')) expect(changePct(r, 'output_throughput')).toBeCloseTo((Number(r.b_output_throughput) / Number(r.a_output_throughput) - 1) * 100, 10);
  });
});
