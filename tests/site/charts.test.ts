/** The charts' pure helpers: intervals and runs joined to the Pareto points, noise bands, the URL state, the SLA bound on a log scale. */
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import type { ParetoPoint, Release } from '../../harness/contract/site-data.ts';
import { describeNoise, extent, intervalOf, logScaleUseful, noiseBand, noiseOf, paretoChartPoints } from '../../site/lib/chart-data.ts';
import { hideToken, isHidden, parseChartState, toggled, withChartState } from '../../site/lib/chart-state.ts';
import { layoutParetoOverlay, project } from '../../site/lib/pareto-sla.ts';
import { engineColours, CATEGORICAL_COLOURS } from '../../site/lib/static-plot.ts';

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
