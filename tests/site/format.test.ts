/** The site's pure helpers: number and delta formatting, URL state round trips, CSV, the Pareto chart's SLA marks. */
import { describe, expect, it } from 'vitest';
import { leaderboardCsv, toCsv } from '../../site/lib/csv.ts';
import { approximateLengths, describeDelta, directionArrow, directionWords, formatNumber, formatPercent, samplesOf } from '../../site/lib/format.ts';
import { describeFailures, failures, project, tpotBound, type PointMedians } from '../../site/lib/pareto-sla.ts';
import { setAttributeSafely } from '../../site/lib/static-plot.ts';
import type { Delta } from '../../harness/contract/site-data.ts';
import { parseHTML } from 'linkedom';
import { parseViewState, serializeViewState } from '../../site/lib/url-state.ts';

const delta = (over: Partial<Delta>): Delta => ({
  metric: 'output_throughput', better: 'higher', previous_version: '1.0.0', version: '1.1.0', previous_value: 685.2, value: 587.4, change_pct: -14.27, ci_low_pct: -18.3, ci_high_pct: -12.2,
  p_value: 0.00018, method: 'welch', significant: true, verdict: 'worse', previous_runs: 3, runs: 3, previous_run_id: 'a', run_id: 'b', engine: 'vllm', model: 'm', hardware: 'h', workload: 'w', load: 'c=8', precision: 'p', scenario_id: 's', config_id: 'c', methodology: 'm1',
  ...over,
});

describe('a percentile of too few samples is shown as its sample size', () => {
  it('on a release row whose value compile withheld: n, or its range over the runs', () => {
    expect(samplesOf({ ttft_ms_p99: null, ttft_ms_p99__samples_min: 8, ttft_ms_p99__samples_max: 8 }, 'ttft_ms_p99')?.text).toBe('n = 8');
    expect(samplesOf({ ttft_ms_p99: null, ttft_ms_p99__samples_min: 4, ttft_ms_p99__samples_max: 8 }, 'ttft_ms_p99')).toEqual({ text: 'n = 4–8', title: expect.stringContaining('needs n ≥ 100') });
    // A value that stands (a release of enough samples), or one missing for another reason (not measured): no "n =".
    expect(samplesOf({ ttft_ms_p99: 512, ttft_ms_p99__samples_min: 120, ttft_ms_p99__samples_max: 130 }, 'ttft_ms_p99')).toBeNull();
    expect(samplesOf({ tpot_ms_p95: null }, 'tpot_ms_p95')).toBeNull();
    expect(samplesOf({ output_throughput: null, output_throughput__samples_max: 3 }, 'output_throughput')).toBeNull();
  });

  it('on a point row whose insufficient list names the column, with its distribution’s count', () => {
    const point = { ttft_ms_p99: 931.5, ttft_ms_p50: 402, ttft_ms_n: 8, tpot_ms_p95: 40.1, tpot_ms_n: 8, insufficient: 'ttft_ms_p90,ttft_ms_p95,ttft_ms_p99,tpot_ms_p95' };
    expect(samplesOf(point, 'ttft_ms_p99')?.text).toBe('n = 8');
    expect(samplesOf(point, 'tpot_ms_p95')?.text).toBe('n = 8');
    expect(samplesOf(point, 'ttft_ms_p50')).toBeNull();
    expect(samplesOf({ ...point, insufficient: null }, 'ttft_ms_p99')).toBeNull();
  });

  it('approximate lengths are read from the methodology’s last part', () => {
    expect([approximateLengths('s1.m1.approximate'), approximateLengths('s1.m1.exact'), approximateLengths(null)]).toEqual([true, false, false]);
  });
});

describe('formatting', () => {
  it('numbers keep three significant digits or whole numbers, and say – when missing', () => {
    expect([formatNumber(12345.6), formatNumber(587.4), formatNumber(27.14), formatNumber(3.14159), formatNumber(0.01234), formatNumber(0), formatNumber(null), formatNumber(Number.NaN), formatNumber(64), formatNumber(12.5)]).toEqual(['12,346', '587', '27.1', '3.14', '0.012', '0', '–', '–', '64', '12.5']);
    expect([formatPercent(-14.27), formatPercent(3), formatPercent(0)]).toEqual(['−14.3%', '+3.0%', '±0.0%']);
  });

  it('colours a delta only when significant, and always says it in words with an arrow', () => {
    const worse = describeDelta(delta({}), 'tok/s');
    expect(worse).toMatchObject({ text: '▼ −14.3%', verdict: 'worse', className: 'delta-worse' });
    expect(worse.title).toBe("1.0.0: 685 tok/s → 1.1.0: 587 tok/s; p = 0.0002, 95% CI −18.3% … −12.2% (Welch's t-test, runs 3/3)");
    const noise = describeDelta(delta({ change_pct: 4.2, verdict: 'unclear', significant: false, method: 'noise-band', p_value: 0.31, ci_low_pct: -3, ci_high_pct: 12 }), 'tok/s');
    expect(noise).toMatchObject({ text: '▲ +4.2%', verdict: 'no clear change', className: 'delta-unclear' });
    expect(noise.title).toContain('pooled noise band');
    expect(describeDelta(delta({ method: 'unknown-noise', p_value: null, verdict: 'unclear' }), 'ms').title).toContain('noise unknown');
    expect(describeDelta(delta({ change_pct: 20, verdict: 'better' }), 'tok/s').className).toBe('delta-better');
  });

  it('says which way a metric is better with an arrow and in words', () => {
    expect([directionArrow('higher'), directionArrow('lower')]).toEqual(['↑', '↓']);
    expect([directionWords('higher'), directionWords('lower')]).toEqual(['higher is better', 'lower is better']);
  });
});

