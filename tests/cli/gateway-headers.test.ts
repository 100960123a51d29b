/**
 * API gateways take their keys under any header name (RapidAPI's X-RapidAPI-Key, Azure Functions'
 * x-functions-key, X-Key, a vendor's X-…-Auth: Basic …). `load` through a real gateway on
 * 127.0.0.1 that refuses requests without them: every request gets in, and the result records each
 * header by its name only (a harmless header such as User-Agent with its value), so it passes
 * validate's credential rule and holds no key.
 */
import { createServer, request, type Server } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSim, type SimChild } from '../../harness/lib/process/spawn-cli.ts';
import { findCredentials, REDACTED } from '../../harness/contract/credentials.ts';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { runCli } from './run-cli.ts';

const KEYS: Record<string, string> = {
  'x-rapidapi-key': 'rapid-secret-1',
  'x-functions-key': 'functions-secret-2',
  'x-key': 'xkey-secret-3',
  'x-acme-auth': `Basic ${Buffer.from('bob:hunter2').toString('base64')}`,
};

/** A gateway in front of the sim: 401 unless every key header is sent as expected. */
function gateway(target: string): Promise<{ server: Server; url: string; counts: { let: number; refused: number } }> {
  const upstream = new URL(target);
  const counts = { let: 0, refused: 0 };
  const server = createServer((req, res) => {
    if (Object.entries(KEYS).some(([name, value]) => req.headers[name] !== value)) {
      counts.refused += 1;
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"missing key"}');
      return;
    }
    counts.let += 1;
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, counts })));
}

describe('gateway key headers: sent, never recorded', () => {
  let sim: SimChild;
  beforeAll(async () => {
    sim = await spawnSim(['--decode-base-ms', '2', '--decode-per-seq-ms', '0']);
  });
  afterAll(async () => {
    await sim?.stop();
  });

  it('load with X-RapidAPI-Key, x-functions-key, X-Key and X-Acme-Auth: Basic: authenticated, the result holds the names only', { timeout: 60_000 }, async () => {
    const gw = await gateway(sim.url);
    try {
      const out = join(mkdtempSync(join(tmpdir(), 'sb-gateway-')), 'load.json');
      const headers = ['X-RapidAPI-Key: rapid-secret-1', 'x-functions-key: functions-secret-2', 'X-Key: xkey-secret-3', `X-Acme-Auth: ${KEYS['x-acme-auth']}`, 'User-Agent: bench/1.0'];
      const outcome = await runCli(['load', '--endpoint', gw.url, '--model', 'sim-model', '--input-len', '16', '--output-len', '8', '--num-prompts', '4', '--warmup', '0', '--concurrency', '2', '--tokenizer', 'none', ...headers.flatMap((h) => ['--header', h]), '--out', out]);
      expect(outcome.code, outcome.stderr).toBe(0);
      expect(gw.counts.refused).toBe(0);
      expect(gw.counts.let).toBeGreaterThanOrEqual(4);
      const text = readFileSync(out, 'utf8');
      for (const secret of ['rapid-secret-1', 'functions-secret-2', 'xkey-secret-3', KEYS['x-acme-auth']!.slice(6)]) {
        expect(text).not.toContain(secret);
        expect(outcome.stderr + outcome.stdout).not.toContain(secret);
      }
      const result = RunResultSchema.parse(JSON.parse(text));
      expect(findCredentials(result)).toEqual([]);
      expect(result.harness.command).toEqual(
        expect.arrayContaining([`X-RapidAPI-Key: ${REDACTED}`, `x-functions-key: ${REDACTED}`, `X-Key: ${REDACTED}`, `X-Acme-Auth: Basic ${REDACTED}`, 'User-Agent: bench/1.0']),
      );
    } finally {
      gw.server.close();
    }
  });
});
