/** The charts' pure helpers: intervals and runs joined to the Pareto points, noise bands, the history's release axis and methodology changes, the URL state, the SLA bound on a log scale. */
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import type { ParetoPoint, Release } from '../../harness/contract/site-data.ts';
import { describeNoise, extent, intervalOf, logScaleUseful, noiseBand, noiseOf, paretoChartPoints } from '../../site/lib/chart-data.ts';
import { hideToken, isHidden, parseChartState, toggled, withChartState } from '../../site/lib/chart-state.ts';
import { layoutParetoOverlay, project } from '../../site/lib/pareto-sla.ts';
import { engineColours, CATEGORICAL_COLOURS } from '../../site/lib/static-plot.ts';
import { describeMethodologyChange, methodologyChanges, releaseDateLabel, releaseSlots } from '../../site/lib/release-axis.ts';
import { renderHistory } from '../../site/lib/chart-render.ts';
import { HEADLINE_METRICS } from '../../harness/contract/metric-catalog.ts';
import { versionOrderKey } from '../../harness/store/version-order.ts';

const point = (over: Partial<ParetoPoint>): ParetoPoint => ({
  engine: 'vllm', engine_version: '1.0.0', load: 'c=8', interactivity: 80, throughput_per_gpu: 600, latest_version: true, on_version_frontier: true, on_overall_frontier: false, latest_run_id: 'r1', ...over,
});
const release = (over: Record<string, unknown>): Release => ({ engine: 'vllm', engine_version: '1.0.0', load: 'c=8', runs: 3, first_run_date: '2026-01-10', last_run_date: '2026-01-12', latest_run_id: 'r1', ...over }) as Release;

describe('chart data', () => {
  it('intervals come from <metric>__lo and __hi, in order, and only when both are numbers', () => {
    expect(intervalOf({ x__lo: 1, x__hi: 2 }, 'x')).toEqual([1, 2]);
    expect(intervalOf({ x__lo: 2, x__hi: 1 }, 'x')).toEqual([1, 2]);
    expect(intervalOf({ x__lo: null, x__hi: null }, 'x')).toBeNull();
    expect(intervalOf({ x__lo: 1 }, 'x')).toBeNull();
    expect(intervalOf({}, 'x')).toBeNull();
    expect(intervalOf(undefined, 'x')).toBeNull();
  });

  it('a Pareto point takes runs and intervals from its release row: y from throughput per GPU, else output throughput', () => {
    const history = [
      release({ interactivity_tok_s_p50__lo: 78, interactivity_tok_s_p50__hi: 82, output_throughput_per_gpu: 600, output_throughput_per_gpu__lo: 590, output_throughput_per_gpu__hi: 610, output_throughput__lo: 1, output_throughput__hi: 2 }),
      release({ engine: 'sglang', engine_version: '2.0.0', runs: 1, interactivity_tok_s_p50__lo: null, interactivity_tok_s_p50__hi: null }),
      release({ engine: 'cpu', engine_version: 'b1', output_throughput_per_gpu: null, output_throughput__lo: 10, output_throughput__hi: 12 }),
    ];
    const [a, b, c, d] = paretoChartPoints([point({}), point({ engine: 'sglang', engine_version: '2.0.0' }), point({ engine: 'cpu', engine_version: 'b1' }), point({ engine: 'none' })], history);
    expect([a!.runs, a!.x_interval, a!.y_interval, a!.single, a!.series]).toEqual([3, [78, 82], [590, 610], false, 'vllm 1.0.0']);
    expect([b!.runs, b!.x_interval, b!.y_interval, b!.single]).toEqual([1, null, null, true]);
    expect(c!.y_interval).toEqual([10, 12]);
    expect([d!.runs, d!.x_interval, d!.single]).toEqual([null, null, false]);
    // Without the history prop: no intervals, no single-run marks.
    expect(paretoChartPoints([point({})], undefined)[0]!.runs).toBeNull();
  });

  it('the noise band is v·exp(±1.96σ); each engine has its own on a hardware at a load; a metric without σ has none', () => {
    const [lo, hi] = noiseBand(100, 0.02);
    expect(lo).toBeCloseTo(100 / Math.exp(0.0392), 10);
    expect(hi).toBeCloseTo(100 * Math.exp(0.0392), 10);
    expect(lo * hi).toBeCloseTo(100 * 100, 8);
    const at = { engine: 'vllm', hardware: '1x-H100', load: 'c=8' };
    const rows = [
      { ...at, metric: 'a', log_sd: 0.02, releases: 4 },
      { ...at, metric: 'b', log_sd: null, releases: 0 },
      { ...at, engine: 'llamacpp', metric: 'a', log_sd: 0.3, releases: 9 },
      { ...at, hardware: 'cpu', metric: 'a', log_sd: 0.25, releases: 2 },
      { ...at, load: 'c=1', metric: 'a', log_sd: 0.05, releases: 3 },
    ];
    expect(noiseOf(rows, 'a', 'vllm', '1x-H100', 'c=8')).toEqual(rows[0]);
    expect(noiseOf(rows, 'a', 'llamacpp', '1x-H100', 'c=8')).toEqual(rows[2]);
    expect(noiseOf(rows, 'a', 'vllm', 'cpu', 'c=8')).toEqual(rows[3]);
    expect(noiseOf(rows, 'a', 'vllm', '1x-H100', 'c=1')).toEqual(rows[4]);
    expect(noiseOf(rows, 'a', 'sglang', '1x-H100', 'c=8')).toBeNull();
    expect(noiseOf(rows, 'b', 'vllm', '1x-H100', 'c=8')).toBeNull();
    expect(noiseOf(rows, 'c', 'vllm', '1x-H100', 'c=8')).toBeNull();
    expect(noiseOf(undefined, 'a', 'vllm', '1x-H100', 'c=8')).toBeNull();
    expect(describeNoise(0.02)).toBe('−3.8% / +4.0%');
  });

  it('a log scale is offered for positive values spanning a factor of 3 on some axis', () => {
    expect(logScaleUseful([[90, 110], [100, 700]])).toBe(true);
    expect(logScaleUseful([[90, 110], [100, 200]])).toBe(false);
    expect(logScaleUseful([[0, 110], [100, 700]])).toBe(false);
    expect(logScaleUseful([[], []])).toBe(false);
    expect(extent([3, 1, 2])).toEqual([1, 3]);
    expect(extent([])).toBeNull();
  });

  it('engines keep their colour whatever the order they come in', () => {
    const a = engineColours(['vllm', 'sglang', 'vllm']);
    const b = engineColours(['sglang', 'vllm']);
    expect([...a]).toEqual([...b]);
    expect(a.get('sglang')).toBe(CATEGORICAL_COLOURS[0]);
  });
});

