/** Edge cases: pinned prompt sets, override semantics, impossible lengths, large datasets, dataset slices. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeLoadOptions } from '../../harness/measure/load/load-options.ts';
import { pointPrompts } from '../../harness/measure/load/point-prompts.ts';
import { WorkloadSchema } from '../../harness/contract/workload.ts';
import { loadModelTokenizer } from '../../harness/measure/tokenizer/hf-tokenizer.ts';
import { buildRequest } from '../../harness/measure/workloads/build-request.ts';
import { loadDataset, preloadDataset } from '../../harness/measure/workloads/datasets.ts';
import { loadWorkload } from '../../harness/measure/workloads/spec-file.ts';
import { loadAgainst } from '../load/run-sim.ts';
import { fastSim } from '../load/sim-fixture.ts';

const bpe = loadModelTokenizer('tests/fixtures/tokenizer-bpe');
const body = { model: 'any-name', temperature: 0, ignoreEos: true, extraBody: {} };
const dir = mkdtempSync(join(tmpdir(), 'servebench-review-'));

describe('pinned prompt sets', () => {
  // Values recorded when the synthesis was written. A change here changes every prompt set on
  // every machine: it is a methodology change (docs/CHANGELOG.md), never a test to update quietly.
  for (const [name, sha] of [
    ['smoke', 'dd761d1fa7aaa0bb07786c3a2d5751c76f1d7c8f387e16933492ca7d01a560e9'],
    ['chat', '00f3795b0d1ed0a678183c3afbfbb9d2e3d50fd50eb1e1ffaa6972409f18e888'],
    ['multi-turn', '5fe6ab9ed5d4f5d4cb53638b7d46375c98062fc02c4c9430e149bffb21373d0a'],
  ] as const) {
    it(`${name}: the first 8 prompts hash as recorded, whatever the model name`, async () => {
      const prompts = await pointPrompts({ build: { workload: loadWorkload(name), tokenizer: bpe }, body }, 0, 'measure', 0);
      expect(prompts.sha256(8)).toBe(sha);
      const renamed = await pointPrompts({ build: { workload: loadWorkload(name), tokenizer: bpe }, body: { ...body, model: 'other' } }, 0, 'measure', 0);
      expect(renamed.sha256(8)).toBe(sha);
    });
  }
});

describe('flags override single fields', () => {
  const gamma = join(dir, 'gamma.yaml');
  writeFileSync(
    gamma,
    'name: gamma\ndescription: x\napi: completions\ninput: { dist: fixed, tokens: 8 }\noutput: { dist: fixed, tokens: 4 }\nrequests: { count: 10 }\nload: { rates: [1], arrival: gamma, burstiness: 0.5, max_concurrency: 8 }\nslo: { ttft_ms: 100, tpot_ms: 20 }\nprefix_caching: irrelevant\n',
  );
  const base = { endpoint: 'http://127.0.0.1:1', model: 'm' };

  it('--rate keeps the arrival process and the cap of an open-loop scenario', () => {
    const config = normalizeLoadOptions({ ...base, workload: gamma, rate: '4,8' }, {});
    expect(config.loads).toEqual([
      { mode: 'open', rate: 4, arrival: 'gamma', burstiness: 0.5, max_concurrency: 8 },
      { mode: 'open', rate: 8, arrival: 'gamma', burstiness: 0.5, max_concurrency: 8 },
    ]);
  });

  it('--slo replaces only the limits it names; --duration keeps the scenario count as a cap', () => {
    const config = normalizeLoadOptions({ ...base, workload: gamma, slo: 'ttft_ms=500', duration: '30' }, {});
    expect(config.workload.slo).toEqual({ ttft_ms: 500, tpot_ms: 20 });
    expect([config.numPrompts, config.durationS]).toEqual([10, 30]);
    const adHoc = normalizeLoadOptions({ ...base, duration: '30' }, {});
    expect([adHoc.numPrompts, adHoc.durationS]).toEqual([null, 30]);
  });

  it('arrival flags are refused on a trace replay', () => {
    expect(() => normalizeLoadOptions({ ...base, workload: 'trace-replay', arrival: 'gamma' }, {})).toThrow(/--arrival does not apply to a trace replay/);
  });
});

describe('impossible lengths are bad input, found before measuring', () => {
  it('an input below the chat template size is refused with exit status 2', async () => {
    const sim = await fastSim();
    await expect(loadAgainst(sim.url, { api: 'chat', 'input-len': '3', tokenizer: 'tests/fixtures/tokenizer-bpe' })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/input: the scenario can draw 3 tokens, but every chat request holds \d+ with this tokenizer/),
    });
    expect(sim.groundTruth()).toHaveLength(0);
  });

  it('a shared prefix as long as the shortest possible input is refused by the schema', () => {
    const parsed = WorkloadSchema.safeParse({
      ...loadWorkload('rag-shared-prefix'),
      input: { dist: 'uniform', min: 100, max: 5000 },
      shared_prefix: { tokens: 3072, groups: 2 },
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(['shared_prefix', 'tokens']);
  });

  it('a one-token completions prompt is the BOS alone (empty text), which is exact', () => {
    const w = WorkloadSchema.parse({ ...loadWorkload('smoke'), input: { dist: 'fixed', tokens: 1 } });
    const request = buildRequest({ workload: w, tokenizer: bpe }, 0, 'measure', 0);
    expect(request.input).toEqual({ prompt: '' });
    expect(bpe.countPrompt('')).toBe(1);
  });

  it('chat with a tokenizer that has no chat template is recorded as approximate', async () => {
    const sim = await fastSim();
    const { result } = await loadAgainst(sim.url, { workload: 'smoke', api: 'chat', tokenizer: 'tests/fixtures/tokenizer-words', concurrency: '1' });
    expect(result.workload.lengths).toBe('approximate');
  });
});

describe('datasets', () => {
  it('a large JSON array is streamed element by element, across read chunks, with the same result', async () => {
    const conversations = Array.from({ length: 3000 }, (_, i) => ({
      id: `c${i}`,
      conversations: [
        { from: 'human', value: `question ${i} with "quotes", braces {} [] and a backslash \\ ${'word '.repeat(150)}` },
        { from: 'gpt', value: `answer ${i} ${'reply '.repeat(20 + (i % 7))}` },
      ],
    }));
    const file = join(dir, 'big.json');
    writeFileSync(file, JSON.stringify(conversations, null, 1));
    const dataset = { format: 'sharegpt' as const, path: file, text: 'original' as const };
    const streamed = await preloadDataset({ ...dataset, min_input_tokens: 2 }, 'completions', null);
    const whole = loadDataset({ ...dataset, min_input_tokens: 3 }, 'completions', null);
    expect(streamed).toEqual(whole);
    expect(streamed).toHaveLength(3000);
    expect(JSON.stringify(conversations).length).toBeGreaterThan(2 * (1 << 20)); // spans several 1 MiB read chunks
    const limited = await preloadDataset({ ...dataset, min_input_tokens: 1 }, 'completions', null, 100);
    expect(limited).toHaveLength(100);
  });

  it('points and warmup send different conversations while the dataset lasts', () => {
    const lines = Array.from({ length: 40 }, (_, i) => JSON.stringify({ conversations: [{ from: 'human', value: `prompt number ${i}` }, { from: 'gpt', value: 'a reply' }] }));
    const file = join(dir, 'forty.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const w = WorkloadSchema.parse({ ...loadWorkload('sharegpt'), dataset: { format: 'sharegpt', path: file }, requests: { count: 10, warmup: 2 } });
    const texts = (point: number, purpose: 'measure' | 'warmup', n: number): string[] =>
      Array.from({ length: n }, (_, i) => JSON.stringify(buildRequest({ workload: w, tokenizer: null }, point, purpose, i).input));
    const all = [...texts(0, 'measure', 10), ...texts(1, 'measure', 10), ...texts(0, 'warmup', 2), ...texts(1, 'warmup', 2)];
    expect(new Set(all).size).toBe(all.length);
  });
});
