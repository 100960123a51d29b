/**
 * `servebench accuracy` end to end, as a user runs it (the CLI in a child process), against the
 * GSM8K test server on 127.0.0.1 (tests/kit/fakes/gsm8k-answer-server.ts): the dataset's own
 * solutions score 1.0, solutions with a wrong final number score 0, planted HTTP 500s are counted
 * and exit 1, and a model with dummy weights is skipped with its reason.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AccuracySchema, AccuracyScoredSchema, type AccuracyScored } from '../../harness/contract/accuracy.ts';
import type { FakeServer } from '../kit/fakes/fake-server.ts';
import { startGsm8kAnswerServer, type Gsm8kAnswerServerOptions } from '../kit/fakes/gsm8k-answer-server.ts';
import { runCli } from '../cli/run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'servebench-accuracy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function server(options: Gsm8kAnswerServerOptions): Promise<FakeServer> {
  const started = await startGsm8kAnswerServer(options);
  servers.push(started);
  return started;
}

function generations(fake: FakeServer): Array<Record<string, unknown>> {
  return fake.requests.filter((request) => request.method === 'POST').map((request) => JSON.parse(request.body) as Record<string, unknown>);
}

async function accuracy(url: string, ...args: string[]): Promise<{ code: number; block: AccuracyScored; stderr: string }> {
  const outcome = await runCli(['accuracy', '--endpoint', url, '--model', 'gsm8k-test-model', '--json', ...args]);
  return { code: outcome.code, block: AccuracyScoredSchema.parse(JSON.parse(outcome.stdout)), stderr: outcome.stderr };
}

describe('servebench accuracy against a server that answers with the dataset', () => {
  it("scores the dataset's own solutions 1.0 on 250 seeded problems, interval [0.985, 1], as lm-eval asks them", async () => {
    const oracle = await server({ mode: 'oracle' });
    const { code, block } = await accuracy(oracle.url);
    expect(code).toBe(0);
    expect(block).toMatchObject({ status: 'scored', task: 'gsm8k', problems: 250, answered: 250, failed: 0, shots: 5, seed: 0, api: 'completions', headline: 'flexible' });
    expect(block.dataset.sha256).toBe('3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14');
    expect(block.correct).toEqual({ strict: 250, flexible: 250 });
    expect(block.accuracy).toEqual({ strict: 1, flexible: 1 });
    expect(block.interval.flexible![0]).toBeCloseTo(0.9849, 4);
    expect(block.interval.flexible![1]).toBe(1);
    expect(block.records.map((record) => record.id)).toEqual([...block.records.map((record) => record.id)].sort((a, b) => a - b));
    expect(block.records.some((record) => block.exemplar_ids.includes(record.id))).toBe(false);
    const sent = generations(oracle);
    expect(sent).toHaveLength(250);
    for (const body of sent) {
      expect(body).toMatchObject({ model: 'gsm8k-test-model', temperature: 0, max_tokens: 256, stop: ['Question:', '</s>', '<|im_end|>'], stream: true });
      const prompt = body['prompt'] as string;
      // Five exemplars with their solutions, then the problem: six questions, the last one open.
      expect(prompt.match(/^Question: /gm)).toHaveLength(6);
      expect(prompt.match(/\n#### /g)).toHaveLength(5);
      expect(prompt.endsWith('\nAnswer:')).toBe(true);
    }
  });

  it('asks the exemplars as chat turns with --api chat', async () => {
    const oracle = await server({ mode: 'oracle' });
    const { code, block } = await accuracy(oracle.url, '--api', 'chat', '--problems', '40', '--shots', '3', '--seed', '9');
    expect(code).toBe(0);
    expect(block).toMatchObject({ api: 'chat', problems: 40, shots: 3, seed: 9, accuracy: { strict: 1, flexible: 1 } });
    const sent = generations(oracle);
    expect(oracle.requests.filter((request) => request.url === '/v1/chat/completions')).toHaveLength(40);
    const roles = (sent[0]!['messages'] as Array<{ role: string }>).map((message) => message.role);
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
  });

  it('scores solutions with a wrong final number 0, and prints the summary without --json', async () => {
    const wrong = await server({ mode: 'wrong' });
    const { code, block } = await accuracy(wrong.url, '--problems', '100');
    expect(code).toBe(0);
    expect(block.correct).toEqual({ strict: 0, flexible: 0 });
    expect(block.interval.flexible![0]).toBe(0);
    expect(block.interval.flexible![1]).toBeCloseTo(0.037, 3);
    const summary = await runCli(['accuracy', '--endpoint', wrong.url, '--model', 'gsm8k-test-model', '--problems', '20']);
    expect(summary.code).toBe(0);
    expect(summary.stdout).toContain('flexible-extract 0.0000  95% [0.0000, 0.1611]  (0/20)  headline');
  });

  it('scores a stream that finishes without a word as a wrong answer, not a failed request', async () => {
    const empty = await server({ mode: 'empty' });
    const { code, block } = await accuracy(empty.url, '--problems', '10');
    expect(code).toBe(0);
    expect(block).toMatchObject({ answered: 10, failed: 0, correct: { strict: 0, flexible: 0 } });
    expect(block.records[0]).toMatchObject({ extracted: { strict: '[invalid]', flexible: '[invalid]' }, finish_reason: 'stop', failure: null });
  });

  it('counts failed requests by class, scores the rest, and exits 1', async () => {
    const flaky = await server({ mode: 'oracle', failEvery: 10 });
    const { code, block, stderr } = await accuracy(flaky.url, '--problems', '50', '--concurrency', '1');
    expect(code).toBe(1);
    expect(block).toMatchObject({ problems: 50, answered: 45, failed: 5, failures: { http_error: 5 }, accuracy: { flexible: 1 } });
    expect(block.records.filter((record) => record.failure === 'http_error')).toHaveLength(5);
    expect(stderr).toContain('5 of 50 requests failed (5 http_error); they are not scored. Most said: http_error: HTTP 500: test server: planted failure');
    expect(block.records.find((record) => record.failure !== null)!.failure_message).toBe('HTTP 500: test server: planted failure');
  });

  it('writes --out and never over an existing file', async () => {
    const oracle = await server({ mode: 'oracle' });
    const out = join(dir, 'gsm8k.json');
    const first = await runCli(['accuracy', '--endpoint', oracle.url, '--model', 'gsm8k-test-model', '--problems', '10', '--out', out]);
    expect(first.code).toBe(0);
    expect(AccuracySchema.parse(JSON.parse(readFileSync(out, 'utf8')))).toMatchObject({ status: 'scored', problems: 10 });
    const again = await runCli(['accuracy', '--endpoint', oracle.url, '--model', 'gsm8k-test-model', '--out', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists');
  });
});

describe('servebench accuracy on dummy weights', () => {
  it.each([
    ['--model-weights dummy', { mode: 'oracle' }, ['--model-weights', 'dummy'], '--model-weights dummy'],
    ['the server runs a servebench-made GGUF', { mode: 'oracle', modelPath: '/cache/models/servebench-qwen3-0.6b-q4_k_m-0123456789.gguf' }, [], 'a servebench-made GGUF file'],
    ['the embedded engine serves a shape', { mode: 'oracle', modelId: 'tiny', ownedBy: 'servebench-embedded' }, ['--model', 'tiny'], 'one of its dummy-weight shapes'],
  ] as const)('skips when %s, saying why, exit 2, nothing asked', async (_, options, args, why) => {
    const fake = await server(options as Gsm8kAnswerServerOptions);
    const outcome = await runCli(['accuracy', '--endpoint', fake.url, '--model', 'gsm8k-test-model', '--json', ...args]);
    expect(outcome.code).toBe(2);
    const block = AccuracySchema.parse(JSON.parse(outcome.stdout));
    expect(block).toMatchObject({ status: 'skipped', task: 'gsm8k' });
    expect(block.status === 'skipped' && block.skipped).toMatch(/^dummy weights: /);
    expect(outcome.stderr).toContain(why);
    expect(outcome.stderr).toContain('seeded random weights answer noise');
    expect(generations(fake)).toEqual([]);
  });

  it('skips a dummy:<shape> model without asking its server anything, up or not', async () => {
    const outcome = await runCli(['accuracy', '--endpoint', 'http://127.0.0.1:1', '--model', 'dummy:qwen3-0.6b:Q4_K_M']);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toContain('servebench: accuracy skipped: dummy weights: --model dummy:qwen3-0.6b:Q4_K_M is a dummy-weight model');
  });

  it('runs when told the weights are real, and does not mistake a model of another server named like a shape', async () => {
    const fake = await server({ mode: 'oracle', modelId: 'tiny', modelPath: '/models/servebench-dummy-tiny-seed1-abc.gguf' });
    const told = await accuracy(fake.url, '--model', 'tiny', '--model-weights', 'real', '--problems', '5');
    expect(told.code).toBe(0);
    const other = await server({ mode: 'oracle', modelId: 'tiny' });
    expect((await accuracy(other.url, '--model', 'tiny', '--problems', '5')).code).toBe(0);
  });
});

describe('servebench accuracy: bad usage', () => {
  it('exits 2 with the flag and the fix, before asking anything', async () => {
    const oracle = await server({ mode: 'oracle' });
    const cases: Array<[string[], string]> = [
      [['--model', 'm'], '--endpoint is required'],
      [['--endpoint', oracle.url, '--model', 'm', '--shots', '9'], '--shots: 9 is too large; it must be ≤ 8'],
      [['--endpoint', oracle.url, '--model', 'm', '--problems', '1319'], '--problems: 1319 is too large; it must be ≤ 1314'],
      [['--endpoint', oracle.url, '--model', 'm', '--api', 'embeddings'], '--api: "embeddings" is not one of completions, chat'],
      [['--endpoint', oracle.url, '--model', 'm', '--task', 'mmlu'], '--task: "mmlu" is not one of gsm8k'],
      [['--endpoint', oracle.url, '--model', 'other-model'], '--model: "other-model" is not served'],
      [['--endpoint', 'http://127.0.0.1:1', '--model', 'm'], 'cannot reach http://127.0.0.1:1'],
    ];
    for (const [args, message] of cases) {
      const outcome = await runCli(['accuracy', ...args]);
      expect(outcome.code, args.join(' ')).toBe(2);
      expect(outcome.stderr).toContain(message);
    }
    expect(generations(oracle)).toEqual([]);
  });
});