describe('URL state', () => {
  const allowed = { loads: ['c=1', 'c=8'], columns: ['rank', 'ttft_ms_p50'], slaMetrics: ['ttft_ms_p99', 'tpot_ms_p95'], metrics: ['output_throughput', 'ttft_ms_p99'] };

  it('round-trips every field', () => {
    const state = { load: 'c=8', sort: 'ttft_ms_p50', dir: 'asc' as const, sla: { tpot_ms_p95: 50, ttft_ms_p99: 2000 }, metric: 'ttft_ms_p99' };
    const search = serializeViewState(state);
    expect(search).toBe('?load=c%3D8&sort=ttft_ms_p50&dir=asc&metric=ttft_ms_p99&sla.tpot_ms_p95=50&sla.ttft_ms_p99=2000');
    expect(parseViewState(search, allowed)).toEqual(state);
    expect(serializeViewState({ load: null, sort: null, dir: 'desc', sla: {}, metric: null })).toBe('');
  });

  it('reads back only allowed keys and sane values', () => {
    expect(parseViewState('?load=c%3D99&sort=drop%20table&dir=sideways&sla.ttft_ms_p99=-5&sla.evil=1&sla.tpot_ms_p95=abc&metric=%3Cscript%3E', allowed)).toEqual({ load: null, sort: null, dir: 'desc', sla: {}, metric: null });
  });
});

describe('SLA limits on the Pareto chart', () => {
  const point = (over: Partial<PointMedians>): PointMedians => ({ engine: 'vllm', engine_version: '1.1.0', load: 'c=8', ttft_ms_p99: 250, ttft_ms_p95: 200, ttft_ms_p50: 80, tpot_ms_p95: 17, itl_ms_p99: 30, e2el_ms_p50: 1500, ...over });

  it('fails a point on each limit it exceeds, and on a limited metric that was not measured; unset limits do not count', () => {
    expect(failures(point({}), {})).toEqual([]);
    expect(failures(point({ itl_ms_p99: null }), { ttft_ms_p99: 250 })).toEqual([]);
    const failed = failures(point({ itl_ms_p99: null }), { ttft_ms_p99: 200, tpot_ms_p95: 20, itl_ms_p99: 50 });
    expect(failed).toEqual([
      { label: 'TTFT p99', unit: 'ms', value: 250, limit: 200 },
      { label: 'ITL p99', unit: 'ms', value: null, limit: 50 },
    ]);
    expect(describeFailures(failed)).toBe('TTFT p99 250 ms > 200 ms; ITL p99 not measured');
  });

  it('draws a TPOT p95 limit as the interactivity bound 1000 ÷ limit, placed through the chart\'s linear scale', () => {
    expect(tpotBound({})).toBeNull();
    expect(tpotBound({ ttft_ms_p99: 100 })).toBeNull();
    expect(tpotBound({ tpot_ms_p95: 12.5 })).toBe(80);
    expect(project(80, [60, 120], [60, 660])).toBe(260);
    expect(project(5, [5, 5], [60, 660])).toBe(60);
  });
});

describe('static charts', () => {
  it('attributes set at build time read back as the same string, whatever it holds', () => {
    const { document } = parseHTML('<!doctype html><html><body></body></html>');
    const hostile = 'x&quot;"><img src=x onerror=alert(1)>&amp;<script>';
    const g = document.createElementNS('http://www.w3.org/2000/svg', 'g');
    setAttributeSafely(g, 'data-engine', hostile);
    const markup = g.outerHTML;
    expect(markup).not.toContain('"><img');
    const back = parseHTML(`<!doctype html><html><body><svg>${markup}</svg></body></html>`).document.querySelector('g')!;
    expect(back.getAttribute('data-engine')).toBe(hostile);
    expect(back.children.length).toBe(0);
  });
});

describe('CSV', () => {
  it('quotes what needs quoting and defuses spreadsheet formulas', () => {
    expect(toCsv(['a', 'b'], [['1,5', 'say "hi"'], ['=HYPERLINK("x")', '-12.5']])).toBe('a,b\r\n"1,5","say ""hi"""\r\n"\'=HYPERLINK(""x"")",-12.5\r\n');
  });

  it("exports the leaderboard as numbers under the dictionary's names: interval columns, engine and release apart, an unsupported percentile empty", () => {
    const keys = ['rank', 'engine', 'output_throughput', 'ttft_ms_p99', 'delta'];
    const csv = leaderboardCsv(keys, [
      [{ value: '1' }, { value: 'vllm', version: '0.26.0' }, { value: '5241.25', lo: '4399', hi: '5868.5' }, { value: '812.5', supported: false }, { value: '-3.2' }],
      [{ value: '' }, { value: 'sglang', version: '0.5.21' }, { value: '4100' }, { value: '', supported: false }, { value: '' }],
    ]);
    expect(csv.split('\r\n')).toEqual([
      'rank,engine,engine_version,output_throughput,output_throughput_lo,output_throughput_hi,ttft_ms_p99,output_throughput_change_pct',
      '1,vllm,0.26.0,5241.25,4399,5868.5,,-3.2',
      ',sglang,0.5.21,4100,,,,',
      '',
    ]);
  });
});
