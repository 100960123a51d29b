/**
 * The compare page's significance is the store's: for the newest and previous release of an engine
 * on a configuration, the change the page tests (compare-significance.ts, over releases.arrow and
 * the releases' log summaries it publishes) has the p-value, interval and verdict of the delta
 * compile computed (deltas.json). SYNTHETIC runs of tests/store's fixture, compiled by the real
 * store, twice: with its planted 15% drop, and with none (noise only).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import type { Delta, Scenario, ScenarioDetail } from '../../harness/contract/site-data.ts';
import { COMPARE_METRICS, compareParameters, compareSql, type CompareRow, type CompareSide } from '../../site/lib/compare-query.ts';
import { logStatsOf, summarizeChanges, testChange, type ReleaseLogStats } from '../../site/lib/compare-significance.ts';
import { writeFixture, writeFixturePrices } from '../store/fixture-results.ts';

interface Compiled {
  readonly deltas: Delta[];
  readonly stats: ReleaseLogStats;
  compared(a: CompareSide, b: CompareSide): Promise<CompareRow[]>;
}

/** Compiles the fixture (planted factor `factor`) and opens what the compare page reads: releases.arrow as DuckDB's `releases`, and the log summaries. */
async function compiled(factor: number): Promise<Compiled> {
  const root = mkdtempSync(join(tmpdir(), 'servebench-compare-significance-'));
  writeFixture(join(root, 'results'), factor);
  await compile({ resultsDir: join(root, 'results'), outDir: join(root, 'out'), prices: loadPrices(writeFixturePrices(root)), now: new Date('2026-03-01T00:00:00Z') });
  const site = join(root, 'out', 'site');
  const read = <T>(file: string) => JSON.parse(readFileSync(join(site, file), 'utf8')) as T;
  const history = read<Scenario[]>('scenarios.json').flatMap((s) => read<ScenarioDetail>(`scenarios/${s.scenario_id}.json`).history);
  writeFileSync(join(root, 'releases.ndjson'), tableFromIPC(readFileSync(join(site, 'releases.arrow'))).toArray().map((row) => JSON.stringify(row.toJSON())).join('\n'));
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  await connection.run(`CREATE TABLE releases AS SELECT * FROM read_json('${join(root, 'releases.ndjson')}', format = 'newline_delimited')`);
  return {
    deltas: read<Delta[]>('deltas.json'),
    stats: logStatsOf(history),
    async compared(a, b) {
      const statement = await connection.prepare(compareSql());
      compareParameters(a, b).forEach((value, i) => (typeof value === 'string' ? statement.bindVarchar(i + 1, value) : statement.bindBoolean(i + 1, value)));
      return (await statement.runAndReadAll()).getRowObjectsJS() as unknown as CompareRow[];
    },
  };
}

const official = (engine: string, version: string): CompareSide => ({ engine, version, source: 'official', known: true });

/** Every change of previous → next the page shows, beside the delta compile made of the same pair. */
async function pairs(data: Compiled, engine: string, previous: string, next: string) {
  const sides = { a: official(engine, previous), b: official(engine, next) };
  const rows = await data.compared(sides.a, sides.b);
  expect(rows.length).toBeGreaterThan(0);
  return {
    rows,
    sides,
    changes: rows.flatMap((row) =>
      COMPARE_METRICS.map((metric) => ({
        metric,
        tested: testChange(row, metric, sides, data.stats),
        delta: data.deltas.find((d) => d.config_id === row.config_id && d.engine === engine && d.previous_version === previous && d.version === next && d.metric === metric.column),
      })),
    ),
  };
}

describe('the compare page tests a change as the store tests a delta', () => {
  let planted: Compiled;
  let none: Compiled;
  beforeAll(async () => {
    [planted, none] = [await compiled(1 / 0.85), await compiled(1)];
  }, 120_000);

  it('repeated releases: the same Welch test, p-value, interval and verdict as the compiled delta', async () => {
    for (const [data, expectedVerdicts] of [[planted, ['worse']], [none, ['unclear']]] as const) {
      const { changes } = await pairs(data, 'vllm', '1.0.0', '1.1.0');
      const tested = changes.filter((c) => c.tested !== null);
      expect(tested.length).toBeGreaterThan(0);
      for (const { metric, tested: change, delta } of changes) {
        // A metric the page has no change for (ITL p99: 64 requests cannot support it) has no delta either.
        if (change === null) {
          expect(delta, metric.column).toBeUndefined();
          continue;
        }
        expect(delta, metric.column).toBeDefined();
        expect(change.facts.method).toBe('welch');
        expect(change.verdict).toBe(delta!.verdict);
        expect(change.facts.change_pct).toBeCloseTo(delta!.change_pct, 9);
        expect(change.facts.p_value!).toBeCloseTo(delta!.p_value!, 12);
        expect(change.facts.ci_low_pct!).toBeCloseTo(delta!.ci_low_pct!, 9);
        expect(change.facts.ci_high_pct!).toBeCloseTo(delta!.ci_high_pct!, 9);
        expect([change.facts.previous_runs, change.facts.runs]).toEqual([delta!.previous_runs, delta!.runs]);
      }
      // The planted drop is found everywhere; with none, noise alone is (here) never significant.
      expect(new Set(tested.map((c) => c.tested!.verdict))).toEqual(new Set(expectedVerdicts));
    }
  });

  it('single runs: not tested (the store had no noise to test them against either), never better or worse', async () => {
    const { changes } = await pairs(planted, 'sglang', '2.0.0', '2.1.0');
    const tested = changes.filter((c) => c.tested !== null);
    expect(tested.length).toBeGreaterThan(0);
    for (const { tested: change, delta } of tested) {
      expect([change!.verdict, change!.facts.p_value, delta!.method, delta!.verdict]).toEqual(['untested', null, 'unknown-noise', 'unclear']);
    }
  });

  it('the summary counts the table: per metric, one verdict per configuration', async () => {
    const { rows, sides } = await pairs(planted, 'vllm', '1.0.0', '1.1.0');
    const summary = summarizeChanges(rows, sides, planted.stats);
    expect(summary.configurations).toBe(rows.length);
    expect(summary.excluded).toBe(0);
    for (const m of summary.metrics) {
      const deltas = planted.deltas.filter((d) => d.engine === 'vllm' && d.version === '1.1.0' && d.metric === m.column);
      expect({ better: m.better, worse: m.worse, unclear: m.unclear, untested: m.untested, missing: m.missing }, m.column).toEqual({
        better: deltas.filter((d) => d.verdict === 'better').length,
        worse: deltas.filter((d) => d.verdict === 'worse').length,
        unclear: deltas.filter((d) => d.verdict === 'unclear').length,
        untested: 0,
        missing: rows.length - deltas.length,
      });
    }
    expect(summary.metrics.find((m) => m.column === 'output_throughput')!.worse).toBe(rows.length);
  });
});
