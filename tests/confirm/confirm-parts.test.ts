/**
 * confirm's pieces without a launch: a regression's configuration rebuilt from its run's recorded
 * command (load narrowed to its point; what cannot be replayed refused with the reason), the
 * examinations (one A/B per release pair, configuration and load point, designed on the catalog's
 * first metric among them), the budget rule, and several runner classes' files read as one.
 * Run files and reports here are SYNTHETIC (a recorded command line is all that is read of a run).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AlertRegression } from '../../harness/pipeline/regressions/report.ts';
import { groupKey, scenarioOf } from '../../harness/pipeline/alert/groups.ts';
import { armOptionsOf, loadFlags } from '../../harness/pipeline/confirm/configuration.ts';
import { confirmationsByKey, type Confirmation, type Confirmations } from '../../harness/pipeline/confirm/confirmations.ts';
import { overBudget, planExaminations } from '../../harness/pipeline/confirm/examinations.ts';

const results = mkdtempSync(join(tmpdir(), 'sb-confirm-parts-'));

function runFile(name: string, command: unknown): string {
  mkdirSync(join(results, 'd'), { recursive: true });
  writeFileSync(join(results, 'd', name), JSON.stringify({ harness: { command } }));
  return `d/${name}`;
}

const LANE_RUN = ['servebench', 'run', '--engine', 'llamacpp', '--launcher', 'process', '--model', 'dummy:qwen3-0.6b:Q4_K_M', '--workload', 'cpu-chat-short', '--concurrency', '1,4', '--max-num-seqs', '4', '--max-model-len', '2048', '--engine-version', 'b8095', '--source', 'official', '--results-dir', 'results', '--no-progress'];

describe('a regression\'s configuration, from the command line its run recorded', () => {
  it('keeps every run option both arms take, drops the release, the output and the source, and narrows the load to the regression\'s point', () => {
    const file = runFile('lane.json', LANE_RUN);
    expect(armOptionsOf({ file, load: 'c=4', engine: 'llamacpp' }, results, null)).toEqual({
      runFile: file,
      raw: { engine: 'llamacpp', launcher: 'process', model: 'dummy:qwen3-0.6b:Q4_K_M', workload: 'cpu-chat-short', 'max-num-seqs': '4', 'max-model-len': '2048', concurrency: '4' },
    });
    // This runner's GPU set replaces the one the regressed run's runner owned.
    const gpu = runFile('gpu.json', ['servebench', 'run', '--engine', 'vllm', '--model', 'm', '--workload', 'chat', '--rate', '1,2,4', '--gpu', '2,3']);
    expect(armOptionsOf({ file: gpu, load: 'rate=2 max=64', engine: 'vllm' }, results, '0,1')).toEqual({ runFile: gpu, raw: { engine: 'vllm', model: 'm', workload: 'chat', gpu: '0,1', rate: '2' } });
  });

  it('says why a configuration cannot be replayed: no file, a file outside --results, not a run, an external endpoint, a redacted credential, a trace', () => {
    const problem = (regression: Parameters<typeof armOptionsOf>[0]) => {
      const outcome = armOptionsOf(regression, results, null);
      return 'problem' in outcome ? outcome.problem : 'none';
    };
    expect(problem({ file: null, load: 'c=1', engine: 'sim' })).toMatch(/regress named no result file/);
    expect(problem({ file: '../../etc/passwd', load: 'c=1', engine: 'sim' })).toMatch(/lies outside --results/);
    expect(problem({ file: 'd/none.json', load: 'c=1', engine: 'sim' })).toMatch(/cannot read the run file d\/none\.json .*\(ENOENT\)/);
    expect(problem({ file: runFile('load.json', ['servebench', 'load', '--endpoint', 'http://x']), load: 'c=1', engine: 'sim' })).toMatch(/was not made by `servebench run`/);
    expect(problem({ file: runFile('ext.json', ['servebench', 'run', '--engine', 'sim', '--launcher', 'external', '--endpoint', 'http://127.0.0.1:1', '--model', 'm', '--workload', 'smoke']), load: 'c=1', engine: 'sim' })).toMatch(/--launcher external/);
    expect(problem({ file: runFile('key.json', ['servebench', 'run', '--engine', 'sim', '--model', 'm', '--workload', 'smoke', '--extra-body', '<redacted>']), load: 'c=1', engine: 'sim' })).toMatch(/redacted --extra-body/);
    expect(problem({ file: runFile('trace.json', LANE_RUN), load: 'trace x2', engine: 'llamacpp' })).toMatch(/load "trace x2" is not a closed or open load point/);
    expect(problem({ file: runFile('bad.json', ['servebench', 'run', '--no-such-flag']), load: 'c=1', engine: 'sim' })).toMatch(/does not parse/);
  });

  it('reads regress\'s load labels as the run flags of that point', () => {
    expect(loadFlags('c=16')).toEqual({ concurrency: '16' });
    expect(loadFlags('rate=inf')).toEqual({ rate: 'inf' });
    // The cap of an open load is its workload's: run takes no flag for it.
    expect(loadFlags('rate=0.5 max=8')).toEqual({ rate: '0.5' });
    expect(loadFlags('trace x1')).toBeNull();
  });
});

function regression(metric: string, load: string, edit: Partial<AlertRegression> = {}): AlertRegression {
  const base = { key: `${metric}-${load}`, engine: 'llamacpp', version: 'v0.4.0', previous_version: 'b8095', metric, load, model: 'dummy/Llama-3.2-1B', precision: 'Q4_K_M', hardware: 'cpu-4x-AMD EPYC 7763', workload: 'cpu-rag', methodology: 's1', config_id: 'c', scenario_id: 's1', better: metric.includes('throughput') ? 'higher' : 'lower', previous_value: 1, value: 2, change_pct: 50, ci_low_pct: null, ci_high_pct: null, p_value: 0.01, method: 'welch', significant: true, verdict: 'worse', previous_runs: 3, runs: 3, previous_run_id: 'p', run_id: 'r', previous_file: null, file: 'x.json', url: null, previous_url: null };
  return { ...base, ...edit } as AlertRegression;
}

describe('examinations: one A/B per release pair, configuration and load point', () => {
  it('groups the metrics of one point, designs the A/B on the catalog\'s first of them, and keeps apart what ab cannot compare', () => {
    const rows = [regression('ttft_ms_p50', 'c=1'), regression('tpot_ms_p50', 'c=4'), regression('output_throughput', 'c=4'), regression('e2el_ms_p50', 'c=1'), regression('gpu_peak_memory_mib', 'c=1'), regression('output_throughput', 'c=4', { key: 'other scenario', scenario_id: 's2' })];
    const { examinations, unmeasurable } = planExaminations(rows);
    expect(examinations.map((e) => [e.load, e.metric, e.regressions.map((r) => r.metric)])).toEqual([
      ['c=1', 'ttft_ms_p50', ['ttft_ms_p50', 'e2el_ms_p50']],
      ['c=4', 'output_throughput', ['output_throughput', 'tpot_ms_p50']],
      ['c=4', 'output_throughput', ['output_throughput']],
    ]);
    // The issue alert files them under: one per engine release and configuration.
    expect(examinations[0]!.groupKey).toBe(groupKey('llamacpp', 'v0.4.0', scenarioOf(rows[0]!)));
    expect(examinations[2]!.groupKey).not.toBe(examinations[1]!.groupKey);
    expect(unmeasurable.map((u) => [u.regression.metric, u.reason])).toEqual([['gpu_peak_memory_mib', expect.stringMatching(/^an A\/B compares output_throughput, .*; not gpu_peak_memory_mib$/)]]);
  });

  it('the budget: the first A/B always starts; a later one only when, at the A/Bs\' mean so far, it ends within the budget', () => {
    expect(overBudget(10_000, [], 60)).toBeNull();
    expect(overBudget(100, [1000], null)).toBeNull();
    expect(overBudget(1000, [1000, 2000], 5400)).toBeNull();
    expect(overBudget(4000, [1000, 2000], 5400)).toBe('the budget (90 min) would run out before its A/B ended (66.7 min spent, an A/B takes about 25.0 min here)');
  });
});

describe('confirmations of several runner classes, read as one', () => {
  const entry = (key: string, status: Confirmation['status'], reason: Confirmation['reason']): Confirmation => ({ key, group_key: 'g', engine: 'e', previous_version: 'a', version: 'b', model: 'm', hardware: 'h', workload: 'w', load: 'c=1', metric: 'output_throughput', better: 'higher', change_pct: -20, status, reason, detail: '', paired: null, bisection: null });
  const file = (confirmations: Confirmation[]): Confirmations => ({ kind: 'confirmations', schema_version: 1, status: 'completed', started_at: 't', finished_at: 't', command: ['servebench', 'confirm'], regressions_file: 'r', results_dir: 'results', budget_s: null, wall_s: 0, ab_runs: 0, bisections: 0, confirmations });

  it('an examined entry wins over "not examined", a confirmation over any other verdict', () => {
    const merged = confirmationsByKey([file([entry('a', 'not confirmed', 'not examined'), entry('b', 'not confirmed', 'inconclusive')]), file([entry('a', 'not confirmed', 'no change'), entry('b', 'confirmed', 'slower'), entry('c', 'not confirmed', 'not examined')])]);
    expect(Object.fromEntries([...merged].map(([key, c]) => [key, c.reason]))).toEqual({ a: 'no change', b: 'slower', c: 'not examined' });
  });
});
