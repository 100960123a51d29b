import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('servebench load: bad input is one clear line and exit status 2', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['unknown flag', ['--endpoint', 'http://127.0.0.1:1', '--model', 'm', '--bogus'], /unknown option '--bogus'/i],
    ['malformed URL', ['--endpoint', 'not a url', '--model', 'm'], /--endpoint: "not a url" is not a URL/],
    ['wrong scheme', ['--endpoint', 'ftp://127.0.0.1:1', '--model', 'm'], /must use http/],
    ['concurrency 0', ['--endpoint', 'http://127.0.0.1:1', '--model', 'm', '--concurrency', '0'], /--concurrency: 0 is too small; it must be ≥ 1/],
    ['concurrency not a number', ['--endpoint', 'http://127.0.0.1:1', '--model', 'm', '--concurrency', '4,x'], /--concurrency: "x" is not an integer/],
    ['missing model', ['--endpoint', 'http://127.0.0.1:1'], /--model is required/],
    ['rate and concurrency', ['--endpoint', 'http://127.0.0.1:1', '--model', 'm', '--rate', '1', '--concurrency', '2'], /either --concurrency .* or --rate/],
    ['burstiness without rate', ['--endpoint', 'http://127.0.0.1:1', '--model', 'm', '--burstiness', '0.5'], /--burstiness applies to open loop only/],
    ['bad SLO key', ['--endpoint', 'http://127.0.0.1:1', '--model', 'm', '--slo', 'ttft=5'], /--slo: unknown key "ttft"; allowed keys: ttft_ms, tpot_ms, e2el_ms/],
    ['bad extra body', ['--endpoint', 'http://127.0.0.1:1', '--model', 'm', '--extra-body', '{x'], /--extra-body: not valid JSON/],
    ['timeout beyond what a timer holds', ['--endpoint', 'http://127.0.0.1:1', '--model', 'm', '--timeout', '3000000'], /--timeout: 3000000 is too large; it must be ≤ 2147483/],
    ['extra body overriding a measured field', ['--endpoint', 'http://127.0.0.1:1', '--model', 'm', '--extra-body', '{"max_tokens":5}'], /--extra-body: max_tokens is set by servebench/],
    ['failure rate above 1', ['--endpoint', 'http://127.0.0.1:1', '--model', 'm', '--max-failure-rate', '2'], /--max-failure-rate: 2 is too large/],
  ];
  for (const [name, args, message] of cases) {
    it(name, async () => {
      const outcome = await runCli(['load', ...args]);
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toMatch(message);
      expect(outcome.stderr.trim().split('\n')).toHaveLength(1);
      expect(outcome.stdout).toBe('');
    });
  }

  it('unreachable server', async () => {
    const port = await closedPort();
    const outcome = await runCli(['load', '--endpoint', `http://127.0.0.1:${port}`, '--model', 'm', '--num-prompts', '1']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(new RegExp(`cannot reach http://127.0.0.1:${port} \\(ECONNREFUSED\\)`));
    expect(outcome.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('--help lists every option and exits 0', async () => {
    const outcome = await runCli(['load', '--help']);
    expect(outcome.code).toBe(0);
    for (const flag of ['--endpoint', '--concurrency', '--rate', '--burstiness', '--max-concurrency', '--slo', '--out', '--json']) {
      expect(outcome.stdout).toContain(flag);
    }
  });

  it('an unknown command is exit 2', async () => {
    const outcome = await runCli(['nope']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/unknown command "nope"/);
  });
});
