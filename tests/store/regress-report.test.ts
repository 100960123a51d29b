/**
 * The regression report (harness/store/regress.ts) in process, on SYNTHETIC deltas: which deltas
 * are regressions, in what order, with what stable key, and the issue body written from them,
 * compared whole with the text a reader gets.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Delta } from '../../harness/contract/site-data.ts';
import { findRegressions, regressionsMarkdown } from '../../harness/store/regress.ts';

const delta = (over: Partial<Delta>): Delta => ({
  config_id: 'cfg', scenario_id: 'scn', model: 'synthetic/m', precision: 'bf16', hardware: '1x-Synthetic H100', workload: 'chat', methodology: 's1.m1.exact', load: 'c=8', engine: 'vllm',
  metric: 'output_throughput', better: 'higher', previous_version: '1.0.0', version: '1.1.0', previous_value: 1000, value: 850, change_pct: -15, ci_low_pct: -18.25, ci_high_pct: -11.5,
  p_value: 0.00321, method: 'welch', significant: true, verdict: 'worse', previous_runs: 3, runs: 3, previous_run_id: 'run-a', run_id: 'run-b', ...over,
});

describe('findRegressions', () => {
  it('orders by engine, model, hardware, workload, load and metric, each deciding only on a tie of those before it', () => {
    const shuffled = [
      delta({ engine: 'vllm', model: 'b', metric: 'ttft_ms_p50' }),
      delta({ engine: 'vllm', model: 'a', hardware: 'h2', workload: 'w1', load: 'c=1', metric: 'z' }),
      delta({ engine: 'vllm', model: 'a', hardware: 'h1', workload: 'w2', load: 'c=1', metric: 'a' }),
      delta({ engine: 'vllm', model: 'a', hardware: 'h1', workload: 'w1', load: 'c=2', metric: 'a' }),
      delta({ engine: 'vllm', model: 'a', hardware: 'h1', workload: 'w1', load: 'c=1', metric: 'b' }),
      delta({ engine: 'vllm', model: 'a', hardware: 'h1', workload: 'w1', load: 'c=1', metric: 'a' }),
      delta({ engine: 'sglang', model: 'z', hardware: 'h9', workload: 'w9', load: 'c=9', metric: 'z' }),
    ];
    const order = findRegressions(shuffled, 10, new Map()).map((r) => [r.engine, r.model, r.hardware, r.workload, r.load, r.metric].join(' '));
    expect(order).toEqual([
      'sglang z h9 w9 c=9 z',
      'vllm a h1 w1 c=1 a',
      'vllm a h1 w1 c=1 b',
      'vllm a h1 w1 c=2 a',
      'vllm a h1 w2 c=1 a',
      'vllm a h2 w1 c=1 z',
      'vllm b 1x-Synthetic H100 chat c=8 ttft_ms_p50',
    ]);
  });

  it('keys a regression by engine, both versions, configuration and metric: 16 hex of their sha256, the same on every night', () => {
    const [r] = findRegressions([delta({})], 10, new Map([['run-a', 'results/a.json'], ['run-b', 'results/b.json']]));
    expect(r!.key).toBe(createHash('sha256').update('vllm|1.0.0|1.1.0|cfg|output_throughput').digest('hex').slice(0, 16));
    expect([r!.previous_file, r!.file]).toEqual(['results/a.json', 'results/b.json']);
    // Not part of the key: the values of the night.
    expect(findRegressions([delta({ value: 800, change_pct: -20, p_value: 0.01 })], 10, new Map())[0]!.key).toBe(r!.key);
    const keys = [delta({ engine: 'x' }), delta({ previous_version: 'x' }), delta({ version: 'x' }), delta({ config_id: 'x' }), delta({ metric: 'x' })].map((d) => findRegressions([d], 10, new Map())[0]!.key);
    expect(new Set([...keys, r!.key]).size).toBe(6);
  });
});

describe('regressionsMarkdown', () => {
  it('says so when there is none', () => {
    expect(regressionsMarkdown([], () => '')).toBe('No regressions.\n');
  });

  it('one table per engine and version pair, a row per regression, links and the keys', () => {
    const regressions = findRegressions(
      [
        delta({}),
        delta({ metric: 'ttft_ms_p50', better: 'lower', previous_value: 52.25, value: 61.5, change_pct: 17.7, ci_low_pct: null, ci_high_pct: null, p_value: null, method: 'unknown-noise', previous_runs: 1, runs: 1 }),
        delta({ metric: 'tpot_ms_p50', better: 'lower', previous_value: 8.125, value: 9.5, change_pct: 16.92, p_value: 0.00004, method: 'noise-band', previous_runs: 3, runs: 1, load: 'c=1' }),
        delta({ engine: 'sglang', previous_version: '2.0.0', version: '2.1.0', metric: 'made_up_metric', workload: 'a|b', change_pct: -40, previous_value: 10, value: 6 }),
      ],
      10,
      new Map([['run-b', 'results/2026/b.json']]),
    );
    const link = (file: string | null, runId: string) => (file === null ? `run/${runId}` : `blob/${file}`);
    const keys = regressions.map((r) => r.key).join(' ');
    expect(regressionsMarkdown(regressions, link)).toBe(
      [
        '### sglang 2.0.0 → 2.1.0',
        '',
        '| configuration | metric | previous | new | change | 95% CI | p | runs |',
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
        '| synthetic/m · bf16 · 1x-Synthetic H100 · a\\|b · c=8 | made\\_up\\_metric | 10.0 | 6.00 | -40.0% | -18.3% … -11.5% | 0.0032 (welch, n=3/3) | [previous](run/run-a) · [new](blob/results/2026/b.json) |',
        '',
        '### vllm 1.0.0 → 1.1.0',
        '',
        '| configuration | metric | previous | new | change | 95% CI | p | runs |',
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
        '| synthetic/m · bf16 · 1x-Synthetic H100 · chat · c=1 | TPOT p50 (ms) | 8.13 | 9.50 | +16.9% | -18.3% … -11.5% | <0.0001 (noise-band, n=3/1) | [previous](run/run-a) · [new](blob/results/2026/b.json) |',
        '| synthetic/m · bf16 · 1x-Synthetic H100 · chat · c=8 | Output throughput (tok/s) | 1000 | 850 | -15.0% | -18.3% … -11.5% | 0.0032 (welch, n=3/3) | [previous](run/run-a) · [new](blob/results/2026/b.json) |',
        '| synthetic/m · bf16 · 1x-Synthetic H100 · chat · c=8 | TTFT p50 (ms) | 52.3 | 61.5 | +17.7% | n/a | n/a (unknown-noise, n=1/1) | [previous](run/run-a) · [new](blob/results/2026/b.json) |',
        '',
        `<!-- servebench regression keys: ${keys} -->`,
        '',
      ].join('\n'),
    );
  });
});
