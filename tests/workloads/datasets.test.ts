/** ShareGPT datasets and request traces, loaded, filtered and replayed against the sim. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModelTokenizer } from '../../harness/measure/tokenizer/hf-tokenizer.ts';
import { loadDataset, traceOffsetsMs } from '../../harness/measure/workloads/datasets.ts';
import { loadAgainst } from '../load/run-sim.ts';
import { fastSim } from '../load/sim-fixture.ts';

const SHAREGPT = 'tests/fixtures/sharegpt-sample.jsonl';
const TRACE = 'tests/fixtures/trace-sample.jsonl';
const words = loadModelTokenizer('tests/fixtures/tokenizer-words');

describe('ShareGPT', () => {
  it('takes the first user turn and the reply after it; skips conversations without both', () => {
    const entries = loadDataset({ format: 'sharegpt', path: SHAREGPT, text: 'original' }, 'completions', words);
    expect(entries.map((e) => e.text?.slice(0, 20))).toEqual(['What did the Preside', 'Summarize the state ', 'Name three things a ', 'Hi']);
    expect(entries[0]).toMatchObject({ inputTokens: 14, outputTokens: 26 });
  });

  it('applies the length filters', () => {
    const entries = loadDataset({ format: 'sharegpt', path: SHAREGPT, text: 'original', min_input_tokens: 4, min_output_tokens: 4 }, 'completions', words);
    expect(entries).toHaveLength(3);
    expect(entries.every((e) => e.inputTokens >= 4 && e.outputTokens >= 4)).toBe(true);
  });

  it('reads a JSON array as well as JSONL, and names the line of a broken JSONL file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'servebench-ds-'));
    const array = join(dir, 'array.json');
    writeFileSync(array, JSON.stringify([{ conversations: [{ from: 'human', value: 'a b c' }, { from: 'gpt', value: 'd e' }] }]));
    expect(loadDataset({ format: 'sharegpt', path: array, text: 'original' }, 'completions', null)).toEqual([{ text: 'a b c', inputTokens: 3, outputTokens: 2, timestampMs: null }]);
    const broken = join(dir, 'broken.jsonl');
    writeFileSync(broken, '{"conversations": []}\n{oops\n');
    expect(() => loadDataset({ format: 'sharegpt', path: broken, text: 'original' }, 'completions', null)).toThrow(/broken\.jsonl:2: not a JSON line/);
    expect(() => loadDataset({ format: 'sharegpt', path: join(dir, 'missing.json'), text: 'original' }, 'completions', null)).toThrow(/does not exist; download the file there or give --dataset PATH/);
  });

  it('a run sends the dataset prompts with their reply lengths as max_tokens', async () => {
    const sim = await fastSim();
    const { result } = await loadAgainst(sim.url, {
      workload: 'sharegpt',
      dataset: SHAREGPT,
      tokenizer: 'tests/fixtures/tokenizer-words',
      rate: 'inf',
      'num-prompts': '6',
      'save-requests': true,
    });
    const point = result.points[0]!;
    expect(point.metrics.completed).toBe(6);
    // The words tokenizer has no chat template: chat prompts count as their text; the sim adds its template.
    // The scenario's filters (≥ 4 tokens each way) drop the "Hi"/"Hello" pair: three conversations remain.
    expect(new Set(point.requests!.map((r) => r.output_tokens))).toEqual(new Set([26, 10, 33]));
    expect(result.workload.spec.dataset!.path).toMatch(/sharegpt-sample\.jsonl$/);
  });
});

describe('traces', () => {
  it('reads servebench and Mooncake field names; offsets keep the real gaps, scaled', () => {
    const entries = loadDataset({ format: 'trace', path: TRACE, text: 'synthetic' }, 'completions', null);
    expect(entries.map((e) => [e.timestampMs, e.inputTokens, e.outputTokens])).toEqual([
      [0, 12, 4],
      [100, 30, 8],
      [150, 7, 2],
      [400, 20, 6],
      [400, 9, 3],
    ]);
    expect(Array.from(traceOffsetsMs(entries, 0.5, null))).toEqual([0, 50, 75, 200, 200]);
    expect(Array.from(traceOffsetsMs(entries, 1, 2))).toEqual([0, 100]);
  });

  it('rejects decreasing timestamps and missing fields, naming the line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'servebench-trace-'));
    const back = join(dir, 'back.jsonl');
    writeFileSync(back, '{"timestamp_ms": 5, "input_tokens": 1, "output_tokens": 1}\n{"timestamp_ms": 4, "input_tokens": 1, "output_tokens": 1}\n');
    expect(() => loadDataset({ format: 'trace', path: back, text: 'synthetic' }, 'completions', null)).toThrow(/back\.jsonl:2: timestamps must not decrease/);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"timestamp_ms": 5, "input_tokens": 0}\n');
    expect(() => loadDataset({ format: 'trace', path: bad, text: 'synthetic' }, 'completions', null)).toThrow(/bad\.jsonl:1: a trace line needs/);
  });

  it('replays the trace: arrival times follow the trace, prompts have its lengths exactly', async () => {
    const sim = await fastSim();
    const run = await loadAgainst(sim.url, { workload: 'trace-replay', dataset: TRACE, tokenizer: 'tests/fixtures/tokenizer-words', 'num-prompts': '5', warmup: '0', 'save-requests': true });
    const point = run.result.points[0]!;
    expect(point.load).toEqual({ mode: 'trace', time_scale: 1, max_concurrency: null });
    const records = [...run.records[0]!].sort((a, b) => a.scheduledMs - b.scheduledMs);
    const start = records[0]!.scheduledMs;
    expect(records.map((r) => Math.round(r.scheduledMs - start))).toEqual([0, 100, 150, 400, 400]);
    expect(records.map((r) => r.serverPromptTokens)).toEqual([12, 30, 7, 20, 9]);
    expect(records.map((r) => r.outputTokens)).toEqual([4, 8, 2, 6, 3]);
  });
});
