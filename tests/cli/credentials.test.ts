/**
 * Credentials never reach a result (results are public; the site shows harness.command as
 * "Reproduce") nor the terminal, while the run still authenticates with them: `load` through a
 * proxy that refuses requests without the key, `run` against an external endpoint given with
 * userinfo, and `run` of an engine whose command and log carry tokens.
 */
import { createServer, request, type Server } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSim, type SimChild } from '../../harness/lib/process/spawn-cli.ts';
import { findCredentials } from '../../harness/contract/credentials.ts';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { runCli, type CliOutcome, resultFilesIn } from './run-cli.ts';
import { SIM_SHELL, writeSimEngineVariant } from '../run/sim-engine-spec.ts';

const HF = 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567';


/** Every secret is absent from the result's text and from what the command printed; the result passes validate's rule. */
function expectNoSecrets(text: string, outcome: CliOutcome, secrets: readonly string[]): void {
  for (const secret of secrets) {
    expect(text, `result holds ${secret}`).not.toContain(secret);
    expect(outcome.stdout, `stdout holds ${secret}`).not.toContain(secret);
    expect(outcome.stderr, `stderr holds ${secret}`).not.toContain(secret);
  }
  expect(findCredentials(JSON.parse(text))).toEqual([]);
}

/** A gateway in front of the sim that answers 401 unless both credentials are sent. */
function authProxy(target: string, expected: Record<string, string>): Promise<{ server: Server; url: string; authorized: () => number; refused: () => number }> {
  const upstream = new URL(target);
  let authorized = 0;
  let refused = 0;
  const server = createServer((req, res) => {
    if (Object.entries(expected).some(([name, value]) => req.headers[name] !== value)) {
      refused += 1;
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    authorized += 1;
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${port}`, authorized: () => authorized, refused: () => refused });
    }),
  );
}

describe('credentials are used, never recorded or printed', () => {
  let sim: SimChild;
  const dir = mkdtempSync(join(tmpdir(), 'servebench-credentials-'));
  beforeAll(async () => {
    sim = await spawnSim(['--decode-base-ms', '2', '--decode-per-seq-ms', '0']);
  });
  afterAll(async () => {
    await sim?.stop();
  });

  const common = ['--model', 'sim-model', '--input-len', '16', '--output-len', '8', '--num-prompts', '6', '--warmup', '1', '--concurrency', '2', '--tokenizer', 'none'];

  it('load --endpoint with userinfo, --api-key and a key header: authenticated run, no secret in the result or the output', { timeout: 60_000 }, async () => {
    const proxy = await authProxy(sim.url, { authorization: 'Bearer sekrit-api-key', 'x-api-key': 'hdr-secret-1' });
    try {
      const endpoint = proxy.url.replace('http://', 'http://bob:hunter2@');
      const out = join(dir, 'load.json');
      const outcome = await runCli(['load', '--endpoint', endpoint, ...common, '--api-key', 'sekrit-api-key', '--header', 'X-Api-Key: hdr-secret-1', '--extra-body', '{"api_key":"body-secret-1"}', '--out', out]);
      expect(outcome.code, outcome.stderr).toBe(0);
      // It ran through the gateway with its credentials: every request was let in.
      expect(proxy.refused()).toBe(0);
      expect(proxy.authorized()).toBeGreaterThanOrEqual(7);
      const text = readFileSync(out, 'utf8');
      const result = RunResultSchema.parse(JSON.parse(text));
      expect(result.points[0]!.metrics.completed).toBe(6);
      expectNoSecrets(text, outcome, ['hunter2', 'bob:', 'sekrit-api-key', 'hdr-secret-1', 'body-secret-1']);
      // What was redacted still says what was given: the URL, and that a key and a header were.
      expect(result.harness.command).toEqual(expect.arrayContaining(['--endpoint', proxy.url, '--api-key', '<redacted>', '--extra-body', '{"api_key":"<redacted>"}']));
      expect(result.target.endpoint).toBe(proxy.url);
      expect(result.workload.extra_body).toEqual({ api_key: '<redacted>' });
    } finally {
      proxy.server.close();
    }
  });

  it('userinfo alone is HTTP Basic authentication: a gateway that wants it lets every request in', { timeout: 60_000 }, async () => {
    const proxy = await authProxy(sim.url, { authorization: `Basic ${Buffer.from('bob:hunter2').toString('base64')}` });
    try {
      const out = join(dir, 'basic.json');
      const outcome = await runCli(['load', '--endpoint', proxy.url.replace('http://', 'http://bob:hunter2@'), ...common, '--out', out]);
      expect(outcome.code, outcome.stderr).toBe(0);
      expect(proxy.refused()).toBe(0);
      expectNoSecrets(readFileSync(out, 'utf8'), outcome, ['hunter2', 'bob:']);
    } finally {
      proxy.server.close();
    }
  });

  it('an endpoint refused for its query does not print the token in it', async () => {
    const outcome = await runCli(['load', '--endpoint', `${sim.url}/v1?token=query-secret-1`, ...common]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/must not have a query/);
    expect(outcome.stderr).not.toContain('query-secret-1');
  });

  it('run --launcher external --endpoint with userinfo: no secret in the result or the output', { timeout: 60_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const endpoint = sim.url.replace('http://', 'http://bob:hunter2@');
    const outcome = await runCli(['run', '--engine', 'sim', '--launcher', 'external', '--endpoint', endpoint, '--model', 'sim-model', '--workload', 'smoke', '--concurrency', '1', '--num-prompts', '4', '--tokenizer', 'none', '--results-dir', results]);
    const files = resultFilesIn(results);
    expect(files, outcome.stderr).toHaveLength(1);
    const text = readFileSync(files[0]!, 'utf8');
    expectNoSecrets(text, outcome, ['hunter2', 'bob:']);
    const result = RunResultSchema.parse(JSON.parse(text));
    expect({ code: outcome.code, status: result.status, failure: result.run!.failure }).toEqual({ code: 0, status: 'completed', failure: null });
    expect(result.harness.command).toContain(sim.url);
  });

  it('run of an engine whose command and log carry tokens: the failed result keeps the log tail, without them', { timeout: 60_000 }, async () => {
    const engines = mkdtempSync(join(tmpdir(), 'sb-engines-'));
    // A launcher script with a token in it, that logs its arguments the way vLLM does, then never becomes healthy.
    const script = `export HF_TOKEN=${HF}; echo "non-default args: {'model': '$1', 'api_key': 'engine-secret-1'}"; echo "Authorization: Bearer log-bearer-secret-1"; exec ${SIM_SHELL} --model-name "$1" --port "$2"`;
    const engine = writeSimEngineVariant(engines, {
      name: 'leaky',
      command: ['bash', '-c', script, 'engine', '{model}', '{port}'],
      modelAndPort: 'in-command',
      healthPath: '/not-a-health-path',
      healthTimeoutS: 3,
      description: 'a test engine that leaks tokens into its command and log',
    });
    const results = mkdtempSync(join(tmpdir(), 'sb-results-'));
    const outcome = await runCli(['run', '--engine', engine, '--model', 'sim-model', '--workload', 'smoke', '--tokenizer', 'none', '--results-dir', results]);
    expect(outcome.code).toBe(1);
    const files = resultFilesIn(results);
    expect(files).toHaveLength(1);
    const text = readFileSync(files[0]!, 'utf8');
    expectNoSecrets(text, outcome, [HF, 'engine-secret-1', 'log-bearer-secret-1']);
    const result = RunResultSchema.parse(JSON.parse(text));
    expect(result.run!.failure!.phase).toBe('health');
    expect(result.run!.failure!.log_tail).toEqual(expect.arrayContaining(["non-default args: {'model': 'sim-model', 'api_key': '<redacted>'}", 'Authorization: Bearer <redacted>']));
    expect(result.run!.engine.command[2]).toContain('export HF_TOKEN=<redacted>;');
  });
});
