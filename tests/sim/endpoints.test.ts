/** Plain endpoints, request validation and /metrics as Prometheus text. */
import { describe, expect, it } from 'vitest';
import { chatBody, completionBody, post, readSse, sim } from './helpers.ts';

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** A strict-enough parser of the text exposition format: every sample must belong to a TYPE'd family. */
function parsePrometheus(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples: Sample[] = [];
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.trimEnd().split('\n')) {
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).toContain(meta[3]);
        types.set(meta[2]!, meta[3]!);
      } else helps.add(meta[2]!);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(sample, `bad line: ${line}`).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const pair of (sample![2] ?? '').split(',').filter(Boolean)) {
      const match = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"$/.exec(pair);
      expect(match, `bad label: ${pair}`).not.toBeNull();
      labels[match![1]!] = match![2]!;
    }
    const value = sample![3] === '+Inf' ? Infinity : Number(sample![3]);
    expect(Number.isNaN(value)).toBe(false);
    const family = sample![1]!.replace(/_(bucket|sum|count)$/, '');
    expect(types.has(sample![1]!) || types.get(family) === 'histogram', `untyped sample ${sample![1]}`).toBe(true);
    expect(helps.has(sample![1]!) || helps.has(family)).toBe(true);
    samples.push({ name: sample![1]!, labels, value });
  }
  return { types, samples };
}

describe('endpoints', () => {
  it('GET /health, /version, /v1/models', async () => {
    const server = await sim({ zeroCost: true, modelName: 'my-model', personality: 'sglang' });
    expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ status: 'ok' });
    const version = (await (await fetch(`${server.url}/version`)).json()) as { version: string; personality: string };
    expect(version.version).toMatch(/^\d+\.\d+\.\d+.*-sim$/);
    expect(version.personality).toBe('sglang');
    const models = (await (await fetch(`${server.url}/v1/models`)).json()) as { object: string; data: { id: string }[] };
    expect(models.object).toBe('list');
    expect(models.data.map((model) => model.id)).toEqual(['my-model']);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers bad requests with OpenAI-style errors', async () => {
    const server = await sim({ zeroCost: true, kvTokens: 1000 });
    const expectError = async (response: Response, status: number, pattern: RegExp): Promise<void> => {
      expect(response.status).toBe(status);
      const body = (await response.json()) as { error: { message: string; type: string; code: number } };
      expect(body.error.message).toMatch(pattern);
      expect(body.error.code).toBe(status);
      expect(typeof body.error.type).toBe('string');
    };
    await expectError(await post(`${server.url}/v1/completions`, completionBody({ model: 'gpt-4' })), 404, /gpt-4.*does not exist/);
    await expectError(await fetch(`${server.url}/v1/completions`, { method: 'POST', body: '{"prompt": "x"' }), 400, /not valid JSON/);
    await expectError(await post(`${server.url}/v1/completions`, { model: 'sim-model' }), 400, /prompt/);
    await expectError(await post(`${server.url}/v1/completions`, completionBody({ prompt: '  ' })), 400, /empty/);
    await expectError(await post(`${server.url}/v1/chat/completions`, { messages: [] }), 400, /messages/);
    await expectError(await post(`${server.url}/v1/completions`, completionBody({ max_tokens: 0 })), 400, /max_tokens/);
    await expectError(await post(`${server.url}/v1/completions`, completionBody({ max_tokens: 995 })), 400, /maximum context length is 1000/);
    await expectError(await post(`${server.url}/v1/completions`, completionBody({ min_tokens: 20 })), 400, /min_tokens/);
    await expectError(await fetch(`${server.url}/v1/completions`), 405, /POST/);
    await expectError(await fetch(`${server.url}/nope`), 404, /no route/);
    // Unknown fields are ignored by the non-trtllm personalities.
    expect((await post(`${server.url}/v1/completions`, completionBody({ stream: false, frequency_penalty: 1, logit_bias: {} }))).status).toBe(200);
    expect(server.groundTruth().filter((record) => record.status === 400)).toHaveLength(7);
  });

  it('/metrics parses as Prometheus text and counts traffic', async () => {
    const server = await sim({ zeroCost: true });
    await readSse(`${server.url}/v1/chat/completions`, chatBody({ max_tokens: 7, ignore_eos: true }));
    await readSse(`${server.url}/v1/completions`, completionBody({ max_tokens: 3, ignore_eos: true }));
    await post(`${server.url}/v1/completions`, completionBody({ model: 'other' }));
    const response = await fetch(`${server.url}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const { types, samples } = parsePrometheus(await response.text());
    const value = (name: string, labels: Record<string, string> = {}): number | undefined =>
      samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    expect(types.get('sim_num_requests_running')).toBe('gauge');
    expect(types.get('sim_num_requests_waiting')).toBe('gauge');
    expect(types.get('sim_kv_cache_usage_ratio')).toBe('gauge');
    expect(types.get('sim_time_to_first_token_seconds')).toBe('histogram');
    expect(value('sim_prompt_tokens_total')).toBe(14 + 6);
    expect(value('sim_generation_tokens_total')).toBe(10);
    expect(value('sim_request_success_total')).toBe(2);
    expect(value('sim_request_failure_total', { reason: 'not_found' })).toBe(1);
    expect(value('sim_time_to_first_token_seconds_count')).toBe(2);
    expect(value('sim_time_to_first_token_seconds_bucket', { le: '+Inf' })).toBe(2);
    const buckets = samples.filter((s) => s.name === 'sim_time_to_first_token_seconds_bucket').map((s) => s.value);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
  });

  it('close() ends open streams and connections promptly', async () => {
    const server = await sim({ decodeBaseMs: 50 });
    const pending = readSse(`${server.url}/v1/completions`, completionBody({ max_tokens: 1000, ignore_eos: true }));
    await new Promise((resolve) => setTimeout(resolve, 120));
    const started = performance.now();
    await server.close();
    expect(performance.now() - started).toBeLessThan(500);
    const result = await pending;
    expect(result.data).not.toContain('[DONE]');
    expect(server.groundTruth()[0]!.end_ms).not.toBeNull();
  });
});
