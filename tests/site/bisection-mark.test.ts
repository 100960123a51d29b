/**
 * A bisection on the history chart it explains, without a browser: the compiled row (from the
 * SYNTHETIC sim bisection of tests/fixtures/comparisons/sim-planted/, filed and compiled by the real
 * store, beside one of its own arm runs filed as a run) names the same scenario and configuration
 * as that run's points, so the scenario page finds it; the chart of its metric at its load marks
 * it between the releases it narrowed; the sentence says the range, the change and its interval.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseHTML } from 'linkedom';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AbResult } from '../../harness/contract/comparison.ts';
import { HEADLINE_METRICS } from '../../harness/contract/metric-catalog.ts';
import { resultRelativePath } from '../../harness/contract/result-path.ts';
import type { BisectionRow, Release } from '../../harness/contract/site-data.ts';
import { compile } from '../../harness/store/compile.ts';
import { loadPrices } from '../../harness/store/prices.ts';
import { bisectionHeadline, bisectionMethod } from '../../site/lib/bisection-text.ts';
import { renderHistory } from '../../site/lib/chart-render.ts';
import { engineColours } from '../../site/lib/static-plot.ts';
import { runCli } from '../cli/run-cli.ts';
import { writeFixturePrices } from '../store/fixture-results.ts';

const FIXTURE = new URL('../fixtures/comparisons/sim-planted/', import.meta.url).pathname;
const THROUGHPUT = HEADLINE_METRICS.find((m) => m.column === 'output_throughput')!;

let row: BisectionRow;
let runIds: { scenario_id: string; config_id: string };

beforeAll(async () => {
  const results = mkdtempSync(join(tmpdir(), 'sb-bisect-site-'));
  const filed = await runCli(['file-comparison', join(FIXTURE, 'bisection.json'), '--results', results]);
  expect(filed.code, filed.stderr).toBe(0);
  // One of the bisection's own arm runs, filed as a run: the scenario page the bisection belongs on.
  const ab = JSON.parse(readFileSync(join(FIXTURE, 'bisection.ab', '01-1.1.0-vs-1.4.0.json'), 'utf8')) as AbResult;
  const run = ab.passes[0]!.blocks[0]!.a;
  const text = `${JSON.stringify(run, null, 2)}\n`;
  const path = join(results, resultRelativePath(run, text));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  const out = mkdtempSync(join(tmpdir(), 'sb-bisect-site-out-'));
  const report = await compile({ resultsDir: results, outDir: join(out, 'data'), prices: loadPrices(writeFixturePrices(out)) });
  expect(report.problems).toEqual([]);
  expect(report.tables).toMatchObject({ runs: 1, ab_comparisons: 5, bisections: 1 });
  [row] = JSON.parse(readFileSync(join(out, 'data', 'site', 'bisections.json'), 'utf8')) as BisectionRow[];
  const scenarios = JSON.parse(readFileSync(join(out, 'data', 'site', 'scenarios.json'), 'utf8')) as Array<{ scenario_id: string }>;
  const detail = JSON.parse(readFileSync(join(out, 'data', 'site', 'scenarios', `${scenarios[0]!.scenario_id}.json`), 'utf8')) as { history: Array<{ config_id: string }> };
  runIds = { scenario_id: scenarios[0]!.scenario_id, config_id: detail.history[0]!.config_id };
}, 120_000);

describe('a compiled bisection', () => {
  it('is on the scenario and configuration its runs measured, with its range, its change and every step', () => {
    expect(row).toMatchObject({ ...runIds, explains_scenario_id: runIds.scenario_id, engine: 'sim', load: 'c=2', metric: 'output_throughput', outcome: 'culprit', direction: 'slower', range_good: '1.2.0', range_bad: '1.3.0', comparisons: 5 });
    expect([row.unpaired_blocks, ...row.steps.map((s) => s.unpaired_blocks)]).toEqual([0, 0, 0, 0, 0, 0]);
    expect(row.steps.map((s) => `${s.a}→${s.b} ${s.verdict}`)).toEqual(['1.1.0→1.4.0 slower', '1.1.0→1.2.0 inconclusive', '1.2.0→1.4.0 slower', '1.2.0→1.3.0 slower', '1.3.0→1.4.0 no change']);
    // The change's own size is the A/B of exactly the culprit pair (step 4), not the end-to-end one.
    expect(row.effect).toBe(row.steps[3]!.effect);
    expect(row.effect!).toBeLessThan(-0.3);
    expect(bisectionHeadline(row, 'Output throughput')).toBe(`Output throughput changed between 1.2.0 and 1.3.0: −${(-row.effect! * 100).toFixed(1)}% [−${(-row.effect_lo! * 100).toFixed(1)}%, −${(-row.effect_hi! * 100).toFixed(1)}%]`);
    expect(bisectionMethod(row)).toMatch(/^bisected on 2026-12-04 at c=2 over 4 releases: 5 paired A\/Bs, \d+ min$/);
  });
});

describe('the history chart marks a bisection of its metric at its load', () => {
  const release = (version: string, day: string, value: number): Release =>
    ({ engine: 'sim', engine_version: version, engine_version_order: version, release_date: null, release_url: null, methodology: 's1.m1.exact', load: 'c=2', runs: 1, first_run_date: day, last_run_date: day, latest_run_id: `r-${version}`, hardware: 'cpu', source: 'official', engine_version_known: true, official: true, validity: 'valid', validity_reason: null, invalid_points: 0, output_throughput: value }) as Release;
  const rows = [release('1.1.0', '2026-11-01', 150), release('1.2.0', '2026-11-10', 150), release('1.4.0', '2026-11-20', 100)];

  function drawn(load: string, bisections: BisectionRow[]) {
    const chart = renderHistory(rows, load, THROUGHPUT, undefined, engineColours(['sim']), '', bisections)!;
    return parseHTML(`<html><body>${chart.markup}</body></html>`).document;
  }
  const xOf = (document: Document, version: string) => Number(/translate\(([-\d.]+),/.exec(document.querySelector(`g[data-point][data-version="${version}"]`)!.getAttribute('transform')!)![1]);

  it('a span from the measured release at its older end to the one at its newer end, and a rule there, its sentence in its title', () => {
    const document = drawn('c=2', [row]);
    const mark = document.querySelector('g.bisection')!;
    expect(mark.getAttribute('data-bisection')).toBe(row.file);
    // 1.3.0, the culprit's newer end, was not measured here: the rule is at the next measured release of the range's end, 1.4.0 (the bisection's --bad).
    expect(Number(mark.querySelector('line')!.getAttribute('x1'))).toBeCloseTo(xOf(document, '1.4.0'), 0);
    const span = mark.querySelector('rect')!;
    expect(Number(span.getAttribute('x'))).toBeCloseTo(xOf(document, '1.2.0'), 0);
    expect(Number(span.getAttribute('x')) + Number(span.getAttribute('width'))).toBeCloseTo(xOf(document, '1.4.0'), 0);
    expect(mark.querySelector('title')!.textContent).toBe(`${bisectionHeadline(row, 'Output throughput')}; ${bisectionMethod(row)}`);
  });

  it('none on the chart of another load or metric', () => {
    expect(drawn('c=2', [{ ...row, load: 'c=8' }]).querySelector('g.bisection')).toBeNull();
    expect(drawn('c=2', [{ ...row, metric: 'ttft_ms_p50' }]).querySelector('g.bisection')).toBeNull();
  });
});
