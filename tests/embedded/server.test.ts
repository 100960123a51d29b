/** The embedded CPU engine (llama.cpp via node-llama-cpp) measured by servebench, as the demo does. */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDummyModel, ensureDummyTokenizer } from '../../harness/engines/embedded/dummy-model.ts';
import { startEmbeddedServer, type EmbeddedServer } from '../../harness/engines/embedded/server.ts';
import { TextStream } from '../../harness/engines/embedded/text-stream.ts';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { runCli } from '../cli/run-cli.ts';
import { loadAgainst } from '../load/run-sim.ts';

const cache = mkdtempSync(join(tmpdir(), 'sb-models-'));

describe('text stream', () => {
  it('holds back a split character, and releases bytes that never form one', () => {
    const bytes = [0xe6, 0x97, 0xa5, 0xff, 0xfe, 0xfd, 0xfc, 0x41];
    const stream = new TextStream((ids) => Buffer.from(ids.map((i) => bytes[i]!)).toString('utf8'));
    const deltas = bytes.map((_, i) => stream.push(i));
    expect(deltas.slice(0, 3)).toEqual(['', '', '日']);
    expect(deltas.join('') + stream.flush()).toBe(Buffer.from(bytes).toString('utf8'));
    expect(deltas.filter((d) => d !== '').length).toBeGreaterThanOrEqual(2);
  });
});

describe('embedded engine', () => {
  let server: EmbeddedServer;
  beforeAll(async () => {
    server = await startEmbeddedServer({ modelPath: ensureDummyModel(cache, 'micro'), modelName: 'micro', host: '127.0.0.1', port: 0, parallel: 2, contextPerSequence: 256, threads: 1 });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  for (const api of ['completions', 'chat'] as const) {
    it(`${api}: exact prompt lengths, exactly max_tokens with ignore_eos, usage from the server, requests batched`, { timeout: 60_000 }, async () => {
      const tokenizer = ensureDummyTokenizer(ensureDummyModel(cache, 'micro'), 'micro');
      const { result } = await loadAgainst(server.url, { model: 'micro', api, tokenizer, 'input-len': '24', 'output-len': '20', 'num-prompts': '6', concurrency: '1,2', warmup: '1', 'save-requests': true });
      expect(result.workload.lengths).toBe('exact');
      expect(result.workload.length_check).toMatchObject({ checked: 6, mismatched: 0 });
      for (const point of result.points) {
        expect(point.metrics.failed).toBe(0);
        expect(point.requests!.every((r) => r.output_tokens === 20 && r.content_events > 0)).toBe(true);
        expect(point.token_count_sources.output.usage).toBe(6);
        expect(point.input_tokens_mismatched).toBe(0);
        expect(point.requests!.every((r) => r.server_prompt_tokens === 24)).toBe(true);
      }
      expect(result.workload.length_check.endpoint).toBe('/tokenize (vllm style)');
    });
  }
});

describe('servebench run --engine embedded', () => {
  it('launches the engine as a process, measures and writes the result', { timeout: 120_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(['run', '--engine', 'embedded', '--model', 'micro', '--workload', 'smoke', '--concurrency', '1,2', '--max-num-seqs', '2', '--results-dir', results], 120_000, { SERVEBENCH_MODEL_CACHE: cache });
    expect(outcome.code).toBe(0);
    const file = (readdirSync(results, { recursive: true }) as string[]).find((f) => f.endsWith('.json'))!;
    const result = RunResultSchema.parse(JSON.parse(readFileSync(join(results, file), 'utf8')));
    expect(result.run!.engine).toMatchObject({ name: 'embedded', version: expect.stringMatching(/-embedded$/) });
    expect(result.run!.probe).toMatchObject({ ignore_eos_honoured: true, usage: 'usage_chunk', role_chunk: false });
    expect(result.points.every((p) => p.metrics.completed === 8)).toBe(true);
  });

  it('asked for a release it does not run, records both the asked and the reported release', { timeout: 120_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(['run', '--engine', 'embedded', '--engine-version', '0.0.1', '--model', 'micro', '--workload', 'smoke', '--concurrency', '1', '--results-dir', results], 120_000, { SERVEBENCH_MODEL_CACHE: cache });
    expect(outcome.code).toBe(0);
    const file = (readdirSync(results, { recursive: true }) as string[]).find((f) => f.endsWith('.json'))!;
    const result = RunResultSchema.parse(JSON.parse(readFileSync(join(results, file), 'utf8')));
    expect(result.run!.engine.version).toMatch(/-embedded$/);
    expect(result.run!.parameters).toMatchObject({ engine_version: '0.0.1' });
  });
});