describe('the history chart: releases in release order', () => {
  // SYNTHETIC releases: made-up versions, days and links.
  const THROUGHPUT = HEADLINE_METRICS.find((m) => m.column === 'output_throughput')!;
  const row = (engine: string, version: string, over: Record<string, unknown> = {}): Release =>
    ({
      engine, engine_version: version, engine_version_order: versionOrderKey(version), release_date: null, release_url: null, methodology: 's2.m1.exact',
      load: 'c=8', runs: 1, first_run_date: '2026-12-02', last_run_date: '2026-12-02', latest_run_id: `r-${engine}-${version}`, hardware: 'cpu', source: 'official',
      engine_version_known: true, official: true, validity: 'valid', validity_reason: null, invalid_points: 0, output_throughput: 100, ...over,
    }) as Release;
  const drawn = (rows: Release[]) => {
    const chart = renderHistory(rows, 'c=8', THROUGHPUT, undefined, engineColours(rows.map((r) => r.engine)), '')!;
    return { chart, document: parseHTML(`<html><body>${chart.markup}</body></html>`).document };
  };
  const xOf = (document: Document, version: string) => Number(/translate\(([-\d.]+),/.exec(document.querySelector(`g[data-point][data-version="${version}"]`)!.getAttribute('transform')!)![1]);

  it('four releases first measured on one day get a place each, in version order (the version key, not the text: 1.10.0 after 1.9.0)', () => {
    // Listed out of order, all measured on 2026-12-02: on a first-measured axis they would share one x.
    const rows = ['1.10.0', '1.2.0', '1.9.0', '1.0.0'].map((v) => row('llamacpp', v));
    const { document } = drawn(rows);
    const xs = ['1.0.0', '1.2.0', '1.9.0', '1.10.0'].map((v) => xOf(document, v));
    for (let i = 1; i < xs.length; i++) expect(xs[i]! - xs[i - 1]!, `slot ${i}`).toBeGreaterThan(50);
    // Evenly spaced: one slot per release.
    expect(Math.abs(xs[3]! - xs[2]! - (xs[1]! - xs[0]!))).toBeLessThan(0.2);
  });

  it('engines interleave by the day each release was published; a release without a day follows its engine\'s release before it', () => {
    const slots = releaseSlots([
      row('vllm', '1.1.0', { release_date: '2026-03-01', release_url: 'https://example.invalid/vllm/1.1.0' }),
      row('vllm', '1.0.0', { release_date: '2026-01-01' }),
      row('sglang', '2.0.0', { release_date: '2026-02-01' }),
      row('sglang', '2.1.0'),
      row('sglang', '2.2.0', { release_date: '2026-04-01' }),
    ]);
    expect(slots.map((s) => `${s.engine} ${s.version} ${releaseDateLabel(s.date)}`)).toEqual([
      'vllm 1.0.0 2026-01-01',
      'sglang 2.0.0 2026-02-01',
      'sglang 2.1.0 date unknown',
      'vllm 1.1.0 2026-03-01',
      'sglang 2.2.0 2026-04-01',
    ]);
    expect(slots.map((s) => s.index)).toEqual([0, 1, 2, 3, 4]);
    expect(slots.find((s) => s.version === '1.1.0')!.url).toBe('https://example.invalid/vllm/1.1.0');
    // A pre-release before its release, by the version key.
    expect(releaseSlots([row('vllm', '1.0.0'), row('vllm', '1.0.0rc1')]).map((s) => s.version)).toEqual(['1.0.0rc1', '1.0.0']);
  });

  it('each tick is the release\'s version and its published day, "date unknown" without one; each point says both', () => {
    const { document } = drawn([row('vllm', '1.0.0', { release_date: '2026-01-05', release_url: 'https://example.invalid/v1' }), row('vllm', '1.1.0')]);
    const ticks = [...document.querySelectorAll('g[aria-label="x-axis tick label"] text')].map((t) => t.textContent);
    expect(ticks).toEqual(['1.0.02026-01-05', '1.1.0date unknown']);
    const first = document.querySelector('g[data-point][data-version="1.0.0"]')!;
    expect([first.getAttribute('data-released'), first.getAttribute('data-release-url'), first.getAttribute('data-position')]).toEqual(['2026-01-05', 'https://example.invalid/v1', '1']);
    expect(first.querySelector('a')!.getAttribute('aria-label')).toMatch(/^vllm 1\.0\.0 at c=8, released 2026-01-05, first measured 2026-12-02: /);
    expect(document.querySelector('g[data-point][data-version="1.1.0"]')!.getAttribute('data-released')).toBe('date unknown');
  });

  it('a methodology change between consecutive releases of an engine: a rule between them, said in words, and no line across it', () => {
    const rows = [row('vllm', '1.0.0', { methodology: 's1.m1.exact' }), row('vllm', '1.1.0', { methodology: 's1.m1.exact' }), row('vllm', '1.2.0'), row('sglang', '2.0.0')];
    const { chart, document } = drawn(rows);
    expect(chart.methodologyChanges.map((c) => c.text)).toEqual(['Methodology changed between vllm 1.1.0 and 1.2.0: s1.m1.exact → s2.m1.exact (result schema 1 → 2); values on either side are not compared.']);
    const marks = [...document.querySelectorAll('g.methodology-change')];
    expect(marks).toHaveLength(1);
    const x = Number(marks[0]!.querySelector('line')!.getAttribute('x1'));
    expect(x).toBeGreaterThan(xOf(document, '1.1.0') + 1);
    expect(x).toBeLessThan(xOf(document, '1.2.0') - 1);
    expect(marks[0]!.querySelector('title')!.textContent).toBe(chart.methodologyChanges[0]!.text);
    // vllm's two methodologies are two lines; sglang's one.
    expect([...document.querySelectorAll('g[data-series][data-engine="vllm"]')].map((g) => g.getAttribute('data-methodology'))).toEqual(['s1.m1.exact', 's2.m1.exact']);
    expect(document.querySelectorAll('g[data-series][data-engine="sglang"]')).toHaveLength(1);
    // The table lists the releases in the axis' order, each with its methodology.
    expect(chart.table.map((t) => `${t.position} ${t.engine} ${t.version} ${t.methodology}`)).toEqual(['1 sglang 2.0.0 s2.m1.exact', '2 vllm 1.0.0 s1.m1.exact', '3 vllm 1.1.0 s1.m1.exact', '4 vllm 1.2.0 s2.m1.exact']);
    // One methodology: no mark, and the points do not repeat it.
    const one = drawn([row('vllm', '1.0.0'), row('vllm', '1.1.0')]);
    expect(one.chart.methodologyChanges).toEqual([]);
    expect(one.document.querySelector('g.methodology-change')).toBeNull();
    expect(one.document.querySelector('g[data-point][data-methodology]')).toBeNull();
  });

  it('a release measured under two methodologies: the change is at that release, the older label first', () => {
    const changes = methodologyChanges([
      { engine: 'vllm', version: '1.1.0', methodology: 's2.m1.exact', index: 1 },
      { engine: 'vllm', version: '1.1.0', methodology: 's1.m1.exact', index: 1 },
      { engine: 'vllm', version: '1.0.0', methodology: 's1.m1.exact', index: 0 },
    ]);
    expect(changes.map((c) => c.text)).toEqual(['Methodology changed at vllm 1.1.0 (measured under both): s1.m1.exact → s2.m1.exact (result schema 1 → 2); values on either side are not compared.']);
    expect(describeMethodologyChange('s2.m1.exact', 's2.m2.approximate')).toBe('s2.m1.exact → s2.m2.approximate (metric definitions generation 1 → 2, prompt lengths exact → approximate)');
    expect(describeMethodologyChange('old', 'new')).toBe('old → new');
  });
});

describe('chart state in the URL', () => {
  const known = new Set(['vllm', 'vllm:1.0.0', 'sglang', 'sglang:2.0.0']);
  it('reads only known hide tokens and the log switch, and keeps every other parameter when written', () => {
    const state = parseChartState('?load=c%3D1&hide=vllm&hide=evil&hide=sglang%3A2.0.0&scale=log&sla.tpot_ms_p95=20', known);
    expect([...state.hidden].sort()).toEqual(['sglang:2.0.0', 'vllm']);
    expect(state.log).toBe(true);
    expect(withChartState('?load=c%3D1&hide=vllm&sort=rank&dir=asc&scale=log&sla.tpot_ms_p95=20', { hidden: new Set(['sglang']), log: false })).toBe('?load=c%3D1&sort=rank&dir=asc&sla.tpot_ms_p95=20&hide=sglang');
    expect(withChartState('', { hidden: new Set(), log: false })).toBe('');
    expect(withChartState('?metric=ttft_ms_p99', { hidden: new Set(['vllm:1.0.0', 'sglang']), log: true })).toBe('?metric=ttft_ms_p99&hide=sglang&hide=vllm%3A1.0.0&scale=log');
    expect(parseChartState(withChartState('', { hidden: new Set(['vllm:1.0.0']), log: true }), known)).toEqual({ hidden: new Set(['vllm:1.0.0']), log: true });
  });

  it('an engine hidden hides all its versions; a version hidden hides only itself', () => {
    const hidden = new Set([hideToken('vllm'), hideToken('sglang', '2.0.0')]);
    expect(isHidden(hidden, 'vllm', '1.1.0')).toBe(true);
    expect(isHidden(hidden, 'vllm')).toBe(true);
    expect(isHidden(hidden, 'sglang', '2.0.0')).toBe(true);
    expect(isHidden(hidden, 'sglang', '2.1.0')).toBe(false);
    expect(isHidden(hidden, 'sglang')).toBe(false);
    const state = toggled({ hidden, log: false }, 'vllm', true);
    expect([...state.hidden]).toEqual(['sglang:2.0.0']);
    expect([...toggled(state, 'x', false).hidden]).toEqual(['sglang:2.0.0', 'x']);
  });
});

describe('the TPOT bound on a log scale', () => {
  it('project maps through log when told, linear otherwise', () => {
    expect(project(10, [1, 100], [0, 600], 'log')).toBeCloseTo(300, 10);
    expect(project(10, [1, 100], [0, 600])).toBeCloseTo(600 * (9 / 99), 10);
    expect(project(5, [5, 5], [60, 660], 'log')).toBe(60);
  });

  it('the overlay places the bound at the figure’s current scale, from the marks on the points', () => {
    const { document } = parseHTML(`<html><body><figure data-chart="pareto" data-sla="on" data-tpot-limit="10" data-x-scale="log" data-x-domain="10 1000" data-x-range="60 660">
      <svg><g data-sla-bound display="none"><rect></rect><line></line><text></text></g><g data-point data-sla="pass"></g><g data-point data-sla="fail"></g></svg>
      <ul><li data-sla-key="fail" hidden></li><li data-sla-key="bound" hidden></li></ul><p data-pareto-sla-note hidden></p></figure></body></html>`);
    const figure = document.querySelector('figure') as unknown as HTMLElement;
    layoutParetoOverlay(figure);
    // 1000 ÷ 10 ms = 100 tok/s/user: half way from 10 to 1000 on a log scale.
    expect(figure.querySelector('line')!.getAttribute('x1')).toBe('360.0');
    expect(figure.querySelector('g[data-sla-bound]')!.hasAttribute('display')).toBe(false);
    expect(figure.querySelector('[data-pareto-sla-note]')!.textContent).toMatch(/^1 of 2 points meet the SLA limits; the other 1 are drawn hollow with a cross\. The dashed line is the TPOT bound/);
    figure.dataset.xScale = 'linear';
    layoutParetoOverlay(figure);
    expect(figure.querySelector('line')!.getAttribute('x1')).toBe(project(100, [10, 1000], [60, 660]).toFixed(1));
    // Off: nothing drawn, the note and keys hidden.
    figure.dataset.sla = 'off';
    layoutParetoOverlay(figure);
    expect(figure.querySelector('g[data-sla-bound]')!.getAttribute('display')).toBe('none');
    expect((figure.querySelector('[data-pareto-sla-note]') as unknown as HTMLElement).hidden).toBe(true);
  });
});
