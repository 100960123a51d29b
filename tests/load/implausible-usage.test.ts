/**
 * A server that reports usage it cannot have meant (completion_tokens 1e300, prompt_tokens 2.5):
 * `servebench load` records the values as reported, flags them, takes the counts from the stream,
 * and writes its result (exit 0), where it used to fail its own schema (exit 70, nothing written).
 * The server is a raw node:http server on 127.0.0.1 speaking vLLM's completions stream.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { runCli } from '../cli/run-cli.ts';

const OUTPUT_TOKENS = 4;
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/v1/models') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'liar', object: 'model' }] }));
      return;
    }
    if (request.url !== '/v1/completions') {
      response.writeHead(404).end();
      return;
    }
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (body: unknown) => response.write(`data: ${JSON.stringify(body)}\n\n`);
      for (let i = 0; i < OUTPUT_TOKENS; i++) chunk({ id: 'x', object: 'text_completion', model: 'liar', choices: [{ index: 0, text: ` w${i}`, finish_reason: i === OUTPUT_TOKENS - 1 ? 'length' : null }] });
      chunk({ id: 'x', object: 'text_completion', model: 'liar', choices: [], usage: { prompt_tokens: 2.5, completion_tokens: 1e300, total_tokens: 1e300 } });
      response.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('records implausible usage as reported, flags it, and counts from the stream', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'servebench-usage-')), 'r.json');
  const outcome = await runCli(['load', '--endpoint', url, '--model', 'liar', '--input-len', '8', '--output-len', String(OUTPUT_TOKENS), '--num-prompts', '5', '--warmup', '0', '--tokenizer', 'none', '--save-requests', '--out', out]);
  expect(outcome.stderr).not.toMatch(/internal error/);
  expect(outcome.code).toBe(0);
  const result = RunResultSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
  const point = result.points[0]!;
  expect(point.implausible_usage).toBe(5);
  expect(point.metrics.output_tokens).toBe(5 * OUTPUT_TOKENS);
  expect(point.token_count_sources.output.events).toBe(5);
  for (const request of point.requests!) {
    expect(request).toMatchObject({ usage_implausible: true, server_completion_tokens: 1e300, server_prompt_tokens: 2.5, output_tokens: OUTPUT_TOKENS, ok: true });
  }
  // Mismatched against the built length: the server's prompt count was not the prompt's.
  expect(point.input_tokens_mismatched).toBe(5);
});
